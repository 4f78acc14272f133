package strategies

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/cenkalti/backoff/v5"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/backofflab/backofflab/internal/testrace"
)

// The oracle tests draw the delay before each retry from the real library
// and from the row that claims to compute it, with the same settings, and
// compare the two samples with a two-sample Kolmogorov–Smirnov test. The
// libraries draw from their own unseeded sources (cenkalti and client-go
// from math/rand, the AWS SDK from crypto/rand), so their samples differ
// from run to run; the rows' are seeded. The test fails only when the
// p-value is below oracleAlpha, which a correct row reaches once in a
// million comparisons, while a wrong detail (a cap applied before instead
// of after the jitter, a first retry at twice the base, ±r instead of full
// jitter) gives p-values far below it at these sample sizes. Run with -v
// to see every D and p.

// oracleAlpha is the p-value below which two samples are judged to come
// from different distributions.
const oracleAlpha = 1e-6

// oracleUnderRace is why an oracle test skips under -race: its samples are
// drawn on the test's one goroutine, where the detector has nothing to
// watch and only slows the draws tenfold. make test runs it again without
// the detector, at the same sample size.
const oracleUnderRace = "long samples on one goroutine, tenfold slower under -race"

// oracleDraws is the sample size per setting and retry index.
func oracleDraws() int {
	if testing.Short() {
		return 20_000
	}
	return 100_000
}

// ksTwoSample returns the two-sample Kolmogorov–Smirnov statistic D of a
// and b, which it sorts, and its asymptotic p-value (Numerical Recipes'
// probks with the effective size n·m/(n+m) and Stephens' correction).
// Equal values are stepped over together, so a distribution with atoms (a
// delay exactly at its cap) is compared correctly.
func ksTwoSample(a, b []time.Duration) (d, p float64) {
	slices.Sort(a)
	slices.Sort(b)
	na, nb := float64(len(a)), float64(len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		x := min(a[i], b[j])
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		d = max(d, math.Abs(float64(i)/na-float64(j)/nb))
	}
	ne := math.Sqrt(na * nb / (na + nb))
	return d, probKS((ne + 0.12 + 0.11/ne) * d)
}

// probKS is the Kolmogorov distribution's tail Q(λ) = 2 Σ (−1)^(k−1) e^(−2k²λ²).
func probKS(lambda float64) float64 {
	if lambda < 1e-3 {
		return 1
	}
	sum, sign := 0.0, 1.0
	for k := 1; k <= 100; k++ {
		term := sign * 2 * math.Exp(-2*float64(k*k)*lambda*lambda)
		sum += term
		if math.Abs(term) < 1e-12*sum || math.Abs(term) < 1e-300 {
			return min(1, max(0, sum))
		}
		sign = -sign
	}
	return 1
}

func TestKSTwoSample(t *testing.T) {
	ms := time.Millisecond
	rng := newRNG(5)
	same := func(n int, f func() time.Duration) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = f()
		}
		return out
	}
	u := func(hi time.Duration) func() time.Duration {
		return func() time.Duration { return time.Duration(rng.Int64N(int64(hi))) }
	}
	if d, p := ksTwoSample(same(20000, u(100*ms)), same(20000, u(100*ms))); p < 1e-3 {
		t.Errorf("U(0,100ms) against itself: D %.4f p %.3g, want p not small", d, p)
	}
	if d, p := ksTwoSample(same(20000, u(100*ms)), same(20000, u(110*ms))); p > 1e-9 {
		t.Errorf("U(0,100ms) against U(0,110ms): D %.4f p %.3g, want tiny p", d, p)
	}
	if d, _ := ksTwoSample([]time.Duration{1, 2, 3}, []time.Duration{4, 5, 6}); d != 1 {
		t.Errorf("disjoint samples: D %v, want 1", d)
	}
	if d, p := ksTwoSample([]time.Duration{5, 5, 5}, []time.Duration{5, 5}); d != 0 || p != 1 {
		t.Errorf("one atom on both sides: D %v p %v, want 0 and 1", d, p)
	}
}

