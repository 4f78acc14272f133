package simengine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// countLimit is a test-only shared limit that allows everything and counts
// the outcomes it is told of. Its Config is the lane's min_delay, a
// stand-in for parameters of its own.
type countLimit struct {
	cfg  time.Duration
	seen [3]int64 // by strategies.Outcome
}

func (*countLimit) AllowRetry(*strategies.State, time.Duration, *rand.Rand) bool { return true }
func (c *countLimit) Record(_ *strategies.State, _ time.Duration, o strategies.Outcome) {
	c.seen[o]++
}
func (c *countLimit) Config() any { return c.cfg }

// refuseFirst is a test-only breaker stuck open: no request starts.
type refuseFirst struct{}

func (refuseFirst) AllowRetry(*strategies.State, time.Duration, *rand.Rand) bool { return true }
func (refuseFirst) Record(*strategies.State, time.Duration, strategies.Outcome)  {}
func (refuseFirst) AllowFirst(*strategies.State, time.Duration, *rand.Rand) bool {
	return false
}

var (
	_ strategies.SharedLimiter = (*countLimit)(nil)
	_ strategies.FirstLimiter  = refuseFirst{}
)

// withLimit makes every lane of e build its Policy with the limit that mk
// returns appended, from now on and for every Set.
func withLimit(e *Engine, mk func(strategies.Params) strategies.Limiter) {
	for i, l := range e.lanes {
		l.build = func(p strategies.Params) (*strategies.Policy, error) {
			pol, err := strategies.New(p)
			if err != nil {
				return nil, err
			}
			return strategies.NewPolicy(pol.Strategy, append(pol.Limiters(), mk(p))...), nil
		}
		l.pol = nil
		l.configure(i)
	}
}

// laneLimit returns lane l's limit of type T.
func laneLimit[T strategies.Limiter](t *testing.T, l *lane) T {
	t.Helper()
	for _, lim := range l.pol.Limiters() {
		if x, ok := lim.(T); ok {
			return x
		}
	}
	var zero T
	t.Fatalf("no %T in the lane's limits", zero)
	return zero
}

func limitParams(outage string) scenario.Params {
	p := scenariotest.CurveDefaults()
	p.Clients = 500
	p.Outage, p.OutageAt, p.OutageFor = outage, 10*time.Second, 8*time.Second
	p.Lanes[1].MaxAttempts, p.Lanes[1].Deadline = 4, 20*time.Second
	return p
}

// TestLimitSeesEveryOutcome: through the engine, a lane's shared limit is
// told of every attempt that ends
// exactly once (successes, errors and timeouts add up to the attempts sent
// but those still in flight), and a limit that allows everything changes
// no tick.
func TestLimitSeesEveryOutcome(t *testing.T) {
	for _, outage := range []string{scenario.OutageNone, scenario.OutagePause, scenario.OutageCrash, scenario.OutagePartition} {
		t.Run(outage, func(t *testing.T) {
			p := limitParams(outage)
			plain, err := New(p)
			if err != nil {
				t.Fatal(err)
			}
			limited, _ := New(p)
			withLimit(limited, func(sp strategies.Params) strategies.Limiter { return &countLimit{cfg: sp.MinDelay} })
			var want, got []string
			plain.AdvanceTo(30*time.Second, func(tk scenario.Tick) { want = append(want, fmt.Sprint(tk)) })
			limited.AdvanceTo(30*time.Second, func(tk scenario.Tick) { got = append(got, fmt.Sprint(tk)) })
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Error("a limit that allows everything changed the ticks")
			}
			for i, l := range limited.lanes {
				tot := l.total
				if l.tick != (counters{}) {
					t.Fatalf("lane %d: events after the last tick", i)
				}
				c := laneLimit[*countLimit](t, l)
				if w := [3]int64{tot.ok, tot.errors, tot.timeouts}; c.seen != w {
					t.Errorf("lane %d: limit saw %v, the lane counted ok, errors, timeouts %v", i, c.seen, w)
				}
				ended := tot.attempts - int64(l.waiting)
				if n := c.seen[0] + c.seen[1] + c.seen[2]; n != ended {
					t.Errorf("lane %d: %d outcomes told, %d attempts ended", i, n, ended)
				}
				t.Logf("lane %d: outcomes %v of %d attempts", i, c.seen, tot.attempts)
			}
		})
	}
}

