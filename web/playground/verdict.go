package playground

import (
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// phaseOf returns the phase of e's run of p, for the verdicts the page
// shows while the run goes on.
func phaseOf(e *simengine.Engine, p scenario.Params) scenario.Phase {
	return scenario.Phase{
		Done: e.Now() >= p.Duration,
		Down: e.Down(),
		// A fault that is not an outage (a load spike) disrupts the run
		// too: the verdicts judge the recoveries after it.
		AnyOutage: e.OutageCount() > 0,
		Scheduled: e.OutageAhead(),
	}
}
