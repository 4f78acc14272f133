package simengine

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/reqhist"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// simCheckRequests checks that every request l's clients began is counted
// exactly once: ended, in the lane's histogram of requests (its successes
// in that of the successes too, and nothing else there), or open now.
func simCheckRequests(t testing.TB, l *lane, where string) {
	t.Helper()
	var total counters
	total.add(l.total)
	total.add(l.tick)
	open, late := l.openRequests(0)
	ended := int64(l.reqs.Count())
	if total.requests != ended+open {
		t.Errorf("%s: %d requests begun, %d ended in the histogram + %d open = %d", where, total.requests, ended, open, ended+open)
	}
	if ended != total.ok+total.gaveUp {
		t.Errorf("%s: %d requests ended in the histogram, %d ok + %d gave up = %d", where, ended, total.ok, total.gaveUp, total.ok+total.gaveUp)
	}
	if oks := int64(l.oks.Count()); oks != total.ok {
		t.Errorf("%s: %d successes in the histogram, %d ok", where, oks, total.ok)
	}
	if l.now > 0 && late != open {
		// Every open request began before now: with a patience of 0,
		// each is late, unless it began this very instant.
		var now int64
		for i := range l.clients[:l.active] {
			if c := &l.clients[i]; (c.state() == waiting || c.state() == backing) && c.st.RequestStart == l.now {
				now++
			}
		}
		if late+now != open {
			t.Errorf("%s: %d open requests, %d began before now and %d now", where, open, late, now)
		}
	}
}

// TestRequestsCountedOnce: on runs with an outage, a breaker, a retry
// budget, tiers, an open loop and a live resize, every request begun is,
// at every moment checked and at the end, ended in the lane's histogram or
// open, and the summary says the same.
func TestRequestsCountedOnce(t *testing.T) {
	t.Parallel()
	limited := func(name string, set func(*scenario.Lane)) scenario.Lane {
		l := simLane(name)
		set(&l)
		return l
	}
	tests := []struct {
		name   string
		params func() scenario.Params
		// resize, when not 0, sets the clients to it at 12 s, and back
		// at 20 s.
		resize int
	}{
		{"pause outage, give-ups", func() scenario.Params {
			p := simSmall()
			p.Lanes[1].MaxAttempts = 3
			return p
		}, 0},
		{"crash, breaker", func() scenario.Params {
			p := simSmall()
			p.Outage = scenario.OutageCrash
			p.Lanes = []scenario.Lane{
				limited(strategies.NameExponential, func(l *scenario.Lane) {
					l.Breaker, l.BreakerMinCalls, l.BreakerWindow, l.BreakerOpenFor = strategies.BreakerAll, 20, 20, 2*time.Second
				}),
				limited(strategies.NameFixed, func(l *scenario.Lane) {
					l.Breaker, l.BreakerMinCalls, l.BreakerWindow, l.BreakerOpenFor = strategies.BreakerRetries, 20, 20, 2*time.Second
				}),
			}
			return p
		}, 0},
		{"retry budget", func() scenario.Params {
			p := simSmall()
			p.Lanes[0].RetryBudget = strategies.LimiterOn
			p.Lanes[1].GRPCThrottle = strategies.LimiterOn
			return p
		}, 0},
		{"tiers", func() scenario.Params {
			p := simSmall()
			p.Lanes[0].MaxAttempts = 3
			p.Lanes[0].Tiers = mustTiers("fixed:3:400ms,exponential:2:200ms")
			p.Lanes[1].CancelOnTimeout, p.Lanes[1].MaxAttempts = true, 3
			p.Lanes[1].Tiers = mustTiers("fixed:3:400ms:retry_budget,fixed:2:200ms")
			return p
		}, 0},
		{"open loop", func() scenario.Params {
			p := simSmall()
			p.Arrival, p.Rate = scenario.ArrivalOpen, 150
			p.Lanes[1].Deadline = 3 * time.Second
			return p
		}, 0},
		{"live resize", func() scenario.Params {
			p := simSmall()
			p.Lanes[1].MaxAttempts = 4
			return p
		}, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.params()
			e := simNew(t, p)
			for _, at := range []time.Duration{3 * time.Second, 10*time.Second + 1, 12 * time.Second, 13500 * time.Millisecond,
				20 * time.Second, 24*time.Second + 7, p.Duration} {
				e.AdvanceTo(at, nil)
				if tt.resize > 0 && (at == 12*time.Second || at == 20*time.Second) {
					q := e.Params()
					q.Clients = tt.resize
					if at == 20*time.Second {
						q.Clients = p.Clients
					}
					if err := e.Set(q); err != nil {
						t.Fatalf("Set clients=%d: %v", q.Clients, err)
					}
				}
				for i, l := range e.lanes {
					simCheckRequests(t, l, fmt.Sprintf("lane %c at %v", scenario.LaneNames[i], at))
				}
			}
			for i, s := range e.Summaries() {
				l, r := e.lanes[i], e.Requests(i)
				open, late := l.openRequests(p.Patience)
				if s.Open != open || s.OpenPastPatience != late || r.Ended.Count()+uint64(s.Open) != uint64(s.Requests) ||
					r.Succeeded.Count() != uint64(s.Succeeded) {
					t.Errorf("lane %c: summary requests %d = %d ended + %d open (%d scanned, %d late), %d succeeded (%d in its histogram)",
						scenario.LaneNames[i], s.Requests, r.Ended.Count(), s.Open, open, late, s.Succeeded, r.Succeeded.Count())
				}
				// The scenario must exercise what it checks.
				if s.GaveUp == 0 && i == 1 {
					t.Errorf("lane b gave up no request: the run tests no give-up")
				}
				if s.Succeeded == 0 {
					t.Errorf("lane %c: no request succeeded", scenario.LaneNames[i])
				}
			}
		})
	}
}