// TestSharedLimitSurvivesSet: a live Set that leaves a shared limit's
// parameters alone keeps its object and state; one that changes them
// starts it afresh. Per-client state lives on in the clients either way.
func TestSharedLimitSurvivesSet(t *testing.T) {
	cases := []struct {
		name string
		set  func(p *scenario.Params)
		keep bool
	}{
		{"clients", func(p *scenario.Params) { p.Clients = 600 }, true},
		{"server_limit", func(p *scenario.Params) { p.ServerLimit = 50 }, true},
		{"max_attempts", func(p *scenario.Params) { p.Lanes[0].MaxAttempts = 3 }, true},
		{"min_delay", func(p *scenario.Params) { p.Lanes[0].MinDelay = 300 * time.Millisecond }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(limitParams(scenario.OutagePause))
			if err != nil {
				t.Fatal(err)
			}
			withLimit(e, func(sp strategies.Params) strategies.Limiter { return &countLimit{cfg: sp.MinDelay} })
			e.AdvanceTo(15*time.Second, func(scenario.Tick) {})
			before := laneLimit[*countLimit](t, e.lanes[0])
			seen := before.seen
			p := e.Params()
			c.set(&p)
			if err := e.Set(p); err != nil {
				t.Fatal(err)
			}
			after := laneLimit[*countLimit](t, e.lanes[0])
			if kept := after == before; kept != c.keep {
				t.Fatalf("limit kept: %v, want %v", kept, c.keep)
			}
			if c.keep && after.seen != seen {
				t.Errorf("kept limit's state %v, was %v", after.seen, seen)
			}
			if other := laneLimit[*countLimit](t, e.lanes[1]); c.name == "min_delay" && other.seen == ([3]int64{}) {
				t.Error("lane b's limit, whose parameters did not change, lost its state")
			}
			e.AdvanceTo(30*time.Second, func(scenario.Tick) {})
			if after.seen[0]+after.seen[1]+after.seen[2] <= seen[0]+seen[1]+seen[2] && c.keep {
				t.Error("the kept limit is no longer told of outcomes")
			}
		})
	}
}

// TestFirstLimitRefuses: a FirstLimiter that refuses every request leaves
// the lane without an attempt; each request counts as given up.
func TestFirstLimitRefuses(t *testing.T) {
	e, err := New(limitParams(scenario.OutageNone))
	if err != nil {
		t.Fatal(err)
	}
	withLimit(e, func(strategies.Params) strategies.Limiter { return refuseFirst{} })
	e.AdvanceTo(20*time.Second, func(scenario.Tick) {})
	for i, l := range e.lanes {
		if tot := l.total; tot.requests == 0 || tot.attempts != 0 || tot.gaveUp != tot.requests {
			t.Errorf("lane %d: %+v, want requests all given up, no attempt", i, tot)
		}
	}
}

// crash is the scenario of the limiters' amplification tests: 001's 1000
// clients retrying every 100 ms (fixed), and a server that crashes at 10 s
// for 100 s, refusing every attempt: 100 % failure.
func crash(lanes ...scenario.Lane) scenario.Params {
	p := scenario.Defaults()
	p.Outage, p.OutageAt, p.OutageFor, p.Duration = scenario.OutageCrash, 10*time.Second, 100*time.Second, 120*time.Second
	p.Lanes = lanes
	return p
}

// fixedWith returns lane a's defaults (fixed, 100 ms) with set applied.
func fixedWith(set func(l *scenario.Lane)) scenario.Lane {
	l := scenario.DefaultLane(0)
	set(&l)
	return l
}

