package simengine

import (
	"math"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// faultRun runs p with faults and returns lane a's ticks.
func faultRun(t *testing.T, p scenario.Params, faults string) (*Engine, []scenario.LaneTick) {
	t.Helper()
	p.Faults = mustFaults(faults)
	e, ticks := simRun(t, p)
	return e, simSeries(ticks, 0)
}

// TestFaultKinds: each fault does what it says during its window, and
// nothing outside it.
func TestFaultKinds(t *testing.T) {
	t.Parallel()
	closed := func() scenario.Params { // 001's load on 001's server, no outage
		p := scenario.Defaults()
		p.ServerModel = "curve"
		p.Outage, p.Duration = scenario.OutageNone, 120*time.Second
		p.Lanes = []scenario.Lane{simLane(strategies.NameFixed)}
		return p
	}
	saturated := func() scenario.Params { // 400 req/s offered to 300 of capacity
		p := openQueue(30, 100*time.Millisecond, 400, 120*time.Second)
		p.Tick = 100 * time.Millisecond
		return p
	}
	mean := func(lts []scenario.LaneTick, from, to float64, f func(scenario.LaneTick) float64) float64 {
		return simMean(simWindow(lts, from, to), f)
	}
	ok := func(lt scenario.LaneTick) float64 { return lt.OK }

	t.Run("capacity_drop halves throughput", func(t *testing.T) {
		_, lts := faultRun(t, saturated(), "capacity_drop:60s:30s:0.5")
		before, during, after := mean(lts, 30, 60, ok), mean(lts, 65, 90, ok), mean(lts, 100, 120, ok)
		t.Logf("ok/s %.1f, %.1f during the drop, %.1f after", before, during, after)
		if math.Abs(before-300) > 10 || math.Abs(during-150) > 8 || math.Abs(after-300) > 10 {
			t.Errorf("ok/s %.1f before, %.1f during, %.1f after; want 300, 150, 300", before, during, after)
		}
	})
	t.Run("error_burst fails a share of answers fast", func(t *testing.T) {
		_, lts := faultRun(t, closed(), "error_burst:40s:40s:0.5")
		errs := func(lt scenario.LaneTick) float64 { return lt.Errors }
		share := mean(lts, 41, 80, errs) / (mean(lts, 41, 80, errs) + mean(lts, 41, 80, ok))
		t.Logf("errors are %.3f of the answers during the burst", share)
		if math.Abs(share-0.5) > 0.03 || mean(lts, 0, 40, errs) != 0 || mean(lts, 81, 120, errs) != 0 {
			t.Errorf("errors %.3f of the answers in the burst, %v and %v outside", share, mean(lts, 0, 40, errs), mean(lts, 81, 120, errs))
		}
		if p99 := mean(lts, 41, 80, func(lt scenario.LaneTick) float64 { return float64(lt.Concurrency) }); p99 > 30 {
			t.Errorf("mean concurrency %.1f: the errors did not fail fast", p99)
		}
	})
	t.Run("load_spike multiplies the offered load", func(t *testing.T) {
		_, lts := faultRun(t, closed(), "load_spike:40s:40s:3")
		base, spike := mean(lts, 10, 40, ok), mean(lts, 60, 80, ok)
		t.Logf("ok/s %.1f, %.1f in the spike", base, spike)
		if r := spike / base; r < 2.7 || r > 3.2 {
			t.Errorf("ok/s %.1f in the spike, %.1f before: ×%.2f, want about ×3", spike, base, r)
		}
	})
	t.Run("latency_spike multiplies the service time", func(t *testing.T) {
		p := openQueue(30, 100*time.Millisecond, 50, 120*time.Second)
		p.Tick = 100 * time.Millisecond
		_, lts := faultRun(t, p, "latency_spike:40s:40s:4")
		conc := func(lt scenario.LaneTick) float64 { return float64(lt.Concurrency) }
		base, spike := mean(lts, 10, 40, conc), mean(lts, 50, 80, conc)
		t.Logf("concurrency %.2f, %.2f in the spike (Little: 50/s × 0.1 s = 5, × 0.4 s = 20)", base, spike)
		if math.Abs(base-5) > 0.5 || math.Abs(spike-20) > 2 {
			t.Errorf("mean concurrency %.2f before and %.2f in the spike; want 5 and 20", base, spike)
		}
	})
	t.Run("faults compose", func(t *testing.T) {
		e, lts := faultRun(t, closed(), "load_spike:40s:40s:2,error_burst:40s:40s:0.5,pause:100s:5s")
		errs := func(lt scenario.LaneTick) float64 { return lt.Errors }
		base, att := mean(lts, 10, 40, ok), mean(lts, 50, 80, func(lt scenario.LaneTick) float64 { return lt.Attempts })
		share := mean(lts, 50, 80, errs) / att
		t.Logf("attempts %.1f/s in the spike (base %.1f ok/s), %.3f of them errors", att, base, share)
		if math.Abs(share-0.5) > 0.03 || att < 1.8*base {
			t.Errorf("attempts %.1f/s against %.1f before, %.3f errors; want twice the load, half of it errors", att, base, share)
		}
		if e.Downs() != 1 {
			t.Errorf("%d outages, want the pause of faults", e.Downs())
		}
		kinds, spans := e.OutageKinds(), e.Outages()
		want := []string{scenario.FaultLoadSpike, scenario.FaultErrorBurst, scenario.OutagePause}
		if len(kinds) != 3 || kinds[0] != want[0] || kinds[1] != want[1] || kinds[2] != want[2] {
			t.Fatalf("windows %v, want %v", kinds, want)
		}
		if spans[0] != [2]time.Duration{40 * time.Second, 80 * time.Second} || spans[2] != [2]time.Duration{100 * time.Second, 105 * time.Second} {
			t.Errorf("windows %v", spans)
		}
	})
}

// TestFaultsSeveralOutages: outages of faults come after the scheduled one,
// each of its own kind, and the verdict judges the last.
func TestFaultsSeveralOutages(t *testing.T) {
	p := scenario.Defaults()
	p.ServerModel = "curve"
	p.Lanes = []scenario.Lane{simLane(strategies.NameThinkScaled)}
	p.Faults = mustFaults("crash:60s:5s,partition:90s:2s")
	probe := simNew(t, p)
	for _, at := range []struct {
		t    time.Duration
		want bool
	}{{0, true}, {70 * time.Second, true}, {91 * time.Second, false}} {
		simAdvance(t, probe, at.t)
		if got := probe.OutageAhead(); got != at.want {
			t.Errorf("at %v: OutageAhead %v, want %v", at.t, got, at.want)
		}
	}
	e, _ := faultRun(t, p, scenario.FaultsText(p.Faults))
	if e.Downs() != 3 {
		t.Fatalf("%d outages, want 3", e.Downs())
	}
	kinds := e.OutageKinds()
	if len(kinds) != 3 || kinds[0] != "pause" || kinds[1] != "crash" || kinds[2] != "partition" {
		t.Errorf("kinds %v", kinds)
	}
	s := e.Summaries()[0]
	if s.ServerRecoveredAfter == nil {
		t.Errorf("think_scaled after a 2 s partition: %+v", s)
	}
}

// TestFaultsLiveSet: a fault set live whose window holds now takes effect
// now; removed, it ends at once.
func TestFaultsLiveSet(t *testing.T) {
	p := scenario.Defaults()
	p.ServerModel = "curve"
	p.Outage = scenario.OutageNone
	p.Lanes = []scenario.Lane{simLane(strategies.NameFixed)}
	e := simNew(t, p)
	simAdvance(t, e, 10*time.Second)
	p.Faults = mustFaults("error_burst:5s:20s:1")
	if err := e.Set(p); err != nil {
		t.Fatal(err)
	}
	ticks := simAdvance(t, e, 20*time.Second)
	lts := simSeries(ticks, 0)
	if m := simMean(simWindow(lts, 11, 20), func(lt scenario.LaneTick) float64 { return lt.OK }); m != 0 {
		t.Errorf("%.1f ok/s while every answer is an error", m)
	}
	p.Faults = mustFaults("")
	if err := e.Set(p); err != nil {
		t.Fatal(err)
	}
	ticks = simAdvance(t, e, 30*time.Second)
	if m := simMean(simWindow(simSeries(ticks, 0), 21, 30), func(lt scenario.LaneTick) float64 { return lt.Errors }); m != 0 {
		t.Errorf("%.1f errors/s after the burst was removed", m)
	}
	if sp := e.Outages(); len(sp) != 1 || sp[0][1] != 20*time.Second {
		t.Errorf("windows %v, want the burst's, ended at its removal", sp)
	}
}

// TestFaultsLiveSetAtAStart: faults set live at the very time a fault
// starts apply it once, whether the run had taken its start before the
// change or not, and its window opens once.
func TestFaultsLiveSetAtAStart(t *testing.T) {
	p := simSmall()
	p.Faults = mustFaults("load_spike:5s:10s:2")
	for _, tc := range toAStart(5 * time.Second) {
		t.Run(tc.name, func(t *testing.T) {
			e := simNew(t, p)
			tc.step(e)
			q := e.Params()
			q.Faults = mustFaults("load_spike:5s:10s:2,error_burst:20s:1s:0.5")
			if err := e.Set(q); err != nil {
				t.Fatal(err)
			}
			e.AdvanceTo(6*time.Second, nil)
			if want := p.Think / 2; e.eff.Think != want || len(e.effects) != 1 {
				t.Errorf("think time %v with the faults in effect %v, want %v: the spike once", e.eff.Think, e.effects, want)
			}
			if w := e.Outages(); len(w) != 1 || w[0] != [2]time.Duration{5 * time.Second, -1} {
				t.Errorf("windows %v, want the spike's from 5 s", w)
			}
		})
	}
}

// toAStart returns the two ways a run may stand at time at, a fault's
// start, when its faults are set live: the start taken (AdvanceTo takes
// the transitions at its target), or not yet (a slice that ends at the
// tick of at leaves them).
func toAStart(at time.Duration) []struct {
	name string
	step func(e *Engine)
} {
	return []struct {
		name string
		step func(e *Engine)
	}{
		{"taken", func(e *Engine) { e.AdvanceTo(at, nil) }},
		{"not yet", func(e *Engine) {
			for !e.Step(at, 1, nil) {
			}
		}},
	}
}

// mustFaults returns the faults of text, which must be valid: the tests'
// own edge, as a flag's or URL's is Parse.
func mustFaults(text string) []scenario.Fault {
	fs, err := scenario.ParseFaults(text)
	if err != nil {
		panic(err)
	}
	return fs
}

// mustTiers returns the tiers of text, which must be valid.
func mustTiers(text string) []scenario.Tier {
	ts, err := scenario.ParseTiers(text)
	if err != nil {
		panic(err)
	}
	return ts
}
