package strategies

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// TestEnvoyMaxRetries: without a budget, max_retries retries may be
// outstanding at once, from the decision to retry until the retry's
// attempt ends, whatever its outcome (retry_state_impl.cc: retries().inc()
// in shouldRetry, dec() in the next shouldRetry's resetRetry).
func TestEnvoyMaxRetries(t *testing.T) {
	l := NewEnvoyRetryLimit(EnvoyRetryLimitConfig{MaxRetries: 3})
	rng := newRNG(9000)
	now := time.Second
	ss := make([]State, 5)
	for i := range ss {
		l.AllowFirst(&ss[i], now, rng)
		l.Record(&ss[i], now, Timeout) // the first attempts fail
	}
	for i := range ss {
		want := i < 3
		if got := l.AllowRetry(&ss[i], now, rng); got != want {
			t.Fatalf("retry of request %d with %d outstanding: %v, want %v", i, min(i, 3), got, want)
		}
		if want {
			l.AllowWait(&ss[i], now, now+25*time.Millisecond)
			ss[i].Retries++
		}
	}
	if _, out := l.Counts(now); out != 3 {
		t.Fatalf("outstanding %d, want 3", out)
	}
	// The first retry's attempt succeeds: its retry is no longer
	// outstanding, and request 3 may now retry.
	later := now + time.Second
	l.Record(&ss[0], later, Success)
	if !l.AllowRetry(&ss[3], later, rng) {
		t.Fatal("a retry refused with 2 outstanding of 3")
	}
	// A retry refused after the limit counted it is given back.
	l.Release(&ss[3], later, false)
	if _, out := l.Counts(later); out != 2 {
		t.Errorf("outstanding %d after a release, want 2", out)
	}
	// The second retry's attempt fails: it is no longer outstanding, and
	// its request's next retry is one again.
	l.Record(&ss[1], later, Error)
	if !l.AllowRetry(&ss[1], later, rng) {
		t.Fatal("a retry refused with 1 outstanding of 3")
	}
	if _, out := l.Counts(later); out != 2 {
		t.Errorf("outstanding %d, want 2", out)
	}
}

// TestEnvoyBudget: with a budget, retries outstanding may reach
// max(uint64(budget_percent/100 × active), min_retry_concurrency)
// (resource_manager_impl.h, RetryBudgetImpl::max), active counting the
// attempts in flight: first attempts from their start, retries from the
// start their wait gives.
func TestEnvoyBudget(t *testing.T) {
	cases := []struct {
		percent  float64
		minConc  int
		inFlight int
		want     int64
	}{
		{20, 3, 100, 20},
		{20, 3, 10, 3},  // 2 is below the floor
		{20, 3, 24, 4},  // 4.8 truncated
		{50, 0, 7, 3},   // 3.5 truncated
		{0, 0, 1000, 0}, // no retries at all
		{100, 3, 0, 3},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v%%_min%d_active%d", c.percent, c.minConc, c.inFlight), func(t *testing.T) {
			l := NewEnvoyRetryLimit(EnvoyRetryLimitConfig{Budget: true, BudgetPercent: c.percent, MinRetryConcurrency: c.minConc})
			rng := newRNG(9100)
			now := time.Second
			for range c.inFlight {
				var s State
				l.AllowFirst(&s, now, rng)
			}
			// Failed requests (whose attempts ended) ask to retry; their
			// attempts are not in flight, so the limit stays put.
			var allowed int64
			for range 2*c.want + 5 {
				var s State
				l.AllowFirst(&s, now, rng)
				l.Record(&s, now, Error)
				if l.AllowRetry(&s, now, rng) {
					allowed++
					l.AllowWait(&s, now, now+time.Hour)
				}
			}
			if allowed != c.want {
				t.Errorf("%d retries allowed, want %d", allowed, c.want)
			}
		})
	}
	t.Run("retries_in_flight_from_their_start", func(t *testing.T) {
		l := NewEnvoyRetryLimit(EnvoyRetryLimitConfig{Budget: true, BudgetPercent: 50, MinRetryConcurrency: 0})
		rng := newRNG(9101)
		ss := make([]State, 4)
		for i := range ss {
			l.AllowFirst(&ss[i], 0, rng)
		}
		l.Record(&ss[0], time.Second, Error) // 3 in flight: the limit is 1
		if !l.AllowRetry(&ss[0], time.Second, rng) {
			t.Fatal("refused with 0 outstanding of 1")
		}
		l.AllowWait(&ss[0], time.Second, 2*time.Second)
		ss[0].Retries++
		if act, _ := l.Counts(time.Second + time.Millisecond); act != 3 {
			t.Errorf("in flight during the backoff: %d, want 3", act)
		}
		if act, _ := l.Counts(2 * time.Second); act != 4 {
			t.Errorf("in flight once the retry started: %d, want 4", act)
		}
		// The failed attempt leaves flight before its retry is judged:
		// 50 % of 3 in flight is 1, and 1 is outstanding.
		l.Record(&ss[1], 2*time.Second, Timeout)
		if l.AllowRetry(&ss[1], 2*time.Second, rng) {
			t.Error("allowed with 1 outstanding of 1")
		}
		// A new first attempt makes 4 in flight: the limit is 2.
		var s State
		l.AllowFirst(&s, 2*time.Second, rng)
		if !l.AllowRetry(&ss[1], 2*time.Second, rng) {
			t.Error("refused with 1 outstanding of 2")
		}
	})
}