// span is what a lane counted between two times: the difference of its
// totals.
type span struct{ from, to counters }

func (s span) d() counters {
	return counters{requests: s.to.requests - s.from.requests, ok: s.to.ok - s.from.ok,
		errors: s.to.errors - s.from.errors, timeouts: s.to.timeouts - s.from.timeouts,
		attempts: s.to.attempts - s.from.attempts, retries: s.to.retries - s.from.retries,
		gaveUp: s.to.gaveUp - s.from.gaveUp}
}

// amp is the attempts sent per request begun.
func (c counters) amp() float64 { return float64(c.attempts) / float64(c.requests) }

// runSpans runs p and returns each lane's counts between the times given,
// which are multiples of the tick, in order.
func runSpans(t *testing.T, p scenario.Params, at ...time.Duration) (*Engine, [][]counters) {
	t.Helper()
	e, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]counters, len(e.lanes))
	for _, a := range at {
		e.AdvanceTo(a, func(scenario.Tick) {})
		for i, l := range e.lanes {
			out[i] = append(out[i], l.total)
		}
	}
	return e, out
}

// TestAmplificationUnlimited is the reference the limiters are measured
// against: without a limiter, the crash makes every client retry ten times
// a second.
func TestAmplificationUnlimited(t *testing.T) {
	_, c := runSpans(t, crash(scenario.DefaultLane(0)), 20*time.Second, 110*time.Second)
	d := span{c[0][0], c[0][1]}.d()
	if d.amp() < 100 {
		t.Errorf("%.1f attempts per request in the crash, want a storm (over 100)", d.amp())
	}
	t.Logf("no limiter: %d requests, %d attempts, %d retries in [20 s, 110 s): %.1f attempts per request",
		d.requests, d.attempts, d.retries, d.amp())
}

// TestAmplificationGRPCThrottle: once failures have drained the bucket to
// half, retries are what successes pay for, token_ratio each; in a crash
// there are none, so the crash's retries are at most the 5 tokens above
// half that the bucket held when it began, and a request makes about one
// attempt.
func TestAmplificationGRPCThrottle(t *testing.T) {
	on := fixedWith(func(l *scenario.Lane) { l.GRPCThrottle = strategies.LimiterOn })
	e, c := runSpans(t, crash(on), 10*time.Second, 110*time.Second)
	d := span{c[0][0], c[0][1]}.d()
	b := laneLimit[*strategies.GRPCThrottle](t, e.lanes[0])
	if bound := 5 + 0.1*float64(d.ok); float64(d.retries) > bound || d.ok != 0 {
		t.Errorf("%d retries and %d successes in the crash, want no success and at most %.0f retries", d.retries, d.ok, bound)
	}
	t.Logf("grpc_throttle: %d requests, %d attempts, %d retries, %d ok in the crash: %.3f attempts per request; %.1f tokens at its end",
		d.requests, d.attempts, d.retries, d.ok, d.amp(), b.Tokens())
}

// TestAmplificationAWSQuota: without a success the quota pays for 500/14
// = 35 retries after errors, and then none: the crash's retries are at
// most 35, and the quota holds less than a retry's 14 at its end.
func TestAmplificationAWSQuota(t *testing.T) {
	on := fixedWith(func(l *scenario.Lane) { l.AWSQuota = strategies.LimiterOn })
	e, c := runSpans(t, crash(on), 10*time.Second, 110*time.Second)
	d := span{c[0][0], c[0][1]}.d()
	q := laneLimit[*strategies.AWSQuota](t, e.lanes[0])
	if d.retries > 35 || d.retries < 30 || d.ok != 0 || q.Available() >= 14 {
		t.Errorf("%d retries, %d ok in the crash, %d tokens left; want about 35 retries (at most), no ok, under 14 tokens",
			d.retries, d.ok, q.Available())
	}
	t.Logf("aws_quota: %d requests, %d attempts, %d retries in the crash: %.3f attempts per request; %d tokens left",
		d.requests, d.attempts, d.retries, d.amp(), q.Available())
}

