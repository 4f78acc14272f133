package strategies

import (
	"fmt"
	"math"
	"testing"
	"time"
)

var retryNs = []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 20, 63, 1000}

func TestNoneAlwaysStops(t *testing.T) {
	rng := newRNG(1)
	for _, s0 := range []State{{}, {Retries: 5, Prev: time.Second}, {Retries: 1000}} {
		s := s0
		if d := (None{}).Next(&s, 3*time.Second, rng); d != Stop {
			t.Errorf("None.Next(%+v) = %v, want Stop", s0, d)
		}
	}
}

func TestFixedAlwaysDelay(t *testing.T) {
	rng := newRNG(2)
	for _, delay := range []time.Duration{0, time.Millisecond, 100 * time.Millisecond, time.Hour} {
		t.Run(delay.String(), func(t *testing.T) {
			f := Fixed{Delay: delay}
			for _, n := range retryNs {
				s := State{Retries: int32(n), Prev: 7 * time.Second}
				if d := f.Next(&s, time.Minute, rng); d != delay {
					t.Errorf("n=%d: Next = %v, want %v", n, d, delay)
				}
			}
		})
	}
}

// TestJitterUniform: full jitter draws uniformly from [0, ceiling], equal
// jitter from [ceiling/2, ceiling], the ceiling being min(cap, base·2^n).
func TestJitterUniform(t *testing.T) {
	cases := []struct {
		name      string
		base, cap time.Duration
	}{
		{"defaults", 100 * time.Millisecond, time.Minute},
		{"aws_10ms_1s", 10 * time.Millisecond, time.Second},
		{"base_eq_cap", time.Second, time.Second},
	}
	for _, j := range []struct {
		name string
		make func(base, cap time.Duration) Strategy
		seed uint64
		half bool // the draws' lower end is half the ceiling, not 0
	}{
		{"full_jitter", func(base, cap time.Duration) Strategy { return FullJitter{Base: base, Cap: cap} }, 100, false},
		{"equal_jitter", func(base, cap time.Duration) Strategy { return EqualJitter{Base: base, Cap: cap} }, 200, true},
	} {
		for ci, c := range cases {
			t.Run(j.name+"/"+c.name, func(t *testing.T) {
				st := j.make(c.base, c.cap)
				rng := newRNG(j.seed + uint64(ci))
				for _, n := range retryNs {
					t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
						top := ceiling(c.base, c.cap, n)
						low := time.Duration(0)
						if j.half {
							low = top / 2
						}
						ds := sampleNext(t, st, State{Retries: int32(n)}, 0, draws, rng)
						checkBounds(t, j.name, ds, low, top, false)
						xs := sortedSecs(ds)
						tt := secs(top)
						width := tt
						if j.half {
							width = tt / 2
						}
						lo, sd := tt-width, width/math.Sqrt(12)
						checkMean(t, j.name, xs, lo+width/2, sd)
						checkSD(t, j.name, xs, sd, 1.8)
						for _, q := range []float64{0.1, 0.5, 0.9} {
							checkQuantile(t, j.name, xs, q, lo+q*width, 1/width)
						}
					})
				}
			})
		}
	}
}

func TestTruncated(t *testing.T) {
	cases := []struct {
		name      string
		base, cap time.Duration
	}{
		{"gcs_32s", time.Second, 32 * time.Second},
		{"gcs_64s", time.Second, 64 * time.Second},
		{"cap_inside_jitter", time.Second, 16500 * time.Millisecond},
		{"base_250ms", 250 * time.Millisecond, 10 * time.Second},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := Truncated{Base: c.base, Cap: c.cap}
			rng := newRNG(uint64(300 + ci))
			for _, n := range retryNs {
				t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
					raw := secs(c.base) * math.Ldexp(1, n) // base*2^n, unbounded
					capS := secs(c.cap)
					ds := sampleNext(t, st, State{Retries: int32(n)}, 0, draws, rng)
					xs := toSecs(ds)
					lo := min(raw, capS)
					for i, x := range xs {
						if x < lo-1e-9 || ds[i] > c.cap || x >= raw+1 {
							t.Fatalf("draw %d = %v, want in [min(%gs, cap), min(%gs+1s, cap)), cap %v", i, ds[i], raw, raw, c.cap)
						}
					}
					switch {
					case raw >= capS:
						for i, d := range ds {
							if d != c.cap {
								t.Fatalf("draw %d = %v, want exactly cap %v", i, d, c.cap)
							}
						}
					case raw+1 <= capS:
						// base*2^n + U[0, 1 s): uniform over one second.
						sd := 1 / math.Sqrt(12)
						checkMean(t, "truncated", xs, raw+0.5, sd)
						checkSD(t, "truncated", xs, sd, 1.8)
						checkQuantile(t, "truncated", xs, 0.5, raw+0.5, 1)
					default:
						// The cap falls inside the jitter: P(d == cap) = raw+1-cap.
						atCap := fraction(xs, func(x float64) bool { return x == capS })
						checkFraction(t, "truncated at cap", atCap, raw+1-capS, len(xs))
					}
				})
			}
		})
	}
}

