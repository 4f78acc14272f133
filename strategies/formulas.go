package strategies

import (
	"math"
	"math/rand/v2"
	"time"
)

// None never retries: the request gives up at its first failure.
type None struct{}

// Begin implements Strategy.
func (None) Begin(*State, time.Duration) {}

// Next implements Strategy; it always returns Stop.
func (None) Next(*State, time.Duration, *rand.Rand) time.Duration { return Stop }

// Fixed waits Delay before every retry (001: 100 ms).
type Fixed struct{ Delay time.Duration }

// Begin implements Strategy.
func (Fixed) Begin(*State, time.Duration) {}

// Next implements Strategy.
func (f Fixed) Next(*State, time.Duration, *rand.Rand) time.Duration { return f.Delay }

// Exponential is 001's published pseudocode: the first retry waits Base; each
// later one waits d = min(d*Factor, Cap) + Normal(0, d*Jitter), never below 0,
// where d is the previous wait, jitter included. A wait clamped to 0 would
// stay 0 for good (0*Factor is 0), so the next one starts again from Base.
// 001's text uses Base 100 ms, Factor 2, Jitter 0.1, Cap 15 min.
type Exponential struct {
	Base, Cap      time.Duration
	Factor, Jitter float64
}

// Begin implements Strategy.
func (Exponential) Begin(*State, time.Duration) {}

// Next implements Strategy.
func (e Exponential) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	if s.Retries == 0 || s.Prev <= 0 {
		s.Prev = e.Base
		return e.Base
	}
	d := min(float64(s.Prev)*e.Factor, float64(e.Cap))
	d += rng.NormFloat64() * d * e.Jitter
	s.Prev = dur(d)
	return s.Prev
}

// Truncated is Google Cloud Storage's truncated exponential backoff (002):
// min(Base*2^n + U[0, 1 s), Cap), and then every Cap until the policy's
// limits stop it. 002 uses Base 1 s and Cap 32 s or 64 s.
type Truncated struct {
	Base, Cap time.Duration
}

// Begin implements Strategy.
func (Truncated) Begin(*State, time.Duration) {}

// Next implements Strategy.
func (t Truncated) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	d := pow2(t.Base, t.Cap, int(s.Retries))
	return min(t.Cap, d+uniform(rng, 0, time.Second))
}

// GRPC is gRPC's connection backoff (003). The first attempt's deadline is
// start+Initial; every attempt gets the timeout max(deadline-start,
// MinConnect). After a failure the client sleeps until the deadline (not at
// all if it has passed), so the wait counts from the failed attempt's start;
// then backoff = min(backoff*Factor, Max) and the next deadline is
// start + backoff + U(-Jitter*backoff, +Jitter*backoff).
// 003 uses Initial 1 s, Factor 1.6, Jitter 0.2, Max 120 s, MinConnect 20 s.
// Every new request starts again from Initial (gRPC resets on success).
type GRPC struct {
	Initial, Max   time.Duration
	Factor, Jitter float64
	MinConnect     time.Duration
}

// Begin implements Strategy.
func (g GRPC) Begin(s *State, _ time.Duration) { g.reset(s) }

// reset starts s's backoff afresh: the first attempt's deadline is its
// start plus Initial.
func (g GRPC) reset(s *State) {
	s.Prev = g.Initial
	s.Until = s.AttemptStart + g.Initial
}

// Next implements Strategy.
func (g GRPC) Next(s *State, now time.Duration, rng *rand.Rand) time.Duration {
	if s.Prev <= 0 { // the lane switched to gRPC mid-request
		g.reset(s)
	}
	wait := max(0, s.Until-now)
	start := now + wait
	b := min(float64(s.Prev)*g.Factor, float64(g.Max))
	s.Prev = dur(b)
	j := (rng.Float64()*2 - 1) * g.Jitter * b
	s.Until = start + dur(b+j)
	return wait
}

// AttemptTimeout implements AttemptTimer: max(deadline-start,
// MinConnect). The next attempt starts at the wait Next returns, which
// Policy.Retry makes s.AttemptStart.
func (g GRPC) AttemptTimeout(s *State) time.Duration {
	return max(s.Until-s.AttemptStart, g.MinConnect)
}

// FullJitter is AWS's "full jitter": U(0, min(Cap, Base*2^n)).
type FullJitter struct{ Base, Cap time.Duration }