// TestAmplificationSREThrottle: with no accept the throttle refuses each
// attempt with r/(r+1), r the requests of the last two minutes, so it
// sends about one attempt in r. The accepts from before the crash count
// for two minutes, K = 2 each: until they leave the window the throttle
// lets a share through that shrinks as the failures mount; after, it sends
// a trickle. The crash lasts 200 s here, to see both.
func TestAmplificationSREThrottle(t *testing.T) {
	on := fixedWith(func(l *scenario.Lane) { l.SREThrottle = strategies.LimiterOn })
	p := crash(on)
	p.OutageFor, p.Duration = 200*time.Second, 220*time.Second
	e, c := runSpans(t, p, 20*time.Second, 130*time.Second, 210*time.Second)
	early, late := span{c[0][0], c[0][1]}.d(), span{c[0][1], c[0][2]}.d()
	if early.amp() > 0.5 || late.amp() > 0.01 {
		t.Errorf("%.3f attempts per request in [20 s, 130 s), %.4f in [130 s, 210 s); want under 0.5 and under 0.01",
			early.amp(), late.amp())
	}
	r, a := laneLimit[*strategies.SREThrottle](t, e.lanes[0]).Counts(210 * time.Second)
	t.Logf("sre_throttle: [20 s, 130 s): %d requests, %d attempts, %d retries: %.4f attempts per request; "+
		"[130 s, 210 s): %d requests, %d attempts, %d retries: %.4f attempts per request; window %d requests, %d accepts (refusing with %.4f)",
		early.requests, early.attempts, early.retries, early.amp(), late.requests, late.attempts, late.retries, late.amp(),
		r, a, strategies.SREProbability(r, a, 2))
}

// TestAmplificationRetryBudget: over any span the retries are at most 20 %
// of the requests of the span and the ttl before it, plus 10 a second;
// since withdrawals leave the window after 9 to 10 s (its slices are a
// tenth of the ttl), the floor pays 100 retries per 9 s at most.
func TestAmplificationRetryBudget(t *testing.T) {
	on := fixedWith(func(l *scenario.Lane) { l.RetryBudget = strategies.LimiterOn })
	_, c := runSpans(t, crash(on), 10*time.Second, 20*time.Second, 110*time.Second)
	d := span{c[0][1], c[0][2]}.d()
	withTTL := span{c[0][0], c[0][2]}.d() // the requests whose deposits may count
	spanS := 90.0
	bound := 0.2*float64(withTTL.requests) + 100*(spanS/9+1)
	if float64(d.retries) > bound {
		t.Errorf("%d retries in [20 s, 110 s), want at most %.0f (20 %% of %d requests, plus the floor)", d.retries, bound, withTTL.requests)
	}
	if steady := 0.2*float64(d.requests) + 10*spanS; float64(d.retries) < 0.9*steady {
		t.Errorf("%d retries, want near %.0f: the budget spent", d.retries, steady)
	}
	t.Logf("retry_budget: %d requests, %d attempts, %d retries in [20 s, 110 s): %.3f attempts per request (bound %.0f retries, 20 %% + 10/s = %.0f)",
		d.requests, d.attempts, d.retries, d.amp(), bound, 0.2*float64(d.requests)+10*spanS)
}

