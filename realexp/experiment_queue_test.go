package realexp

import (
	"context"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/strategies"
)

// The worker queue's experiment at small scale: 200 clients thinking 3 s
// on average with a 500 ms timeout (≈65 req/s) against 20 workers of
// 100 ms (200 req/s: the steady load is a third of the capacity), paused
// 3 s at 3 s. The think time is 3 s, not 1 s as in the curve's test: a
// storm of fixed retries sends clients/(timeout + 100 ms) ≈ 330 req/s, and
// only a capacity under that keeps it going once the pause is over. Lane a
// retries every 100 ms (fixed), lane b as 001's text describes
// (exponential: 100 ms, ×2, jitter 0.1, capped at 15 min):
//
//	go run . run -clients 200 -think 3s -timeout 500ms -server_model queue -workers 20 \
//	    -service_time 100ms -outage_at 3s -outage_for 3s -duration 24s -report 1s \
//	    -a.strategy fixed -b.strategy exponential -b.min_delay 100ms -b.factor 2 -b.jitter 0.1 -b.max_delay 15m
//
// predicts, per second after the resume at 6 s:
//
//	fixed:       concurrency 500, 559, 622, 723, 824, …, 1506 at 16 s; 0 ok/s; COLLAPSED
//	exponential: concurrency 339, 268, 176, 76, then 7; ok/s 0 until 10 s, then
//	             113, 76, 86, …; server recovered 4.5 s and service 2.1 s after the outage
//
// against a baseline of 62 ok/s; with seeds 1 to 6 the same verdicts over
// 24 s (exponential's server back 4.5 to 5.2 s after the outage, fixed's
// concurrency 2317 to 2660 at the end): a margin that the assertions keep.
func queueExperiment() scenario.Params {
	p := scenario.Defaults()
	p.Clients, p.Think, p.Timeout = 200, 3*time.Second, 500*time.Millisecond
	p.ServerModel, p.Workers, p.ServiceTime = scenario.QueueModel, 20, 100*time.Millisecond
	p.ServiceDist, p.QueueOrder, p.Backlog = scenario.ServiceExp, scenario.QueueFIFO, 4096
	p.Outage, p.OutageAt, p.OutageFor = scenario.OutagePause, 3*time.Second, 3*time.Second
	p.Tick, p.Seed = 100*time.Millisecond, 1
	fixed, exp := laneOf(strategies.NameFixed), laneOf(strategies.NameExponential)
	fixed.MinDelay = 100 * time.Millisecond
	exp.MinDelay, exp.Factor, exp.Jitter, exp.MaxDelay = 100*time.Millisecond, 2, 0.1, 15*time.Minute
	p.Lanes = []scenario.Lane{fixed, exp}
	return p
}

// summary is the lane's verdict by the simulator's rules: its windows and
// samples cut into p's ticks and fed to a scenario.Detector, with p's
// outage at its times.
func (l *lane) summary(p scenario.Params, end time.Duration) scenario.Summary {
	det := scenario.NewDetector(p)
	var tot Counts
	wi, si, lastC := 0, 0, 0
	started, ended := false, false
	for t := p.Tick; t <= end; t += p.Tick {
		if !started && t > p.OutageAt {
			det.OutageStarted()
			started = true
		}
		if !ended && t > p.OutageAt+p.OutageFor {
			det.OutageEnded(p.OutageAt + p.OutageFor)
			ended = true
		}
		var ok int64
		for ; wi < len(l.windows) && l.windows[wi].End <= t+p.Tick/2; wi++ {
			w := l.windows[wi]
			ok += w.OK
			tot.Requests += w.Requests
			tot.Attempts += w.Attempts
			tot.OK += w.OK
			tot.GaveUp += w.GaveUp
		}
		maxC := lastC
		for ; si < len(l.samples) && l.samples[si].t <= t+p.Tick/2; si++ {
			maxC = max(maxC, l.samples[si].peak)
			lastC = l.samples[si].st.Concurrency
		}
		det.Tick(t, ok, 0, maxC)
	}
	return det.Summary(tot.Requests, tot.Attempts, tot.OK, tot.GaveUp)
}

