package strategies

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// The libraries below are not Go modules, so their tests work each
// library's formula by hand, citing the line of its source, from a twin of
// the generator the row draws from: the same seed gives the same uniform
// draws, so the row must give exactly the library's waits, not nearly.
// Then the row's draws are checked against the formula's bounds, mean and
// quantiles, for the arithmetic the twin shares with the row.

// requestWaits runs one request of strategy st that fails every attempt
// and returns the waits before its first k retries (fewer when the
// strategy stops), with the per-attempt timeouts it asks for: timeouts[0]
// is the first attempt's.
func requestWaits(st Strategy, k int, rng *rand.Rand) (waits, timeouts []time.Duration) {
	var s State
	st.Begin(&s, 0)
	pol := NewPolicy(st)
	timeouts = append(timeouts, pol.AttemptTimeout(&s, 0))
	for range k {
		d := st.Next(&s, s.AttemptStart, rng)
		if d == Stop {
			break
		}
		waits = append(waits, d)
		s.Retries++
		s.AttemptStart += d
		timeouts = append(timeouts, pol.AttemptTimeout(&s, 0))
	}
	return waits, timeouts
}

// twins returns two generators that draw the same numbers.
func twins(seed uint64) (*rand.Rand, *rand.Rand) { return newRNG(seed), newRNG(seed) }

// TestEnvoyBackoffFormula works JitteredExponentialBackOffStrategy by hand
// (envoyproxy/envoy source/common/common/backoff_strategy.cc lines 13–19:
// "next_interval_ = (next_interval_ < doubling_limit_) ? (next_interval_ *
// 2u) : max_interval_; return (random_.random() % backoff);",
// backoff_strategy.h: doubling_limit_{max_interval_ / 2u}), with the
// router's defaults (v1.39.1 source/common/router/retry_state_impl.cc
// line 87: base 25 ms, max 10 × base).
func TestEnvoyBackoffFormula(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name      string
		base, max time.Duration
		intervals []uint64 // b_n in ms, the range of retry n's wait
	}{
		{"defaults", 25 * ms, 250 * ms, []uint64{25, 50, 100, 200, 250, 250, 250}},
		{"max_not_a_power", 30 * ms, 100 * ms, []uint64{30, 60, 100, 100}},
		{"base_eq_max", 40 * ms, 40 * ms, []uint64{40, 40, 40}},
		{"sub_ms_truncated", 25*ms + 900*time.Microsecond, 250*ms + 999*time.Microsecond, []uint64{25, 50, 100, 200, 250}},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			row, lib := twins(uint64(8000 + ci))
			st := Envoy{Base: c.base, Max: c.max, PerTry: 700 * ms}
			for range 200 {
				waits, timeouts := requestWaits(st, len(c.intervals), row)
				for n, b := range c.intervals {
					if want := time.Duration(lib.Uint64()%b) * ms; waits[n] != want {
						t.Fatalf("retry %d: %v, want random() %% %d ms = %v", n+1, waits[n], b, want)
					}
				}
				for i, to := range timeouts {
					if to != 700*ms {
						t.Fatalf("attempt %d's timeout %v, want per_try_timeout 700ms", i+1, to)
					}
				}
			}
		})
	}
	t.Run("distribution", func(t *testing.T) {
		// Retry n's wait is uniform on {0, …, b_n − 1} ms: the first retry
		// waits 0–24 ms, not the documentation's [0, (2^N−1)·25).
		rng := newRNG(8010)
		st := Envoy{Base: 25 * ms, Max: 250 * ms}
		per := make([][]float64, 5)
		for range draws {
			waits, _ := requestWaits(st, 5, rng)
			for n, w := range waits {
				per[n] = append(per[n], float64(w/ms))
			}
		}
		for n, b := range []float64{25, 50, 100, 200, 250} {
			xs := per[n]
			if lo, hi := slices.Min(xs), slices.Max(xs); lo != 0 || hi != b-1 {
				t.Errorf("retry %d: waits in [%v, %v] ms, want [0, %v]", n+1, lo, hi, b-1)
			}
			checkMean(t, "envoy retry", xs, (b-1)/2, math.Sqrt((b*b-1)/12))
		}
	})
}

