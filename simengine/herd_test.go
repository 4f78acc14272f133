package simengine

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// herdClosed is a closed loop of 1000 clients thinking 10 s on average
// whose server answers at once what it cannot take: 20 workers serving
// 100 ms each (200 req/s, twice the ordinary load of about 99 req/s) that
// shed every request beyond 20 inside with an error, so that a failed
// attempt's retry comes exactly one delay later, no timeout between. Lane
// a retries with cenkalti/backoff at factor 1: a delay of delay, ± jitter
// × delay evenly (jitter 1: U[0, 2·delay]). The ticks last 100 ms.
func herdClosed(delay time.Duration, jitter float64) scenario.Params {
	p := scenario.Defaults()
	p.Clients, p.Think = 1000, 10*time.Second
	p.ServerModel, p.Workers, p.ServiceTime, p.ServiceDist = scenario.QueueModel, 20, 100*time.Millisecond, scenario.ServiceExp
	p.ShedAbove = 20
	p.Outage, p.Duration, p.Tick = scenario.OutageNone, 120*time.Second, 100*time.Millisecond
	l := simLane(strategies.NameCenkalti)
	l.MinDelay, l.MaxDelay, l.Factor, l.Jitter = delay, delay, 1, jitter
	p.Lanes = []scenario.Lane{l}
	return p
}

// roomy makes p's server take a whole herd at once: as many workers as
// clients, no shedding, so that a tick's attempts are the requests begun
// in it.
func roomy(p scenario.Params) scenario.Params {
	p.Workers, p.ShedAbove = p.Clients, 0
	return p
}

// perTick returns how many events a tick's rate says there were.
func perTick(p *scenario.Params, rate float64) float64 { return math.Round(rate * p.Tick.Seconds()) }

// attempts is a lane tick's attempts per second.
func attempts(lt scenario.LaneTick) float64 { return lt.Attempts }

// herdBooks checks that lane a of run e, of p, counted every request once:
// the ticks' successes and give-ups add up to the summary's, its open
// requests are the clients waiting on an attempt or to retry at the end
// (a closed loop's client, and an open loop's request, has at most one
// open), and in a closed loop every client is at every tick thinking or
// on a request.
func herdBooks(t *testing.T, p *scenario.Params, e *Engine, lts []scenario.LaneTick) {
	t.Helper()
	s := e.Summaries()[0]
	var ok, gaveUp float64
	for _, lt := range lts {
		ok += perTick(p, lt.OK)
		gaveUp += perTick(p, lt.GaveUp)
		if p.Arrival == scenario.ArrivalClosed && lt.Thinking+lt.Alive != p.Clients {
			t.Fatalf("t = %.1f s: %d thinking and %d on a request, want %d clients", lt.T, lt.Thinking, lt.Alive, p.Clients)
		}
	}
	if int64(ok) != s.Succeeded || int64(gaveUp) != s.GaveUp {
		t.Errorf("the ticks count %v successes and %v give-ups, the summary %d and %d", ok, gaveUp, s.Succeeded, s.GaveUp)
	}
	if last := lts[len(lts)-1]; s.Open != int64(last.Alive) || s.Succeeded+s.GaveUp+s.Open != s.Requests {
		t.Errorf("%d requests: %d ok, %d gave up, %d open; %d clients on a request at the end", s.Requests, s.Succeeded, s.GaveUp, s.Open, last.Alive)
	}
}

