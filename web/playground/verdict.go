package playground

import (
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
		Scheduled: e.OutageAhead(),
	}
}