// TestGRPCRetryFormula works gRFC A6's backoff by hand
// (grpc/proposal A6-client-retries.md line 113: "the n-th attempt will
// occur after min(initialBackoff*backoffMultiplier**(n-1), maxBackoff) *
// random(0.8, 1.2))"; grpc-go stream.go shouldRetry: "cur *= 0.8 +
// 0.4*rand.Float64(); dur = time.Duration(int64(cur))"), and its cap of
// maxAttempts at 5 (A6 line 124: "Values greater than 5 are treated as 5").
func TestGRPCRetryFormula(t *testing.T) {
	ms := time.Millisecond
	row, lib := twins(8100)
	st := GRPCRetry{Initial: 100 * ms, Max: time.Second, Factor: 2, MaxAttempts: 5}
	for range 500 {
		waits, _ := requestWaits(st, 10, row)
		if len(waits) != 4 {
			t.Fatalf("%d retries, want 4 (5 attempts)", len(waits))
		}
		for n, w := range waits {
			cur := min(float64(100*ms)*math.Pow(2, float64(n)), float64(time.Second))
			if want := time.Duration(int64(cur * (0.8 + 0.4*lib.Float64()))); w != want {
				t.Fatalf("retry %d: %v, want %v", n+1, w, want)
			}
		}
	}
	for _, c := range []struct{ maxAttempts, retries int }{{0, 4}, {2, 1}, {3, 2}, {5, 4}, {6, 4}, {100, 4}} {
		p := mustDefaults(t, NameGRPCRetry)
		p.MaxAttempts = c.maxAttempts
		if got := countRetries(t, mustPolicy(t, p), 50, 8101); got != c.retries {
			t.Errorf("maxAttempts %d: %d retries, want %d", c.maxAttempts, got, c.retries)
		}
	}
	// Each wait lies in [0.8, 1.2) of its backoff, uniformly.
	rng := newRNG(8102)
	var firsts []float64
	for range draws {
		waits, _ := requestWaits(st, 1, rng)
		firsts = append(firsts, secs(waits[0]))
	}
	if lo, hi := slices.Min(firsts), slices.Max(firsts); lo < 0.08 || hi >= 0.12 {
		t.Errorf("first retries in [%v, %v] s, want in [0.08, 0.12)", lo, hi)
	}
	checkMean(t, "grpc_retry first wait", firsts, 0.1, 0.04/math.Sqrt(12))
}

// TestResilience4jFormula works resilience4j's IntervalFunction by hand
// (resilience4j v2.4.0, resilience4j-core IntervalFunction.java lines
// 146–158: "of(initialIntervalMillis, x -> (long) (x * multiplier))
// .apply(attempt); return (long) randomize(interval, randomizationFactor)",
// lines 130–143: "Math.min(interval, maxIntervalMillis)" after it, lines
// 239–246: "min + (Math.random() * (max - min + 1))", "Math.max(1.0,
// randomizedValue)"), and its default fixed 500 ms (RetryConfig.java
// DEFAULT_WAIT_DURATION).
func TestResilience4jFormula(t *testing.T) {
	ms := time.Millisecond
	t.Run("exponential_random", func(t *testing.T) {
		row, lib := twins(8200)
		st := Resilience4j{Initial: 500 * ms, Max: 4 * time.Second, Multiplier: 1.5, Randomization: 0.5}
		intervals := []int64{500, 750, 1125, 1687, 2530, 3795, 5692} // (long) truncates 1687.5 and 2530.5
		for range 500 {
			waits, _ := requestWaits(st, len(intervals), row)
			for n, x := range intervals {
				f := float64(x)
				r := int64(max(1, f-0.5*f+lib.Float64()*(f+0.5*f-(f-0.5*f)+1)))
				if want := time.Duration(min(r, 4000)) * ms; waits[n] != want {
					t.Fatalf("retry %d: %v, want %v", n+1, waits[n], want)
				}
			}
		}
	})
	t.Run("defaults_fixed", func(t *testing.T) {
		pol := mustPolicy(t, mustDefaults(t, NameResilience4j))
		waits, _ := requestWaits(pol.Strategy, 5, newRNG(8201))
		if !slices.Equal(waits, []time.Duration{500 * ms, 500 * ms, 500 * ms, 500 * ms, 500 * ms}) {
			t.Errorf("default waits %v, want 500ms each", waits)
		}
	})
}