// TestHerdWave: at a herd's start every thinking client sends. With N
// clients thinking T on average and a request taking S ≪ T (no wait), a
// client thinks a share T/(T+S) of the time: about 1000 × 10/10.1 ≈ 990
// clients think at any time, Binomial(1000, 0.99) (sd ≈ 3.1). Each joins
// with probability m, so the herd's tick holds a wave of m × thinking (sd
// √(thinking·m(1−m))) and the ordinary load of the clients that stay,
// (1−m) × about 10 a tick (99 req/s); or the wave comes evenly over its
// window: thinking/10 a tick over 1 s.
func TestHerdWave(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		faults string
		m      float64
		spread float64 // seconds
	}{
		{"all at once", "herd:30s:0s:1", 1, 0},
		{"half of them", "herd:30s:0s:0.5", 0.5, 0},
		{"spread over a second", "herd:30s:1s:1", 1, 1},
		{"none", "herd:30s:0s:0", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := roomy(herdClosed(time.Second, 0))
			p.Duration = 60 * time.Second
			e, lts := faultRun(t, p, tc.faults)
			herdBooks(t, &p, e, lts)
			thinking := float64(simAt(t, lts, 30).Thinking) // just before the herd: the tick ends at its start
			if want := 1000 * 10 / 10.1; math.Abs(thinking-want) > 5*3.1 {
				t.Errorf("%v clients think before the herd, want about %.0f", thinking, want)
			}
			// The ordinary load comes from the clients whose think
			// ends: the joiners' no longer does.
			ordinary := perTick(&p, simMean(simWindow(lts, 10, 30), attempts))
			if tc.spread == 0 {
				got := perTick(&p, simAt(t, lts, 30.1).Attempts)
				want := tc.m*thinking + (1-tc.m)*ordinary
				sd := math.Sqrt(thinking * tc.m * (1 - tc.m))
				if math.Abs(got-want) > 5*sd+3*math.Sqrt(ordinary) {
					t.Errorf("the herd's tick holds %v attempts, want about %.0f (m %v of %v thinking, the rest of the ordinary %v)", got, want, tc.m, thinking, ordinary)
				}
				if tc.m == 1 && got < thinking {
					t.Errorf("the herd's tick holds %v attempts, fewer than the %v clients thinking before it", got, thinking)
				}
				return
			}
			// Over the window: the wave, thinking/10 a tick, and the
			// clients back from their wave's request whose next think
			// ends within it, some 990 × 0.4 s / 10 s ≈ 40 in all.
			ticks := simWindow(lts, 30, 30+tc.spread)
			share := p.Tick.Seconds() / tc.spread
			var sum float64
			for _, lt := range ticks {
				got := perTick(&p, lt.Attempts)
				sum += got
				if want, sd := thinking*share, math.Sqrt(thinking*share*(1-share)); math.Abs(got-want) > 5*sd {
					t.Errorf("t = %.1f s: %v attempts, want about %.0f: a tenth of the wave", lt.T, got, want)
				}
			}
			if sum < thinking || sum > thinking+80 {
				t.Errorf("the window holds %v attempts, want the %v thinking clients and some 40 more", sum, thinking)
			}
		})
	}
}

