package strategies

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// These tests hold think_scaled to 001's published client program
// (client.go of github.com/smira/exponential-backoff), whose failure branch
// is, in int64 nanoseconds:
//
//	delay = Duration(float64(lastDelay) * 2.71828)
//	if delay > 5 min { delay = 5 min }
//	delay += Duration(NormFloat64() * 0.1 * float64(time.Second))
//	lastDelay = delay; <-time.After(delay)
//
// The expected values below were worked out from those lines by hand (a
// float64 product truncated toward zero, int64 sums), not by the code under
// test.

// programFactor is the program's expFactor, 2.71828: the hand-worked values
// below use it rather than the default math.E.
const programFactor = 2.71828

// w0 is the width of the first strip of math/rand/v2's ziggurat (its wn[0],
// a float32): NormFloat64 returns int32(u) × w0 for a Uint64 u whose bits
// 32–38 are zero and whose |int32(u)| is below 0x76ad2212.
var w0 = float64(float32(1.7290405e-09))

// knownDraws is a rand.Source whose NormFloat64 draws are known: it returns
// each j as a Uint64 that takes the ziggurat's fast path above, so the
// draw is j × w0.
type knownDraws struct {
	t  *testing.T
	js []int32
}

func (k *knownDraws) Uint64() uint64 {
	if len(k.js) == 0 {
		k.t.Fatal("knownDraws: more draws than the test gave")
	}
	j := k.js[0]
	k.js = k.js[1:]
	return uint64(uint32(j))
}

// The draws of knownDraws that make think_scaled's jitter (0.1 × 1 s ×
// the draw, toward zero) exactly ±100 ms and +50 ms: j × w0 × 0.1 × 1e9
// is 100000000.12, −100000000.98 and 50000000.06 ns.
const (
	plus1  int32 = 578355464  // a draw of +1.0000000012
	minus1 int32 = -578355469 // a draw of −1.0000000098
	plusH  int32 = 289177732  // a draw of +0.5000000006
)

// drawsOf returns a *rand.Rand whose NormFloat64 draws are js × w0, in
// order. It checks the first draw, so that a change of math/rand/v2's
// ziggurat fails here rather than in the values that depend on it.
func drawsOf(t *testing.T, js ...int32) *rand.Rand {
	t.Helper()
	if len(js) > 0 {
		if z, want := rand.New(&knownDraws{t, js[:1]}).NormFloat64(), float64(js[0])*w0; z != want {
			t.Fatalf("NormFloat64 of the known draw %d = %v, want %v: math/rand/v2's ziggurat changed", js[0], z, want)
		}
	}
	return rand.New(&knownDraws{t, append([]int32(nil), js...)})
}

// TestAmd64Duration: out of int64's range on either side, and NaN, the
// conversion gives math.MinInt64, as CVTTSD2SQ does; within it, it
// truncates toward zero. On amd64 it is checked against Go's own
// conversion too.
func TestAmd64Duration(t *testing.T) {
	below := math.Nextafter(1<<63, 0) // the largest float64 below 2^63
	cases := []struct {
		name string
		ns   float64
		want time.Duration
	}{
		{"zero", 0, 0},
		{"positive_truncates", 1.9, 1},
		{"negative_truncates_toward_zero", -1.9, -1},
		{"largest_below_2^63", below, 9223372036854774784},
		{"exactly_-2^63", -(1 << 63), math.MinInt64},
		{"exactly_2^63", 1 << 63, math.MinInt64},
		{"below_-2^63", -1e19, math.MinInt64},
		{"above_2^63", 1e19, math.MinInt64},
		{"-Inf", math.Inf(-1), math.MinInt64},
		{"+Inf", math.Inf(1), math.MinInt64},
		{"NaN", math.NaN(), math.MinInt64},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := amd64Duration(c.ns); got != c.want {
				t.Errorf("amd64Duration(%v) = %d, want %d", c.ns, got, c.want)
			}
			if runtime.GOARCH == "amd64" {
				if native := time.Duration(c.ns); native != c.want {
					t.Errorf("Go on amd64 converts %v to %d, want %d", c.ns, native, c.want)
				}
			}
		})
	}
}

