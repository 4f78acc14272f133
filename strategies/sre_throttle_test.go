package strategies

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// TestSREProbability: max(0, (requests − K·accepts)/(requests + 1)) at its
// edges: an empty window, requests = K·accepts, no accept, more accepts
// than K asks.
func TestSREProbability(t *testing.T) {
	cases := []struct {
		name              string
		requests, accepts int64
		k                 float64
		want              float64
	}{
		{"empty_window", 0, 0, 2, 0},
		{"requests_equal_k_accepts", 10, 5, 2, 0},
		{"one_request_over", 11, 5, 2, 1.0 / 12},
		{"more_accepts_than_k_asks", 10, 8, 2, 0},
		{"all_accepted", 100, 100, 2, 0},
		{"no_accept", 9, 0, 2, 0.9},
		{"no_accept_one_request", 1, 0, 2, 0.5},
		{"no_accept_many", 99999, 0, 2, 99999.0 / 100000},
		{"k_1.1_at_equality", 11, 10, 1.1, 0},
		{"k_1.1", 100, 50, 1.1, 45.0 / 101},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := SREProbability(c.requests, c.accepts, c.k)
			if math.Abs(got-c.want) > 1e-12 {
				t.Errorf("SREProbability(%d, %d, %v) = %v, want %v", c.requests, c.accepts, c.k, got, c.want)
			}
		})
	}
}

func newDefaultSRE() *SREThrottle {
	return NewSREThrottle(SREThrottleConfig{K: DefaultSREK, Window: DefaultSREWindow})
}

// TestSREThrottleHealthyDrawsNothing: while requests are at most K times
// the accepts, nothing is refused and no random number drawn, so a healthy
// run is the same with the throttle as without.
func TestSREThrottleHealthyDrawsNothing(t *testing.T) {
	th := newDefaultSRE()
	rng, ref := newRNG(1030), newRNG(1030)
	var s State
	for i := range 1000 {
		now := time.Duration(i) * 10 * time.Millisecond
		if !th.AllowFirst(&s, now, rng) {
			t.Fatalf("request %d refused", i)
		}
		o := Success
		if i%2 == 1 { // half fail: requests = 2 accepts, at the edge
			o = Error
		}
		th.Record(&s, now, o)
		if o == Error && !th.AllowRetry(&s, now, rng) {
			t.Fatalf("retry %d refused", i)
		}
	}
	if rng.Uint64() != ref.Uint64() {
		t.Error("the throttle drew random numbers at probability 0")
	}
}

// TestSREThrottleRefuses: the throttle refuses with the formula's
// probability, each refusal counting as one more request and no accept,
// and refuses first attempts and retries alike. With 10 000 requests and
// 4 000 accepts in the window it starts at 2000/10001 ≈ 0.2; over 4000
// draws the refusals match the sum of the probabilities drawn at.
func TestSREThrottleRefuses(t *testing.T) {
	for _, retry := range []bool{false, true} {
		t.Run(fmt.Sprint("retry=", retry), func(t *testing.T) {
			th := newDefaultSRE()
			rng := newRNG(1031)
			var s State
			for i := range 10000 {
				o := Error
				if i%5 < 2 {
					o = Success
				}
				th.Record(&s, 0, o)
			}
			const draws = 4000
			expected, refused := 0.0, 0
			for range draws {
				r, a := th.Counts(0)
				expected += SREProbability(r, a, 2)
				var allowed bool
				if retry {
					allowed = th.AllowRetry(&s, 0, rng)
				} else {
					allowed = th.AllowFirst(&s, 0, rng)
				}
				if !allowed {
					refused++
				}
			}
			r, a := th.Counts(0)
			if a != 4000 || r != int64(10000+refused) {
				t.Errorf("counts %d requests, %d accepts; want %d, 4000", r, a, 10000+refused)
			}
			sd := math.Sqrt(expected * (1 - expected/draws))
			if d := math.Abs(float64(refused) - expected); d > 5*sd {
				t.Errorf("%d refused, want %.0f ± %.0f", refused, expected, 5*sd)
			}
			t.Logf("%d of %d refused (expected %.0f)", refused, draws, expected)
		})
	}
}

// TestSREThrottleWindow: the counts cover the last sre_window: requests
// older than it are forgotten, to a slice's precision, and an empty window
// refuses nothing.
func TestSREThrottleWindow(t *testing.T) {
	th := newDefaultSRE() // 2 min in 60 slices of 2 s
	var s State
	for range 10 {
		th.Record(&s, 0, Error)
	}
	if r, a := th.Counts(0); r != 10 || a != 0 {
		t.Errorf("at 0s: %d requests, %d accepts; want 10, 0", r, a)
	}
	for range 4 {
		th.Record(&s, 70*time.Second, Success)
	}
	for _, c := range []struct {
		at       time.Duration
		req, acc int64
	}{
		{119 * time.Second, 14, 4},
		{120 * time.Second, 4, 4}, // the slice [0, 2 s) has left
		{189 * time.Second, 4, 4},
		{190 * time.Second, 0, 0},
	} {
		if r, a := th.Counts(c.at); r != c.req || a != c.acc {
			t.Errorf("at %v: %d requests, %d accepts; want %d, %d", c.at, r, a, c.req, c.acc)
		}
	}
	rng, ref := newRNG(1032), newRNG(1032)
	if !th.AllowFirst(&s, 10*time.Minute, rng) || rng.Uint64() != ref.Uint64() {
		t.Error("an empty window refused, or drew")
	}
}
