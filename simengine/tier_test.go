package simengine

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// The tests of layered retries (tier.go). Their helpers' names start with
// tier.

// tierFailing returns a run of a few clients against a server that fails
// every attempt for as long as the run lasts, by fault kind: crash
// (refused at once), error_burst (served, then answered with an error) or
// pause (never answered: every attempt times out). Lane a retries fixed
// every 100 ms, at most three attempts, through tiers.
func tierFailing(kind string, tiers string) scenario.Params {
	p := scenariotest.CurveDefaults()
	p.Clients = 5
	p.Duration = time.Hour
	p.Outage, p.OutageAt, p.OutageFor = scenario.OutageNone, 0, 0
	switch kind {
	case scenario.FaultErrorBurst:
		p.Faults = mustFaults("error_burst:0s:24h0m0s:1")
		p.Timeout = 10 * time.Minute // no attempt times out: every one ends with an error
	default:
		p.Outage, p.OutageFor = kind, 24*time.Hour
	}
	a := simLane(strategies.NameFixed)
	a.MaxAttempts = 3
	a.Tiers = mustTiers(tiers)
	p.Lanes = []scenario.Lane{a}
	return p
}

// tierIdle advances e, a tick at a time from after on, to the first tick's
// end at which lane 0 is idle: no request open and no call alive, so that
// every request begun has ended with every attempt it caused. It fails
// the test if that does not come within a virtual hour.
func tierIdle(t *testing.T, e *Engine, after time.Duration) scenario.Summary {
	t.Helper()
	l := e.lanes[0]
	for at := after; at < after+time.Hour; at += e.p.Tick {
		e.AdvanceTo(at, nil)
		if s := e.Summaries()[0]; s.Open == 0 && len(l.freeCalls) == len(l.calls) {
			simCheck(t, e, fmt.Sprintf("idle at %v", at), nil)
			return s
		}
	}
	t.Fatalf("lane a never idle after %v", after)
	return scenario.Summary{}
}

// tierTotals returns what lane 0 sent at each tier since the start: the
// clients' attempts, then each inner tier's.
func tierTotals(e *Engine) []int64 {
	s := e.Summaries()[0]
	return append([]int64{s.Attempts}, s.TierAttempts...)
}

// TestTiersAmplification: when every attempt fails, every tier makes all
// its attempts, and the server sees the product of the tiers' attempts
// per request, exactly: the client's 3 and two tiers of 3 make 27. So it
// is whether the server refuses at once (crash) or answers each attempt
// with an error after serving it (an error burst of magnitude 1), and for
// every depth and mix of attempts.
func TestTiersAmplification(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{scenario.OutageCrash, scenario.FaultErrorBurst} {
		for _, tc := range []struct {
			tiers string
			per   []int64 // attempts per request at each tier, the clients' first
		}{
			{"", []int64{3}},
			{"fixed:3:10s", []int64{3, 9}},
			{"fixed:3:1m0s,fixed:3:10s", []int64{3, 9, 27}},
			{"fixed:2:1m0s,exponential:1:30s,full_jitter:4:10s", []int64{3, 6, 6, 24}},
			{"fixed:3:1h0m0s,fixed:3:1m0s,fixed:3:10s", []int64{3, 9, 27, 81}},
		} {
			t.Run(kind+"/"+string(tc.tiers), func(t *testing.T) {
				t.Parallel()
				e := simNew(t, tierFailing(kind, tc.tiers))
				s := tierIdle(t, e, 5*time.Minute)
				if s.Requests < 100 || s.GaveUp != s.Requests {
					t.Fatalf("%d requests, %d gave up: want many, every one given up", s.Requests, s.GaveUp)
				}
				got := tierTotals(e)
				for k, n := range got {
					if want := tc.per[k] * s.Requests; n != want {
						t.Errorf("tier %d sent %d attempts for %d requests, want %d × %d", k+1, n, s.Requests, tc.per[k], s.Requests)
					}
				}
				if want := float64(tc.per[len(tc.per)-1]); len(tc.per) > 1 && s.BottomAmplification != want {
					t.Errorf("BottomAmplification %v, want %v", s.BottomAmplification, want)
				}
			})
		}
	}
}