func TestTruncatedKeepsReturningCap(t *testing.T) {
	pol := mustPolicy(t, mustDefaults(t, NameTruncated)) // 1 s, 32 s, no limit
	const retries = 300
	rows := chains(t, pol, 0, retries, 50, newRNG(7))
	for r, ds := range rows {
		if len(ds) != 50 {
			t.Fatalf("retry %d: %d of 50 requests got there, want all (no limit)", r+1, len(ds))
		}
		for _, d := range ds {
			// Retries 1..5 wait 2^(r) s + U[0,1s) < 32 s; from the 6th on, 32 s.
			if r < 5 && (d < time.Second<<r || d >= time.Second<<r+time.Second) {
				t.Fatalf("retry %d: %v, want in [%v, %v)", r+1, d, time.Second<<r, time.Second<<r+time.Second)
			}
			if r >= 5 && d != 32*time.Second {
				t.Fatalf("retry %d: %v, want the cap 32s", r+1, d)
			}
		}
	}
}

// expectTruncatedMin is E[min(c, U(a, b))] for a < c < b.
func expectTruncatedMin(a, b, c float64) float64 {
	if c >= b {
		return (a + b) / 2
	}
	return ((c*c-a*a)/2 + c*(b-c)) / (b - a)
}

func TestDecorrelatedGivenPrevious(t *testing.T) {
	base, capD := 100*time.Millisecond, time.Minute
	st := Decorrelated{Base: base, Cap: capD}
	cases := []struct {
		name string
		s0   State
		prev time.Duration // the s_prev the formula must use
	}{
		{"first_retry_starts_at_base", State{Retries: 0}, base},
		{"first_retry_ignores_stale_prev", State{Retries: 0, Prev: time.Hour}, base},
		{"prev_base", State{Retries: 1, Prev: base}, base},
		{"prev_1s", State{Retries: 3, Prev: time.Second}, time.Second},
		{"prev_10s", State{Retries: 6, Prev: 10 * time.Second}, 10 * time.Second},
		{"prev_30s_hits_cap", State{Retries: 8, Prev: 30 * time.Second}, 30 * time.Second},
		{"prev_cap", State{Retries: 20, Prev: capD}, capD},
	}
	rng := newRNG(400)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hi := 3 * c.prev
			ds := make([]time.Duration, draws)
			for i := range ds {
				s := c.s0
				ds[i] = st.Next(&s, 0, rng)
				if s.Prev != ds[i] {
					t.Fatalf("s.Prev = %v after returning %v; the memory must be the delay", s.Prev, ds[i])
				}
			}
			if hi <= capD {
				checkBounds(t, "decorrelated", ds, base, hi, false)
			} else {
				checkBounds(t, "decorrelated", ds, base, capD, true)
			}
			xs := toSecs(ds)
			a, b, cp := secs(base), secs(hi), secs(capD)
			want := expectTruncatedMin(a, b, cp)
			checkMean(t, "decorrelated", xs, want, (b-a)/math.Sqrt(12))
			if hi > capD {
				atCap := fraction(xs, func(x float64) bool { return x == cp })
				checkFraction(t, "decorrelated at cap", atCap, (b-cp)/(b-a), len(xs))
			} else {
				checkQuantile(t, "decorrelated", xs, 0.5, (a+b)/2, 1/(b-a))
			}
		})
	}
}

func TestDecorrelatedChain(t *testing.T) {
	p := mustDefaults(t, NameDecorrelated) // 100 ms, 1 min
	pol := mustPolicy(t, p)
	rng := newRNG(401)
	reachedCap := false
	for range 200 {
		var s State
		pol.Begin(&s, 0, 0)
		prev := p.MinDelay
		for r := range 60 {
			d, ok := pol.Retry(&s, s.AttemptStart, rng)
			if !ok {
				t.Fatalf("retry %d: gave up with no limit set", r+1)
			}
			if d < p.MinDelay || d > min(p.MaxDelay, 3*prev) {
				t.Fatalf("retry %d: %v, want in [%v, min(%v, 3×%v)]", r+1, d, p.MinDelay, p.MaxDelay, prev)
			}
			reachedCap = reachedCap || d == p.MaxDelay
			prev = d
		}
	}
	if !reachedCap {
		t.Error("no chain of 60 retries ever reached the cap")
	}
}
