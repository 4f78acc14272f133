package strategies

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func grpcDefaults(t *testing.T) (Params, *Policy) {
	t.Helper()
	p := mustDefaults(t, NameGRPC)
	return p, mustPolicy(t, p)
}

func TestGRPCBegin(t *testing.T) {
	cases := []struct {
		name              string
		initial, minConn  time.Duration
		start             time.Duration
		wantUntil, wantTO time.Duration
	}{
		{"defaults_at_0", time.Second, 20 * time.Second, 0, time.Second, 20 * time.Second},
		{"defaults_at_7s", time.Second, 20 * time.Second, 7 * time.Second, 8 * time.Second, 20 * time.Second},
		{"short_min_connect", time.Second, 500 * time.Millisecond, 2 * time.Second, 3 * time.Second, time.Second},
		{"initial_above_min_connect", 30 * time.Second, 20 * time.Second, time.Second, 31 * time.Second, 30 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustDefaults(t, NameGRPC)
			p.MinDelay, p.MinConnectTimeout = c.initial, c.minConn
			pol := mustPolicy(t, p)
			s := State{Retries: 4, Prev: time.Hour, Until: time.Hour}
			pol.Begin(&s, c.start, 0)
			if s.Until != c.wantUntil || s.Prev != c.initial || s.Retries != 0 {
				t.Errorf("after Begin: Until %v Prev %v Retries %d; want %v %v 0",
					s.Until, s.Prev, s.Retries, c.wantUntil, c.initial)
			}
			if got := pol.AttemptTimeout(&s, 2*time.Second); got != c.wantTO {
				t.Errorf("AttemptTimeout(2s) = %v, want the strategy's %v", got, c.wantTO)
			}
		})
	}
}

func TestGRPCWaitCountsFromAttemptStart(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		start, failAt, want time.Duration
	}{
		{0, 0, time.Second},
		{0, 300 * ms, 700 * ms},
		{0, 999 * ms, ms},
		{0, time.Second, 0},
		{0, 1500 * ms, 0},
		{0, 20 * time.Second, 0}, // a timed-out attempt
		{10 * time.Second, 10300 * ms, 700 * ms},
	}
	_, pol := grpcDefaults(t)
	rng := newRNG(700)
	for _, c := range cases {
		t.Run(fmt.Sprintf("start=%v/fail=%v", c.start, c.failAt), func(t *testing.T) {
			var s State
			pol.Begin(&s, c.start, 0)
			d, ok := pol.Retry(&s, c.failAt, rng)
			if !ok || d != c.want {
				t.Fatalf("Retry = (%v, %v), want (%v, true)", d, ok, c.want)
			}
			next := c.failAt + c.want
			if s.AttemptStart != next || s.Retries != 1 {
				t.Errorf("AttemptStart %v Retries %d, want %v 1", s.AttemptStart, s.Retries, next)
			}
			if s.Prev != 1600*ms {
				t.Errorf("backoff after one failure = %v, want 1.6s", s.Prev)
			}
			// The next deadline counts from the next attempt's start: 1.6 s ± 20 %.
			if b := s.Until - next; b < 1280*ms || b > 1920*ms {
				t.Errorf("next Until - next start = %v, want in [1.28s, 1.92s]", b)
			}
			if got := pol.AttemptTimeout(&s, 2*time.Second); got != max(s.Until-next, 20*time.Second) {
				t.Errorf("AttemptTimeout = %v, want max(Until-start, 20s) = %v", got, max(s.Until-next, 20*time.Second))
			}
			// A second failure half a second into the next attempt sleeps
			// the rest of the way to Until.
			until := s.Until
			d2, ok := pol.Retry(&s, next+500*ms, rng)
			if want := max(0, until-next-500*ms); !ok || d2 != want {
				t.Errorf("second Retry = (%v, %v), want (%v, true)", d2, ok, want)
			}
		})
	}
}

func TestGRPCBackoffGrowth(t *testing.T) {
	for _, jitter := range []float64{0, 0.2} {
		t.Run(fmt.Sprintf("jitter=%g", jitter), func(t *testing.T) {
			p := mustDefaults(t, NameGRPC)
			p.Jitter = jitter
			pol := mustPolicy(t, p)
			rng := newRNG(710)
			for req := range 200 {
				var s State
				pol.Begin(&s, 0, 0)
				b := time.Second // backoff before this failure
				for k := 1; k <= 30; k++ {
					until, start := s.Until, s.AttemptStart
					d, ok := pol.Retry(&s, start, rng) // fails at once
					if !ok {
						t.Fatalf("request %d failure %d: gave up with no limit", req, k)
					}
					if d != until-start {
						t.Fatalf("failure %d: wait %v, want Until-start = %v", k, d, until-start)
					}
					// The wait is the previous backoff ± jitter (exactly 1 s first).
					lo, hi := b, b
					if k > 1 {
						lo = time.Duration(float64(b)*(1-jitter)) - 1
						hi = time.Duration(float64(b)*(1+jitter)) + 1
					}
					if d < lo || d > hi {
						t.Fatalf("failure %d: wait %v, want in [%v, %v]", k, d, lo, hi)
					}
					want := min(math.Pow(1.6, float64(k)), 120) * float64(time.Second)
					if math.Abs(float64(s.Prev)-want) > 1e3 { // 1 µs of float rounding
						t.Fatalf("failure %d: backoff %v, want min(1.6^%d s, 120 s) = %v", k, s.Prev, k, time.Duration(want))
					}
					if got := pol.AttemptTimeout(&s, 2*time.Second); got != max(s.Until-s.AttemptStart, 20*time.Second) {
						t.Fatalf("failure %d: AttemptTimeout %v, want max(%v, 20s)", k, got, s.Until-s.AttemptStart)
					}
					b = s.Prev
				}
				if b != 120*time.Second {
					t.Fatalf("backoff after 30 failures = %v, want the max 120s", b)
				}
			}
		})
	}
}