// Begin implements Strategy.
func (FullJitter) Begin(*State, time.Duration) {}

// Next implements Strategy.
func (f FullJitter) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	return uniform(rng, 0, pow2(f.Base, f.Cap, int(s.Retries)))
}

// EqualJitter is AWS's "equal jitter": with t = min(Cap, Base*2^n), t/2 + U(0, t/2).
type EqualJitter struct{ Base, Cap time.Duration }

// Begin implements Strategy.
func (EqualJitter) Begin(*State, time.Duration) {}

// Next implements Strategy.
func (e EqualJitter) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	t := pow2(e.Base, e.Cap, int(s.Retries))
	return uniform(rng, t/2, t)
}

// Decorrelated is AWS's "decorrelated jitter": s = min(Cap, U(Base, 3*s)),
// where s starts at Base.
type Decorrelated struct{ Base, Cap time.Duration }

// Begin implements Strategy.
func (Decorrelated) Begin(*State, time.Duration) {}

// Next implements Strategy.
func (d Decorrelated) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	prev := s.Prev
	if s.Retries == 0 || prev <= 0 {
		prev = d.Base
	}
	hi := dur(3 * float64(prev))
	s.Prev = min(d.Cap, uniform(rng, d.Base, hi))
	return s.Prev
}

// ThinkScaled is what 001's published client program really did: the first
// retry waits Factor times the client's last think time, each later one
// Factor times the previous delay, capped at Cap, and then
// Normal(0, Jitter * 1 s) is added after the cap, compounding. 001's program
// uses Factor e (2.71828), Jitter 0.1 and Cap 5 min; its MinDelay was never
// used.
//
// The delay is kept signed, as the program kept it, and the wait is the
// delay or 0 when it is negative (the program's time.After fires at once).
// A tiny think time and a negative draw make the delay negative; Factor
// times a negative delay is more negative, so the client spirals: it
// retries with no wait, its delay growing ×Factor in the negative, for as
// long as its request fails.
//
// The arithmetic is the program's, in int64 nanoseconds: Factor times the
// previous delay is converted to a Duration (toward zero), capped, and the
// draw, converted on its own, is added with int64's addition, which wraps.
// After about 25 retries in the spiral the product is below
// math.MinInt64. Go's spec leaves that conversion to the implementation;
// on amd64, where 001 ran, it gives math.MinInt64, and amd64Duration writes
// that result out so that every platform computes the same. A negative draw
// added to math.MinInt64 then wraps to a delay of about 292 years: the
// client never retries again. A positive one leaves the delay hugely
// negative, and the next retry, at once, draws again. Policy.Retry ends a
// wait that long at the end of representable time.
type ThinkScaled struct {
	Cap            time.Duration
	Factor, Jitter float64
}

// Begin implements Strategy: the first retry scales the think time, as the
// program's lastDelay held the think time it had just waited.
func (ThinkScaled) Begin(s *State, think time.Duration) { s.Prev = think }

// Next implements Strategy. s.Prev holds the signed delay, which may be
// negative or, after a wrap, hugely positive.
func (t ThinkScaled) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	d := amd64Duration(float64(s.Prev) * t.Factor)
	if d > t.Cap {
		d = t.Cap
	}
	d += amd64Duration(rng.NormFloat64() * t.Jitter * float64(time.Second))
	s.Prev = d
	return max(0, d)
}

// amd64Duration converts nanoseconds held in a float64 to a Duration as Go
// on amd64 does (its CVTTSD2SQ instruction): toward zero within int64's
// range, and math.MinInt64 for NaN and for every value outside it, on
// either side. Go's spec leaves the conversion of such values to the
// implementation (arm64 saturates instead); ThinkScaled needs amd64's.
func amd64Duration(ns float64) time.Duration {
	if !(ns >= -(1<<63) && ns < 1<<63) {
		return math.MinInt64
	}
	return time.Duration(ns)
}

var (
	_ Strategy     = None{}
	_ Strategy     = Fixed{}
	_ Strategy     = Exponential{}
	_ Strategy     = Truncated{}
	_ AttemptTimer = GRPC{}
	_ Strategy     = FullJitter{}
	_ Strategy     = EqualJitter{}
	_ Strategy     = Decorrelated{}
	_ Strategy     = ThinkScaled{}
)
