package realexp

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// TestCurveMatchesModel checks the curve against the model's formula,
// written out again here, and against numbers worked by hand.
func TestCurveMatchesModel(t *testing.T) {
	model := func(base time.Duration, limit int, factor, k float64, ceil time.Duration, c int) time.Duration {
		if c <= limit {
			return min(base, ceil)
		}
		d := float64(base) * math.Pow(factor, float64(c-limit)/k)
		if d >= float64(ceil) {
			return ceil
		}
		return time.Duration(d)
	}
	curves := []scenario.Curve{
		defaultCurve(),
		{Base: 100 * time.Millisecond, Limit: 30, Factor: 1.05, K: 5, Max: time.Hour},
		{Base: 10 * time.Millisecond, Limit: 1, Factor: 2, K: 1, Max: time.Second},
		{Base: time.Minute, Limit: 1000, Factor: 10, K: 0.1, Max: 24 * time.Hour},
		{Base: 50 * time.Millisecond, Limit: 5, Factor: 1, K: 3, Max: time.Hour},
	}
	for _, cv := range curves {
		for c := 0; c < 5000; c++ {
			if got, want := cv.Delay(c), model(cv.Base, cv.Limit, cv.Factor, cv.K, cv.Max, c); got != want {
				t.Fatalf("%+v: Delay(%d) = %v, want %v", cv, c, got, want)
			}
		}
	}
	// 001's own server log (seeds/001) printed these, to the nanosecond.
	def := defaultCurve()
	for _, tc := range []struct {
		c    int
		want string
	}{
		{0, "100ms"}, {30, "100ms"}, {45, "105ms"},
		{1040, "2.671444385s"}, {1599, "16.458895305s"}, {1925, "47.524196455s"}, {2231, "2m8.580906589s"},
	} {
		if got := def.Delay(tc.c).String(); got != tc.want {
			t.Errorf("default curve: Delay(%d) = %v, want %v", tc.c, got, tc.want)
		}
	}
}

// TestCurveNeverOverflows: 001's server computed the delay in int64
// nanoseconds and overflowed; this one saturates at Max.
func TestCurveNeverOverflows(t *testing.T) {
	cv := scenario.Curve{Base: time.Minute, Limit: 1, Factor: 10, K: 0.1, Max: 24 * time.Hour}
	prev := time.Duration(0)
	for _, c := range []int{0, 1, 2, 3, 10, 100, 1e4, 1e6, 1e9, math.MaxInt32, math.MaxInt} {
		d := cv.Delay(c)
		if d < prev || d > cv.Max || d <= 0 {
			t.Fatalf("Delay(%d) = %v after %v: want non-decreasing in (0, %v]", c, d, prev, cv.Max)
		}
		prev = d
	}
	if got := cv.Delay(math.MaxInt); got != cv.Max {
		t.Errorf("Delay(MaxInt) = %v, want the cap %v", got, cv.Max)
	}
	def := defaultCurve()
	if got := def.Delay(100_000); got != time.Hour {
		t.Errorf("default Delay(100000) = %v, want the 1h cap", got)
	}
}

// TestCurveMatchesSimulator reads the simulator's server latency at every
// concurrency its default run (001's, with a fixed-retry storm) goes
// through and checks the real server's curve gives the same number.
func TestCurveMatchesSimulator(t *testing.T) {
	p := scenariotest.CurveDefaults()
	p.Duration = 60 * time.Second
	p.ServerK = 7.5 // reach the cap too
	cv := scenario.CurveOf(&p)
	seen := map[int]bool{}
	_, err := simengine.Run(context.Background(), p, func(tk scenario.Tick) {
		for _, lt := range tk.Lanes {
			seen[lt.Concurrency] = true
			if got := cv.Delay(lt.Concurrency).Seconds(); got != lt.ServerLatency {
				t.Fatalf("t=%v: concurrency %d: real curve %v s, simulator %v s", tk.T, lt.Concurrency, got, lt.ServerLatency)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	capped := 0
	for c := range seen {
		if cv.Delay(c) == cv.Max {
			capped++
		}
	}
	if len(seen) < 100 || capped == 0 {
		t.Errorf("the run went through %d concurrency levels, %d of them capped: want ≥ 100 and some capped", len(seen), capped)
	}
}
