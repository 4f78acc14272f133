package sweep

import (
	"context"
	"fmt"

	"github.com/backofflab/backofflab/budget"
)

// RunCell runs cell i of s, 0 ≤ i < s.Cells(), on the calling goroutine,
// within mem (nil: unbounded), and returns it as Run would emit it. It is
// Run's one cell, for a caller that schedules the cells itself: a server
// that runs each cell inside its own slot for a core and takes each cell's
// memory from its pool, which may refuse.
func RunCell(ctx context.Context, s Spec, i int, mem *budget.Account) (Cell, error) {
	if i < 0 || i >= s.Cells() {
		return Cell{}, fmt.Errorf("sweep: cell %d of a sweep of %d cells", i, s.Cells())
	}
	var memory func() *budget.Account
	if mem != nil {
		memory = func() *budget.Account { return mem }
	}
	return runCell(ctx, s.Cell(i), memory)
}