// rowDraws returns, per retry index below k, n delays drawn from the
// Policy New builds for p with its limits taken off, each request failing
// every attempt; a request that its strategy stops ends its draws there.
func rowDraws(t *testing.T, p Params, k, n int, seed uint64) [][]time.Duration {
	t.Helper()
	p.MaxAttempts, p.Deadline = 0, 0
	pol := mustPolicy(t, p)
	rng := newRNG(seed)
	out := make([][]time.Duration, k)
	for range n {
		var s State
		pol.Begin(&s, 0, 10*time.Second)
		for r := range k {
			d, ok := pol.Retry(&s, s.AttemptStart, rng)
			if !ok {
				break
			}
			out[r] = append(out[r], d)
		}
	}
	return out
}

// compareDraws runs the KS test of lib against row at every retry index,
// logs D and p, and fails below oracleAlpha or when the two stop at
// different retries.
func compareDraws(t *testing.T, lib, row [][]time.Duration) {
	t.Helper()
	for r := range lib {
		if len(lib[r]) != len(row[r]) {
			t.Errorf("retry %d: the library drew %d delays, the row %d", r+1, len(lib[r]), len(row[r]))
			continue
		}
		if len(lib[r]) == 0 {
			continue
		}
		d, p := ksTwoSample(lib[r], row[r])
		t.Logf("retry %d: n=%d D=%.5f p=%.3g (median library %v, row %v)", r+1, len(lib[r]), d, p,
			lib[r][len(lib[r])/2], row[r][len(row[r])/2])
		if p < oracleAlpha {
			t.Errorf("retry %d: D=%.5f p=%.3g: the row's delays are not the library's", r+1, d, p)
		}
	}
}

// TestOracleCenkalti: the cenkalti row against cenkalti/backoff v5.0.3's
// ExponentialBackOff, reset before each request as its Retry does.
func TestOracleCenkalti(t *testing.T) {
	testrace.SkipUnder(t, oracleUnderRace)
	ms := time.Millisecond
	cases := []struct {
		initial, maxI time.Duration
		mult, rand    float64
	}{
		{500 * ms, time.Minute, 1.5, 0.5}, // NewExponentialBackOff's defaults
		{100 * ms, 2 * time.Second, 2, 0.2},
		{50 * ms, time.Second, 3, 0.9},
		{200 * ms, 10 * time.Second, 1.5, 0}, // no randomization
	}
	const k = 12
	n := oracleDraws()
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%v_%v_x%g_r%g", c.initial, c.maxI, c.mult, c.rand), func(t *testing.T) {
			lib := make([][]time.Duration, k)
			b := &backoff.ExponentialBackOff{InitialInterval: c.initial, MaxInterval: c.maxI,
				Multiplier: c.mult, RandomizationFactor: c.rand}
			for range n {
				b.Reset()
				for r := range k {
					lib[r] = append(lib[r], b.NextBackOff())
				}
			}
			p := mustDefaults(t, NameCenkalti)
			p.MinDelay, p.MaxDelay, p.Factor, p.Jitter = c.initial, c.maxI, c.mult, c.rand
			compareDraws(t, lib, rowDraws(t, p, k, n, 7100+uint64(ci)))
		})
	}
}

// awsErr is a retryable error that is not a throttling error, as the
// simulator's timeouts and error answers are.
var awsErr = errors.New("backofflab: attempt failed")

