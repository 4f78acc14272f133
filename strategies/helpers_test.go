package strategies

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// draws is the sample size of the statistical tests.
const draws = 20000

// zTol is how many standard errors a sample statistic may stray from its
// analytic value. The seeds are fixed, so every test is deterministic; 5 SE
// keeps a correct implementation far from the edge while a wrong formula
// (a factor of 2, a missing term, jitter applied twice) misses by much more.
const zTol = 5

func newRNG(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

func secs(d time.Duration) float64 { return d.Seconds() }

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// sampleNext calls st.Next n times, each time on a fresh copy of s0, and
// returns the delays. It fails the test on a negative delay.
func sampleNext(t *testing.T, st Strategy, s0 State, now time.Duration, n int, rng *rand.Rand) []time.Duration {
	t.Helper()
	out := make([]time.Duration, n)
	for i := range out {
		s := s0
		d := st.Next(&s, now, rng)
		if d < 0 {
			t.Fatalf("Next(%+v) = %v, want >= 0", s0, d)
		}
		out[i] = d
	}
	return out
}

// chains runs n independent requests whose every attempt fails the moment it
// starts, for up to k retries each, and returns delays[r][i]: the delay before
// retry r+1 of request i (shorter rows when the policy gave up).
func chains(t *testing.T, p *Policy, think time.Duration, k, n int, rng *rand.Rand) [][]time.Duration {
	t.Helper()
	out := make([][]time.Duration, k)
	for range n {
		var s State
		p.Begin(&s, 0, think)
		for r := range k {
			d, ok := p.Retry(&s, s.AttemptStart, rng)
			if !ok {
				break
			}
			if d < 0 {
				t.Fatalf("retry %d: delay %v < 0", r+1, d)
			}
			out[r] = append(out[r], d)
		}
	}
	return out
}

// sortedSecs returns ds in seconds, sorted (for several quantile checks).
func sortedSecs(ds []time.Duration) []float64 {
	xs := toSecs(ds)
	slices.Sort(xs)
	return xs
}

func toSecs(ds []time.Duration) []float64 {
	xs := make([]float64, len(ds))
	for i, d := range ds {
		xs[i] = secs(d)
	}
	return xs
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func stddev(xs []float64) float64 {
	m := mean(xs)
	var s float64
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(xs)-1))
}

func quantileOf(xs []float64, q float64) float64 {
	if slices.IsSorted(xs) {
		return Quantile(xs, q)
	}
	ys := slices.Clone(xs)
	slices.Sort(ys)
	return Quantile(ys, q)
}

func fraction(xs []float64, pred func(float64) bool) float64 {
	n := 0
	for _, x := range xs {
		if pred(x) {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

// checkMean checks the sample mean of xs against want, for a distribution
// whose standard deviation is sd.
func checkMean(t *testing.T, what string, xs []float64, want, sd float64) {
	t.Helper()
	got := mean(xs)
	tol := zTol*sd/math.Sqrt(float64(len(xs))) + 1e-9
	if math.Abs(got-want) > tol {
		t.Errorf("%s: mean = %.6g, want %.6g ± %.3g", what, got, want, tol)
	}
}

// checkSD checks the sample standard deviation of xs against want, for a
// distribution with the given kurtosis (3 normal, 1.8 uniform).
func checkSD(t *testing.T, what string, xs []float64, want, kurtosis float64) {
	t.Helper()
	got := stddev(xs)
	tol := zTol*want*math.Sqrt((kurtosis-1)/(4*float64(len(xs)))) + 1e-9
	if math.Abs(got-want) > tol {
		t.Errorf("%s: sd = %.6g, want %.6g ± %.3g", what, got, want, tol)
	}
}

// checkQuantile checks the sample q-quantile of xs against want, where the
// density of the distribution at want is density.
func checkQuantile(t *testing.T, what string, xs []float64, q, want, density float64) {
	t.Helper()
	got := quantileOf(xs, q)
	tol := zTol*math.Sqrt(q*(1-q)/float64(len(xs)))/density + 1e-9
	if math.Abs(got-want) > tol {
		t.Errorf("%s: q%.2f = %.6g, want %.6g ± %.3g", what, q, got, want, tol)
	}
}

// checkFraction checks a sample proportion against p.
func checkFraction(t *testing.T, what string, got, p float64, n int) {
	t.Helper()
	tol := zTol*math.Sqrt(p*(1-p)/float64(n)) + 1e-9
	if math.Abs(got-p) > tol {
		t.Errorf("%s: fraction = %.4f, want %.4f ± %.3g", what, got, p, tol)
	}
}

// checkBounds checks lo <= d < hi (or d <= hi when hiIncl) for every delay.
func checkBounds(t *testing.T, what string, ds []time.Duration, lo, hi time.Duration, hiIncl bool) {
	t.Helper()
	for i, d := range ds {
		if d < lo || d > hi || (!hiIncl && d == hi) {
			r := ")"
			if hiIncl {
				r = "]"
			}
			t.Fatalf("%s: draw %d = %v, outside [%v, %v%s", what, i, d, lo, hi, r)
		}
	}
}

// ceiling returns min(cap, base*2^n), computed by doubling so that it cannot
// overflow; it is the test's own reference for t in the AWS formulas.
func ceiling(base, cap time.Duration, n int) time.Duration {
	t := base
	for i := 0; i < n && t < cap; i++ {
		t *= 2
	}
	return min(t, cap)
}

func mustPolicy(t *testing.T, p Params) *Policy {
	t.Helper()
	pol, err := New(p)
	if err != nil {
		t.Fatalf("New(%+v): %v", p, err)
	}
	return pol
}

func mustDefaults(t *testing.T, name string) Params {
	t.Helper()
	p, ok := Defaults(name)
	if !ok {
		t.Fatalf("Defaults(%q): unknown", name)
	}
	return p
}
