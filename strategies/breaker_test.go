package strategies

import (
	"fmt"
	"testing"
	"time"
)

func newBreaker(retriesOnly bool) *Breaker {
	return NewBreaker(BreakerConfig{RetriesOnly: retriesOnly, Threshold: DefaultBreakerThreshold,
		Window: DefaultBreakerWindow, MinCalls: DefaultBreakerMinCalls, OpenFor: DefaultBreakerOpenFor,
		Probes: DefaultBreakerProbes})
}

// record tells b n outcomes o at now.
func record(b *Breaker, now time.Duration, o Outcome, n int) {
	var s State
	for range n {
		b.Record(&s, now, o)
	}
}

// TestBreakerOpens: closed, the breaker judges the last 100 outcomes once
// it has 100: 50 % failures or more open it, 49 % do not, 99 failures are
// too few calls; old outcomes leave the window.
func TestBreakerOpens(t *testing.T) {
	type batch struct {
		o Outcome
		n int
	}
	cases := []struct {
		name    string
		batches []batch
		want    BreakerState
	}{
		{"too_few_calls", []batch{{Error, 99}}, BreakerClosed},
		{"hundredth_failure", []batch{{Error, 100}}, BreakerOpen},
		{"exactly_half", []batch{{Success, 50}, {Timeout, 50}}, BreakerOpen},
		{"just_under_half", []batch{{Success, 51}, {Error, 49}}, BreakerClosed},
		{"old_failures_leave", []batch{{Error, 49}, {Success, 51}, {Success, 49}, {Error, 49}}, BreakerClosed},
		{"slides_to_half", []batch{{Error, 49}, {Success, 51}, {Success, 48}, {Error, 49}, {Error, 1}}, BreakerOpen},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newBreaker(false)
			for _, bt := range c.batches {
				record(b, time.Second, bt.o, bt.n)
			}
			if got := b.State(time.Second); got != c.want {
				t.Errorf("state %v, want %v", got, c.want)
			}
		})
	}
	t.Run("min_calls_past_window", func(t *testing.T) {
		b := NewBreaker(BreakerConfig{Threshold: 50, Window: 10, MinCalls: 100, OpenFor: time.Second, Probes: 1})
		record(b, 0, Error, 10)
		if b.State(0) != BreakerOpen {
			t.Error("a full window of 10 failures did not open a breaker whose min_calls is 100")
		}
	})
}

// TestBreakerCycle: open, the breaker refuses what it breaks for open_for
// and ignores the outcomes of attempts sent before; then half-open it lets
// 10 probes through; their outcomes close it or open it again.
func TestBreakerCycle(t *testing.T) {
	s := time.Second
	cases := []struct {
		name       string
		probeFails int
		want       BreakerState
	}{
		{"probes_succeed", 0, BreakerClosed},
		{"four_of_ten_fail", 4, BreakerClosed},
		{"half_fail", 5, BreakerOpen},
		{"all_fail", 10, BreakerOpen},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newBreaker(false)
			var st State
			record(b, 10*s, Error, 100)
			if b.AllowFirst(&st, 10*s, nil) || b.AllowSend(&st, 69*s, nil) {
				t.Fatal("open breaker let an attempt through")
			}
			record(b, 30*s, Success, 100) // answers to attempts sent before: ignored
			if got := b.State(69999 * time.Millisecond); got != BreakerOpen {
				t.Fatalf("state %v just before open_for, want open", got)
			}
			for i := range 10 {
				if !b.AllowFirst(&st, 70*s, nil) {
					t.Fatalf("probe %d refused", i)
				}
			}
			if b.AllowFirst(&st, 70*s, nil) || b.AllowSend(&st, 70*s, nil) {
				t.Fatal("an eleventh attempt let through half-open")
			}
			record(b, 71*s, Error, c.probeFails)
			if c.probeFails < 10 && b.State(71*s) != BreakerHalfOpen {
				t.Fatal("judged before the tenth outcome")
			}
			record(b, 71*s, Success, 10-c.probeFails)
			if got := b.State(71 * s); got != c.want {
				t.Fatalf("state %v after %d failed probes of 10, want %v", got, c.probeFails, c.want)
			}
			if c.want == BreakerClosed {
				// An empty window again: 99 failures are too few.
				record(b, 72*s, Error, 99)
				if b.State(72*s) != BreakerClosed {
					t.Error("the closed breaker kept the window from before")
				}
			} else if b.State(130*s) != BreakerOpen || b.State(131*s) != BreakerHalfOpen {
				t.Error("the reopened breaker did not wait open_for again")
			}
		})
	}
}

// TestBreakerRetriesOnly: a breaker of retries lets every first attempt
// through, also open and half-open, and takes no probe for them; its
// outcomes still count.
func TestBreakerRetriesOnly(t *testing.T) {
	b := newBreaker(true)
	var st State
	record(b, 0, Timeout, 100)
	if !b.AllowFirst(&st, 0, nil) || b.AllowSend(&st, 0, nil) {
		t.Fatal("open breaker of retries: want first attempts through, retries refused")
	}
	for range 20 {
		if !b.AllowFirst(&st, time.Minute, nil) {
			t.Fatal("half-open breaker of retries refused a first attempt")
		}
	}
	for i := range 10 {
		if !b.AllowSend(&st, time.Minute, nil) {
			t.Fatalf("probe %d refused", i)
		}
	}
	if b.AllowSend(&st, time.Minute, nil) {
		t.Error("an eleventh retry let through half-open")
	}
}