// simFixedQueue is a queue server that never queues: more workers than
// clients, each request served in exactly service; clients thinking 1 s
// with the default 2 s timeout, no outage, lane a retrying every delay
// (fixed, jitter 0, no attempt limit).
func simFixedQueue(clients int, service, delay, duration time.Duration, seed uint64) scenario.Params {
	p := scenario.Defaults()
	p.ServerModel, p.Workers, p.ServiceTime, p.ServiceDist = scenario.QueueModel, clients+1, service, scenario.ServiceFixed
	p.Clients, p.Think = clients, time.Second
	p.Outage = scenario.OutageNone
	p.Duration, p.Seed = duration, seed
	a := simLane(strategies.NameFixed)
	a.MinDelay, a.Jitter = delay, 0
	p.Lanes = []scenario.Lane{a}
	return p
}

// simSummary runs p and returns lane a's summary and requests.
func simSummary(t testing.TB, p scenario.Params) (scenario.Summary, *Requests) {
	t.Helper()
	e, _ := simRun(t, p)
	return e.Summaries()[0], e.Requests(0)
}

// simNear reports whether got seconds stands for want within the
// histogram's error.
func simNear(got, want float64) bool { return math.Abs(got-want) <= reqhist.RelativeError*want }

// TestRequestLatencyDeterministic: a queue server that never queues, with
// a fixed service time S and no faults, answers every request in S: its
// p50, p99 and p99.9 are S, and every request succeeds within the
// patience.
func TestRequestLatencyDeterministic(t *testing.T) {
	const service = 100 * time.Millisecond
	s, _ := simSummary(t, simFixedQueue(20, service, 100*time.Millisecond, 60*time.Second, 1))
	if s.Succeeded < 500 || s.GaveUp != 0 {
		t.Fatalf("%d succeeded, %d gave up: want hundreds, none", s.Succeeded, s.GaveUp)
	}
	for _, q := range []struct {
		name string
		got  float64
	}{{"p50", s.RequestP50}, {"p99", s.RequestP99}, {"p99.9", s.RequestP999}} {
		if !simNear(q.got, service.Seconds()) {
			t.Errorf("request %s = %v s, want %v s", q.name, q.got, service.Seconds())
		}
	}
	if s.SucceededWithin != 1 || s.OpenPastPatience != 0 {
		t.Errorf("succeeded within patience %v, %d open past it: want 1, 0", s.SucceededWithin, s.OpenPastPatience)
	}
}