// TestHerdWaves: a herd on a server whose capacity (20 inside) is far
// under the wave (about 990), with a fixed delay D = 1 s between retries.
// With jitter 0, the shed attempts all retry D later, together: a wave in
// one tick at every D after the herd, each some 20 smaller (what the
// server took), and nothing but the ordinary load (about 10 a tick)
// between. With jitter 1 each retry waits U[0, 2D]: a client in backoff
// retries as a renewal process of such gaps, whose density u solves
// u(t) = f(t) + ∫ f(t−s) u(s) ds with f = 1/(2D) on [0, 2D]; on [0, 2D]
// that is e^(t/2D)/(2D), at most e/(2D) ≈ 1.36/D, and it settles to 1/D
// (renewalPeak computes it). So a tick of the B ≤ 990 clients in backoff
// holds on average at most B·(tick/D)·1.36 ≈ 135 attempts, plus the
// ordinary load and Poisson noise: the peak falls from about 970 to under
// 180, by a factor over 5.
func TestHerdWaves(t *testing.T) {
	t.Parallel()
	const delay = time.Second
	run := func(jitter float64) (scenario.Params, *Engine, []scenario.LaneTick) {
		p := herdClosed(delay, jitter)
		e, lts := faultRun(t, p, "herd:30s:0s:1")
		herdBooks(t, &p, e, lts)
		return p, e, lts
	}
	p, e0, lts0 := run(0)
	thinking := float64(simAt(t, lts0, 30).Thinking)
	// The waves: the ticks that end 0.1 s after each whole second from
	// the herd's on hold each most of a wave, and no other tick holds more
	// than the ordinary load.
	var peak0 float64
	for _, lt := range simWindow(lts0, 30, 40.1) {
		n := perTick(&p, lt.Attempts)
		k := lt.T - 30.1
		onWave := math.Abs(k-math.Round(k)) < 1e-6
		switch {
		case onWave && n < thinking/2:
			t.Errorf("jitter 0: t = %.1f s, %.0f s after the herd: %v attempts, want a wave of most of the %v clients", lt.T, k, n, thinking)
		case !onWave && n > 20:
			t.Errorf("jitter 0: t = %.1f s, between two waves: %v attempts, want only the ordinary load", lt.T, n)
		}
		if lt.T > 30.15 {
			peak0 = max(peak0, n)
		}
	}
	p1, e1, lts1 := run(1)
	var peak1 float64
	for _, lt := range simWindow(lts1, 30.1, 60) {
		peak1 = max(peak1, perTick(&p1, lt.Attempts))
	}
	u := renewalPeak(200)
	if u < 1.3 || u > 1.4 {
		t.Fatalf("the renewal density of U[0, 2] gaps peaks at %.3f, want e/2 ≈ 1.36", u)
	}
	mean := thinking*p.Tick.Seconds()/delay.Seconds()*u + 10
	bound := mean + 4*math.Sqrt(mean)
	t.Logf("peak attempts a tick after the herd: %v with jitter 0, %v with jitter 1 (bound %.0f): ÷%.1f", peak0, peak1, bound, peak0/peak1)
	if peak1 > bound {
		t.Errorf("jitter 1: a tick holds %v attempts, over the bound %.0f", peak1, bound)
	}
	if peak0 < thinking-3*20 {
		t.Errorf("jitter 0: the highest wave after the herd holds %v attempts, want most of the %v", peak0, thinking)
	}
	// Both recover, from the herd; the synchronised waves take longer, as
	// each lets only some 20 clients through: the service (the ok rate
	// back to 90 % of its baseline; the shedding server never holds more
	// than its workers) comes back after some 40 waves, a second each.
	s0, s1 := e0.Summaries()[0], e1.Summaries()[0]
	if s0.Fault != scenario.FaultHerd || s1.Fault != scenario.FaultHerd || s0.ServiceRecoveredAfter == nil || s1.ServiceRecoveredAfter == nil {
		t.Fatalf("verdicts %+v and %+v, want both recovered from the herd", s0, s1)
	}
	t.Logf("service recovered %.1f s after the herd with jitter 0, %.1f s with jitter 1", *s0.ServiceRecoveredAfter, *s1.ServiceRecoveredAfter)
	if *s0.ServiceRecoveredAfter < 20 || *s1.ServiceRecoveredAfter > *s0.ServiceRecoveredAfter/2 {
		t.Errorf("service recovered %.1f s after the herd with jitter 0, %.1f s with jitter 1: want the waves to last over 20 s, and jitter to halve that at least",
			*s0.ServiceRecoveredAfter, *s1.ServiceRecoveredAfter)
	}
}

// renewalPeak returns the highest density of a renewal process whose
// gaps are U[0, 2] (in units of their mean), over its first 20 means,
// solving the renewal equation in steps of 1/n.
func renewalPeak(n int) float64 {
	h := 1 / float64(n)
	u := make([]float64, 20*n+1)
	var peak float64
	for i := 1; i < len(u); i++ {
		s := 0.5
		if i > 2*n {
			s = 0
		}
		for k := 1; k <= min(i, 2*n); k++ {
			s += h * 0.5 * u[i-k]
		}
		u[i] = s
		peak = max(peak, s)
	}
	return peak
}