// TestAmplificationBreaker: breaking all traffic, the breaker opens within
// the crash's first moments and sends nothing while open; every 60 s it
// lets 10 probes through, which fail and open it again. Breaking retries
// only, first attempts go on and retries are the probes alone: at most 10,
// and fewer when the failures of first attempts, which the half-open
// breaker hears too, make up its 10 outcomes before 10 retries fall due.
func TestAmplificationBreaker(t *testing.T) {
	for _, mode := range []string{strategies.BreakerAll, strategies.BreakerRetries} {
		t.Run(mode, func(t *testing.T) {
			on := fixedWith(func(l *scenario.Lane) { l.Breaker = mode })
			e, c := runSpans(t, crash(on), 11*time.Second, 110*time.Second)
			d := span{c[0][0], c[0][1]}.d()
			br := laneLimit[*strategies.Breaker](t, e.lanes[0])
			// Open at about 10 s, half-open at about 70 s: 10 probes.
			probes := int64(strategies.DefaultBreakerProbes)
			switch mode {
			case strategies.BreakerAll:
				if d.attempts != probes || d.gaveUp != d.requests {
					t.Errorf("%d attempts, %d of %d requests refused; want the %d probes alone, every other request refused",
						d.attempts, d.gaveUp, d.requests, probes)
				}
			case strategies.BreakerRetries:
				if d.retries < 1 || d.retries > probes {
					t.Errorf("%d retries, want the probes alone, 1 to %d", d.retries, probes)
				}
			}
			if s := br.State(110 * time.Second); s != strategies.BreakerOpen {
				t.Errorf("breaker %v at the crash's end, want open", s)
			}
			t.Logf("breaker=%s: %d requests, %d attempts, %d retries, %d gave up in [11 s, 110 s): %.3f attempts per request",
				mode, d.requests, d.attempts, d.retries, d.gaveUp, d.amp())
		})
	}
}

// TestBreakerRefusesRetriesDueWhileOpen: the breaker is asked about a retry
// when it is due, as resilience4j asks when the call runs. In a 300 s
// crash, breaking all traffic with fixed delays, the retries scheduled
// before it opened are refused when due: from the tick after it opened
// nothing is sent until it turns half-open 60 s later, and the crash's
// attempts are those up to its opening and four rounds of 10 probes.
// (Asked when the attempt failed, it let the retries scheduled before it
// opened go while open: 104 attempts in the crash at 100 ms, 129 at 1 s,
// where resilience4j's timing sends 80.)
func TestBreakerRefusesRetriesDueWhileOpen(t *testing.T) {
	for _, delay := range []time.Duration{100 * time.Millisecond, time.Second} {
		t.Run(delay.String(), func(t *testing.T) {
			on := fixedWith(func(l *scenario.Lane) {
				l.Breaker, l.MinDelay = strategies.BreakerAll, delay
			})
			p := crash(on)
			p.OutageFor, p.Duration = 300*time.Second, 320*time.Second
			e, err := New(p)
			if err != nil {
				t.Fatal(err)
			}
			l := e.lanes[0]
			br := laneLimit[*strategies.Breaker](t, l)
			start := p.OutageAt
			e.AdvanceTo(start, func(scenario.Tick) {})
			before := l.total.attempts
			var opened time.Duration
			for at := start + p.Tick; opened == 0 && at <= start+10*time.Second; at += p.Tick {
				e.AdvanceTo(at, func(scenario.Tick) {})
				if br.State(at) == strategies.BreakerOpen {
					opened = at
				}
			}
			if opened == 0 {
				t.Fatal("the breaker did not open within the crash's first 10 s")
			}
			toOpen := l.total.attempts - before
			quiet := l.total.attempts
			e.AdvanceTo(opened-p.Tick+strategies.DefaultBreakerOpenFor, func(scenario.Tick) {})
			if n := l.total.attempts - quiet; n != 0 {
				t.Errorf("%d attempts sent while the breaker was open, from %v to %v; want none", n, opened,
					opened-p.Tick+strategies.DefaultBreakerOpenFor)
			}
			e.AdvanceTo(start+p.OutageFor, func(scenario.Tick) {})
			total := l.total.attempts - before
			if want := toOpen + 4*int64(strategies.DefaultBreakerProbes); total != want {
				t.Errorf("%d attempts in the crash, want %d: %d until it opened at %v and 4 rounds of %d probes",
					total, want, toOpen, opened, strategies.DefaultBreakerProbes)
			}
			t.Logf("fixed %v: %d attempts in the 300 s crash, %d of them until the breaker opened at %v",
				delay, total, toOpen, opened)
		})
	}
}