// TestPollyFormula works Polly v8's RetryHelper by hand (App-vNext/Polly
// 8.7, src/Polly.Core/Retry/RetryHelper.cs: line 139 "Math.Pow(
// ExponentialFactor, attempt) * baseDelay", line 125 "(attempt + 1) *
// baseDelay.TotalMilliseconds" through ApplyJitter, lines 49–55 "offset =
// (delay.TotalMilliseconds * JitterFactor) / 2; randomDelay =
// (delay.TotalMilliseconds * JitterFactor * randomizer()) - offset", lines
// 90–104 "t = attempt + randomizer(); next = Math.Pow(ExponentialFactor, t)
// * Math.Tanh(Math.Sqrt(PFactor * t)); formulaIntrinsicValue = next - prev;
// ... (long)Math.Min(formulaIntrinsicValue * RpScalingFactor *
// targetTicksFirstDelay, MaxTimeSpanTicks)"), with the first retry's
// attempt 0 (RetryResilienceStrategy.cs).
func TestPollyFormula(t *testing.T) {
	s := time.Second
	plain := []struct {
		typ  string
		want []time.Duration
	}{
		{PollyConstant, []time.Duration{2 * s, 2 * s, 2 * s, 2 * s}},
		{PollyLinear, []time.Duration{2 * s, 4 * s, 6 * s, 8 * s}},
		{PollyExponential, []time.Duration{2 * s, 4 * s, 8 * s, 10 * s}}, // 16 s capped at MaxDelay 10 s
	}
	for _, c := range plain {
		t.Run(c.typ, func(t *testing.T) {
			waits, _ := requestWaits(Polly{Type: c.typ, Delay: 2 * s, Max: 10 * s}, 4, newRNG(8300))
			if !slices.Equal(waits, c.want) {
				t.Errorf("waits %v, want %v", waits, c.want)
			}
		})
	}
	t.Run("linear_jitter", func(t *testing.T) {
		row, lib := twins(8301)
		for range 200 {
			waits, _ := requestWaits(Polly{Type: PollyLinear, Delay: 2 * s, Max: DefaultNoCap, UseJitter: true}, 4, row)
			for n, w := range waits {
				ms := float64(n+1) * 2000
				ms += ms*0.5*lib.Float64() - ms*0.5/2
				if want := time.Duration(math.Trunc(ms*1e4) * 100); w != want {
					t.Fatalf("retry %d: %v, want %v", n+1, w, want)
				}
				if lo, hi := time.Duration(n+1)*1500*time.Millisecond, time.Duration(n+1)*2500*time.Millisecond; w < lo || w > hi {
					t.Fatalf("retry %d: %v outside ±25 %% [%v, %v]", n+1, w, lo, hi)
				}
			}
		}
	})
	t.Run("exponential_decorrelated", func(t *testing.T) {
		row, lib := twins(8302)
		for range 200 {
			waits, _ := requestWaits(Polly{Type: PollyExponential, Delay: time.Second, Max: DefaultNoCap, UseJitter: true}, 6, row)
			prev := 0.0
			for n, w := range waits {
				tt := float64(n) + lib.Float64()
				next := math.Pow(2, tt) * math.Tanh(math.Sqrt(4*tt))
				ticks := math.Trunc((next - prev) * (1 / 1.4) * 1e7)
				prev = next
				if want := time.Duration(ticks * 100); w != want {
					t.Fatalf("retry %d: %v, want %v", n+1, w, want)
				}
			}
		}
	})
	t.Run("decorrelated_bounds", func(t *testing.T) {
		// RetryHelper's own comment: retry t waits between 0 and
		// f·2^(t+1) for t 0 or 1, and f·(2^(t+1) − 2^(t−1)) for t ≥ 2.
		rng := newRNG(8303)
		for range draws / 4 {
			waits, _ := requestWaits(Polly{Type: PollyExponential, Delay: time.Second, Max: DefaultNoCap, UseJitter: true}, 6, rng)
			for n, w := range waits {
				top := math.Ldexp(1, n+1)
				if n >= 2 {
					top -= math.Ldexp(1, n-1)
				}
				if w < 0 || secs(w) > top {
					t.Fatalf("retry %d: %v, want in [0, %v s]", n+1, w, top)
				}
			}
		}
	})
}