// TestThinkScaledProgramSteps: retry by retry, the signed delay kept in
// s.Prev and the wait returned are the program's, with known draws.
func TestThinkScaledProgramSteps(t *testing.T) {
	type step struct{ prev, wait time.Duration }
	wrapped := time.Duration(9223372036754775808) // math.MinInt64 − 100 ms, wrapped: 292.28 years
	cases := []struct {
		name   string
		jitter float64
		prev   time.Duration // s.Prev before the first retry
		draws  []int32
		want   []step
	}{
		{
			// −271828000 + 100000000; then −467076615.84 → −467076615,
			// − 100000000; then −1541473021.x → −1541473021, + 100000000.
			name: "negative_stays_negative_and_waits_0", jitter: 0.1, prev: -100 * time.Millisecond,
			draws: []int32{plus1, minus1, plus1},
			want:  []step{{-171828000, 0}, {-567076615, 0}, {-1441473021, 0}},
		},
		{
			// A small negative delay may come back: −27182800 + 100000000.
			name: "small_negative_comes_back", jitter: 0.1, prev: -10 * time.Millisecond,
			draws: []int32{plus1},
			want:  []step{{72817200, 72817200}},
		},
		{
			// 200 s × 2.71828 = 543.656 s, capped to 300 s before the
			// draw, which then takes it past the cap; next, 300.1 s ×
			// 2.71828 is capped again and the draw is −100 ms.
			name: "cap_before_the_jitter", jitter: 0.1, prev: 200 * time.Second,
			draws: []int32{plus1, minus1},
			want:  []step{{300100 * time.Millisecond, 300100 * time.Millisecond}, {299900 * time.Millisecond, 299900 * time.Millisecond}},
		},
		{
			// −7200368836609997824 × 2.71828 ≈ −1.957e19 is below
			// math.MinInt64: amd64 gives math.MinInt64, and −100 ms wraps
			// the sum to math.MaxInt64 + 1 − 100000000. Next, that ×
			// 2.71828 is above math.MaxInt64: math.MinInt64 again, not
			// above the cap, + 100 ms.
			name: "overflow_then_a_negative_draw_wraps", jitter: 0.1, prev: -7200368836609997824,
			draws: []int32{minus1, plus1},
			want:  []step{{wrapped, wrapped}, {math.MinInt64 + 100_000_000, 0}},
		},
		{
			name: "overflow_then_positive_draws_stay_negative", jitter: 0.1, prev: -7200368836609997824,
			draws: []int32{plus1, plusH, minus1},
			want: []step{
				{math.MinInt64 + 100_000_000, 0},
				{math.MinInt64 + 50_000_000, 0},
				{wrapped, wrapped},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := ThinkScaled{Cap: 5 * time.Minute, Factor: programFactor, Jitter: c.jitter}
			rng := drawsOf(t, c.draws...)
			s := State{Prev: c.prev}
			for i, w := range c.want {
				got := ts.Next(&s, 0, rng)
				if s.Prev != w.prev || got != w.wait {
					t.Fatalf("retry %d: delay %d, wait %d; want delay %d, wait %d", i+1, s.Prev, got, w.prev, w.wait)
				}
			}
		})
	}
}

