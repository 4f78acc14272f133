package web

import (
	"slices"

	"backofflab/scenario"
	"backofflab/simengine"
)

// phaseOf returns the phase of e's run of p, for the verdicts the page
// shows while the run goes on.
func phaseOf(e *simengine.Engine, p scenario.Params) scenario.Phase {
	return scenario.Phase{
		Done:      e.Now() >= p.Duration,
		Down:      e.Down(),
		AnyOutage: e.Downs() > 0,
		Scheduled: slices.ContainsFunc(scenario.AllFaults(&p), func(f scenario.Fault) bool {
			return scenario.IsOutage(f.Kind) && f.For > 0 && f.At > e.Now()
		}),
	}
}
