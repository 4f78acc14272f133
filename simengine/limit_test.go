package simengine

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"backofflab/scenario"
	"backofflab/strategies"
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
	_ strategies.SharedLimit = (*countLimit)(nil)
	_ strategies.FirstLimit  = refuseFirst{}
)

// withLimit makes every lane of e build its Policy with the limit that mk
// returns appended, from now on and for every Set.
func withLimit(e *Engine, mk func(strategies.Params) strategies.Limit) {
	for i, l := range e.lanes {
		l.build = func(p strategies.Params) (*strategies.Policy, error) {
			pol, err := strategies.New(p)
			if err != nil {
				return nil, err
			}
			return strategies.NewPolicy(pol.Strategy, append(pol.Limits(), mk(p))...), nil
		}
		l.pol = nil
		l.configure(i)
	}
}

// laneLimit returns lane l's limit of type T.
func laneLimit[T strategies.Limit](t *testing.T, l *lane) T {
	t.Helper()
	for _, lim := range l.pol.Limits() {
		if x, ok := lim.(T); ok {
			return x
		}
	}
	var zero T
	t.Fatalf("no %T in the lane's limits", zero)
	return zero
}

func limitParams(outage string) scenario.Params {
	p := curveDefaults()
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
			withLimit(limited, func(sp strategies.Params) strategies.Limit { return &countLimit{cfg: sp.MinDelay} })
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
			withLimit(e, func(sp strategies.Params) strategies.Limit { return &countLimit{cfg: sp.MinDelay} })
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

// TestFirstLimitRefuses: a FirstLimit that refuses every request leaves
// the lane without an attempt; each request counts as given up.
func TestFirstLimitRefuses(t *testing.T) {
	e, err := New(limitParams(scenario.OutageNone))
	if err != nil {
		t.Fatal(err)
	}
	withLimit(e, func(strategies.Params) strategies.Limit { return refuseFirst{} })
	e.AdvanceTo(20*time.Second, func(scenario.Tick) {})
	for i, l := range e.lanes {
		if tot := l.total; tot.requests == 0 || tot.attempts != 0 || tot.gaveUp != tot.requests {
			t.Errorf("lane %d: %+v, want requests all given up, no attempt", i, tot)
		}
	}
}