// TestRequestLatencyErrorBurst: with a share e of answers errors over the
// whole run, each answered after the service time S, and a fixed retry
// delay d without jitter or attempt limit, a request that needs k+1
// attempts takes (k+1)·S + k·d, and P(k) = e^k·(1−e). Its quantiles land on
// those levels: for e = 0.03, P(k = 0) = 0.97 and P(k ≤ 1) = 0.9991, so
// p50 is S and p99 is 2S + d; for e = 0.2, P(k ≤ 0, 1, 2, 3, 4) = 0.8,
// 0.96, 0.992, 0.9984, 0.99968, so p50 is S, p99 3S + 2d and p99.9
// 5S + 4d. The share that succeeded within a patience between levels j and
// j+1 is P(k ≤ j) = 1 − e^(j+1), within 4 standard errors of a binomial
// share over the requests judged, on each of three seeds.
func TestRequestLatencyErrorBurst(t *testing.T) {
	t.Parallel()
	const (
		service = 100 * time.Millisecond
		delay   = 500 * time.Millisecond
	)
	level := func(k int) float64 { return (time.Duration(k+1)*service + time.Duration(k)*delay).Seconds() }
	tests := []struct {
		e           float64
		p50, p99    int // the levels k of the quantiles
		p999        int // -1: too near a boundary to say
		patience    time.Duration
		withinLevel int // the highest level within patience
	}{
		{0.03, 0, 1, -1, time.Second, 1},           // 0.7 s < 1 s < 1.3 s
		{0.2, 0, 2, 4, 1500 * time.Millisecond, 2}, // 1.3 s < 1.5 s < 1.9 s
		{0.2, 0, 2, 4, 400 * time.Millisecond, 0},  // 0.1 s < 0.4 s < 0.7 s
	}
	for _, tt := range tests {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("e=%v/patience=%v/seed=%d", tt.e, tt.patience, seed), func(t *testing.T) {
				t.Parallel()
				p := simFixedQueue(500, service, delay, 300*time.Second, seed)
				p.Faults = []scenario.Fault{{Kind: scenario.FaultErrorBurst, At: 0, For: p.Duration, M: tt.e}}
				p.Patience = tt.patience
				s, r := simSummary(t, p)
				n := float64(r.Ended.Count())
				if n < 100_000 || s.GaveUp != 0 {
					t.Fatalf("%v requests ended, %d gave up: want over 100 000, none", n, s.GaveUp)
				}
				for _, q := range []struct {
					name string
					got  float64
					k    int
				}{{"p50", s.RequestP50, tt.p50}, {"p99", s.RequestP99, tt.p99}, {"p99.9", s.RequestP999, tt.p999}} {
					if q.k >= 0 && !simNear(q.got, level(q.k)) {
						t.Errorf("request %s = %v s, want %v s (k = %d)", q.name, q.got, level(q.k), q.k)
					}
				}
				t.Logf("%v requests: p50 %v s, p99 %v s, p99.9 %v s, %.5f succeeded within %v", n, s.RequestP50, s.RequestP99, s.RequestP999,
					s.SucceededWithin, tt.patience)
				want := 1 - math.Pow(tt.e, float64(tt.withinLevel+1))
				judged := n + float64(s.OpenPastPatience)
				se := math.Sqrt(want * (1 - want) / judged)
				if math.Abs(s.SucceededWithin-want) > 4*se {
					t.Errorf("succeeded within %v: %.5f, want %.5f ± %.5f (4 standard errors of %v requests)",
						tt.patience, s.SucceededWithin, want, 4*se, judged)
				}
			})
		}
	}
}