// TestEnvoyRetryLimitThroughNew: the switch builds the limit last, with
// its parameters, and a lane of none gets none.
func TestEnvoyRetryLimitThroughNew(t *testing.T) {
	p := mustDefaults(t, NameEnvoy)
	p.EnvoyRetryLimit, p.AWSQuota = EnvoyBudget, LimiterOn
	pol := mustPolicy(t, p)
	ls := pol.Limiters()
	last, ok := ls[len(ls)-1].(*EnvoyRetryLimit)
	if !ok {
		t.Fatalf("limits %T, want the Envoy limit last", ls)
	}
	want := EnvoyRetryLimitConfig{Budget: true, MaxRetries: 3, BudgetPercent: 20, MinRetryConcurrency: 3}
	if last.Config() != want {
		t.Errorf("config %+v, want %+v", last.Config(), want)
	}
	p.EnvoyRetryLimit = "sometimes"
	if _, err := New(p); err == nil {
		t.Error("envoy_retry_limit=sometimes: no error")
	}
	// A storm of 20 clients under max_retries 3: never more than 3 retries
	// outstanding, whatever the order of their outcomes.
	p = mustDefaults(t, NameEnvoy)
	p.MaxAttempts, p.EnvoyRetryLimit = 0, EnvoyMaxRetries
	pol = mustPolicy(t, p)
	l := pol.Limiters()[0].(*EnvoyRetryLimit)
	rng := newRNG(9200)
	ss := make([]State, 20)
	for i := range ss {
		pol.Begin(&ss[i], 0, time.Second)
		pol.AllowFirst(&ss[i], 0, rng)
	}
	now := time.Duration(0)
	for step := range 2000 {
		now += time.Millisecond
		s := &ss[rng.IntN(len(ss))]
		if s.AttemptStart > now {
			continue // in its backoff
		}
		o := Outcome(rng.IntN(3))
		pol.Record(s, now, o)
		if o == Success {
			pol.Begin(s, now, 0)
			pol.AllowFirst(s, now, rng)
		} else if _, ok := pol.Retry(s, now, rng); !ok {
			pol.Begin(s, now, 0)
			pol.AllowFirst(s, now, rng)
		}
		if _, out := l.Counts(now); out > 3 || out < 0 {
			t.Fatalf("step %d: %d retries outstanding, want at most 3", step, out)
		}
	}
}

// TestEnvoyReleaseOfAScheduledRetry: a retry refused when it is due, after
// its wait was scheduled, is neither outstanding nor ever in flight.
func TestEnvoyReleaseOfAScheduledRetry(t *testing.T) {
	l := NewEnvoyRetryLimit(EnvoyRetryLimitConfig{MaxRetries: 3})
	rng := newRNG(9300)
	var s State
	l.AllowFirst(&s, 0, rng)
	l.Record(&s, time.Second, Error)
	if !l.AllowRetry(&s, time.Second, rng) {
		t.Fatal("refused with none outstanding")
	}
	due := time.Second + 40*time.Millisecond
	l.AllowWait(&s, time.Second, due)
	s.Retries, s.AttemptStart = 1, due
	l.Release(&s, due, false)
	if act, out := l.Counts(due + time.Second); act != 0 || out != 0 {
		t.Errorf("in flight %d, outstanding %d after the refused retry, want 0 and 0", act, out)
	}
}

// TestStartHeap: pops come out in order, and remove takes out exactly one
// start of the value given, wherever it sits.
func TestStartHeap(t *testing.T) {
	rng := newRNG(9400)
	var h startHeap
	var want []time.Duration
	for range 500 {
		v := time.Duration(rng.IntN(200))
		h.push(v)
		want = append(want, v)
	}
	for range 100 {
		v := want[rng.IntN(len(want))]
		h.remove(v)
		i := slices.Index(want, v)
		want = append(want[:i], want[i+1:]...)
	}
	h.remove(-1) // absent: nothing happens
	slices.Sort(want)
	var got []time.Duration
	for len(h) > 0 {
		got = append(got, h.pop())
	}
	if !slices.Equal(got, want) {
		t.Errorf("pops %v\nwant %v", got, want)
	}
}