func TestGRPCJitterDistribution(t *testing.T) {
	g := GRPC{Initial: time.Second, Max: 120 * time.Second, Factor: 1.6, Jitter: 0.2, MinConnect: 20 * time.Second}
	cases := []struct {
		prev, wantB time.Duration
	}{
		{time.Second, 1600 * time.Millisecond},
		{10 * time.Second, 16 * time.Second},
		{100 * time.Second, 120 * time.Second},
		{120 * time.Second, 120 * time.Second},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("prev=%v", c.prev), func(t *testing.T) {
			rng := newRNG(uint64(720 + i))
			// The attempt started at 4 s with its deadline at 5 s and failed
			// at 4.5 s: the client sleeps 0.5 s, the next attempt starts at 5 s.
			s0 := State{Retries: 3, Prev: c.prev, AttemptStart: 4 * time.Second, Until: 5 * time.Second}
			xs := make([]float64, draws)
			for k := range xs {
				s := s0
				if d := g.Next(&s, 4500*time.Millisecond, rng); d != 500*time.Millisecond {
					t.Fatalf("wait %v, want 500ms", d)
				}
				if s.Prev != c.wantB {
					t.Fatalf("backoff %v, want %v", s.Prev, c.wantB)
				}
				s.AttemptStart = 5 * time.Second // as Policy.Retry sets it
				if got := g.AttemptTimeout(&s); got != max(s.Until-5*time.Second, 20*time.Second) {
					t.Fatalf("AttemptTimeout %v, want max(%v, 20s)", got, s.Until-5*time.Second)
				}
				xs[k] = float64(s.Until-5*time.Second) / float64(c.wantB)
				if xs[k] < 0.8-1e-9 || xs[k] > 1.2+1e-9 {
					t.Fatalf("next deadline = start + %v, outside b ± 20%% (b = %v)", s.Until-5*time.Second, c.wantB)
				}
			}
			sd := 0.4 / math.Sqrt(12)
			checkMean(t, "(Until-start)/b", xs, 1, sd)
			checkSD(t, "(Until-start)/b", xs, sd, 1.8)
			for _, q := range []float64{0.1, 0.5, 0.9} {
				checkQuantile(t, "(Until-start)/b", xs, q, 0.8+0.4*q, 1/0.4)
			}
		})
	}
}

func TestGRPCResetsOnNewRequest(t *testing.T) {
	_, pol := grpcDefaults(t)
	rng := newRNG(730)
	var s State
	pol.Begin(&s, 0, 0)
	for range 15 {
		if _, ok := pol.Retry(&s, s.AttemptStart, rng); !ok {
			t.Fatal("gave up with no limit")
		}
	}
	if s.Prev != 120*time.Second {
		t.Fatalf("backoff after 15 failures = %v, want 120s", s.Prev)
	}
	// Success, think, and a new request at 1000 s.
	pol.Begin(&s, 1000*time.Second, 5*time.Second)
	if s.Prev != time.Second || s.Until != 1001*time.Second || s.Retries != 0 {
		t.Fatalf("after Begin: %+v, want Prev 1s, Until 1001s, Retries 0", s)
	}
	if got := pol.AttemptTimeout(&s, 2*time.Second); got != 20*time.Second {
		t.Fatalf("after Begin: AttemptTimeout %v, want 20s", got)
	}
	d, ok := pol.Retry(&s, 1000*time.Second, rng)
	if !ok || d != time.Second || s.Prev != 1600*time.Millisecond {
		t.Fatalf("first retry of the new request = (%v, %v), backoff %v; want (1s, true), 1.6s", d, ok, s.Prev)
	}
}

func TestGRPCMidRequestSwitch(t *testing.T) {
	// A lane switched to grpc while a request was retrying: no memory yet.
	g := GRPC{Initial: time.Second, Max: 120 * time.Second, Factor: 1.6, Jitter: 0.2, MinConnect: 20 * time.Second}
	s := State{Retries: 3, RequestStart: 0, AttemptStart: 5 * time.Second, Prev: 0}
	d := g.Next(&s, 5200*time.Millisecond, newRNG(740))
	if d != 800*time.Millisecond || s.Prev != 1600*time.Millisecond {
		t.Fatalf("Next = %v, backoff %v; want 800ms (1s from the attempt's start), 1.6s", d, s.Prev)
	}
}
