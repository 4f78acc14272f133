package realexp

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// shedAbove is the load shedding of TestExperimentShedAbove: three times
// the curve experiment's steady concurrency (≈18), where the curve's delay
// is still 1.05^6 × 100 ms ≈ 134 ms.
const shedAbove = 60

// shedExperiment is TestExperimentFixedVsBackoff's scenario, lane a
// (fixed, every 100 ms) alone, on a server that sheds load above 60
// inside:
//
//	go run . run -server_model curve -clients 200 -think 1s -timeout 500ms -server_limit 30 -server_k 5 \
//	    -outage_at 3s -outage_for 3s -duration 12s -report 1s -lanes 1 -a.strategy fixed -shed_above 60
//
// predicts, where without shedding fixed's storm holds thousands inside
// and serves nobody: the flood at the resume fills the server to 60 and
// the rest of it, and the retries that follow within the next few
// hundred milliseconds, are answered with errors (737 in the second after
// the resume; 675 to 737 with seeds 1 to 6), then none; ok/s at the
// baseline's from the second after on (177 against 179).
func shedExperiment() scenario.Params {
	p := curveExperiment()
	p.Lanes = p.Lanes[:1]
	p.ShedAbove = shedAbove
	p.Tick, p.Seed = reportEvery, 1
	return p
}

// simErrors are the errors a simulated lane's clients heard, tick by tick.
type simErrors struct {
	tick time.Duration
	n    []float64 // n[i]: in the tick that ends at (i+1) ticks
}

// in returns the errors in (from, to], whole ticks.
func (e simErrors) in(from, to time.Duration) float64 {
	var sum float64
	for i, n := range e.n {
		if at := time.Duration(i+1) * e.tick; at > from && at <= to {
			sum += n
		}
	}
	return math.Round(sum)
}

// shedPrediction is the simulator's run of shedExperiment until end: the
// errors its clients heard, and its summary.
func shedPrediction(t *testing.T, p scenario.Params, end time.Duration) (simErrors, scenario.Summary) {
	t.Helper()
	sim := p.Clone()
	sim.Duration = end
	errs := simErrors{tick: p.Tick}
	sums, err := simengine.Run(context.Background(), sim, func(tk scenario.Tick) {
		errs.n = append(errs.n, tk.Lanes[0].Errors*p.Tick.Seconds())
	})
	if err != nil {
		t.Fatal(err)
	}
	return errs, sums[0]
}

// errorsIn returns the errors the real lane's clients heard in the windows
// within (from, to], give or take half a window; timeoutsIn their timeouts.
func (l *lane) errorsIn(from, to, window time.Duration) int64 {
	return l.sumIn(from, to, window, func(c Counts) int64 { return c.Errors })
}

func (l *lane) timeoutsIn(from, to, window time.Duration) int64 {
	return l.sumIn(from, to, window, func(c Counts) int64 { return c.Timeouts })
}

func (l *lane) sumIn(from, to, window time.Duration, f func(Counts) int64) int64 {
	var n int64
	for _, w := range l.windows {
		if w.Start >= from-window/2 && w.End <= to+window/2 {
			n += f(w.Counts)
		}
	}
	return n
}

// shedWatch is how long TestExperimentShedAbove watches after the resume:
// the verdict's recovery needs 5 s of service after the outage.
const shedWatch = 6 * time.Second