// TestTenacityFormula works tenacity's waits by hand (jd/tenacity 9.1.4,
// tenacity/wait.py lines 204–221: "exponent = retry_state.attempt_number -
// 1 ... result = self.multiplier * exp; return max(max(0, self.min),
// min(result, self.max))", line 252: "random.uniform(self.min, high)"),
// attempt_number being 1 when the first attempt has failed: the first
// retry waits multiplier, not twice it (tenacity before 8 did).
func TestTenacityFormula(t *testing.T) {
	s := time.Second
	waits, _ := requestWaits(Tenacity{Multiplier: s, Max: 10 * s, ExpBase: 2}, 6, newRNG(8400))
	if want := []time.Duration{s, 2 * s, 4 * s, 8 * s, 10 * s, 10 * s}; !slices.Equal(waits, want) {
		t.Errorf("wait_exponential(multiplier=1, max=10): %v, want %v", waits, want)
	}
	waits, _ = requestWaits(Tenacity{Multiplier: s / 2, Max: DefaultNoCap, ExpBase: 3}, 4, newRNG(8401))
	if want := []time.Duration{s / 2, 3 * s / 2, 9 * s / 2, 27 * s / 2}; !slices.Equal(waits, want) {
		t.Errorf("wait_exponential(multiplier=0.5, exp_base=3): %v, want %v", waits, want)
	}
	row, lib := twins(8402)
	for range 200 {
		waits, _ := requestWaits(Tenacity{Multiplier: s, Max: 10 * s, ExpBase: 2, Random: true}, 6, row)
		for n, w := range waits {
			high := min(float64(s)*math.Pow(2, float64(n)), float64(10*s))
			if want := dur(high * lib.Float64()); w != want {
				t.Fatalf("wait_random_exponential retry %d: %v, want %v", n+1, w, want)
			}
		}
	}
	rng := newRNG(8403)
	var firsts []float64
	for range draws {
		waits, _ := requestWaits(Tenacity{Multiplier: s, Max: 10 * s, ExpBase: 2, Random: true}, 1, rng)
		firsts = append(firsts, secs(waits[0]))
	}
	checkMean(t, "wait_random_exponential first wait", firsts, 0.5, 1/math.Sqrt(12))
	checkQuantile(t, "wait_random_exponential first wait", firsts, 0.9, 0.9, 1)
}