// TestExperimentQueue is the worker queue's experiment, real and simulated:
// the simulator's verdicts for the scenario come first (the parameters
// still mean a collapse for fixed and a recovery for exponential), then the
// real server and clients, twice, side by side, must give the same ones.
func TestExperimentQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("a 15 s real-time experiment")
	}
	if soft, _, err := RaiseFileLimit(); err == nil && soft < 10_000 {
		t.Skipf("open-file limit %d: the fixed lane's storm holds thousands of connections", soft)
	}
	p := queueExperiment()
	const watch = 9 * time.Second
	resume := p.OutageAt + p.OutageFor
	end := resume + watch

	simulate := func(d time.Duration) []scenario.Summary {
		sim := p.Clone()
		sim.Duration = d
		sum, err := simengine.Run(context.Background(), sim, nil)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	// Long enough for exponential's server to stay under the workers 5 s.
	if sum := simulate(end + 10*time.Second); !sum[0].Collapsed || sum[1].Collapsed ||
		sum[1].ServerRecoveredAfter == nil || sum[1].ServiceRecoveredAfter == nil {
		t.Fatalf("the simulator no longer predicts fixed's collapse and exponential's recovery here: %+v, %+v", sum[0], sum[1])
	}
	simSum := simulate(end) // as long as the real run, to set beside it

	// Exponential's service is back when the clients' ok rate over 5 s
	// is 90 % of the baseline's again: clients starved of the CPU by a
	// busy machine send less, and take longer to show it, so that lane
	// runs on until its verdict says so, or its bound.
	fixed, exp := runLanes(t, p, watch, func(l *lane, now time.Duration) bool {
		return l.summary(p, now).ServiceRecoveredAfter != nil
	})
	// As in the curve's test: on a machine so starved that the steady
	// state is not the model's, there is no before-and-after to compare.
	for _, l := range []*lane{fixed, exp} {
		if base := l.okRate(time.Second, p.OutageAt); base < 40 {
			t.Skipf("%s: baseline %.1f ok/s, the model's is about 65: the machine is too busy for this experiment", l.strategy, base)
		}
	}
	fixedSum, expSum := fixed.summary(p, fixed.end), exp.summary(p, exp.end)
	say := func(s scenario.Summary) string { return s.Verdict(scenario.Finished).Text }
	t.Logf("simulator: fixed %s; exponential %s", say(simSum[0]), say(simSum[1]))
	t.Logf("real:      fixed %s; exponential %s", say(fixedSum), say(expSum))

	// Fixed: the backlog the pause left and the retries keep the workers
	// busy with requests whose clients have gone, and the queue grows.
	workers := p.Workers
	var last Stats
	for _, sm := range fixed.samples {
		if sm.t >= resume+time.Second && sm.st.Concurrency <= 10*workers {
			t.Errorf("fixed: concurrency %d at %v: the queue drained (want ≫ %d)", sm.st.Concurrency, sm.t, workers)
			break
		}
		last = sm.st
	}
	if last.Concurrency < 25*workers {
		t.Errorf("fixed: concurrency %d at the end, want ≥ %d (the simulator's: about 1300)", last.Concurrency, 25*workers)
	}
	fixedBase, fixedEnd := fixed.okRate(time.Second, p.OutageAt), fixed.okRate(fixed.end-2*time.Second, fixed.end)
	if fixedEnd > 0.1*fixedBase || !fixedSum.Collapsed {
		t.Errorf("fixed: %.1f ok/s in the last 2 s, baseline %.1f, verdict %q: want a collapse", fixedEnd, fixedBase, say(fixedSum))
	}
	// Exponential: the workers drain the queue within seconds, and the
	// clients are served again.
	// Within 8 s of the process running: the time it was starved of the
	// CPU in between does not count.
	back := exp.backUnder(resume, workers)
	if ran := back - exp.lateIn(resume, resume+back); back < 0 || ran > 8*time.Second {
		t.Errorf("exponential: the queue drained %v after the resume (%v of it running), want within 8 s (the simulator's: 4.5 s)", back, ran)
	}
	if c := exp.samples[len(exp.samples)-1].st.Concurrency; c > 3*workers {
		t.Errorf("exponential: concurrency %d at the end, want ≤ %d", c, 3*workers)
	}
	if expSum.Collapsed || expSum.ServiceRecoveredAfter == nil {
		t.Errorf("exponential: verdict %q, want the service recovered", say(expSum))
	}
	t.Logf("baseline ok/s: fixed %.1f, exponential %.1f; last 2 s: fixed %.1f, exponential %.1f; exponential's queue drained %v after the resume",
		fixedBase, exp.okRate(time.Second, p.OutageAt), fixedEnd, exp.okRate(exp.end-2*time.Second, exp.end), back)
}