// TestPatienceJudgesTheOutage: the landing system (a worker queue paused
// for 15 s at 20 s, lanes fixed and exponential) run with a patience of
// 5 s and of 30 s is the same run, tick for tick and request for request:
// patience only judges it. Nothing is answered during the pause and the
// default lanes never give up, so every request begun from 20 s to 30 s
// (its first attempts, the ticks' attempts less their retries) ends after
// 35 s, past 5 s of patience: at 5 s each is a failure users saw, and
// there are at least that many failures; at 30 s there are fewer.
func TestPatienceJudgesTheOutage(t *testing.T) {
	t.Parallel()
	run := func(patience time.Duration) (*Engine, []scenario.Summary, []scenario.Tick) {
		p := scenario.Defaults()
		p.Patience = patience
		e, ticks := simRun(t, p)
		return e, e.Summaries(), ticks
	}
	shortRun, short, shortTicks := run(5 * time.Second)
	longRun, long, longTicks := run(30 * time.Second)
	simSameTicks(t, "patience 5s and 30s", shortTicks, longTicks)
	for i := range short {
		name := scenario.LaneNames[i : i+1]
		r := shortRun.Requests(i)
		if *r != *longRun.Requests(i) {
			t.Errorf("lane %s: the requests' histograms differ with the patience", name)
		}
		failures := func(s scenario.Summary, patience time.Duration) int64 {
			return int64(r.Ended.Count()) + s.OpenPastPatience - int64(r.Succeeded.CountAtMost(patience))
		}
		var begun float64
		for _, tk := range shortTicks {
			if tk.T > 20+1e-9 && tk.T <= 30+1e-9 {
				lt := tk.Lanes[i]
				begun += (lt.Attempts - lt.Retries) * scenario.Defaults().Tick.Seconds()
			}
		}
		during := int64(math.Round(begun))
		f5, f30 := failures(short[i], 5*time.Second), failures(long[i], 30*time.Second)
		t.Logf("lane %s: %d requests begun from 20 s to 30 s; failures %d at 5 s (%.4f succeeded), %d at 30 s (%.4f)",
			name, during, f5, short[i].SucceededWithin, f30, long[i].SucceededWithin)
		if during < 500 {
			t.Fatalf("lane %s: %d requests begun during the pause: the test tests nothing", name, during)
		}
		if f5 < during {
			t.Errorf("lane %s: %d failures at a patience of 5 s, fewer than the %d requests begun from 20 s to 30 s", name, f5, during)
		}
		if f30 >= f5 || long[i].SucceededWithin <= short[i].SucceededWithin {
			t.Errorf("lane %s: %d failures at 30 s (%.4f succeeded), not fewer than %d at 5 s (%.4f)",
				name, f30, long[i].SucceededWithin, f5, short[i].SucceededWithin)
		}
	}
}

// TestRunRequests: RunRequests returns the summaries Run does and each
// lane's requests as the engine holds them at the run's end.
func TestRunRequests(t *testing.T) {
	t.Parallel()
	p := simSmall()
	sums, reqs, err := RunRequests(context.Background(), p, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := simRun(t, p)
	if simJSON(t, sums) != simJSON(t, e.Summaries()) {
		t.Errorf("RunRequests' summaries differ from the engine's:\n%s\n%s", simJSON(t, sums), simJSON(t, e.Summaries()))
	}
	for i := range e.lanes {
		if *reqs[i] != *e.Requests(i) || reqs[i].Ended.Count() == 0 {
			t.Errorf("lane %c: RunRequests' requests (%d ended) differ from the engine's (%d)", scenario.LaneNames[i], reqs[i].Ended.Count(), e.Requests(i).Ended.Count())
		}
	}
}

// TestPeakAttemptRate: the summary's peak attempt rate is the highest of
// the ticks' rates of attempts sent to the server: the attempts column,
// or with layered retries the bottom tier's.
func TestPeakAttemptRate(t *testing.T) {
	t.Parallel()
	p := simSmall()
	p.Lanes[1].Tiers = mustTiers("fixed:3:400ms,exponential:2:200ms")
	e, ticks := simRun(t, p)
	sums := e.Summaries()
	var peak [2]float64
	for _, tk := range ticks {
		peak[0] = max(peak[0], tk.Lanes[0].Attempts)
		peak[1] = max(peak[1], tk.Lanes[1].T3Attempts)
	}
	for i := range peak {
		if sums[i].PeakAttemptRate != peak[i] || peak[i] == 0 {
			t.Errorf("lane %c: peak attempt rate %v, the ticks' highest %v", scenario.LaneNames[i], sums[i].PeakAttemptRate, peak[i])
		}
	}
	if peak[1] <= simMean(simSeries(ticks, 1), func(lt scenario.LaneTick) float64 { return lt.Attempts }) {
		t.Errorf("lane b: a peak of %v at the server, no more than its clients' mean: the tiers multiply nothing", peak[1])
	}
}
