package simengine

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
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

// TestQueueTimeout: a worker answers at once with an error each request
// that waited longer than queue_timeout, so under a load the workers cannot
// carry no request waits much longer, the workers stay as busy, and the
// excess fails fast.
func TestQueueTimeout(t *testing.T) {
	p := openQueue(30, 100*time.Millisecond, 400, 120*time.Second) // 400/s for 300/s
	p.Tick = 100 * time.Millisecond
	p.QueueTimeout = 50 * time.Millisecond
	ok, errs, mean := overloadedQueue(t, p)
	t.Logf("ok %.1f/s, errors %.1f/s, the served waited %.1f ms on average", ok, errs, 1000*mean)
	if ok < 290 || ok > 305 || errs < 90 || errs > 110 || mean > 0.050 {
		t.Errorf("ok %.1f/s, errors %.1f/s, mean wait %.3f s; want ~300, ~100 and at most the 50 ms timeout", ok, errs, mean)
	}
	// Without it the queue grows to the backlog and every wait is long.
	p.QueueTimeout, p.Backlog = 0, 4096
	e, _ := simRun(t, p)
	if without := meanWait(e); without < 1 {
		t.Errorf("without a queue timeout the mean wait is %.3f s, want the backlog's seconds", without)
	}
}

// overloadedQueue runs p, one lane against the queue model, and returns
// its mean ok/s and errors/s from 20 s to 120 s, and the mean wait of the
// requests its workers served.
func overloadedQueue(t *testing.T, p scenario.Params) (ok, errs, wait float64) {
	t.Helper()
	e, ticks := simRun(t, p)
	win := simWindow(simSeries(ticks, 0), 20, 120)
	ok = simMean(win, func(lt scenario.LaneTick) float64 { return lt.OK })
	errs = simMean(win, func(lt scenario.LaneTick) float64 { return lt.Errors })
	return ok, errs, meanWait(e)
}

// meanWait is the mean wait in seconds of the requests lane a's queue
// model served.
func meanWait(e *Engine) float64 {
	m := e.lanes[0].model.(*queueModel)
	return m.waited.Seconds() / float64(m.started)
}

// TestCoDel: under a load the workers cannot carry, controlled delay keeps
// the served requests' waits short (codel_target while overloaded, at most
// codel_interval) by serving the newest first and failing the excess fast;
// under a load they carry it fails only the few caught in a queue that did
// not empty for an interval.
func TestCoDel(t *testing.T) {
	over := openQueue(30, 100*time.Millisecond, 400, 120*time.Second) // 400/s for 300/s
	over.Tick = 100 * time.Millisecond
	over.QueueControl = scenario.QueueControlCoDel
	ok, errs, mean := overloadedQueue(t, over)
	t.Logf("overloaded: ok %.1f/s, errors %.1f/s, the served waited %.1f ms on average", ok, errs, 1000*mean)
	if ok < 280 || errs < 80 || mean > 0.030 {
		t.Errorf("ok %.1f/s, errors %.1f/s, mean wait %.4f s; want ~300, ~100 and a few times codel_target (5 ms)", ok, errs, mean)
	}
	// Under capacity (250/s for 300/s) the queue mostly empties: about
	// 1 % of the requests fail (2.5/s), where without codel none does.
	under := openQueue(30, 100*time.Millisecond, 250, 60*time.Second)
	under.QueueControl = scenario.QueueControlCoDel
	_, ticks := simRun(t, under)
	if n := simMean(simSeries(ticks, 0), func(lt scenario.LaneTick) float64 { return lt.Errors }); n > 5 {
		t.Errorf("%.2f errors/s at 5/6 of capacity, want under 2 %% of 250/s", n)
	}
}