// TestOracleAWSStandard: the full_jitter row with the SDK's settings
// against aws-sdk-go-v2 v1.48.0's standard retryer, whose RetryDelay takes
// the 1-based number of the attempt that failed.
func TestOracleAWSStandard(t *testing.T) {
	testrace.SkipUnder(t, oracleUnderRace)
	ms := time.Millisecond
	cases := []struct {
		base, maxB time.Duration // 0 base: the SDK's default, 50 ms
	}{
		{0, retry.DefaultMaxBackoff},
		{100 * ms, 5 * time.Second},
		{time.Second, 20 * time.Second},
	}
	const k = 10
	n := oracleDraws()
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%v_%v", c.base, c.maxB), func(t *testing.T) {
			std := retry.NewStandard(func(o *retry.StandardOptions) { o.BaseDelay, o.MaxBackoff = c.base, c.maxB })
			lib := make([][]time.Duration, k)
			for r := range k {
				for range n {
					d, err := std.RetryDelay(r+1, awsErr)
					if err != nil {
						t.Fatal(err)
					}
					lib[r] = append(lib[r], d)
				}
			}
			p := mustDefaults(t, NameFullJitter)
			p.MinDelay, p.MaxDelay = 50*ms, c.maxB
			if c.base != 0 {
				p.MinDelay = c.base
			}
			compareDraws(t, lib, rowDraws(t, p, k, n, 7200+uint64(ci)))
		})
	}
}

// awsAPIError is an API error with an error code, as the SDK's
// ThrottleErrorCode reads one (errors.As to interface{ ErrorCode() string }).
type awsAPIError string

func (e awsAPIError) Error() string     { return string(e) }
func (e awsAPIError) ErrorCode() string { return string(e) }

// TestOracleAWSThrottled: the aws_throttled row against aws-sdk-go-v2
// v1.48.0's standard retryer, the SDK's own throttling error after an
// error answer and a plain error after a timeout: each request of the
// row's draws fails every attempt with the one outcome.
func TestOracleAWSThrottled(t *testing.T) {
	testrace.SkipUnder(t, oracleUnderRace)
	throttle := awsAPIError("ThrottlingException")
	cases := []struct {
		name    string
		libErr  error
		outcome Outcome
	}{
		{"throttling_error", throttle, Error},
		{"timeout", awsErr, Timeout},
	}
	const k = 10
	n := oracleDraws()
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			std := retry.NewStandard()
			lib := make([][]time.Duration, k)
			for r := range k {
				for range n {
					d, err := std.RetryDelay(r+1, c.libErr)
					if err != nil {
						t.Fatal(err)
					}
					lib[r] = append(lib[r], d)
				}
			}
			p := mustDefaults(t, NameAWSThrottled)
			p.MaxAttempts = 0
			pol := mustPolicy(t, p)
			rng := newRNG(7250 + uint64(ci))
			row := make([][]time.Duration, k)
			for range n {
				var s State
				pol.Begin(&s, 0, 10*time.Second)
				for r := range k {
					pol.Record(&s, s.AttemptStart, c.outcome)
					d, ok := pol.Retry(&s, s.AttemptStart, rng)
					if !ok {
						t.Fatalf("retry %d refused", r+1)
					}
					row[r] = append(row[r], d)
				}
			}
			compareDraws(t, lib, row)
		})
	}
}

// TestOracleAWSLegacy: the aws_legacy row against the backoff of
// aws-sdk-go-v2's NewExponentialJitterBackoff, the standard retryer's
// before v1.48.0 (v1.47.8), which v1.48.0 keeps.
func TestOracleAWSLegacy(t *testing.T) {
	testrace.SkipUnder(t, oracleUnderRace)
	const k = 8
	n := oracleDraws()
	for ci, maxB := range []time.Duration{retry.DefaultMaxBackoff, 5 * time.Second, 100 * time.Second} {
		t.Run(maxB.String(), func(t *testing.T) {
			bo := retry.NewExponentialJitterBackoff(maxB)
			lib := make([][]time.Duration, k)
			for r := range k {
				for range n {
					d, err := bo.BackoffDelay(r+1, awsErr)
					if err != nil {
						t.Fatal(err)
					}
					lib[r] = append(lib[r], d)
				}
			}
			p := mustDefaults(t, NameAWSLegacy)
			p.MaxDelay = maxB
			compareDraws(t, lib, rowDraws(t, p, k, n, 7300+uint64(ci)))
		})
	}
}

