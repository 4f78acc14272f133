package realexp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// The real experiment at small scale, its parameters checked with the
// simulator first. 001's run scaled down: 200 clients thinking 1 s on
// average with a 500 ms timeout (≈180 req/s), a server of limit 30 and k 5
// (steady concurrency ≈ 18), paused 3 s at 3 s:
//
//	go run . run -server_model curve -clients 200 -think 1s -timeout 500ms -server_limit 30 -server_k 5 \
//	    -outage_at 3s -outage_for 3s -duration 12s -report 1s \
//	    -a.strategy fixed -b.strategy think_scaled
//
// predicts, per second after the resume at 6 s:
//
//	fixed:        concurrency 1135, 1469, 1801, 2131, …, 2801 at 12 s; 0 ok/s; COLLAPSED
//	think_scaled: concurrency 4, 5, 3, 8, …, 16; ok/s 12, 66, 66, 88, …, 131;
//	              server recovered 0.9 s after the outage
//
// against a baseline of 179 ok/s: a margin of hundreds of requests on the
// fixed side and of seconds on the backoff side, which the assertions keep.
const (
	expClients  = 200
	expThink    = time.Second
	expTimeout  = 500 * time.Millisecond
	expLimit    = 30
	expK        = 5
	expPauseAt  = 3 * time.Second
	expPauseFor = 3 * time.Second
)

// curveExperiment is the scenario of TestExperimentFixedVsBackoff, lane a
// fixed and lane b think_scaled.
func curveExperiment() scenario.Params {
	p := scenariotest.CurveDefaults() // 001's curve: the defaults' server is the worker queue
	p.Clients, p.Think, p.Timeout = expClients, expThink, expTimeout
	p.ServerLimit, p.ServerK = expLimit, expK
	p.Outage, p.OutageAt, p.OutageFor = scenario.OutagePause, expPauseAt, expPauseFor
	p.Lanes = []scenario.Lane{laneOf(strategies.NameFixed), laneOf(strategies.NameThinkScaled)}
	return p
}

// laneOf is a lane of strategy with its defaults.
func laneOf(strategy string) scenario.Lane {
	sp, _ := strategies.Defaults(strategy)
	return scenario.Lane{Params: sp}
}

// sample is the server's state at t after the start, and the highest
// concurrency since the previous sample.
type sample struct {
	t    time.Duration
	st   Stats
	peak int
}

type lane struct {
	strategy string
	// until, if set, is the state the lane's run waits for past its end,
	// up to the bound runLane sets (see there); it is called with mu held.
	until func(l *lane, now time.Duration) bool
	// mu guards windows while the run goes on.
	mu      sync.Mutex
	windows []Window
	samples []sample
	err     error
	// resumed is when the server was told to resume, after the start: on
	// a busy machine, later than the scenario's time.
	resumed time.Duration
	// end is when the run ended, after the start: the scenario's end and
	// the time the process was starved of the CPU (see runLane).
	end time.Duration
	// starved is set when the process was starved of the CPU for longer
	// than the run could make up for: it ended before the scenario's end
	// of running time.
	starved bool
}

// skipIfStarved skips the test, naming l, if l's run was starved of the
// CPU beyond what it could make up for: on such a machine the clients
// cannot send the load the scenario means, and the experiment has nothing
// to compare with the model.
func (l *lane) skipIfStarved(t *testing.T) {
	t.Helper()
	if l.starved {
		all, most := l.lateness()
		t.Skipf("%s: the process was starved of the CPU for %v of its %v run (%v at once), more than the run can make up for: the machine is too busy for this experiment",
			l.strategy, all, l.end, most)
	}
}

// runLanes runs p's lanes a and b at once, each with a server of its own
// (runLane), logs them, and stops the test if either failed, or skips it
// if either was starved of the CPU (skipIfStarved).
func runLanes(t *testing.T, p scenario.Params, watch time.Duration, untilB func(*lane, time.Duration) bool) (a, b *lane) {
	t.Helper()
	a, b = &lane{}, &lane{until: untilB}
	var wg sync.WaitGroup
	for i, l := range []*lane{a, b} {
		wg.Go(func() { runLane(t, p, i, l, watch) })
	}
	wg.Wait()
	a.log(t)
	b.log(t)
	for _, l := range []*lane{a, b} {
		if l.err != nil {
			t.Fatalf("%s: %v", l.strategy, l.err)
		}
	}
	a.skipIfStarved(t)
	b.skipIfStarved(t)
	return a, b
}