// TestThinkScaledSpiralCompounds: without jitter a delay of −100 ms grows
// ×2.71828 in the negative at every retry, waiting 0 each time, until the
// 26th retry's product (−1.957e19) leaves int64's range and gives
// math.MinInt64, which it keeps (math.MinInt64 + 0).
func TestThinkScaledSpiralCompounds(t *testing.T) {
	want := []time.Duration{
		-271828000, -738904615, -2008549636, -5459800304, -14841265970,
		-40342716460, -109662799298, -298094194075, -810303485870, -2202631759570,
		-5987369859403, -16275347741417, -44240952258539, -120259295705341, -326898438329914,
		-888601486943438, -2415467649928608, -6565917403447937, -17848001959444458, -48515866766318680,
		-131879710313548736, -358485978951113280, -974465266863232256, -2648869445608987136, -7200368836609997824,
		math.MinInt64, math.MinInt64,
	}
	ts := ThinkScaled{Cap: 5 * time.Minute, Factor: programFactor}
	s := State{Prev: -100 * time.Millisecond}
	rng := drawsOf(t, make([]int32, len(want))...) // draws of 0
	for i, w := range want {
		prev := s.Prev
		got := ts.Next(&s, 0, rng)
		if s.Prev != w || got != 0 {
			t.Fatalf("retry %d: delay %d, wait %d; want delay %d, wait 0", i+1, s.Prev, got, w)
		}
		if w != math.MinInt64 {
			if r := float64(s.Prev) / float64(prev); math.Abs(r-programFactor) > 1e-8 {
				t.Fatalf("retry %d: ratio %v, want %v", i+1, r, programFactor)
			}
		}
	}
}

// TestThinkScaledBeginResets: a success ends the spiral, as the program's
// did. The next request's Begin puts its think time in Prev (the program
// set lastDelay to the think time it waited), so its first retry scales
// that: 2 s × 2.71828 + 50 ms.
func TestThinkScaledBeginResets(t *testing.T) {
	pol := NewPolicy(ThinkScaled{Cap: 5 * time.Minute, Factor: programFactor, Jitter: 0.1})
	rng := drawsOf(t, plus1, plusH)
	var s State
	pol.Begin(&s, 0, 0)
	s.Prev = -100 * time.Millisecond // in the spiral
	if d, ok := pol.Retry(&s, time.Second, rng); !ok || d != 0 || s.Prev != -171828000 {
		t.Fatalf("in the spiral: wait %v, %v, delay %d; want 0, true, -171828000", d, ok, s.Prev)
	}
	pol.Begin(&s, 3*time.Second, 2*time.Second)
	if s.Prev != 2*time.Second {
		t.Fatalf("after Begin: delay %v, want the think time 2s", s.Prev)
	}
	if d, ok := pol.Retry(&s, 4*time.Second, rng); !ok || d != 5486560000 {
		t.Fatalf("first retry of the next request: %v, %v; want 5.48656s, true", d, ok)
	}
}

// TestThinkScaledWrappedWait: Policy.Retry ends a wrapped wait at
// math.MaxInt64 at the latest, so the attempt's start does not overflow,
// and a deadline refuses it as it refuses any wait past it.
func TestThinkScaledWrappedWait(t *testing.T) {
	ts := ThinkScaled{Cap: 5 * time.Minute, Factor: programFactor, Jitter: 0.1}
	cases := []struct {
		name   string
		limits []Limiter
		now    time.Duration
		wait   time.Duration
		ok     bool
	}{
		{"at_0_the_whole_wait", nil, 0, 9223372036754775808, true},
		{"at_50s_cut_to_end_at_MaxInt64", nil, 50 * time.Second, math.MaxInt64 - 50*time.Second, true},
		{"past_a_deadline", []Limiter{&DeadlineLimiter{D: time.Hour}}, 50 * time.Second, 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pol := NewPolicy(ts, c.limits...)
			var s State
			pol.Begin(&s, c.now, time.Second)
			s.Prev = -7200368836609997824 // the spiral's last delay before it leaves int64's range
			d, ok := pol.Retry(&s, c.now, drawsOf(t, minus1))
			if d != c.wait || ok != c.ok {
				t.Fatalf("Retry = %d, %v; want %d, %v", d, ok, c.wait, c.ok)
			}
			if ok && s.AttemptStart != c.now+c.wait {
				t.Errorf("AttemptStart %d, want %d", s.AttemptStart, c.now+c.wait)
			}
		})
	}
}