// TestTiersTimeoutProduct: when the server never answers (a pause over the
// whole run), every attempt times out, the client's after 2 s, tier 2's
// after 1 s, tier 3's after 450 ms, each tier waiting 100 ms between
// attempts. A tier-3 call outlasts the tier-2 attempt that made it
// (3 × 450 ms + 2 × 100 ms > 1 s): without deadline propagation the caller
// moves on and the orphan makes all its attempts anyway, so the product
// stays 3 × 3 × 3 = 27 per request, only later. With cancel_on_timeout an
// abandoned call ends with its caller's attempt, so a tier makes only the
// attempts that start within its caller's timeout: tier 3 starts at 0 and
// 550 ms within tier 2's second, tier 2 at 0 and 1.1 s within the client's
// 2 s, and the product is 3 × 2 × 2 = 12.
func TestTiersTimeoutProduct(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cancel bool
		per    []int64
	}{
		{false, []int64{3, 9, 27}},
		{true, []int64{3, 6, 12}},
	} {
		t.Run(fmt.Sprintf("cancel=%v", tc.cancel), func(t *testing.T) {
			t.Parallel()
			p := tierFailing(scenario.OutagePause, "fixed:3:1s,fixed:3:450ms")
			p.Timeout = 2 * time.Second
			p.Lanes[0].CancelOnTimeout = tc.cancel
			e := simNew(t, p)
			s := tierIdle(t, e, 5*time.Minute)
			if s.Requests < 100 || s.GaveUp != s.Requests {
				t.Fatalf("%d requests, %d gave up: want many, every one given up", s.Requests, s.GaveUp)
			}
			for k, n := range tierTotals(e) {
				if want := tc.per[k] * s.Requests; n != want {
					t.Errorf("tier %d sent %d attempts for %d requests, want %d × %d", k+1, n, s.Requests, tc.per[k], s.Requests)
				}
			}
		})
	}
}

// TestTiersCancelSubtree: with cancel_on_timeout, once a client's attempt
// times out nothing below it works on: the step that times it out leaves
// no call alive and no request in the server or the backlog, and while the
// client waits to retry no tier sends an attempt. Without it, the orphans
// do send attempts then, which is what the test must be able to see.
func TestTiersCancelSubtree(t *testing.T) {
	t.Parallel()
	for _, cancel := range []bool{true, false} {
		t.Run(fmt.Sprintf("cancel=%v", cancel), func(t *testing.T) {
			t.Parallel()
			p := tierFailing(scenario.OutagePause, "fixed:4:1s,fixed:5:300ms")
			p.Clients = 1
			p.Timeout = 1500 * time.Millisecond
			p.Lanes[0].MinDelay = 400 * time.Millisecond
			p.Lanes[0].MaxAttempts = 0 // retry for ever
			p.Lanes[0].CancelOnTimeout = cancel
			e := simNew(t, p)
			l := e.lanes[0]
			c := &l.clients[0]
			var timeouts, orphanAttempts int64
			for e.Now() < 2*time.Minute {
				before, was := tierTotals(e), c.state()
				// Step to the next event, whichever queue holds it.
				next := min(l.q.top().at, l.cq.top().at, l.next)
				e.AdvanceTo(next+1, nil)
				after := tierTotals(e)
				if was == waiting && c.state() == backing && l.tick.timeouts+l.total.timeouts > timeouts {
					timeouts = l.tick.timeouts + l.total.timeouts
					if cancel && (len(l.freeCalls) != len(l.calls) || l.backlog.n > 0 && l.blLive > 0 || l.model.concurrency() > 0) {
						t.Fatalf("at %v the client timed out, and %d calls, %d backlogged and %d requests inside remain",
							e.Now(), len(l.calls)-len(l.freeCalls), l.blLive, l.model.concurrency())
					}
				}
				if was == backing && c.state() == backing {
					for k := 1; k < len(after); k++ {
						orphanAttempts += after[k] - before[k]
					}
				}
			}
			simCheck(t, e, "at the end", nil)
			if timeouts < 10 {
				t.Fatalf("only %d timeouts", timeouts)
			}
			if cancel && orphanAttempts != 0 {
				t.Errorf("%d attempts sent below the client while it waited to retry", orphanAttempts)
			}
			if !cancel && orphanAttempts == 0 {
				t.Errorf("no orphan sent an attempt: the scenario does not exercise the cancel")
			}
		})
	}
}

