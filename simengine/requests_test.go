package simengine

import (
	"fmt"
	"testing"
	"time"

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
				l := e.lanes[i]
				open, late := l.openRequests(p.Patience)
				if s.Open != open || s.OpenPastPatience != late || s.RequestLatency.Count()+uint64(s.Open) != uint64(s.Requests) ||
					s.SuccessLatency.Count() != uint64(s.Succeeded) {
					t.Errorf("lane %c: summary requests %d = %d ended + %d open (%d scanned, %d late), %d succeeded (%d in its histogram)",
						scenario.LaneNames[i], s.Requests, s.RequestLatency.Count(), s.Open, open, late, s.Succeeded, s.SuccessLatency.Count())
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
