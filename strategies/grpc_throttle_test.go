package strategies

import (
	"fmt"
	"testing"
	"time"
)

// TestGRPCThrottleArithmetic: the bucket starts full; a failure takes one
// token, never below 0; a success adds token_ratio, never above the size;
// retries go while the tokens are above half the size, exactly.
func TestGRPCThrottleArithmetic(t *testing.T) {
	type step struct {
		outcomes   []Outcome // told before the check
		wantTokens float64
		wantAllow  bool
	}
	fails := func(n int) []Outcome {
		o := make([]Outcome, n)
		for i := range o {
			o[i] = Error
			if i%2 == 1 {
				o[i] = Timeout
			}
		}
		return o
	}
	succ := func(n int) []Outcome { return make([]Outcome, n) } // Success is 0
	cases := []struct {
		name       string
		max, ratio float64
		steps      []step
	}{
		{"defaults", DefaultGRPCMaxTokens, DefaultGRPCTokenRatio, []step{
			{nil, 10, true},
			{fails(4), 6, true},
			{fails(1), 5, false}, // at max/2: throttled
			{succ(1), 5.1, true}, // just above
			{fails(1), 4.1, false},
			{succ(19), 6, true}, // 19 × 0.1 in thousandths: exactly 6
			{succ(100), 10, true},
			{fails(30), 0, false}, // never below 0
			{succ(50), 5, false},
			{succ(1), 5.1, true},
		}},
		{"odd_size", 3, 0.5, []step{
			{nil, 3, true},
			{fails(1), 2, true}, // 2 > 1.5
			{fails(1), 1, false},
			{succ(1), 1.5, false}, // at 1.5: throttled
			{succ(1), 2, true},
		}},
		{"ratio_of_one", 10, 1, []step{
			{fails(10), 0, false},
			{succ(6), 6, true},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewGRPCThrottle(GRPCThrottleConfig{MaxTokens: c.max, TokenRatio: c.ratio})
			var s State
			for i, st := range c.steps {
				for _, o := range st.outcomes {
					b.Record(&s, 0, o)
				}
				if got := b.Tokens(); got != st.wantTokens {
					t.Errorf("step %d: %v tokens, want %v", i, got, st.wantTokens)
				}
				if got := b.AllowRetry(&s, 0, nil); got != st.wantAllow {
					t.Errorf("step %d: AllowRetry = %v at %v tokens, want %v", i, got, b.Tokens(), st.wantAllow)
				}
			}
		})
	}
}

// TestGRPCThrottleNeverFirst: the throttle is no FirstLimiter: an empty
// bucket lets every first attempt through.
func TestGRPCThrottleNeverFirst(t *testing.T) {
	b := NewGRPCThrottle(GRPCThrottleConfig{MaxTokens: 10, TokenRatio: 0.1})
	var s State
	for range 20 {
		b.Record(&s, 0, Error)
	}
	if _, ok := Limiter(b).(FirstLimiter); ok {
		t.Fatal("GRPCThrottle is a FirstLimiter")
	}
	pol := NewPolicy(Fixed{Delay: time.Second}, b)
	pol.Begin(&s, 0, 0)
	if !pol.AllowFirst(&s, 0, newRNG(1000)) {
		t.Error("a first attempt throttled")
	}
	if _, ok := pol.Retry(&s, 0, newRNG(1001)); ok {
		t.Error("a retry allowed by an empty bucket")
	}
}

// TestGRPCThrottleSteadyState: once failures have brought the bucket down
// to half its size, the retries that get through are what the successes
// pay for. In cycles of k successful requests and then one request whose
// every attempt fails, each cycle's k × token_ratio tokens pay for its
// failed first attempt and k × token_ratio − 1 retries: about token_ratio
// retries per success for large k, and none when k × token_ratio ≤ 1.
func TestGRPCThrottleSteadyState(t *testing.T) {
	cases := []struct {
		k           int
		ratio, want float64 // retries per cycle
	}{
		{5, 0.1, 0}, {10, 0.1, 0}, {20, 0.1, 1}, {30, 0.1, 2}, {50, 0.1, 4}, {4, 0.5, 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("k=%d/ratio=%v", c.k, c.ratio), func(t *testing.T) {
			b := NewGRPCThrottle(GRPCThrottleConfig{MaxTokens: 10, TokenRatio: c.ratio})
			pol := NewPolicy(Fixed{Delay: time.Millisecond}, b)
			rng := newRNG(1010)
			var s State
			for range 5 { // down to half
				pol.Record(&s, 0, Error)
			}
			const cycles = 200
			retries := 0
			for range cycles {
				for range c.k {
					pol.Begin(&s, 0, 0)
					pol.Record(&s, 0, Success)
				}
				pol.Begin(&s, 0, 0)
				pol.Record(&s, 0, Error)
				for {
					if _, ok := pol.Retry(&s, 0, rng); !ok {
						break
					}
					retries++
					pol.Record(&s, 0, Error)
				}
			}
			if got := float64(retries) / cycles; got != c.want {
				t.Errorf("%v retries per cycle of %d successes, want %v (%.3f per success)", got, c.k, c.want, c.want/float64(c.k))
			}
		})
	}
}

// TestGRPCThrottleTokenRatioTruncated: the token ratio keeps three
// decimals and drops the rest, as gRPC's C core reads tokenRatio, and
// counts a ratio of three decimals exactly, whatever float64 makes of it.
func TestGRPCThrottleTokenRatioTruncated(t *testing.T) {
	cases := []struct {
		ratio float64
		want  int64 // thousandths
	}{
		{0.5466, 546}, {0.5469999, 546}, {0.547, 547}, {0.1, 100}, {0.29, 290}, {0.001, 1},
		{0.0019, 1}, {1.0005, 1000}, {0.7, 700}, {0.57, 570}, {999.9999, 999999}, {1000, 1000000},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.ratio), func(t *testing.T) {
			if got := milliTrunc(c.ratio); got != c.want {
				t.Errorf("milliTrunc(%v) = %d, want %d", c.ratio, got, c.want)
			}
		})
	}
	t.Run("a success adds 0.546", func(t *testing.T) {
		b := NewGRPCThrottle(GRPCThrottleConfig{MaxTokens: 10, TokenRatio: 0.5466})
		var s State
		for range 10 {
			b.Record(&s, 0, Error)
		}
		b.Record(&s, 0, Success)
		if got := b.Tokens(); got != 0.546 {
			t.Errorf("an empty bucket holds %v after a success, want 0.546 (0.547 rounded)", got)
		}
	})
}