// TestTiersBudget: a limiter at one tier bounds the amplification as that
// limiter documents, measured under a crash of 120 s (every attempt
// refused at once) with the landing view's 1000 clients, lane a's client
// making 3 attempts through fixed:3:1s and fixed:3:1s. Tier 3 always makes
// its 3, so the server's attempts are 3 × tier 2's exactly. A retry
// budget at tier 2 lets its retries be at most 20 % of its calls plus
// 10 per second (and a ttl's worth of that reserve), and under constant
// failure it spends all of that; gRPC throttling at tier 2 starts with 10
// tokens, takes one per failure and refuses retries at half of them, and
// no success ever refills it: at most 5 retries, ever.
func TestTiersBudget(t *testing.T) {
	t.Parallel()
	p := scenariotest.CurveDefaults()
	p.Outage, p.OutageAt, p.OutageFor, p.Duration = scenario.OutageCrash, 0, 120*time.Second, 120*time.Second
	lane := func(tiers string) scenario.Lane {
		a := simLane(strategies.NameFixed)
		a.MaxAttempts = 3
		a.Tiers = mustTiers(tiers)
		return a
	}
	p.Lanes = []scenario.Lane{lane("fixed:3:1s,fixed:3:1s"), lane("fixed:3:1s:retry_budget,fixed:3:1s"),
		lane("fixed:3:1s:grpc_throttle,fixed:3:1s")}
	e, _ := simRun(t, p)
	simCheck(t, e, "at the end", nil)
	sum := e.Summaries()
	for i, s := range sum {
		t.Logf("%s: %d requests, %d client attempts, tiers %v: %.2f at the server per request",
			p.Lanes[i].Tiers, s.Requests, s.Attempts, s.TierAttempts, s.BottomAmplification)
		// Every client attempt is a tier-2 call; every tier-2 attempt a
		// tier-3 call of 3 attempts, every one refused.
		calls, t2, bottom := s.Attempts, s.TierAttempts[0], s.TierAttempts[1]
		open := e.lanes[i].calls // the calls alive at the end have sent only some of their attempts
		alive := int64(len(open) - len(e.lanes[i].freeCalls))
		if bottom > 3*t2 || bottom < 3*t2-3*alive {
			t.Errorf("lane %d: tier 3 sent %d for %d tier-2 attempts (%d calls alive), want 3 each", i, bottom, t2, alive)
		}
		retries := float64(t2 - calls)
		switch i {
		case 0: // no limiter: 3 per call, but for the calls alive at the end
			if t2 > 3*calls || t2 < 3*calls-2*alive {
				t.Errorf("without a limiter tier 2 sent %d for %d calls", t2, calls)
			}
		case 1:
			bound := 0.20*float64(calls) + 10*(p.Duration.Seconds()+strategies.DefaultBudgetTTL.Seconds())
			if retries > bound || retries < 0.20*float64(calls) {
				t.Errorf("retry budget: %v retries at tier 2 for %d calls, want from 20 %% of them to %v", retries, calls, bound)
			}
		case 2:
			if retries > strategies.DefaultGRPCMaxTokens/2 {
				t.Errorf("gRPC throttling: %v retries at tier 2, want at most %v", retries, strategies.DefaultGRPCMaxTokens/2)
			}
		}
	}
	if !(sum[0].BottomAmplification > 2*sum[1].BottomAmplification && sum[1].BottomAmplification > sum[2].BottomAmplification) {
		t.Errorf("the server's attempts per request: %v without a limiter, %v with a budget, %v throttled",
			sum[0].BottomAmplification, sum[1].BottomAmplification, sum[2].BottomAmplification)
	}
}