// runLane runs the server and clients of p's lane i through p's pause,
// watching for watch after the resume: watch of the process running. A
// busy machine starves the process, clients and server with it, of the
// CPU, for seconds in all under load, and the scenario gets that much
// less done in its time: the run goes on as much longer, as the samples'
// lateness measures it, up to half the watch more (under -race the fixed
// lanes' storms may not grow much past their watch); a run starved longer
// than that is marked so (skipIfStarved). A lane with until set runs on
// past its end, to the same bound, until that state holds: a recovery
// that a busy machine's clients, starved, take longer to show.
func runLane(t *testing.T, p scenario.Params, i int, l *lane, watch time.Duration) {
	l.strategy = p.Lanes[i].Strategy
	s, addr := startServer(t, ServerConfigOf(&p, i), nil)
	ccfg := ClientConfigOf(&p, i)
	ccfg.Addr, ccfg.Report = addr, reportEvery
	end := p.OutageAt + p.OutageFor + watch
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := time.Now()

	var wg sync.WaitGroup
	wg.Go(func() { // the outage, through the control endpoint, and the samples
		hc := testClient(t)
		control := func(what string) {
			resp, err := hc.Post("http://"+addr+"/control/"+what, "", nil)
			if err != nil {
				l.err = fmt.Errorf("%s: %v", what, err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				l.err = fmt.Errorf("%s: %s", what, resp.Status)
			}
		}
		paused, resumed := false, false
		tick := time.NewTicker(sampleEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			now := time.Since(start)
			if !paused && now >= p.OutageAt {
				control("pause")
				paused = true
			}
			if !resumed && now >= p.OutageAt+p.OutageFor {
				l.resumed = time.Since(start)
				control("resume")
				resumed = true
			}
			l.samples = append(l.samples, sample{time.Since(start), s.Stats(), s.TakePeak()})
			if late, _ := l.lateness(); now-late >= end && l.reached(now) || now >= end+watch/2 {
				l.end, l.starved = now, now-late < end
				cancel()
				return
			}
		}
	})
	_, err := RunClients(ctx, ccfg, func(w Window) {
		l.mu.Lock()
		l.windows = append(l.windows, w)
		l.mu.Unlock()
	})
	wg.Wait()
	if err != nil {
		l.err = err
	}
}

// reached reports whether l's until, if any, holds at now.
func (l *lane) reached(now time.Duration) bool {
	if l.until == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.until(l, now)
}

// sampleEvery is how often runLane samples the server.
const sampleEvery = 100 * time.Millisecond

// reportEvery is the clients' report window in the experiments: the
// simulator's tick, so that the lanes' verdicts come from the same ticks.
const reportEvery = 100 * time.Millisecond

// backUnder returns how long after resume the server, running again, was
// first seen with at most limit requests inside, or -1 if never.
func (l *lane) backUnder(resume time.Duration, limit int) time.Duration {
	for _, sm := range l.samples {
		if sm.t >= resume && sm.st.Concurrency <= limit && !sm.st.Paused {
			return sm.t - resume
		}
	}
	return -1
}

// lateIn is how much later than their ticks the samples in (from, to]
// came: the time the process was starved of the CPU then.
func (l *lane) lateIn(from, to time.Duration) time.Duration {
	var d time.Duration
	for i := 1; i < len(l.samples); i++ {
		if sm := l.samples[i]; sm.t > from && sm.t <= to {
			d += max(sm.t-l.samples[i-1].t-sampleEvery, 0)
		}
	}
	return d
}

// ranFor returns when, after from, the process had run for d: d, and the
// time it was starved of the CPU in between (lateIn), as far as the
// samples tell.
func (l *lane) ranFor(from, d time.Duration) time.Duration {
	to := from + d
	// Each round counts the lateness of the time the previous one added.
	for range 4 {
		to = from + d + l.lateIn(from, to)
	}
	return to
}

// okRate is the clients' ok/s over [from, to).
func (l *lane) okRate(from, to time.Duration) float64 {
	var n int64
	var d time.Duration
	for _, w := range l.windows {
		if w.Start >= from && w.End <= to+50*time.Millisecond {
			n += w.OK
			d += w.Elapsed()
		}
	}
	if d == 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// lateness is how much later than their ticks (sampleEvery) the samples
// came, in all and at most: the time the process, clients and server with
// it, was starved of the CPU, which a model of its load does not know of.
func (l *lane) lateness() (all, most time.Duration) {
	for i := 1; i < len(l.samples); i++ {
		if late := l.samples[i].t - l.samples[i-1].t - sampleEvery; late > 0 {
			all, most = all+late, max(most, late)
		}
	}
	return all, most
}

// log writes the lane's time series, one line per second.
func (l *lane) log(t *testing.T) {
	all, most := l.lateness()
	t.Logf("%s: samples late by %v in all, %v at most", l.strategy, all, most)
	var b strings.Builder
	for _, sm := range l.samples {
		if sm.t%time.Second < 100*time.Millisecond {
			fmt.Fprintf(&b, "\n  t=%4.1fs concurrency %5d backlog %5d completed %6d  client ok/s %6.1f",
				sm.t.Seconds(), sm.st.Concurrency, sm.st.Backlog, sm.st.Completed,
				l.okRate(sm.t-time.Second, sm.t))
		}
	}
	t.Logf("%s:%s", l.strategy, b.String())
}

// TestExperimentFixedVsBackoff is the real experiment's test: the real server and
// clients, twice, side by side. With fixed-interval retries the server does
// not recover within the window; with 001's backoff it does.
func TestExperimentFixedVsBackoff(t *testing.T) {
	if testing.Short() {
		t.Skip("a 10 s real-time experiment")
	}
	if soft, _, err := RaiseFileLimit(); err == nil && soft < 10_000 {
		t.Skipf("open-file limit %d: the fixed lane's storm holds thousands of connections", soft)
	}
	// Under -race, at most 8128 goroutines may live and the storm holds two
	// per request inside the server: watch 4 s (≈2300 inside) instead of 6.
	watch := 6 * time.Second
	if testrace.Enabled {
		watch = 4 * time.Second
	}
	p := curveExperiment()
	fixed, backoff := runLanes(t, p, watch, nil)

	resume := expPauseAt + expPauseFor
	// The experiment means something only if the steady state before the
	// pause is the model's (≈180 ok/s, concurrency ≈ 18): on a machine so
	// starved that attempts time out before any pause, there is no
	// before-and-after to compare.
	for _, l := range []*lane{fixed, backoff} {
		if base := l.okRate(time.Second, expPauseAt); base < 120 {
			t.Skipf("%s: baseline %.1f ok/s, the model's is about 180: the machine is too busy for this experiment", l.strategy, base)
		}
	}
	// Fixed: the flood and the retries keep the server far over its limit,
	// and nothing comes back to the clients.
	var last Stats
	for _, sm := range fixed.samples {
		if sm.t >= resume+time.Second && sm.st.Concurrency <= 5*expLimit {
			t.Errorf("fixed: concurrency %d at %v: the server recovered (want ≫ %d)", sm.st.Concurrency, sm.t, expLimit)
			break
		}
		last = sm.st
	}
	if last.Concurrency < 10*expLimit {
		t.Errorf("fixed: concurrency %d at the end, want ≥ %d", last.Concurrency, 10*expLimit)
	}
	fixedBase, fixedEnd := fixed.okRate(time.Second, expPauseAt), fixed.okRate(fixed.end-2*time.Second, fixed.end)
	if fixedEnd > 0.1*fixedBase {
		t.Errorf("fixed: %.1f ok/s in the last 2 s, baseline %.1f: want under 10%%", fixedEnd, fixedBase)
	}
	// Backoff: the server is back under its limit within seconds, and the
	// clients are served again.
	// Within 3 s of the process running: the time it was starved of the
	// CPU in between does not count.
	recovered := backoff.backUnder(resume, expLimit)
	if ran := recovered - backoff.lateIn(resume, resume+recovered); recovered < 0 || ran > 3*time.Second {
		t.Errorf("think_scaled: server back under its limit %v after the resume (%v of it running), want within 3 s", recovered, ran)
	}
	if c := backoff.samples[len(backoff.samples)-1].st.Concurrency; c > 3*expLimit {
		t.Errorf("think_scaled: concurrency %d at the end, want ≤ %d", c, 3*expLimit)
	}
	backBase, backEnd := backoff.okRate(time.Second, expPauseAt), backoff.okRate(backoff.end-2*time.Second, backoff.end)
	if backEnd < 0.2*backBase {
		t.Errorf("think_scaled: %.1f ok/s in the last 2 s, baseline %.1f: want at least 20%%", backEnd, backBase)
	}
	t.Logf("baseline ok/s: fixed %.1f, think_scaled %.1f; last 2 s: fixed %.1f, think_scaled %.1f; think_scaled back under the limit %v after the resume",
		fixedBase, backBase, fixedEnd, backEnd, recovered)
}
