package advise

import (
	"context"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/simengine"
)

// pilotLimit is the most CPU time the estimate's pilot run takes before
// its cost is extrapolated.
const pilotLimit = 2 * time.Second

// EstimateCost returns what Run of r will cost at most, before any of its
// runs: the runs it may make (every setting of the search on every seed,
// every protection, the margins' bisections to their bounds, the map and
// the moves that choose its knobs, and the fresh check's two settings) and their CPU time, costed by a pilot
// run of r's scenario (lane a today, the first seed) measured by
// simengine.MeasureCost within o.Memory. A margin's run is weighted by its
// size (its longer run, or its clients or rate), at most the bound's. It
// is an estimate: a setting that storms costs more than one that
// recovers, a pilot that did not end within its limit was extrapolated
// (Whole says none was), and a search that meets the goals runs no
// protection.
func EstimateCost(ctx context.Context, r Request, o Options) (Estimate, error) {
	var mem *budget.Account
	if o.Memory != nil {
		var err error
		if mem, err = o.Memory(); err != nil {
			return Estimate{}, err
		}
		defer mem.Close()
	}
	cost, err := simengine.MeasureCost(ctx, r.Scenario, mem, pilotLimit)
	if err != nil {
		return Estimate{}, err
	}
	k := r.Seeds
	s := &search{r: r}
	s.knobs = knobsOf(r.Library, r.Scenario.Lanes[0].Params)
	s.thin()
	plain := k * (len(s.grid()) + 1)
	plain += k * len(protectionsFor(r.Scenario, r.Library, s.knobs))
	plain += k * (mapSide*mapSide + 2*len(s.knobs))
	plain += 2 * k // the fresh check: the advice and the runner-up
	// A margin doubles its value up to its bound, then bisects below the
	// first value that failed: its runs cost at most the doublings' sizes
	// and the rest of its tests at the bound's.
	p := r.Scenario
	outage := func(scale float64) float64 {
		return (p.Duration + time.Duration(float64(p.OutageFor)*(scale-1))).Seconds() / p.Duration.Seconds()
	}
	load := func(scale float64) float64 { return scale }
	weight := func(bound float64, size func(float64) float64) float64 {
		w, tests := 0.0, 0
		for v := 2.0; v <= bound; v *= 2 {
			w += size(v)
			tests++
		}
		return w + float64(marginTests-tests)*size(bound)
	}
	margin := float64(k) * (weight(r.outageScale, outage) + weight(r.loadScale, load))
	return Estimate{
		Runs:  plain + 2*k*marginTests,
		CPU:   time.Duration(float64(cost.Time) * (float64(plain) + margin)),
		Pilot: cost.Time,
		Whole: cost.Whole,
	}, nil
}