// TestTiersBookkeeping runs lanes with tiers against every outage kind,
// with cancel_on_timeout off and on, in uneven steps, and checks at chosen
// moments every invariant of simCheck (the calls' included: no leak, no
// orphan when cancelling, every caller's call its own), that the ticks,
// their tier columns included, add up to the counters, and that once the run goes quiet
// every call has ended: every request ends exactly once (ok or given up),
// and the free list holds every call.
func TestTiersBookkeeping(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	checkAt := []time.Duration{3700 * ms, 10 * time.Second, 10*time.Second + 1, 12345 * ms, 18 * time.Second,
		19500 * ms, 25 * time.Second, 33333 * ms, 40 * time.Second}
	for _, kind := range []string{scenario.OutagePause, scenario.OutageCrash, scenario.OutagePartition} {
		for _, cancel := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/cancel=%v", kind, cancel), func(t *testing.T) {
				t.Parallel()
				p := simSmall()
				p.Clients = 200
				p.Outage = kind
				p.OutageAt, p.OutageFor = 10*time.Second, 8*time.Second
				p.Duration = 40 * time.Second
				p.Faults = mustFaults("error_burst:25s:3s:0.5")
				lane := func(name string, tiers string) scenario.Lane {
					l := simLane(name)
					l.CancelOnTimeout, l.MinConnectTimeout, l.Tiers = cancel, time.Second, mustTiers(tiers)
					return l
				}
				a := lane(strategies.NameFixed, "fixed:3:400ms,exponential:2:150ms")
				b := lane(strategies.NameExponential, "full_jitter:3:300ms:breaker,fixed:2:100ms:retry_budget,grpc:2:50ms:aws_quota")
				b.MaxAttempts = 3
				c := lane(strategies.NameNone, "decorrelated:4:500ms:sre_throttle")
				p.Lanes = []scenario.Lane{a, b, c}
				e := simNew(t, p)
				simAdvanceUnevenly(t, e, checkAt, nil) // the tier columns checked too
				for i, s := range e.Summaries() {
					if s.Requests == 0 || s.TierAttempts[len(s.TierAttempts)-1] == 0 {
						t.Errorf("lane %c did not exercise its tiers: %+v", scenario.LaneNames[i], s)
					}
				}
				// With one client left, and a collapsed server's latency
				// capped at a second, the lanes go quiet now and then:
				// every request ended once, every call ended.
				p.Clients, p.MaxServerDelay = 1, time.Second
				if err := e.Set(p); err != nil {
					t.Fatal(err)
				}
				dropped := removedOpen(e)
				for i, l := range e.lanes {
					quiet := false
					for at := e.Now(); at < 40*time.Minute && !quiet; at += p.Tick {
						e.AdvanceTo(at, nil)
						quiet = l.summary().Open == 0 && len(l.freeCalls) == len(l.calls)
					}
					if !quiet || len(l.calls) == 0 {
						t.Errorf("lane %c: %d of its %d calls free at the quietest", scenario.LaneNames[i], len(l.freeCalls), len(l.calls))
					}
					simCheck(t, e, fmt.Sprintf("lane %c quiet", scenario.LaneNames[i]), dropped)
				}
			})
		}
	}
}

// removedOpen returns, per lane, the attempts in flight that the client
// count's fall dropped: the attempts that ended neither ok, in error nor
// in a timeout, which simCheck must be told of.
func removedOpen(e *Engine) []int64 {
	out := make([]int64, len(e.lanes))
	for i, l := range e.lanes {
		var total counters
		total.add(l.total)
		total.add(l.tick)
		out[i] = total.attempts - total.ok - total.errors - total.timeouts - int64(l.waiting)
	}
	return out
}

// TestTiersLiveChange: a live change of what a lane's tiers do applies
// from then on (a retry budget turned on at tier 2 keeps its state across
// later changes that leave it alone), and a change of how many tiers a
// lane has restarts the run, its calls naming their tier by its place.
func TestTiersLiveChange(t *testing.T) {
	t.Parallel()
	p := simSmall()
	p.Lanes[0].Tiers = mustTiers("fixed:3:400ms,fixed:2:200ms")
	e := simNew(t, p)
	simAdvance(t, e, 12*time.Second)
	p.Lanes[0].Tiers = mustTiers("exponential:2:300ms:retry_budget,fixed:3:200ms")
	if err := e.Set(p); err != nil {
		t.Fatalf("Set of the same number of tiers: %v", err)
	}
	l := e.lanes[0]
	budget := l.tiers[0].pol.Limiters()[1]
	if _, ok := budget.(*strategies.RetryBudget); !ok || l.tiers[0].timeout != 300*time.Millisecond {
		t.Fatalf("tier 2 after the change: %T, timeout %v", budget, l.tiers[0].timeout)
	}
	simAdvance(t, e, 14*time.Second)
	simCheck(t, e, "after a live change of the tiers", nil)
	p.Clients = 250
	if err := e.Set(p); err != nil {
		t.Fatal(err)
	}
	if l.tiers[0].pol.Limiters()[1] != budget {
		t.Errorf("a change of the clients replaced tier 2's retry budget, and its state")
	}
	simAdvance(t, e, 16*time.Second)
	simCheck(t, e, "after a change of the clients", []int64{removedOpen(e)[0], removedOpen(e)[1]})
	for _, tiers := range []string{"fixed:3:400ms", ""} {
		p.Lanes[0].Tiers = mustTiers(tiers)
		if err := e.Set(p); !errors.Is(err, ErrRestarted) || e.Now() != 0 {
			t.Errorf("tiers %q: Set = %v at %v, want a restart", tiers, err, e.Now())
		}
		simAdvance(t, e, 20*time.Second)
		simCheck(t, e, "after a restart for "+string(tiers), nil)
	}
}

