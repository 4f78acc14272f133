package sweep

import (
	"context"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/parallel"
	"github.com/backofflab/backofflab/simengine"
)

// Estimate is about how much core time a sweep takes, from its corners:
// the cells at the ends of its axes (first seed), each measured by
// simengine.MeasureCost. A cell between them is costed by interpolating
// the corners along each axis, so the sweep's total is its cells times
// the corners' mean. It is an estimate, not a bound: a run's cost need
// not be monotone between two corners, and a corner that did not end
// within its limit was extrapolated (Whole says none was).
type Estimate struct {
	spec    Spec
	corners [2][2]time.Duration // [y end][x end]
	// Whole reports whether every corner ran to its end.
	Whole bool
}

// EstimateCost measures the corners of s (two without a y axis, else
// four), each for at most limit of work, on parallel.Do's goroutines (a
// pool's share, under one), with each corner's memory from memory (nil:
// unbounded).
func EstimateCost(ctx context.Context, s Spec, limit time.Duration, memory func() (*budget.Account, error)) (Estimate, error) {
	est := Estimate{spec: s, Whole: true}
	ys := 1
	if s.Y.Name != "" {
		ys = 2
	}
	costs := make([]simengine.Cost, 2*ys)
	err := parallel.Do(ctx, 0, len(costs), func(ctx context.Context, c int) error {
		x, y := (c%2)*(s.X.Steps-1), (c/2)*(s.ySteps()-1)
		k := s.Cell(s.index(x, y, 0))
		p, err := k.Params()
		if err != nil {
			return err
		}
		var mem *budget.Account
		if memory != nil {
			if mem, err = memory(); err != nil {
				return err
			}
			defer mem.Close()
		}
		costs[c], err = simengine.MeasureCost(ctx, p, mem, limit)
		return err
	})
	if err != nil {
		return Estimate{}, err
	}
	for c, cost := range costs {
		est.corners[c/2][c%2] = cost.Time
		est.Whole = est.Whole && cost.Whole
	}
	if ys == 1 {
		est.corners[1] = est.corners[0]
	}
	return est, nil
}

// Cell returns the estimated core time of cell i.
func (e Estimate) Cell(i int) time.Duration {
	k := e.spec.Cell(i)
	fx, fy := frac(k.X, e.spec.X.Steps), frac(k.Y, e.spec.ySteps())
	lerp := func(a, b time.Duration, f float64) float64 { return float64(a) + (float64(b)-float64(a))*f }
	return time.Duration(lerp(
		time.Duration(lerp(e.corners[0][0], e.corners[0][1], fx)),
		time.Duration(lerp(e.corners[1][0], e.corners[1][1], fx)), fy))
}

// frac is step i's place between an axis's ends, 0 to 1.
func frac(i, steps int) float64 {
	if steps < 2 {
		return 0
	}
	return float64(i) / float64(steps-1)
}

// Total returns the estimated core time of every cell: the cells times
// the corners' mean, which is what Cell adds up to over the grid.
func (e Estimate) Total() time.Duration {
	var sum time.Duration
	for _, row := range e.corners {
		sum += row[0] + row[1]
	}
	return time.Duration(float64(sum) / 4 * float64(e.spec.Cells()))
}