// spiralOdds returns P(a·T + s·Z < 0) for T exponential with mean mu and Z
// standard normal, a, s, mu > 0:
//
//	E[Φ(−aT/s)] = ∫ λe^(−λt) Φ(−at/s) dt = 1/2 − e^(β²/2) Φ(−β), β = λs/a,
//
// integrating by parts and completing the square, with λ = 1/mu.
func spiralOdds(a, s, mu float64) float64 {
	b := s / (a * mu)
	return 0.5 - math.Exp(b*b/2)*0.5*math.Erfc(b/math.Sqrt2)
}

// TestThinkScaledSpiralOdds: over many requests whose every attempt fails,
// the share whose first retry's delay is negative, and the share that
// spirals (whose delay ends up growing in the negative), are what follows
// from the formula, for 001's clients: think times exponential with mean
// μ = 10 s, factor e, jitter 0.1 (σ = 0.1 s).
//
// The first retry's delay is e·T + σZ₁: negative with p₁ = spiralOdds(e,
// σ, μ) ≈ 0.001464. Each later one is d' = e·d + σZ, so the n-th is
// e^(n−1)·(e·T + σ(Z₁ + Z₂/e + Z₃/e² + …)), and its sign settles to that of
// e·T + σ·W with W = Z₁ + Σ Z_k e^(1−k), normal with variance 1 + 1/(e²−1)
// = e²/(e²−1): the request spirals with p = spiralOdds(e, σe/√(e²−1), μ)
// ≈ 0.001574. (The cap, 3000σ up, never brings a delay back below 0.)
// Some first delays below 0 come back (see small_negative_comes_back), and
// some above 0 go down later; together they add 7.5 % to p₁.
//
// A request's sign is settled once |d| ≥ 1 s: what is still to come adds
// a normal with sd σ/√(e²−1) = 0.04 s, scaled by the same growth as d, so
// the test stops there. And only think times below 1 s can go below 0
// (from e·1 s = 27σ the odds are below 1e-100), so the test draws T from
// the exponential given T < 1 s, where every request that can spiral
// lies: the shares are p₁ and p divided by P(T < 1 s) = 1 − e^(−0.1),
// about 1.5 % and 1.7 %, and a sample of 10⁶ tells them apart by 10
// standard errors where one of all requests would need 10⁸.
func TestThinkScaledSpiralOdds(t *testing.T) {
	const n = 1_000_000
	mu, sigma, tMax := 10.0, 0.1, 1.0 // seconds
	p := mustDefaults(t, NameThinkScaled)
	if p.Factor != math.E || p.Jitter != sigma {
		t.Fatalf("defaults %+v: want factor e and jitter 0.1", p)
	}
	pol := mustPolicy(t, p)
	rng := newRNG(660)
	below := -math.Expm1(-tMax / mu) // P(T < tMax)
	firstNeg, spirals := 0, 0
	for range n {
		think := -mu * math.Log1p(-rng.Float64()*below) // T given T < tMax, by its inverse CDF
		var s State
		pol.Begin(&s, 0, time.Duration(think*float64(time.Second)))
		for r := 0; ; r++ {
			if _, ok := pol.Retry(&s, s.AttemptStart, rng); !ok {
				t.Fatal("gave up with no limit")
			}
			if r == 0 && s.Prev < 0 {
				firstNeg++
			}
			if s.Prev <= -time.Second || s.Prev >= time.Second {
				break
			}
			if r == 100 {
				t.Fatalf("delay %v still within ±1s after 100 retries", s.Prev)
			}
		}
		if s.Prev < 0 {
			spirals++
		}
	}
	e := math.E
	p1 := spiralOdds(e, sigma, mu) / below
	pSpiral := spiralOdds(e, sigma*e/math.Sqrt(e*e-1), mu) / below
	t.Logf("of %d requests with think < 1 s: first retry below 0 %d (%.5f, derived %.5f); spiral %d (%.5f, derived %.5f)",
		n, firstNeg, float64(firstNeg)/n, p1, spirals, float64(spirals)/n, pSpiral)
	checkFraction(t, "first retry below 0", float64(firstNeg)/n, p1, n)
	checkFraction(t, "spirals", float64(spirals)/n, pSpiral, n)
}