// TestOracleClientGo: the client_go row against k8s.io/apimachinery
// v0.37.2's wait.Backoff, stepped as wait.ExponentialBackoff steps it: the
// library's draws of a request end after the step that zeroes Steps (the
// cap), where ExponentialBackoff returns without another attempt, and the
// row's end there too.
func TestOracleClientGo(t *testing.T) {
	testrace.SkipUnder(t, oracleUnderRace)
	ms := time.Millisecond
	cases := []struct {
		duration, capD time.Duration // 0 cap: client-go's none, the row's 24 h
		factor, jitter float64
	}{
		{10 * ms, 0, 5, 0.1}, // client-go's retry.DefaultBackoff
		{100 * ms, 10 * time.Second, 2, 0.5},
		{time.Second, 30 * time.Second, 1.5, 1},
		{10 * ms, 0, 1, 0.1}, // retry.DefaultRetry
	}
	const k = 9 // 10 ms·5^9 is 5.4 h; the row's cap of 24 h, for client-go's none, stops the tenth
	n := oracleDraws()
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%v_%v_x%g_j%g", c.duration, c.capD, c.factor, c.jitter), func(t *testing.T) {
			lib := make([][]time.Duration, k)
			for range n {
				b := wait.Backoff{Duration: c.duration, Factor: c.factor, Jitter: c.jitter, Steps: math.MaxInt32, Cap: c.capD}
				for r := range k {
					d := b.Step()
					if b.Steps == 0 {
						break // ExponentialBackoff sleeps d and gives up
					}
					lib[r] = append(lib[r], d)
				}
			}
			p := mustDefaults(t, NameClientGo)
			p.MinDelay, p.Factor, p.Jitter = c.duration, c.factor, c.jitter
			if c.capD > 0 {
				p.MaxDelay = c.capD
			}
			compareDraws(t, lib, rowDraws(t, p, k, n, 7400+uint64(ci)))
		})
	}
}

// TestOracleDetectsAWrongDetail: the oracle comparison fails a row that
// differs from the library by one of the details that decide a storm, so
// that the passing comparisons above mean something: the AWS SDK's
// first retry against a full jitter of twice its base (legacy's 2^a with
// the new 50 ms), and cenkalti's cap on the interval against resilience4j's
// cap after the randomization.
func TestOracleDetectsAWrongDetail(t *testing.T) {
	n := oracleDraws()
	ms := time.Millisecond
	t.Run("aws_twice_the_base", func(t *testing.T) {
		std := retry.NewStandard()
		var lib []time.Duration
		for range n {
			d, err := std.RetryDelay(1, awsErr)
			if err != nil {
				t.Fatal(err)
			}
			lib = append(lib, d)
		}
		p := mustDefaults(t, NameFullJitter)
		p.MinDelay, p.MaxDelay = 100*ms, 20*time.Second
		row := rowDraws(t, p, 1, n, 7500)[0]
		if d, pv := ksTwoSample(lib, row); pv >= oracleAlpha {
			t.Errorf("D=%.5f p=%.3g: the oracle missed a first retry of U(0, 100 ms) for the SDK's U(0, 50 ms)", d, pv)
		}
	})
	t.Run("cenkalti_cap_after_jitter", func(t *testing.T) {
		b := &backoff.ExponentialBackOff{InitialInterval: 500 * ms, MaxInterval: 2 * time.Second,
			Multiplier: 2, RandomizationFactor: 0.5}
		const k = 4 // the interval reaches its cap of 2 s at the third retry
		lib := make([][]time.Duration, k)
		for range n {
			b.Reset()
			for r := range k {
				lib[r] = append(lib[r], b.NextBackOff())
			}
		}
		p := mustDefaults(t, NameResilience4j)
		p.MinDelay, p.MaxDelay, p.Factor, p.Jitter = 500*ms, 2*time.Second, 2, 0.5
		row := rowDraws(t, p, k, n, 7501)
		if d, pv := ksTwoSample(lib[k-1], row[k-1]); pv >= oracleAlpha {
			t.Errorf("D=%.5f p=%.3g: the oracle missed resilience4j's cap after the jitter for cenkalti's before", d, pv)
		}
	})
}
