package strategies

import (
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"
)

func mustRetryDelays(t *testing.T, p Params, think time.Duration, retries, n int, seed uint64) []RetryDelay {
	t.Helper()
	d, err := RetryDelays(p, think, retries, n, seed)
	if err != nil {
		t.Fatalf("RetryDelays(%+v): %v", p, err)
	}
	return d.Retries
}

func TestRetryDelaysOrderedAndNumbered(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			p := mustDefaults(t, name)
			p.MaxAttempts, p.Deadline = 0, 0
			bs := mustRetryDelays(t, p, 10*time.Second, 12, 2000, 1)
			want := min(12, ownRetries(name))
			if name == NameNone {
				want = 0
			}
			if len(bs) != want {
				t.Fatalf("%d bands, want %d", len(bs), want)
			}
			for i, b := range bs {
				if b.Retry != i+1 {
					t.Errorf("band %d has Retry %d", i, b.Retry)
				}
				if b.P5 < 0 || b.P5 > b.P50 || b.P50 > b.P95 {
					t.Errorf("retry %d: P5 %v P50 %v P95 %v, want 0 <= P5 <= P50 <= P95", b.Retry, b.P5, b.P50, b.P95)
				}
			}
		})
	}
}

func TestRetryDelaysFixed(t *testing.T) {
	for _, md := range []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 3 * time.Second} {
		t.Run(md.String(), func(t *testing.T) {
			p := mustDefaults(t, NameFixed)
			p.MinDelay = md
			bs := mustRetryDelays(t, p, 10*time.Second, 8, 500, 2)
			if len(bs) != 8 {
				t.Fatalf("%d bands, want 8", len(bs))
			}
			for _, b := range bs {
				if b.P5 != md || b.P50 != md || b.P95 != md {
					t.Errorf("retry %d: %+v, want all three = %v", b.Retry, b, md)
				}
			}
		})
	}
}

func TestRetryDelaysFullJitterQuantiles(t *testing.T) {
	p := mustDefaults(t, NameFullJitter) // 100 ms, 1 min
	const n = 20000
	bs := mustRetryDelays(t, p, 10*time.Second, 14, n, 3)
	if len(bs) != 14 {
		t.Fatalf("%d bands, want 14", len(bs))
	}
	for _, b := range bs {
		top := secs(ceiling(p.MinDelay, p.MaxDelay, b.Retry-1))
		if got := secs(b.P50); math.Abs(got-top/2) > 0.03*top/2 {
			t.Errorf("retry %d: median %.4gs, want %.4gs within 3%%", b.Retry, got, top/2)
		}
		for _, q := range []struct {
			p   float64
			got time.Duration
		}{{0.05, b.P5}, {0.95, b.P95}} {
			tol := zTol * math.Sqrt(q.p*(1-q.p)/n) * top
			if math.Abs(secs(q.got)-q.p*top) > tol {
				t.Errorf("retry %d: P%.0f = %v, want %.4gs ± %.2g", b.Retry, q.p*100, q.got, q.p*top, tol)
			}
		}
	}
}

func TestRetryDelaysKnownShapes(t *testing.T) {
	t.Run("exponential_first_retry_is_base", func(t *testing.T) {
		bs := mustRetryDelays(t, mustDefaults(t, NameExponential), 0, 3, 1000, 4)
		if b := bs[0]; b.P5 != 100*time.Millisecond || b.P95 != 100*time.Millisecond {
			t.Errorf("retry 1: %+v, want exactly 100ms", b)
		}
		if b := bs[1]; b.P5 >= 200*time.Millisecond || b.P95 <= 200*time.Millisecond {
			t.Errorf("retry 2: %+v, want spread around 200ms", b)
		}
	})
	t.Run("truncated_reaches_cap", func(t *testing.T) {
		bs := mustRetryDelays(t, mustDefaults(t, NameTruncated), 0, 10, 1000, 5)
		for _, b := range bs {
			n := b.Retry - 1
			if n >= 5 && (b.P5 != 32*time.Second || b.P95 != 32*time.Second) {
				t.Errorf("retry %d: %+v, want the cap 32s", b.Retry, b)
			}
			if n < 5 && (b.P5 < time.Second<<n || b.P95 >= time.Second<<n+time.Second) {
				t.Errorf("retry %d: %+v, want in [%v, %v)", b.Retry, b, time.Second<<n, time.Second<<n+time.Second)
			}
		}
	})
	t.Run("grpc_first_wait_is_initial", func(t *testing.T) {
		bs := mustRetryDelays(t, mustDefaults(t, NameGRPC), 0, 2, 1000, 6)
		if b := bs[0]; b.P5 != time.Second || b.P95 != time.Second {
			t.Errorf("retry 1: %+v, want exactly 1s", b)
		}
		if b := bs[1]; b.P5 < 1280*time.Millisecond || b.P95 > 1920*time.Millisecond {
			t.Errorf("retry 2: %+v, want within 1.6s ± 20%%", b)
		}
	})
	t.Run("think_scaled_scales_the_think_time", func(t *testing.T) {
		// think ~ Exp(mean 10 s): the first delay's median is e·10 s·ln 2.
		bs := mustRetryDelays(t, mustDefaults(t, NameThinkScaled), 10*time.Second, 1, 20000, 7)
		want := math.E * 10 * math.Ln2
		if got := secs(bs[0].P50); math.Abs(got-want) > 0.03*want {
			t.Errorf("retry 1 median %.4gs, want %.4gs within 3%%", got, want)
		}
	})
}

