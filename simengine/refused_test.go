package simengine

import (
	"context"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// TestOpenLoopRefusedFirstAttempt runs an open loop whose limiter refuses
// first attempts (a breaker on all traffic, adaptive throttling) across the
// default pause: a request that arrives on a new client and is refused
// before it is sent retires a client that never had an event. The run must
// end, and every request be counted once: ok, given up or open, with the
// refused ones among those given up.
func TestOpenLoopRefusedFirstAttempt(t *testing.T) {
	t.Parallel()
	for _, lim := range []struct {
		name string
		set  func(*scenario.Lane)
		// fewer: the limiter refuses so many first attempts that the lane
		// sends fewer attempts than it begins requests.
		fewer bool
	}{
		{"breaker=all", func(l *scenario.Lane) { l.Breaker = strategies.BreakerAll }, true},
		{"sre_throttle=on", func(l *scenario.Lane) { l.SREThrottle = strategies.LimiterOn }, false},
		{"sre_throttle=on,sre_k=1.1", func(l *scenario.Lane) { l.SREThrottle, l.SREK = strategies.LimiterOn, 1.1 }, true},
	} {
		t.Run(lim.name, func(t *testing.T) {
			t.Parallel()
			p := scenario.Defaults()
			p.Arrival, p.Rate = scenario.ArrivalOpen, 250
			p.Duration = time.Minute
			p.Lanes = []scenario.Lane{simLane(strategies.NameFixed)}
			lim.set(&p.Lanes[0])
			sums, err := Run(context.Background(), p, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := sums[0]
			if s.Succeeded+s.GaveUp+s.Open != s.Requests {
				t.Errorf("%d ok + %d gave up + %d open, want the %d requests", s.Succeeded, s.GaveUp, s.Open, s.Requests)
			}
			// Refused requests are never sent: fewer attempts than
			// requests shows the limiter refused first attempts.
			if lim.fewer && s.Attempts >= s.Requests {
				t.Errorf("%d attempts for %d requests: no first attempt was refused", s.Attempts, s.Requests)
			}
		})
	}
}

// TestQueueRemoveUnscheduled: removing a client that never had an event,
// one beyond every client scheduled so far included, leaves the queue as
// it was.
func TestQueueRemoveUnscheduled(t *testing.T) {
	q := testQueue(0, 3)
	q.schedule(0, time.Second)
	q.schedule(2, 2*time.Second)
	q.remove(1) // within the owners, never scheduled
	q.remove(7) // beyond them
	if q.len() != 2 || q.top().c != 0 {
		t.Fatalf("after removing unscheduled clients: %d events, top %d; want 2, top 0", q.len(), q.top().c)
	}
	q.remove(0)
	if q.len() != 1 || q.top().c != 2 {
		t.Fatalf("after removing client 0: %d events, top %d; want 1, top 2", q.len(), q.top().c)
	}
}