// TestBreakerReleaseAndStuckProbes: a probe refused by a later limit comes
// back; probes that never end (their clients left) reopen the breaker
// open_for after the last went, rather than leave it half-open for good.
func TestBreakerReleaseAndStuckProbes(t *testing.T) {
	b := newBreaker(false)
	pol := NewPolicy(Fixed{Delay: time.Second}, b, refuser{})
	var st State
	record(b, 0, Error, 100)
	pol.Begin(&st, time.Minute, 0)
	if pol.AllowFirst(&st, time.Minute, newRNG(1050)) {
		t.Fatal("the refuser let an attempt through")
	}
	if b.permits != 0 {
		t.Fatalf("%d probes spent by a refused attempt, want 0", b.permits)
	}
	for range 10 {
		b.AllowFirst(&st, 61*time.Second, nil)
	}
	record(b, 62*time.Second, Success, 9) // one probe never ends
	if got := b.State(120 * time.Second); got != BreakerHalfOpen {
		t.Fatalf("state %v before open_for after the last probe, want half-open", got)
	}
	if got := b.State(121 * time.Second); got != BreakerOpen {
		t.Fatalf("state %v open_for after the last probe, want open", got)
	}
	if got := b.State(181 * time.Second); got != BreakerHalfOpen {
		t.Errorf("state %v, want half-open again", got)
	}
}

// TestBreakerDecidesWhenRetryIsDue: the breaker is asked about a retry when
// it is due, as resilience4j asks when the call runs. A retry scheduled
// while the breaker was closed is refused if another client's failure
// opened it during the wait, and the AWS quota, which decided at the
// failure, gets its tokens back; a retry due while it stays closed goes.
func TestBreakerDecidesWhenRetryIsDue(t *testing.T) {
	for _, c := range []struct {
		name      string
		failures  int // other clients' failures during the wait
		wantSent  bool
		wantQuota int
	}{
		{"opened_during_the_wait", 1, false, 500},
		{"closed_when_due", 0, true, 486},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, mode := range []bool{false, true} {
				b := newBreaker(mode)
				q := newDefaultAWSQuota()
				pol := NewPolicy(Fixed{Delay: time.Second}, b, q)
				rng := newRNG(1060)
				record(b, 0, Error, 98)
				var s State
				pol.Begin(&s, 0, 0)
				if !pol.AllowFirst(&s, 0, rng) {
					t.Fatal("a closed breaker refused a first attempt")
				}
				pol.Record(&s, 0, Error) // the 99th failure: still closed
				d, ok := pol.Retry(&s, 0, rng)
				if !ok || d != time.Second || q.Available() != 486 {
					t.Fatalf("Retry = %v, %v with %d tokens left; want 1s, true, 486", d, ok, q.Available())
				}
				record(b, 500*time.Millisecond, Error, c.failures)
				if got := pol.AllowSend(&s, d, rng); got != c.wantSent {
					t.Errorf("retries only %v: AllowSend at %v = %v with the breaker %v, want %v",
						mode, d, got, b.State(d), c.wantSent)
				}
				if q.Available() != c.wantQuota {
					t.Errorf("retries only %v: %d tokens left, want %d", mode, q.Available(), c.wantQuota)
				}
			}
		})
	}
}

// TestBreakerHalfOpenMinCalls: half-open, the breaker decides once it
// heard min(min_calls, probes) outcomes, as resilience4j's half-open
// metrics do: 5 when min_calls is 5 of 10 probes, 10 when it is 100.
func TestBreakerHalfOpenMinCalls(t *testing.T) {
	for _, c := range []struct {
		minCalls, want int
		o              Outcome
		state          BreakerState
	}{
		{5, 5, Success, BreakerClosed}, {5, 5, Error, BreakerOpen},
		{100, 10, Success, BreakerClosed}, {100, 10, Timeout, BreakerOpen}, {1, 1, Success, BreakerClosed},
	} {
		t.Run(fmt.Sprintf("min_calls=%d/%v", c.minCalls, c.o), func(t *testing.T) {
			b := NewBreaker(BreakerConfig{Threshold: 50, Window: 100, MinCalls: c.minCalls, OpenFor: time.Minute, Probes: 10})
			record(b, 0, Error, 100)
			var s State
			for range 10 {
				if !b.AllowFirst(&s, time.Minute, nil) {
					t.Fatal("half-open breaker refused one of its 10 probes")
				}
			}
			record(b, time.Minute, c.o, c.want-1)
			if got := b.State(time.Minute); got != BreakerHalfOpen {
				t.Fatalf("state %v after %d outcomes, want half-open", got, c.want-1)
			}
			record(b, time.Minute, c.o, 1)
			if got := b.State(time.Minute); got != c.state {
				t.Errorf("state %v after %d outcomes, want %v", got, c.want, c.state)
			}
		})
	}
}
