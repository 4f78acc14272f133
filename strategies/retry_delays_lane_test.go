package strategies

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
)

// cdf is a delay distribution's cumulative distribution function: at(x) is
// P(X ≤ x), below(x) is P(X < x), equal for a continuous one.
type cdf struct {
	at, below func(x time.Duration) float64
}

// uniformCDF is U[0, top): the full jitter's wait, drawn in nanoseconds.
func uniformCDF(top time.Duration) cdf {
	f := func(x time.Duration) float64 { return min(1, max(0, float64(x)/float64(top))) }
	return cdf{f, f}
}

// wholeMsCDF is U{0, …, b−1} milliseconds: Envoy's random() % b.
func wholeMsCDF(b int64) cdf {
	at := func(x time.Duration) float64 {
		return min(1, max(0, float64(int64(x/time.Millisecond)+1)/float64(b)))
	}
	return cdf{at, func(x time.Duration) float64 { return at(x - time.Millisecond) }}
}

// envoyIntervals are Envoy's b_n in whole milliseconds
// (JitteredExponentialBackOffStrategy: doubled while below max/2, else max).
func envoyIntervals(base, maxI time.Duration, k int) []int64 {
	b, m := int64(base/time.Millisecond), int64(maxI/time.Millisecond)
	var out []int64
	for range k {
		out = append(out, b)
		if b < m/2 {
			b *= 2
		} else {
			b = m
		}
	}
	return out
}

// sampleCDF is the empirical CDF of a large sample of a formula that has no
// closed form (001's exponential, whose jitter compounds), with the
// sample's own error.
func sampleCDF(xs []time.Duration) (cdf, float64) {
	slices.Sort(xs)
	n := float64(len(xs))
	at := func(x time.Duration) float64 {
		i, _ := slices.BinarySearch(xs, x+1)
		return float64(i) / n
	}
	below := func(x time.Duration) float64 {
		i, _ := slices.BinarySearch(xs, x)
		return float64(i) / n
	}
	return cdf{at, below}, zTol * 0.5 / math.Sqrt(n)
}

// exponentialReference draws n requests of 001's exponential, written here
// from its formula (d₀ = base; d = min(d·factor, cap); d += Normal(0,
// d·jitter), never below 0), and returns each retry's distribution.
func exponentialReference(base, cp time.Duration, factor, jitter float64, k, n int, seed uint64) ([]cdf, float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	xs := make([][]time.Duration, k)
	for range n {
		d := float64(base)
		xs[0] = append(xs[0], base)
		for r := 1; r < k; r++ {
			d = min(d*factor, float64(cp))
			d = max(0, d+rng.NormFloat64()*d*jitter)
			xs[r] = append(xs[r], time.Duration(d))
		}
	}
	var out []cdf
	var tol float64
	for _, x := range xs {
		c, t := sampleCDF(x)
		out, tol = append(out, c), t
	}
	return out, tol
}

