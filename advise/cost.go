package advise

import (
	"context"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// pilotLimit is the most CPU time the estimate's pilot run takes before
// its cost is extrapolated.
const pilotLimit = 2 * time.Second

// EstimateCost returns what Run of r will cost at most, before any of its
// runs: the runs it may make (every setting of the search on every seed
// of every scenario of the suite, as if the staged search dropped none,
// every protection likewise, the margins' bisections to their bounds on
// the outage, the map and the moves that choose its knobs, and the fresh
// check's two settings on the suite) and their CPU time, costed by a
// pilot run of each scenario of the suite (lane a today, the first seed)
// measured by simengine.MeasureCost within o.Memory. A margin's run is
// weighted by its size (its longer run, or its clients or rate), at most
// the bound's. It is an estimate, an upper bound on the runs: a staged
// search drops the settings that miss a goal after their first run, a
// setting that storms costs more than one that recovers, a pilot that did
// not end within its limit was extrapolated (Whole says none was), and a
// search that meets the goals runs no protection.
func EstimateCost(ctx context.Context, r Request, o Options) (Estimate, error) {
	s := &search{r: r}
	today := &setting{p: r.Scenario}
	var suiteCost, outageCost time.Duration
	whole := true
	for _, sc := range suite {
		cost, err := pilot(ctx, s.in(sc, today).p, o)
		if err != nil {
			return Estimate{}, err
		}
		suiteCost += cost.Time
		whole = whole && cost.Whole
		if sc.name == ScenarioOutage {
			outageCost = cost.Time
		}
	}
	k := r.Seeds
	s.knobs = knobsOf(r.Library, r.Scenario.Lanes[0].Params)
	s.thin()
	settings := len(s.grid()) + 1
	settings += len(protectionsFor(r.Scenario, r.Library, s.knobs))
	settings += mapSide*mapSide + 2*len(s.knobs)
	settings += 2 // the fresh check: the advice and the runner-up
	plain := k * settings
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
		Runs:  plain*len(suite) + 2*k*marginTests,
		CPU:   time.Duration(float64(suiteCost)*float64(plain) + float64(outageCost)*margin),
		Pilot: suiteCost,
		Whole: whole,
	}, nil
}

// pilot measures the CPU time of a run of p within a budget of o.Memory.
func pilot(ctx context.Context, p scenario.Params, o Options) (simengine.Cost, error) {
	var mem *budget.Account
	if o.Memory != nil {
		var err error
		if mem, err = o.Memory(); err != nil {
			return simengine.Cost{}, err
		}
		defer mem.Close()
	}
	return simengine.MeasureCost(ctx, p, mem, pilotLimit)
}
