package kit

import (
	"context"
	"fmt"
	"time"

	"github.com/backofflab/backofflab/internal/parallel"
)

// viewSlots bounds what the many-run views (the phase map, the seed bands,
// the contention study, the advice) may cost the server together: at most maxViews of
// them run at once, a newcomer past that is told the server is busy; all
// of them share a pool of cores, each view a share of it with a budget of
// core time (parallel.Pool), so that a light view finishes in about its
// time alone × the views running however heavy the others' runs are, and
// no view holds the cores for longer than its budget. The budget a view
// is held to as it runs is twice the one its estimate must fit in
// (Limits.ViewCPU): an estimate is no bound, and the time a core is
// held counts the moments other processes had it.
type viewSlots struct {
	views  chan struct{} // one token per running view
	pool   *parallel.Pool
	budget time.Duration // each view's core time
}

func newViewSlots(maxViews, cores int, budget time.Duration) *viewSlots {
	return &viewSlots{views: make(chan struct{}, maxViews), pool: parallel.NewPool(cores, parallel.DefaultQuantum), budget: 2 * budget}
}

// begin takes a view's slot, or says why it cannot: the caller runs the
// view's work under the returned context, its share of the pool, and
// calls end when the work is over.
func (a *viewSlots) begin(ctx context.Context) (share context.Context, end func(), err error) {
	select {
	case a.views <- struct{}{}:
		return a.pool.Join(ctx, a.budget), func() { <-a.views }, nil
	default:
		return nil, nil, fmt.Errorf("server busy: %d maps, bands or studies are running, as many as run at once; try again when one ends", cap(a.views))
	}
}