// TestUrllib3Formula works urllib3's get_backoff_time by hand (urllib3
// 2.7, src/urllib3/util/retry.py lines 314–326: "if consecutive_errors_len
// <= 1: return 0", "backoff_value = self.backoff_factor * (2 **
// (consecutive_errors_len - 1))", "min(self.backoff_max, backoff_value)"),
// whose docstring's example is backoff_factor 0.1: "[0.0s, 0.2s, 0.4s,
// 0.8s, ...]".
func TestUrllib3Formula(t *testing.T) {
	ms := time.Millisecond
	waits, _ := requestWaits(Urllib3{BackoffFactor: 100 * ms, Max: 120 * time.Second}, 5, newRNG(8500))
	if want := []time.Duration{0, 200 * ms, 400 * ms, 800 * ms, 1600 * ms}; !slices.Equal(waits, want) {
		t.Errorf("backoff_factor 0.1: %v, want %v", waits, want)
	}
	waits, _ = requestWaits(Urllib3{BackoffFactor: time.Second, Max: 120 * time.Second}, 9, newRNG(8501))
	if want := 120 * time.Second; waits[7] != want || waits[8] != want || waits[6] != 64*time.Second {
		t.Errorf("backoff_factor 1: %v, want 64 s then backoff_max 120 s", waits)
	}
}

// TestLibraryDefaults: each library row's defaults are its library's, as
// its row in table cites them; full_jitter carries the AWS SDK's only
// through the oracle test's settings, since its own defaults are 004's.
func TestLibraryDefaults(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name               string
		minDelay, maxDelay time.Duration
		factor, jitter     float64
		maxAttempts        int
		deadline           time.Duration
		noFactor           bool
	}{
		{name: NameEnvoy, minDelay: 25 * ms, maxDelay: 250 * ms, maxAttempts: 2, noFactor: true},
		{name: NameGRPCRetry, minDelay: 100 * ms, maxDelay: time.Second, factor: 2, maxAttempts: 4},
		{name: NameAWSLegacy, minDelay: time.Second, maxDelay: 20 * time.Second, maxAttempts: 3, noFactor: true},
		{name: NameResilience4j, minDelay: 500 * ms, maxDelay: DefaultNoCap, factor: 1, maxAttempts: 3},
		{name: NamePolly, minDelay: 2 * time.Second, maxDelay: DefaultNoCap, maxAttempts: 4, noFactor: true},
		{name: NameCenkalti, minDelay: 500 * ms, maxDelay: time.Minute, factor: 1.5, jitter: 0.5, deadline: 15 * time.Minute},
		{name: NameClientGo, minDelay: 10 * ms, maxDelay: DefaultNoCap, factor: 5, jitter: 0.1, maxAttempts: 4},
		{name: NameTenacityExponential, minDelay: time.Second, maxDelay: DefaultNoCap, factor: 2},
		{name: NameTenacityRandomExponential, minDelay: time.Second, maxDelay: DefaultNoCap, factor: 2},
		{name: NameUrllib3, minDelay: 100 * ms, maxDelay: 120 * time.Second, maxAttempts: 11, noFactor: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustDefaults(t, c.name)
			if p.MinDelay != c.minDelay || p.MaxDelay != c.maxDelay || p.MaxAttempts != c.maxAttempts || p.Deadline != c.deadline {
				t.Errorf("min_delay %v max_delay %v max_attempts %d deadline %v; want %v %v %d %v",
					p.MinDelay, p.MaxDelay, p.MaxAttempts, p.Deadline, c.minDelay, c.maxDelay, c.maxAttempts, c.deadline)
			}
			if !c.noFactor && (p.Factor != c.factor || p.Jitter != c.jitter) {
				t.Errorf("factor %v jitter %v; want %v %v", p.Factor, p.Jitter, c.factor, c.jitter)
			}
			if p.PerTryTimeout != 0 || p.UseJitter || p.BackoffType != PollyConstant {
				t.Errorf("per_try_timeout %v use_jitter %v backoff_type %q; want 0, false, constant", p.PerTryTimeout, p.UseJitter, p.BackoffType)
			}
		})
	}
}

func TestNewRejectsUnknownBackoffType(t *testing.T) {
	p := mustDefaults(t, NamePolly)
	p.BackoffType = "quadratic"
	if _, err := New(p); err == nil || !strings.Contains(err.Error(), "backoff_type") || !strings.Contains(err.Error(), "quadratic") {
		t.Errorf("New with backoff_type quadratic: %v, want an error naming backoff_type and the value", err)
	}
}
