package simengine

import (
	"testing"
	"time"

	"backofflab/scenario"
	"backofflab/strategies"
)

// TestLoadShedding: a shedding server never holds more than shed_above
// requests, answers the rest at once with an error, and sheds nothing
// while it is under the level.
func TestLoadShedding(t *testing.T) {
	for _, model := range []string{"curve", scenario.QueueModel} {
		t.Run(model, func(t *testing.T) {
			p := scenario.Defaults()
			p.ServerModel, p.ShedAbove = model, 100
			p.Lanes = []scenario.Lane{simLane(strategies.NameFixed)}
			e, ticks := simRun(t, p)
			lts := simSeries(ticks, 0)
			var shedAt float64 = -1
			for _, lt := range lts {
				if lt.Concurrency > p.ShedAbove {
					t.Fatalf("t=%v: %d inside, shed_above %d", lt.T, lt.Concurrency, p.ShedAbove)
				}
				if lt.Errors > 0 && shedAt < 0 {
					shedAt = lt.T
				}
			}
			// Nothing is shed before the outage: 001's load keeps about a
			// dozen requests inside.
			if before := simMean(simWindow(lts, 0, 20), func(lt scenario.LaneTick) float64 { return lt.Errors }); before != 0 {
				t.Errorf("%.1f errors/s before the outage", before)
			}
			if shedAt < 20 {
				t.Errorf("the first shed request at %v s, want after the outage", shedAt)
			}
			after := simWindow(lts, 36, 120)
			t.Logf("%s: errors %.0f/s and ok %.0f/s after the outage; %+v", model,
				simMean(after, func(lt scenario.LaneTick) float64 { return lt.Errors }),
				simMean(after, func(lt scenario.LaneTick) float64 { return lt.OK }), e.Summaries()[0])
		})
	}
	// Off, it changes nothing: the same run as with a level never reached.
	p := scenario.Defaults()
	p.Duration = 40 * time.Second
	_, a := simRun(t, p)
	p.ShedAbove = 1_000_000
	_, b := simRun(t, p)
	for i := range a {
		for j := range a[i].Lanes {
			if x, y := a[i].Lanes[j].AppendJSON(nil), b[i].Lanes[j].AppendJSON(nil); string(x) != string(y) {
				t.Fatalf("tick %d: %s, then %s", i, x, y)
			}
		}
	}
}