func TestRetryDelaysDeterministic(t *testing.T) {
	for _, name := range []string{NameFullJitter, NameExponential, NameDecorrelated, NameThinkScaled, NameGRPC} {
		t.Run(name, func(t *testing.T) {
			p := mustDefaults(t, name)
			a := mustRetryDelays(t, p, 10*time.Second, 10, 300, 42)
			b := mustRetryDelays(t, p, 10*time.Second, 10, 300, 42)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("same seed, different bands:\n%v\n%v", a, b)
			}
			c := mustRetryDelays(t, p, 10*time.Second, 10, 300, 43)
			if reflect.DeepEqual(a, c) {
				t.Fatalf("seeds 42 and 43 gave identical bands: the seed is ignored")
			}
		})
	}
}

func TestRetryDelaysRespectLimits(t *testing.T) {
	cases := []struct {
		name        string
		strategy    string
		maxAttempts int
		deadline    time.Duration
		want        int
	}{
		{"max_attempts_4", NameFullJitter, 4, 0, 3},
		{"max_attempts_1", NameExponential, 1, 0, 0},
		{"max_attempts_above_retries", NameFixed, 50, 0, 10},
		{"deadline_550ms_fixed", NameFixed, 0, 550 * time.Millisecond, 5},
		{"none", NameNone, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustDefaults(t, c.strategy)
			p.MaxAttempts, p.Deadline = c.maxAttempts, c.deadline
			if bs := mustRetryDelays(t, p, time.Second, 10, 200, 8); len(bs) != c.want {
				t.Errorf("%d bands, want %d: %v", len(bs), c.want, bs)
			}
		})
	}
}

func TestRetryDelaysEmptyAndErrors(t *testing.T) {
	if bs := mustRetryDelays(t, mustDefaults(t, NameFixed), 0, 5, 0, 1); len(bs) != 0 {
		t.Errorf("0 draws: %v, want no bands", bs)
	}
	if bs := mustRetryDelays(t, mustDefaults(t, NameFixed), 0, 0, 100, 1); len(bs) != 0 {
		t.Errorf("0 retries: %v, want no bands", bs)
	}
	d, err := RetryDelays(Params{Strategy: "linear"}, 0, 5, 10, 1)
	if err == nil || d.Retries != nil {
		t.Errorf("unknown strategy: %v, %v; want an error", d, err)
	}
}

func TestQuantile(t *testing.T) {
	oneTo100 := make([]int64, 100)
	for i := range oneTo100 {
		oneTo100[i] = int64(i + 1)
	}
	cases := []struct {
		xs   []int64
		q    float64
		want int64
	}{
		{nil, 0.5, 0},
		{[]int64{}, 0.95, 0},
		{[]int64{5}, 0, 5},
		{[]int64{5}, 0.5, 5},
		{[]int64{5}, 1, 5},
		{[]int64{1, 2, 3, 4}, 0, 1},
		{[]int64{1, 2, 3, 4}, 0.25, 1},
		{[]int64{1, 2, 3, 4}, 0.26, 2},
		{[]int64{1, 2, 3, 4}, 0.5, 2},
		{[]int64{1, 2, 3, 4}, 0.75, 3},
		{[]int64{1, 2, 3, 4}, 0.76, 4},
		{[]int64{1, 2, 3, 4}, 1, 4},
		{[]int64{10, 20, 30, 40, 50}, 0.05, 10},
		{[]int64{10, 20, 30, 40, 50}, 0.2, 10},
		{[]int64{10, 20, 30, 40, 50}, 0.21, 20},
		{[]int64{10, 20, 30, 40, 50}, 0.5, 30},
		{[]int64{10, 20, 30, 40, 50}, 0.95, 50},
		{oneTo100, 0.01, 1},
		{oneTo100, 0.05, 5},
		{oneTo100, 0.07, 7}, // 0.07*100 is 7.000000000000001 in float64
		{oneTo100, 0.14, 14},
		{oneTo100, 0.28, 28},
		{oneTo100, 0.5, 50},
		{oneTo100, 0.95, 95},
		{oneTo100, 0.99, 99},
		{oneTo100, 1, 100},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("n=%d/q=%g", len(c.xs), c.q), func(t *testing.T) {
			if got := Quantile(c.xs, c.q); got != c.want {
				t.Errorf("Quantile = %d, want %d", got, c.want)
			}
		})
	}
	ds := []time.Duration{time.Millisecond, time.Second, time.Minute}
	if got := Quantile(ds, 0.5); got != time.Second {
		t.Errorf("Quantile(durations, 0.5) = %v, want 1s", got)
	}
	if got := Quantile([]float64{0.5, 1.5, 2.5}, 0.9); got != 2.5 {
		t.Errorf("Quantile(floats, 0.9) = %v, want 2.5", got)
	}
	if got := Quantile([]float64(nil), 0.9); got != 0 {
		t.Errorf("Quantile(empty floats) = %v, want 0", got)
	}
}

// TestLimitNameEveryLimiter: every row of limiterTable names the limiter it
// makes, and no other row claims it.
func TestLimitNameEveryLimiter(t *testing.T) {
	p, _ := Defaults(NameExponential)
	for _, r := range limiterTable {
		t.Run(r.name, func(t *testing.T) {
			l := r.make(p)
			if got := limitName(l); got != r.name {
				t.Errorf("limitName = %q, want %q", got, r.name)
			}
		})
	}
}
