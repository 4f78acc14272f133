package strategies

import (
	"fmt"
	"math"
	"testing"
	"time"
	"unsafe"
)

// retryingNames are the strategies that retry at all.
func retryingNames() []string { return Names()[1:] }

func TestNamesStartWithNone(t *testing.T) {
	if Names()[0] != NameNone || len(Names()) != 20 {
		t.Fatalf("Names() = %v, want the 20 strategies starting with none", Names())
	}
}

// ownRetries returns how many retries strategy name allows on its own,
// with its defaults and no limits, or math.MaxInt when it never stops:
// gRPC's retry policy caps its attempts at 5, and client-go's backoff,
// factor 5 from 10 ms, gives up once its next duration would pass its cap
// of 24 h, after 9 retries (10 ms·5^10 is 27 h).
func ownRetries(name string) int {
	switch name {
	case NameGRPCRetry:
		return GRPCMaxAttemptsCap - 1
	case NameClientGo:
		return 9
	}
	return math.MaxInt
}

// countRetries runs one request that fails the moment each attempt starts
// and returns how many retries the policy allowed, stopping at limit.
func countRetries(t *testing.T, pol *Policy, limit int, seed uint64) int {
	t.Helper()
	rng := newRNG(seed)
	var s State
	pol.Begin(&s, 0, 5*time.Second)
	for n := range limit {
		if _, ok := pol.Retry(&s, s.AttemptStart, rng); !ok {
			if int(s.Retries) != n {
				t.Fatalf("Retries = %d after %d retries", s.Retries, n)
			}
			return n
		}
	}
	return limit
}

func TestPolicyMaxAttempts(t *testing.T) {
	cases := []struct{ maxAttempts, wantRetries int }{
		{0, 300}, // unlimited: the loop's own limit stops it
		{1, 0},
		{2, 1},
		{3, 2},
		{7, 6},
	}
	for _, name := range retryingNames() {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/max_attempts=%d", name, c.maxAttempts), func(t *testing.T) {
				p := mustDefaults(t, name)
				p.MaxAttempts, p.Deadline = c.maxAttempts, 0
				want := min(c.wantRetries, ownRetries(name))
				if got := countRetries(t, mustPolicy(t, p), 300, 800); got != want {
					t.Errorf("%d retries, want %d", got, want)
				}
			})
		}
	}
}

func TestPolicyNoneAlwaysGivesUp(t *testing.T) {
	for _, lim := range []struct {
		maxAttempts int
		deadline    time.Duration
	}{{0, 0}, {5, 0}, {0, time.Hour}, {100, time.Hour}} {
		p := mustDefaults(t, NameNone)
		p.MaxAttempts, p.Deadline = lim.maxAttempts, lim.deadline
		if got := countRetries(t, mustPolicy(t, p), 10, 801); got != 0 {
			t.Errorf("none with %+v: %d retries, want 0", lim, got)
		}
	}
}

func TestPolicyDeadline(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name         string
		deadline     time.Duration
		requestStart time.Duration
		attemptLasts time.Duration // how long each attempt takes to fail
		wantRetries  int
	}{
		// Attempts at 0, 100, …, 900 ms; the one at 1 s would start at the deadline.
		{"instant_failures", time.Second, 0, 0, 9},
		{"relative_to_request_start", time.Second, 42 * time.Second, 0, 9},
		// Exactly at the deadline is too late: attempts at 0, 100, 200 ms.
		{"boundary", 300 * ms, 0, 0, 2},
		// Failures after 250 ms: attempts at 0, 350, 700 ms; 1050 ms is too late.
		{"slow_failures", time.Second, 0, 250 * ms, 2},
		{"no_deadline", 0, 0, 0, 500},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustDefaults(t, NameFixed) // 100 ms
			p.Deadline = c.deadline
			pol := mustPolicy(t, p)
			rng := newRNG(802)
			var s State
			pol.Begin(&s, c.requestStart, 0)
			n := 0
			for ; n < 500; n++ {
				before := s
				d, ok := pol.Retry(&s, s.AttemptStart+c.attemptLasts, rng)
				if !ok {
					if s != before {
						t.Errorf("giving up changed the state: %+v -> %+v", before, s)
					}
					break
				}
				if d != 100*ms {
					t.Fatalf("fixed delay %v", d)
				}
				if c.deadline > 0 && s.AttemptStart-s.RequestStart >= c.deadline {
					t.Fatalf("attempt starts at %v after the request, at or past the deadline %v",
						s.AttemptStart-s.RequestStart, c.deadline)
				}
			}
			if n != c.wantRetries {
				t.Errorf("%d retries, want %d", n, c.wantRetries)
			}
		})
	}
}

func TestPolicyDeadlineAllStrategies(t *testing.T) {
	// Whatever the strategy, no attempt starts at or after the deadline, and
	// a request that keeps failing ends.
	for _, name := range retryingNames() {
		t.Run(name, func(t *testing.T) {
			p := mustDefaults(t, name)
			p.Deadline = 2 * time.Minute
			pol := mustPolicy(t, p)
			rng := newRNG(803)
			for req := range 100 {
				var s State
				pol.Begin(&s, time.Hour, 10*time.Second)
				n := 0
				for ; n < 10000; n++ {
					if _, ok := pol.Retry(&s, s.AttemptStart+100*time.Millisecond, rng); !ok {
						break
					}
					if s.AttemptStart-time.Hour >= p.Deadline {
						t.Fatalf("request %d: attempt at +%v, past the deadline", req, s.AttemptStart-time.Hour)
					}
				}
				if n == 10000 {
					t.Fatalf("request %d never gave up", req)
				}
			}
		})
	}
}

