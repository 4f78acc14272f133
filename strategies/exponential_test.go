package strategies

import (
	"fmt"
	"math"
	"testing"
	"time"
)

type expCase struct {
	name           string
	base, cap      time.Duration
	factor, jitter float64
}

// The parameter sets 001 uses in its text and charts, and a wide jitter.
var expCases = []expCase{
	{"001_text", 100 * time.Millisecond, 15 * time.Minute, 2, 0.1},
	{"001_chart_2.7", 100 * time.Millisecond, 10 * time.Minute, 2.7, 0.1},
	{"001_chart_1.5", time.Second, 5 * time.Minute, 1.5, 0.1},
	{"wide_jitter", 100 * time.Millisecond, time.Minute, 2, 0.3},
}

func (c expCase) strategy() Exponential {
	return Exponential{Base: c.base, Cap: c.cap, Factor: c.factor, Jitter: c.jitter}
}

func (c expCase) policy(t *testing.T) *Policy {
	t.Helper()
	return mustPolicy(t, Params{Strategy: NameExponential, MinDelay: c.base, MaxDelay: c.cap, Factor: c.factor, Jitter: c.jitter})
}

// normalDensityAtMean is the density of Normal(mu, sd) at mu.
func normalDensityAtMean(sd float64) float64 { return 1 / (sd * math.Sqrt(2*math.Pi)) }

func TestExponentialFirstRetryIsBase(t *testing.T) {
	for i, c := range expCases {
		t.Run(c.name, func(t *testing.T) {
			pol := c.policy(t)
			rng := newRNG(uint64(500 + i))
			for range 1000 {
				var s State
				pol.Begin(&s, time.Second, 5*time.Second)
				d, ok := pol.Retry(&s, 2*time.Second, rng)
				if !ok || d != c.base || s.Prev != c.base {
					t.Fatalf("first retry = (%v, %v), Prev %v; want exactly (%v, true)", d, ok, s.Prev, c.base)
				}
			}
		})
	}
}

func TestExponentialSecondRetry(t *testing.T) {
	for i, c := range expCases {
		t.Run(c.name, func(t *testing.T) {
			st := c.strategy()
			rng := newRNG(uint64(510 + i))
			// The state right after the first retry.
			s0 := State{Retries: 1, Prev: c.base, AttemptStart: c.base}
			ds := make([]time.Duration, draws)
			for k := range ds {
				s := s0
				ds[k] = st.Next(&s, c.base, rng)
				if ds[k] < 0 {
					t.Fatalf("delay %v < 0", ds[k])
				}
				if s.Prev != ds[k] {
					t.Fatalf("Prev = %v after returning %v; the next delay must compound on this one", s.Prev, ds[k])
				}
			}
			xs := toSecs(ds)
			centre := min(secs(c.base)*c.factor, secs(c.cap))
			sd := centre * c.jitter
			checkMean(t, "second retry", xs, centre, sd)
			checkSD(t, "second retry", xs, sd, 3)
			checkQuantile(t, "second retry", xs, 0.5, centre, normalDensityAtMean(sd))
		})
	}
}

func TestExponentialCapAppliesBeforeJitter(t *testing.T) {
	for i, c := range expCases {
		capS := secs(c.cap)
		prevs := []time.Duration{c.cap, 10 * c.cap, sec(capS / c.factor * 1.01)}
		for _, prev := range prevs {
			t.Run(fmt.Sprintf("%s/prev=%v", c.name, prev), func(t *testing.T) {
				st := c.strategy()
				rng := newRNG(uint64(520 + i))
				ds := sampleNext(t, st, State{Retries: 40, Prev: prev}, 0, draws, rng)
				xs := toSecs(ds)
				sd := capS * c.jitter
				checkMean(t, "at cap", xs, capS, sd)
				checkSD(t, "at cap", xs, sd, 3)
				// Jitter after the cap: about half the delays exceed it.
				above := fraction(xs, func(x float64) bool { return x > capS })
				checkFraction(t, "above cap", above, 0.5, len(xs))
			})
		}
	}
}

func TestExponentialChainSettlesAtCap(t *testing.T) {
	// A long run of failures: the pre-jitter centre stays at the cap, so the
	// 40th delay has mean ≈ cap and sd ≈ cap×jitter. (Only jitter 0.1: with
	// a wide jitter a delay below cap/factor pulls the next centre under cap.)
	for i, c := range expCases[:3] {
		t.Run(c.name, func(t *testing.T) {
			const n, k = 5000, 40
			rows := chains(t, c.policy(t), 0, k, n, newRNG(uint64(530+i)))
			if len(rows[k-1]) != n {
				t.Fatalf("%d of %d requests reached retry %d with no limit", len(rows[k-1]), n, k)
			}
			xs := toSecs(rows[k-1])
			capS := secs(c.cap)
			checkMean(t, "retry 40", xs, capS, capS*c.jitter)
			checkSD(t, "retry 40", xs, capS*c.jitter, 3)
		})
	}
}