// TestRetryDelaysLaneMatchesFormula checks the delay chart of lanes with a
// retry limiter against their strategy's formula: Envoy's lane (its
// library row and the cluster's max_retries or retry budget, as the Envoy
// profile and envoy_route.yaml import them), the AWS SDK's (full jitter
// with the retry quota, and the adaptive limiter of aws_config.ini), and a
// plain exponential with jitter. Each draw is one request that keeps
// failing in isolation, so a limiter that a single request cannot exhaust
// changes nothing: every retry the lane's max_attempts allows shows, its
// 5th, 50th and 95th percentiles where the formula puts them within
// sampling error.
func TestRetryDelaysLaneMatchesFormula(t *testing.T) {
	const n = 4000
	envoy := func(base, maxI time.Duration, set func(*Params)) Params {
		p, _ := Defaults(NameEnvoy)
		p.MinDelay, p.MaxDelay = base, maxI
		set(&p)
		return p
	}
	aws := func(set func(*Params)) Params {
		p, _ := Defaults(NameFullJitter)
		p.MinDelay, p.MaxDelay, p.MaxAttempts, p.AWSQuota = 50*time.Millisecond, 20*time.Second, 3, LimiterOn
		set(&p)
		return p
	}
	expo, _ := Defaults(NameExponential)
	expoRef, expoTol := exponentialReference(expo.MinDelay, expo.MaxDelay, expo.Factor, expo.Jitter, 12, 200000, 11)

	cases := []struct {
		name    string
		p       Params
		retries int // the rows the chart must show
		dist    func(r int) cdf
		tol     float64 // the reference's own error
	}{
		// Envoy's defaults: num_retries 1, so max_attempts 2.
		{"envoy_profile", envoy(25*time.Millisecond, 250*time.Millisecond, func(p *Params) {
			p.Deadline, p.MaxAttempts, p.EnvoyRetryLimit = 15*time.Second, 2, EnvoyMaxRetries
		}), 1, func(r int) cdf { return wholeMsCDF(envoyIntervals(25*time.Millisecond, 250*time.Millisecond, 12)[r-1]) }, 0},
		{"envoy_max_retries_unbounded_attempts", envoy(25*time.Millisecond, 250*time.Millisecond, func(p *Params) {
			p.Deadline, p.MaxAttempts, p.EnvoyRetryLimit = 15*time.Second, 0, EnvoyMaxRetries
		}), 12, func(r int) cdf { return wholeMsCDF(envoyIntervals(25*time.Millisecond, 250*time.Millisecond, 12)[r-1]) }, 0},
		{"envoy_route_yaml", envoy(50*time.Millisecond, time.Second, func(p *Params) {
			p.Deadline, p.MaxAttempts, p.PerTryTimeout = 15*time.Second, 4, 2*time.Second
			p.EnvoyRetryLimit, p.EnvoyMaxRetries, p.EnvoyBudgetPercent, p.EnvoyMinRetryConcurrency = EnvoyBudget, 5, 25, 10
		}), 3, func(r int) cdf { return wholeMsCDF(envoyIntervals(50*time.Millisecond, time.Second, 3)[r-1]) }, 0},
		{"aws_profile", aws(func(*Params) {}), 2,
			func(r int) cdf { return uniformCDF(pow2(50*time.Millisecond, 20*time.Second, r-1)) }, 0},
		{"aws_config_ini", aws(func(p *Params) { p.MaxAttempts, p.AWSAdaptive = 5, LimiterOn }), 4,
			func(r int) cdf { return uniformCDF(pow2(50*time.Millisecond, 20*time.Second, r-1)) }, 0},
		{"exponential", expo, 12, func(r int) cdf { return expoRef[r-1] }, expoTol},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bs := mustRetryDelays(t, c.p, 10*time.Second, 12, n, 5)
			if len(bs) != c.retries {
				t.Errorf("%d retries charted, want %d", len(bs), c.retries)
			}
			for _, b := range bs {
				f := c.dist(b.Retry)
				if b.Draws != n {
					t.Errorf("retry %d: quantiles of %d draws, want all %d", b.Retry, b.Draws, n)
				}
				// A sampled reference has no largest wait: 001's jitter is normal.
				if b.Max < b.P95 || c.tol == 0 && f.below(b.Max) >= 1 {
					t.Errorf("retry %d: max %v, want between P95 %v and the formula's largest wait", b.Retry, b.Max, b.P95)
				}
				for _, q := range []struct {
					p float64
					x time.Duration
				}{{0.05, b.P5}, {0.50, b.P50}, {0.95, b.P95}} {
					tol := zTol*math.Sqrt(q.p*(1-q.p)/n) + c.tol
					if f.at(q.x) < q.p-tol || f.below(q.x) > q.p+tol {
						t.Errorf("retry %d: P%.0f = %v, where the formula's CDF is %.3f (%.3f below it), want %.2f ± %.3f",
							b.Retry, q.p*100, q.x, f.at(q.x), f.below(q.x), q.p, tol)
					}
				}
			}
		})
	}
}

// TestRetryDelaysCostBounded: a draw's fresh limiters cost what one
// request uses of them, not what their parameters allow: the largest
// breaker window the vocabulary takes (100 000 calls) with every limiter
// on allocates a few MB over the chart's draws, not a window per draw.
func TestRetryDelaysCostBounded(t *testing.T) {
	p := allLimiters(t, 100_000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := RetryDelays(p, 10*time.Second, DelayRetries, DelayDraws, 1); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	const most = 32 << 20
	if got := after.TotalAlloc - before.TotalAlloc; got > most {
		t.Errorf("RetryDelays allocated %d MB with breaker_window 100000, want at most %d MB", got>>20, most>>20)
	}
}

// allLimiters is 001's exponential with no max_attempts and every limiter
// on, the breaker's window of window calls.
func allLimiters(t testing.TB, window int) Params {
	t.Helper()
	p, ok := Defaults(NameExponential)
	if !ok {
		t.Fatal("no exponential row")
	}
	p.MaxAttempts = 0
	p.Breaker, p.BreakerWindow = BreakerAll, window
	p.SREThrottle, p.RetryBudget, p.GRPCThrottle, p.AWSQuota, p.EnvoyRetryLimit = LimiterOn, LimiterOn, LimiterOn, LimiterOn, EnvoyBudget
	return p
}

// BenchmarkRetryDelays measures the delay chart of one lane: a plain
// one, whose policy serves every draw, and one with every limiter on,
// built afresh for each.
func BenchmarkRetryDelays(b *testing.B) {
	plain := allLimiters(b, 100)
	plain.Breaker, plain.SREThrottle, plain.RetryBudget, plain.GRPCThrottle = LimiterOff, LimiterOff, LimiterOff, LimiterOff
	plain.AWSQuota, plain.EnvoyRetryLimit = LimiterOff, LimiterOff
	for _, c := range []struct {
		name string
		p    Params
	}{{"plain", plain}, {"all_limiters", allLimiters(b, 100)}, {"all_limiters_window_100000", allLimiters(b, 100_000)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := RetryDelays(c.p, 10*time.Second, DelayRetries, DelayDraws, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