// TestHerdOpenLoop: an open loop's herd brings the arrivals of its window
// to its start (each with probability m): the run's arrivals are the same
// ones, so it begins exactly as many requests as without the herd; with m
// 1 none arrive during the window after its start, and its first tick
// holds about rate × window of them (Poisson: 200 ± 14 at 100/s over 2 s).
func TestHerdOpenLoop(t *testing.T) {
	t.Parallel()
	base := openQueue(1000, 100*time.Millisecond, 100, 60*time.Second)
	base.Tick = 100 * time.Millisecond
	plain, _ := faultRun(t, base, "")
	want := plain.Summaries()[0].Requests
	for _, tc := range []struct {
		faults string
		m      float64
	}{{"herd:30s:2s:1", 1}, {"herd:30s:2s:0.5", 0.5}} {
		t.Run(tc.faults, func(t *testing.T) {
			p := base
			e, lts := faultRun(t, p, tc.faults)
			herdBooks(t, &p, e, lts)
			if got := e.Summaries()[0].Requests; got != want {
				t.Errorf("%d requests, want the %d of the same run without the herd", got, want)
			}
			wave := perTick(&p, simAt(t, lts, 30.1).Attempts)
			if mean := 100*2*tc.m + 10; math.Abs(wave-mean) > 5*math.Sqrt(mean) {
				t.Errorf("the herd's tick holds %v arrivals, want about %.0f", wave, mean)
			}
			during := simMean(simWindow(lts, 30.1, 32), attempts) * 1.9
			if tc.m == 1 && during != 0 {
				t.Errorf("%v arrivals in the window after its start, want none: they came at its start", during)
			}
			if tc.m < 1 && math.Abs(during-100*1.9*(1-tc.m)) > 5*math.Sqrt(100*1.9*(1-tc.m)) {
				t.Errorf("%v arrivals in the window after its start, want about %.0f: those that stayed", during, 100*1.9*(1-tc.m))
			}
		})
	}
}

// TestHerdDoesNotAllocatePerClient: a second holding a herd of 10 000
// clients, and its waves, allocates about what a second of ticks and a
// fault's start and end do (TestEventsDoNotAllocate), not one allocation a
// client or an event.
func TestHerdDoesNotAllocatePerClient(t *testing.T) {
	testrace.SkipUnder(t, detectorAllocates)
	p := herdClosed(time.Second, 0)
	p.Clients, p.Duration = 10_000, time.Hour
	var herds []string
	for k := range 20 {
		herds = append(herds, fmt.Sprintf("herd:%ds:0s:1", 60+120*k))
	}
	p.Faults = mustFaults(strings.Join(herds, ","))
	e := simNew(t, p)
	simAdvance(t, e, 59*time.Second)
	at := 59 * time.Second
	allocs := testing.AllocsPerRun(19, func() {
		e.AdvanceTo(at+2*time.Second, func(scenario.Tick) {})
		e.AdvanceTo(at+120*time.Second, nil)
		at += 120 * time.Second
	})
	ticks := float64(120 * time.Second / p.Tick) // each allocates its Lanes
	t.Logf("%.0f allocations per herd and the 2 minutes (%.0f ticks) after it", allocs, ticks)
	if allocs > ticks+60 {
		t.Errorf("%.0f allocations for a herd of %d clients and %.0f ticks, want about the ticks'", allocs, p.Clients, ticks)
	}
}

// TestHerdLiveSetAtItsStart: faults set live at the very time a herd
// starts release its wave once, whether the run had taken its start
// before the change or not: the run goes on as the same run without the
// change, whose new fault comes later.
func TestHerdLiveSetAtItsStart(t *testing.T) {
	for _, herd := range []string{"herd:5s:0s:1", "herd:5s:1s:0.5"} {
		p := simSmall()
		p.Outage = scenario.OutageNone
		p.Faults = mustFaults(herd)
		want := simAdvance(t, simNew(t, p), 10*time.Second)[50:]
		for _, tc := range toAStart(5 * time.Second) {
			t.Run(herd+" "+tc.name, func(t *testing.T) {
				e := simNew(t, p)
				tc.step(e)
				q := e.Params()
				q.Faults = mustFaults(herd + ",error_burst:20s:1s:0.5")
				if err := e.Set(q); err != nil {
					t.Fatal(err)
				}
				simSameTicks(t, "after the change", want, simAdvance(t, e, 10*time.Second))
				if w := e.Outages(); len(w) != 1 || w[0][0] != 5*time.Second {
					t.Errorf("windows %v, want the herd's from 5 s", w)
				}
			})
		}
	}
}