func TestExponentialCompounds(t *testing.T) {
	// With the cap out of reach, d_k = base·f^(k-1)·Π(1+j·Z_i): the k-th delay
	// is the previous one, jitter included, times the factor. Its mean is
	// base·f^(k-1) and its relative sd sqrt((1+j²)^(k-1) − 1); a strategy that
	// restarted from the un-jittered centre would keep the relative sd at j.
	c := expCase{"", 100 * time.Millisecond, 15 * time.Minute, 2, 0.1}
	const k = 8
	rows := chains(t, c.policy(t), 0, k, draws, newRNG(540))
	var z []float64 // standardised residual of each delay given the previous one
	for r := 1; r < k; r++ {
		t.Run(fmt.Sprintf("retry=%d", r+1), func(t *testing.T) {
			centre := secs(c.base) * math.Pow(c.factor, float64(r))
			rel := make([]float64, len(rows[r]))
			for i, d := range rows[r] {
				rel[i] = secs(d) / centre
				prevC := min(secs(rows[r-1][i])*c.factor, secs(c.cap))
				z = append(z, (secs(d)-prevC)/(prevC*c.jitter))
			}
			relSD := math.Sqrt(math.Pow(1+c.jitter*c.jitter, float64(r)) - 1)
			checkMean(t, "d/centre", rel, 1, relSD)
			checkSD(t, "d/centre", rel, relSD, 3.5)
		})
	}
	checkMean(t, "residual z", z, 0, 1)
	checkSD(t, "residual z", z, 1, 3)
}

func TestExponentialMatchesFormula(t *testing.T) {
	// Replay the design's formula with a twin RNG: d0 = base; then
	// d = min(d*factor, cap); d += Normal(0, d*jitter); never < 0.
	// (Jitter 0.1 only: a delay clamped to 0 is a 10-sigma event there.)
	for i, c := range expCases[:3] {
		t.Run(c.name, func(t *testing.T) {
			seed := uint64(550 + i)
			rows := chains(t, c.policy(t), 0, 30, 200, newRNG(seed))
			twin := newRNG(seed)
			for req := range 200 {
				d := float64(c.base)
				for r := range 30 {
					if r > 0 {
						d = min(d*c.factor, float64(c.cap))
						d += twin.NormFloat64() * d * c.jitter
						d = max(d, 0)
						d = float64(time.Duration(d))
					}
					if got := rows[r][req]; got != time.Duration(d) {
						t.Fatalf("request %d retry %d: %v, formula gives %v", req, r+1, got, time.Duration(d))
					}
				}
			}
		})
	}
}

func TestExponentialWithoutJitter(t *testing.T) {
	c := expCase{"", 100 * time.Millisecond, time.Second, 2, 0}
	rows := chains(t, c.policy(t), 0, 8, 3, newRNG(560))
	want := []time.Duration{100, 200, 400, 800, 1000, 1000, 1000, 1000}
	for r, w := range want {
		for _, d := range rows[r] {
			if d != w*time.Millisecond {
				t.Errorf("retry %d: %v, want %v", r+1, d, w*time.Millisecond)
			}
		}
	}
}

func TestExponentialNeverNegative(t *testing.T) {
	// Jitter 3: 1+3Z < 0 with probability Φ(−1/3) ≈ 0.3694; those draws
	// must come out as exactly 0, never negative.
	st := Exponential{Base: 100 * time.Millisecond, Cap: time.Minute, Factor: 2, Jitter: 3}
	ds := sampleNext(t, st, State{Retries: 1, Prev: st.Base}, 0, draws, newRNG(570))
	xs := toSecs(ds)
	zeros := fraction(xs, func(x float64) bool { return x == 0 })
	checkFraction(t, "clamped to 0", zeros, 0.5*math.Erfc(1/3.0/math.Sqrt2), len(xs))
	pol := mustPolicy(t, Params{Strategy: NameExponential, MinDelay: st.Base, MaxDelay: st.Cap, Factor: 2, Jitter: 3})
	chains(t, pol, 0, 50, 500, newRNG(571)) // fails on a negative delay
}

type thinkCase struct {
	name           string
	think, cap     time.Duration
	factor, jitter float64
}

func (c thinkCase) policy(t *testing.T) *Policy {
	t.Helper()
	return mustPolicy(t, Params{Strategy: NameThinkScaled, MaxDelay: c.cap, Factor: c.factor, Jitter: c.jitter})
}

func TestThinkScaledBeginUsesThink(t *testing.T) {
	pol := mustPolicy(t, mustDefaults(t, NameThinkScaled))
	for _, think := range []time.Duration{0, time.Second, 10 * time.Second} {
		s := State{Prev: time.Hour, Retries: 9}
		pol.Begin(&s, 3*time.Second, think)
		if s.Prev != think || s.Retries != 0 {
			t.Errorf("Begin(think=%v): %+v, want Prev = think = %v, Retries 0", think, s, think)
		}
	}
}

