package simengine

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// erlangC returns the probability that an arrival waits at an M/M/c queue
// of c servers offered a = λ/μ erlangs (a < c).
func erlangC(c int, a float64) float64 {
	term, sum := 1.0, 1.0 // a^k/k!, from k = 0
	for k := 1; k < c; k++ {
		term *= a / float64(k)
		sum += term
	}
	last := term * a / float64(c) * float64(c) / (float64(c) - a) // a^c/c! · c/(c−a)
	return last / (sum + last)
}

// openQueue returns the open loop of Poisson arrivals at rate λ on c
// exponential workers of mean service s, with no timeouts, no outage, an
// unbounded backlog, for d.
func openQueue(c int, s time.Duration, lambda float64, d time.Duration) scenario.Params {
	p := scenario.Defaults()
	p.Arrival, p.Rate = scenario.ArrivalOpen, lambda
	p.ServerModel, p.Workers, p.ServiceTime, p.ServiceDist = scenario.QueueModel, c, s, scenario.ServiceExp
	p.Backlog, p.Timeout, p.Outage = 1_000_000, time.Hour, scenario.OutageNone
	p.Duration, p.Tick = d, time.Second
	p.Lanes = []scenario.Lane{simLane(strategies.NameNone)}
	return p
}

// TestModelErlangC: the worker queue under Poisson arrivals and exponential
// service is an M/M/c queue. Its utilization is λ·S/c, and its requests'
// mean wait for a worker must be within 5 % of Erlang C's
// Wq = C(c, λS)·S/(c − λS), for c = 1, 10, 30 at ρ = 0.5, 0.8, 0.9, over
// several seeds of runs long enough for thousands of waits. By Little's law
// the mean number waiting, sampled at the ticks' ends, is λ·Wq.
func TestModelErlangC(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical runs: skipped with -short")
	}
	testrace.SkipUnder(t, "long statistical runs, tenfold slower under -race")
	t.Parallel()
	const s = 100 * time.Millisecond
	for _, c := range []int{1, 10, 30} {
		for _, rho := range []float64{0.5, 0.8, 0.9} {
			t.Run(fmt.Sprintf("c=%d,rho=%.1f", c, rho), func(t *testing.T) {
				t.Parallel()
				lambda := rho * float64(c) / s.Seconds()
				a := lambda * s.Seconds()
				wq := erlangC(c, a) * s.Seconds() / (float64(c) - a)
				// Long enough that the mean number waiting settles: the
				// queue forgets its past over about S/(1−√ρ)² for one
				// worker, far less for many.
				// For 30 workers at ρ 0.8 and 0.9 the length is sized by the
				// spread of Wq between seeds (eight seeds of 4000 s each:
				// 1.1 % and 2.5 % of Wq): with four seeds the mean's
				// standard error is then 1.1 %·√(4000/2000)/2 = 0.8 % and
				// 2.5 %·√(4000/5000)/2 = 1.1 %, so the 5 % tolerance is
				// more than 4 standard errors. At ρ 0.5 only one arrival
				// in 3000 waits and one run's Wq varies by 22 % at 4000 s:
				// 40 000 s is as short as it can be.
				d := 40_000 * time.Second
				switch {
				case c == 30 && rho == 0.8:
					d = 2_000 * time.Second
				case c == 30 && rho == 0.9:
					d = 5_000 * time.Second
				case c > 1 && rho >= 0.8:
					d = 8_000 * time.Second
				case c == 10:
					d = 20_000 * time.Second
				case c == 30: // one arrival in 3000 waits
					d = 40_000 * time.Second
				}
				var waitSum, busySum, rateSum, lqSum float64
				seeds := []uint64{1, 2, 3, 4}
				for _, seed := range seeds {
					p := openQueue(c, s, lambda, d)
					p.Seed = seed
					e, ticks := simRun(t, p)
					waitSum += meanWait(e)
					win := simWindow(simSeries(ticks, 0), 100, d.Seconds())
					lqSum += simMean(win, func(lt scenario.LaneTick) float64 { return float64(lt.Backlog) })
					busySum += simMean(win, func(lt scenario.LaneTick) float64 { return float64(lt.Concurrency - lt.Backlog) }) / float64(c)
					rateSum += simMean(win, func(lt scenario.LaneTick) float64 { return lt.Attempts })
				}
				n := float64(len(seeds))
				gotWq, gotU, gotRate, gotLq := waitSum/n, busySum/n, rateSum/n, lqSum/n
				t.Logf("c=%d ρ=%.1f: Wq %.4g s (Erlang C %.4g), utilization %.4f, arrivals %.3f/s (%.3f), waiting %.4f (λ·Wq %.4f)",
					c, rho, gotWq, wq, gotU, gotRate, lambda, gotLq, lambda*wq)
				if math.Abs(gotWq-wq) > 0.05*wq {
					t.Errorf("mean queue wait %.5f s, Erlang C says %.5f ± 5 %%", gotWq, wq)
				}
				if math.Abs(gotU-rho) > 0.01 {
					t.Errorf("utilization %.4f, want λS/c = %.2f ± 0.01", gotU, rho)
				}
				if math.Abs(gotRate-lambda) > 0.02*lambda {
					t.Errorf("arrivals %.3f/s, want rate %.3f ± 2 %%", gotRate, lambda)
				}
				if lq := lambda * wq; lq > 0.1 && math.Abs(gotLq-lq) > 0.1*lq {
					t.Errorf("mean number waiting %.4f, Little's law says λ·Wq = %.4f ± 10 %%", gotLq, lq)
				}
			})
		}
	}
}

// TestOpenLoopRequestsAlive: in an open loop every request has a retrier of
// its own for as long as it lives: alive counts them, and the clients of
// ended requests are reused, so memory follows the requests alive, not the
// requests made.
func TestOpenLoopRequestsAlive(t *testing.T) {
	p := openQueue(30, 100*time.Millisecond, 100, 60*time.Second)
	p.Timeout = 2 * time.Second
	p.Lanes = []scenario.Lane{simLane(strategies.NameFixed)}
	e, ticks := simRun(t, p)
	lts := simSeries(ticks, 0)
	for _, lt := range lts {
		if lt.Alive != lt.Concurrency+lt.InBackoff-0 && lt.Backlog == 0 && lt.Alive < lt.Concurrency {
			t.Fatalf("t=%v: %d alive with %d inside", lt.T, lt.Alive, lt.Concurrency)
		}
	}
	s := e.Summaries()[0]
	if s.Requests < 5500 || s.Requests > 6500 {
		t.Errorf("%d requests in 60 s at 100/s", s.Requests)
	}
	if s.Requests != s.Succeeded+s.GaveUp+s.Open {
		t.Errorf("requests %d ≠ succeeded %d + gave up %d + open %d", s.Requests, s.Succeeded, s.GaveUp, s.Open)
	}
	if l := e.lanes[0]; len(l.clients) > 100 {
		t.Errorf("%d clients kept for at most a few dozen requests alive at a time", len(l.clients))
	}
}