// TestTiersDeterministic: a run with tiers gives the same ticks, bit for
// bit, whatever its steps and slices, and lanes without tiers beside one
// with them run as they do alone (each lane is a world of its own).
func TestTiersDeterministic(t *testing.T) {
	t.Parallel()
	p := simSmall()
	p.Lanes[0].Tiers = mustTiers("exponential:3:400ms:sre_throttle,decorrelated:3:200ms")
	_, whole := simRun(t, p)
	e := simNew(t, p)
	var sliced []scenario.Tick
	for !e.Step(p.Duration, 997, func(tk scenario.Tick) { sliced = append(sliced, tk) }) {
	}
	if len(sliced) != len(whole) {
		t.Fatalf("%d ticks in slices, %d in one go", len(sliced), len(whole))
	}
	for k := range whole {
		for i := range whole[k].Lanes {
			a, b := whole[k].Lanes[i], sliced[k].Lanes[i]
			if simJSON(t, a) != simJSON(t, b) {
				t.Fatalf("tick %d lane %d: %+v in one go, %+v in slices", k, i, a, b)
			}
		}
	}
	alone := p
	alone.Lanes = p.Lanes[1:]
	_, b := simRun(t, alone)
	for k := range b {
		if simJSON(t, b[k].Lanes[0]) != simJSON(t, whole[k].Lanes[1]) {
			t.Fatalf("tick %d: lane b alone %+v, beside a lane with tiers %+v", k, b[k].Lanes[0], whole[k].Lanes[1])
		}
	}
}

// TestTierEventsDoNotAllocate: a lane with tiers in steady state allocates
// per event no more than a lane without: its calls come from the free
// list, their events from a queue that has grown.
func TestTierEventsDoNotAllocate(t *testing.T) {
	testrace.SkipUnder(t, detectorAllocates)
	p := scenariotest.CurveDefaults()
	p.Duration = time.Hour
	for i := range p.Lanes {
		p.Lanes[i].Tiers = mustTiers("fixed:3:1s,fixed:2:500ms")
	}
	checkEventsDoNotAllocate(t, p)
}

// TestTiersOpenLoop: an open loop's requests, each with a client of its
// own from the free list, go through tiers as the closed loop's do: the
// product of the attempts reaches the server exactly once every request
// has ended, and then every request's client and every call is free.
func TestTiersOpenLoop(t *testing.T) {
	t.Parallel()
	p := tierFailing(scenario.OutageCrash, "fixed:3:1m0s,fixed:2:10s")
	p.Arrival, p.Rate = scenario.ArrivalOpen, 0.5
	e := simNew(t, p)
	l := e.lanes[0]
	for at := 5 * time.Minute; ; at += p.Tick {
		if at > time.Hour {
			t.Fatal("never idle")
		}
		e.AdvanceTo(at, nil)
		if s := e.Summaries()[0]; s.Open == 0 && len(l.freeCalls) == len(l.calls) {
			break
		}
	}
	s := e.Summaries()[0]
	if s.Requests < 100 || s.GaveUp != s.Requests {
		t.Fatalf("%d requests, %d gave up: want many, every one given up", s.Requests, s.GaveUp)
	}
	for k, per := range []int64{3, 9, 18} {
		if n := tierTotals(e)[k]; n != per*s.Requests {
			t.Errorf("tier %d sent %d attempts for %d requests, want %d each", k+1, n, s.Requests, per)
		}
	}
	if len(l.free) != len(l.clients)-1 {
		t.Errorf("%d of the %d requests' clients free once idle", len(l.free), len(l.clients)-1)
	}
	simCheckCalls(e, l, func(format string, args ...any) { t.Errorf(format, args...) }, false)
}