func TestThinkScaledFirstRetry(t *testing.T) {
	cases := []thinkCase{
		{"001_program_think_10s", 10 * time.Second, 5 * time.Minute, math.E, 0.1},
		{"factor2_jitter0.5", 2 * time.Second, time.Minute, 2, 0.5},
		{"capped_think_200s", 200 * time.Second, 5 * time.Minute, math.E, 0.1},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pol := c.policy(t)
			rng := newRNG(uint64(600 + i))
			xs := make([]float64, draws)
			for k := range xs {
				var s State
				pol.Begin(&s, 0, c.think)
				d, ok := pol.Retry(&s, time.Second, rng)
				if !ok || d < 0 {
					t.Fatalf("first retry = (%v, %v)", d, ok)
				}
				xs[k] = secs(d)
			}
			centre := min(c.factor*secs(c.think), secs(c.cap))
			sd := c.jitter // jitter × 1 s, absolute
			checkMean(t, "first retry", xs, centre, sd)
			checkSD(t, "first retry", xs, sd, 3)
			checkQuantile(t, "first retry", xs, 0.5, centre, normalDensityAtMean(sd))
		})
	}
}

func TestThinkScaledCompounds(t *testing.T) {
	// d2 = f·d1 + N(0, j) with d1 = f·think + N(0, j): mean f²·think and
	// sd j·sqrt(1+f²) ≈ 0.29 s; without compounding it would be 0.1 s.
	c := thinkCase{"", 10 * time.Second, 5 * time.Minute, math.E, 0.1}
	rows := chains(t, c.policy(t), c.think, 2, draws, newRNG(610))
	d2 := toSecs(rows[1])
	checkMean(t, "second retry", d2, c.factor*c.factor*secs(c.think), c.jitter*math.Sqrt(1+c.factor*c.factor))
	checkSD(t, "second retry", d2, c.jitter*math.Sqrt(1+c.factor*c.factor), 3)
	res := make([]float64, len(d2))
	for i := range d2 {
		res[i] = d2[i] - min(secs(rows[0][i])*c.factor, secs(c.cap))
	}
	checkMean(t, "residual", res, 0, c.jitter)
	checkSD(t, "residual", res, c.jitter, 3)
}

func TestThinkScaledSettlesAtCap(t *testing.T) {
	c := thinkCase{"", 10 * time.Second, 5 * time.Minute, math.E, 0.1}
	const k = 20
	rows := chains(t, c.policy(t), c.think, k, 5000, newRNG(620))
	xs := toSecs(rows[k-1])
	checkMean(t, "retry 20", xs, secs(c.cap), c.jitter)
	checkSD(t, "retry 20", xs, c.jitter, 3)
	above := fraction(xs, func(x float64) bool { return x > secs(c.cap) })
	checkFraction(t, "above cap (jitter after the cap)", above, 0.5, len(xs))
}

func TestThinkScaledMatchesFormula(t *testing.T) {
	c := thinkCase{"", 3 * time.Second, 5 * time.Minute, math.E, 0.1}
	const seed, n, k = 630, 200, 12
	rows := chains(t, c.policy(t), c.think, k, n, newRNG(seed))
	twin := newRNG(seed)
	for req := range n {
		// The program's arithmetic, in int64 nanoseconds: the product and
		// the draw are each truncated toward zero (both within int64's
		// range here), and the wait is the delay or 0.
		d := c.think
		for r := range k {
			d = min(time.Duration(float64(d)*c.factor), c.cap)
			d += time.Duration(twin.NormFloat64() * c.jitter * float64(time.Second))
			if got := rows[r][req]; got != max(d, 0) {
				t.Fatalf("request %d retry %d: %v, formula gives %v", req, r+1, got, max(d, 0))
			}
		}
	}
}

func TestThinkScaledIgnoresMinDelay(t *testing.T) {
	p := mustDefaults(t, NameThinkScaled)
	var got [][][]time.Duration
	for _, md := range []time.Duration{time.Millisecond, time.Hour} {
		p.MinDelay = md
		got = append(got, chains(t, mustPolicy(t, p), 4*time.Second, 10, 50, newRNG(640)))
	}
	for r := range got[0] {
		for i := range got[0][r] {
			if got[0][r][i] != got[1][r][i] {
				t.Fatalf("retry %d request %d: %v with min_delay 1ms, %v with 1h; min_delay must not matter",
					r+1, i, got[0][r][i], got[1][r][i])
			}
		}
	}
}

func TestThinkScaledZeroThink(t *testing.T) {
	// think 0: the first delay is max(0, N(0, 0.1 s)); half the draws are 0.
	pol := mustPolicy(t, mustDefaults(t, NameThinkScaled))
	rows := chains(t, pol, 0, 1, draws, newRNG(650))
	xs := toSecs(rows[0])
	checkFraction(t, "zero delays", fraction(xs, func(x float64) bool { return x == 0 }), 0.5, len(xs))
}