func TestPolicyRetryAdvancesState(t *testing.T) {
	for _, name := range retryingNames() {
		t.Run(name, func(t *testing.T) {
			p := mustDefaults(t, name)
			p.MaxAttempts = 4
			pol := mustPolicy(t, p)
			rng := newRNG(804)
			var s State
			pol.Begin(&s, 10*time.Second, 3*time.Second)
			if s.RequestStart != 10*time.Second || s.AttemptStart != 10*time.Second {
				t.Fatalf("Begin: %+v", s)
			}
			for n := 1; n <= 3; n++ {
				now := s.AttemptStart + 250*time.Millisecond
				d, ok := pol.Retry(&s, now, rng)
				if !ok {
					t.Fatalf("retry %d refused under max_attempts 4", n)
				}
				if int(s.Retries) != n || s.AttemptStart != now+d {
					t.Fatalf("retry %d: Retries %d AttemptStart %v, want %d and %v", n, s.Retries, s.AttemptStart, n, now+d)
				}
			}
			before := s
			if _, ok := pol.Retry(&s, s.AttemptStart, rng); ok {
				t.Fatal("a 5th attempt under max_attempts 4")
			}
			if s != before {
				t.Errorf("max_attempts refusal changed the state: %+v -> %+v", before, s)
			}
		})
	}
}

func TestPolicyBeginResetsState(t *testing.T) {
	pol := mustPolicy(t, mustDefaults(t, NameFixed))
	s := State{RequestStart: 1, AttemptStart: 2, Retries: 3, Quota: 10, Prev: 4, Until: 5}
	pol.Begin(&s, 7*time.Second, 2*time.Second)
	want := State{RequestStart: 7 * time.Second, AttemptStart: 7 * time.Second}
	if s != want {
		t.Errorf("Begin: %+v, want %+v", s, want)
	}
}

// TestAttemptTimeout: an attempt's timeout is its AttemptTimer's when it
// sets one, else the caller's, whatever the request's State holds.
func TestAttemptTimeout(t *testing.T) {
	const def = 2 * time.Second
	s := State{RequestStart: time.Second, AttemptStart: 3 * time.Second, Retries: 2, Prev: time.Minute, Until: 33 * time.Second}
	cases := []struct {
		name string
		st   Strategy
		want time.Duration
	}{
		{"fixed", Fixed{Delay: time.Second}, def},
		{"envoy_no_per_try", Envoy{Base: time.Second, Max: time.Minute}, def},
		{"envoy_negative_per_try", Envoy{Base: time.Second, Max: time.Minute, PerTry: -time.Second}, def},
		{"envoy_per_try", Envoy{Base: time.Second, Max: time.Minute, PerTry: 20 * time.Second}, 20 * time.Second},
		{"grpc_deadline", GRPC{Initial: time.Second, Max: time.Minute, Factor: 1.6, MinConnect: 20 * time.Second}, 30 * time.Second},
		{"grpc_min_connect", GRPC{Initial: time.Second, Max: time.Minute, Factor: 1.6, MinConnect: 40 * time.Second}, 40 * time.Second},
		{"grpc_none", GRPC{Initial: time.Second, Max: time.Minute, Factor: 1.6}, 30 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := s
			if got := NewPolicy(c.st).AttemptTimeout(&s, def); got != c.want {
				t.Errorf("AttemptTimeout(%+v, %v) = %v, want %v", s, def, got, c.want)
			}
		})
	}
	past := State{AttemptStart: 50 * time.Second, Until: 33 * time.Second}
	if got := NewPolicy(GRPC{Initial: time.Second}).AttemptTimeout(&past, def); got != def {
		t.Errorf("gRPC with its deadline passed and no min_connect_timeout: %v, want the caller's %v", got, def)
	}
}

// TestStateSize: a State is 40 bytes, Quota included: the engine holds one
// per client, and a larger one costs the largest runs their speed.
func TestStateSize(t *testing.T) {
	if n := unsafe.Sizeof(State{}); n != 40 {
		t.Errorf("State is %d bytes, want 40", n)
	}
}

// TestRetriesSaturate: Retries stops counting at math.MaxInt32 rather than
// wrapping to a negative count, which the formulas would misread.
func TestRetriesSaturate(t *testing.T) {
	pol := NewPolicy(Fixed{Delay: time.Millisecond})
	s := State{Retries: math.MaxInt32 - 1}
	for range 3 {
		if _, ok := pol.Retry(&s, 0, newRNG(970)); !ok {
			t.Fatal("retry refused without a limit")
		}
	}
	if s.Retries != math.MaxInt32 {
		t.Errorf("Retries = %d, want %d", s.Retries, math.MaxInt32)
	}
}