// TestShedPredicted pins the simulator's numbers that docs/real-experiment.md quotes
// for TestExperimentShedAbove.
func TestShedPredicted(t *testing.T) {
	p := shedExperiment()
	resume := p.OutageAt + p.OutageFor
	errs, sum := shedPrediction(t, p, resume+shedWatch)
	after, before := errs.in(resume, resume+2*time.Second), errs.in(0, p.OutageAt)
	verdict := sum.Verdict(scenario.Finished).Text
	if after != 737 || before != 0 {
		t.Errorf("%.0f errors in the 2 s after the resume, %.0f before the pause; docs/real-experiment.md says 737 and none", after, before)
	}
	for _, w := range []string{"service back 0.0s after the outage (ok/s at 90 % of baseline), server never (concurrency above its healthy level); peak concurrency 60;", "(amplification 1.80)"} {
		if !strings.Contains(verdict, w) {
			t.Errorf("verdict %q lacks %q, which docs/real-experiment.md quotes", verdict, w)
		}
	}
	doc, err := os.ReadFile("../docs/real-experiment.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(doc)), " ")
	for _, w := range []string{"737 in the 2 s after the resume", `"service back 0.0s after the outage (ok/s at 90 % of baseline), server never (concurrency above its healthy level); peak concurrency 60", with 1.80 attempts per request`} {
		if !strings.Contains(text, w) {
			t.Errorf("docs/real-experiment.md no longer says %q", w)
		}
	}
}

// TestExperimentShedAbove is load shedding's experiment, simulated and
// real: the same scenario with shed_above on, whose shape must agree: no
// errors before the pause, a burst of errors the size of the simulator's
// as the flood is shed, the concurrency never past shed_above, and the
// clients served at the baseline's rate again within a second.
func TestExperimentShedAbove(t *testing.T) {
	if testing.Short() {
		t.Skip("a 12 s real-time experiment")
	}
	p := shedExperiment()
	resume := p.OutageAt + p.OutageFor
	end := resume + shedWatch
	simErrs, simSum := shedPrediction(t, p, end)
	simErr, simBefore, simFlood := simErrs.in(resume, resume+2*time.Second), simErrs.in(0, p.OutageAt), simErrs.in(resume, resume+p.Tick)
	if simErr < 500 || simBefore != 0 || simSum.Collapsed || simSum.ServiceRecoveredAfter == nil || simSum.PeakConcurrency != shedAbove {
		t.Fatalf("the simulator no longer predicts a shed flood and a recovery here: %.0f errors after the resume, %.0f before; %+v",
			simErr, simBefore, simSum)
	}

	l := &lane{}
	runLane(t, p, 0, l, shedWatch)
	l.log(t)
	if l.err != nil {
		t.Fatal(l.err)
	}
	l.skipIfStarved(t)
	base := l.okRate(time.Second, p.OutageAt)
	if base < 120 {
		t.Skipf("baseline %.1f ok/s, the model's is about 180: the machine is too busy for this experiment", base)
	}
	// The errors after the resume the server was actually told of: on a
	// busy machine the control goroutine's tick comes late; and in the 2 s
	// of the process running after it, for the time it was starved of the
	// CPU the clients did not retry.
	realErr, realBefore := l.errorsIn(l.resumed, l.ranFor(l.resumed, 2*time.Second), p.Tick), l.errorsIn(0, p.OutageAt, p.Tick)
	realFlood := l.errorsIn(l.resumed, l.resumed+p.Tick, p.Tick)
	maxC, maxBefore, shed := 0, 0, int64(0)
	for _, sm := range l.samples {
		maxC = max(maxC, sm.peak)
		if sm.t <= p.OutageAt {
			maxBefore = max(maxBefore, sm.peak)
		}
		shed = sm.st.Shed
	}
	realSum := l.summary(p, l.end)
	say := func(s scenario.Summary) string { return s.Verdict(scenario.Finished).Text }
	after := l.okRate(l.resumed+time.Second, l.end)
	t.Logf("simulator: %.0f errors in the 2 s after the resume, %.0f in its first tick; %s", simErr, simFlood, say(simSum))
	t.Logf("real:      resumed at %v; %d errors in the 2 s after the resume, %d in its first tick (server: %d shed in all); peak concurrency %d; ok/s %.1f before, %.1f from 1 s after the resume; %s",
		l.resumed, realErr, realFlood, shed, maxC, base, after, say(realSum))

	// Before the pause the model has about 18 inside and no timeouts
	// (100 ms answers for a 500 ms timeout). A process that stalls a few
	// hundred milliseconds lets the arrivals of the stall in at once, and
	// may fill the server to shed_above: then there is no steady state to
	// compare. Short of that, a shed answer there is a bug.
	if to := l.timeoutsIn(0, p.OutageAt, p.Tick); to > 0 || maxBefore >= shedAbove {
		t.Skipf("%d timeouts and a peak of %d inside before the pause: the machine is too busy for this experiment", to, maxBefore)
	}
	if realBefore != 0 {
		t.Errorf("%d errors before the pause, with at most %d inside: the steady state should shed nothing", realBefore, maxBefore)
	}
	if maxC > shedAbove {
		t.Errorf("peak concurrency %d, past shed_above %d", maxC, shedAbove)
	}
	// The burst's size. The simulator's seeds 1 to 6 spread it by ±5 %,
	// but the real count is phase-sensitive: a shed client retries 100 ms
	// later, the 60 inside drain in about 134 ms, so whether a round of
	// retries meets a full server (and is shed again) depends on how long
	// the answers take to arrive. Six real runs measured 498 to 740
	// errors for the simulator's 737; under -race, whose slowdown spreads
	// the flood's answers over a couple of hundred milliseconds, 304 to
	// 451 (and the first tick's count, the flood itself, is 0 to 185 as
	// the answers straddle its end). The band keeps the shape, several shed answers per waiting
	// client and none before the pause, and still fails both ways a
	// broken protection would go: no shedding gives no errors and a
	// collapse, an unshed flood a collapse whose retries are all shed.
	lo := 0.5
	if testrace.Enabled {
		lo = 0.25
	}
	if float64(realErr) < lo*simErr || float64(realErr) > 1.35*simErr {
		t.Errorf("%d errors in the 2 s after the resume, the simulator's %.0f: want %.0f %% to 135 %% of it", realErr, simErr, 100*lo)
	}
	if after < 0.7*base || realSum.Collapsed || realSum.ServiceRecoveredAfter == nil {
		t.Errorf("ok/s %.1f from 1 s after the resume against a baseline of %.1f, verdict %q: want the service back", after, base, say(realSum))
	}
}