// limiterLanes returns lane a's defaults with each limiter on in turn.
func limiterLanes() map[string]scenario.Lane {
	return map[string]scenario.Lane{
		"grpc_throttle": fixedWith(func(l *scenario.Lane) { l.GRPCThrottle = strategies.LimiterOn }),
		"aws_quota":     fixedWith(func(l *scenario.Lane) { l.AWSQuota = strategies.LimiterOn }),
		"sre_throttle":  fixedWith(func(l *scenario.Lane) { l.SREThrottle = strategies.LimiterOn }),
		"retry_budget":  fixedWith(func(l *scenario.Lane) { l.RetryBudget = strategies.LimiterOn }),
		"breaker":       fixedWith(func(l *scenario.Lane) { l.Breaker = strategies.BreakerAll }),
	}
}

// TestLimitersIdleWhenHealthy: against a healthy server every limiter lets
// everything through and draws no random number: a lane with it on ticks
// exactly as the lane without.
func TestLimitersIdleWhenHealthy(t *testing.T) {
	for name, on := range limiterLanes() {
		t.Run(name, func(t *testing.T) {
			ticks := func(l scenario.Lane) []string {
				p := scenario.Defaults()
				p.Outage, p.Duration, p.Lanes = scenario.OutageNone, 30*time.Second, []scenario.Lane{l}
				e, err := New(p)
				if err != nil {
					t.Fatal(err)
				}
				var out []string
				e.AdvanceTo(p.Duration, func(tk scenario.Tick) { out = append(out, fmt.Sprint(tk)) })
				if n := len(e.lanes[0].pol.Limiters()); n != 1 && !reflect.DeepEqual(l, scenario.DefaultLane(0)) {
					t.Fatalf("%d limits, want the limiter alone", n)
				}
				return out
			}
			if fmt.Sprint(ticks(on)) != fmt.Sprint(ticks(scenario.DefaultLane(0))) {
				t.Error("a limiter changed a healthy run")
			}
		})
	}
}

// TestLimiterSurvivesSet: a live change of the clients keeps a lane's
// limiter and what it learned (its empty quota, its open breaker); a
// change of its own parameters starts it afresh.
func TestLimiterSurvivesSet(t *testing.T) {
	lanes := limiterLanes()
	e, err := New(crash(lanes["aws_quota"], lanes["breaker"]))
	if err != nil {
		t.Fatal(err)
	}
	e.AdvanceTo(15*time.Second, func(scenario.Tick) {})
	q := laneLimit[*strategies.AWSQuota](t, e.lanes[0])
	br := laneLimit[*strategies.Breaker](t, e.lanes[1])
	if q.Available() >= strategies.DefaultAWSRetryCost || br.State(15*time.Second) != strategies.BreakerOpen {
		t.Fatalf("after 5 s of crash: %d tokens, breaker %v; want drained and open", q.Available(), br.State(15*time.Second))
	}
	p := e.Params()
	p.Clients = 900
	if err := e.Set(p); err != nil {
		t.Fatal(err)
	}
	if laneLimit[*strategies.AWSQuota](t, e.lanes[0]) != q || laneLimit[*strategies.Breaker](t, e.lanes[1]) != br {
		t.Fatal("a change of clients replaced a limiter")
	}
	p.Lanes[0].AWSRetryCost = 4
	if err := e.Set(p); err != nil {
		t.Fatal(err)
	}
	if n := laneLimit[*strategies.AWSQuota](t, e.lanes[0]); n == q || n.Available() != 500 {
		t.Errorf("a changed quota kept, or not full (%d tokens)", n.Available())
	}
}

// TestClientSize: the limiters keep their state in the lane's Policy and a
// request's in State's 40 bytes, so a client stays 56 bytes, its event
// queue's sequence number included (which the queue reads in the client
// rather than in an array of its own, sparing a cache miss an event): the
// engine's speed on its largest runs follows this size.
func TestClientSize(t *testing.T) {
	if n := unsafe.Sizeof(client{}); n != 56 {
		t.Errorf("a client is %d bytes, want 56", n)
	}
}
