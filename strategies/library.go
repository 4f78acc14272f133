package strategies

import (
	"math"
	"math/rand/v2"
	"time"
)

// This file holds the strategies that compute exactly what a real retry
// library computes, each in the library's own arithmetic (its units, its
// truncations, its order of cap and jitter), with its defaults and their
// source in its row of table. n is the retry index, 0 before the first
// retry, as everywhere in this package; each type's comment says how the
// library numbers its attempts.

// Envoy is Envoy's route retry back-off, JitteredExponentialBackOffStrategy
// (envoyproxy/envoy source/common/common/backoff_strategy.cc, nextBackOffMs,
// and backoff_strategy.h, doubling_limit_): in whole milliseconds, retry n
// waits random() % b_n, where b_0 is the base interval and b_{n+1} is 2·b_n
// while b_n < max/2 (integer division), else max. The first retry thus waits
// U{0, …, base−1} ms: 0–24 ms, 0–49 ms, 0–99 ms, 0–199 ms, 0–249 ms with
// Envoy's defaults. (Envoy's documentation still gives the range
// [0, (2^N−1)·base), the code before 2020.) Base and Max are truncated to
// whole milliseconds, as PROTOBUF_GET_MS reads them.
//
// PerTry, when positive, is every attempt's timeout (per_try_timeout);
// otherwise the caller's applies.
type Envoy struct {
	Base, Max time.Duration
	PerTry    time.Duration
}

// Begin implements Strategy.
func (Envoy) Begin(*State, time.Duration) {}

// AttemptTimeout implements AttemptTimer: PerTry, every attempt's.
func (e Envoy) AttemptTimeout(*State) time.Duration { return e.PerTry }

// Next implements Strategy. s.Prev holds b_n in milliseconds.
func (e Envoy) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	baseMs, maxMs := max(1, int64(e.Base/time.Millisecond)), max(1, int64(e.Max/time.Millisecond))
	b := min(int64(s.Prev), max(baseMs, maxMs)) // b never passes max, base if base > max
	if s.Retries == 0 || b <= 0 {
		b = baseMs
	}
	if b < maxMs/2 {
		s.Prev = time.Duration(2 * b)
	} else {
		s.Prev = time.Duration(maxMs)
	}
	return time.Duration(rng.Uint64()%uint64(b)) * time.Millisecond
}

// GRPCMaxAttemptsCap is gRPC's client-side cap on a retry policy's
// maxAttempts: larger values are treated as 5 (gRFC A6, "Values greater
// than 5 are treated as 5").
const GRPCMaxAttemptsCap = 5

// GRPCRetry is gRPC's retry policy (gRFC A6, grpc/proposal
// A6-client-retries.md, "Exponential backoff"; grpc-go stream.go,
// clientStream.shouldRetry): retry n waits
// min(Initial·Factor^n, Max)·(0.8 + 0.4·U[0,1)), truncated to nanoseconds,
// and a request makes at most MaxAttempts attempts, MaxAttempts being the
// policy's maxAttempts capped at GRPCMaxAttemptsCap (New caps it; 0, no
// limit, is the cap too). Older grpc-go releases and A6's first text drew
// U(0, min(Initial·Factor^n, Max)) instead: full jitter. Server pushback
// is not modelled, so n is grpc-go's numRetriesSincePushback.
type GRPCRetry struct {
	Initial, Max time.Duration
	Factor       float64
	MaxAttempts  int
}

// Begin implements Strategy.
func (GRPCRetry) Begin(*State, time.Duration) {}

// Next implements Strategy.
func (g GRPCRetry) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	if int(s.Retries)+1 >= g.MaxAttempts {
		return Stop
	}
	cur := min(float64(g.Initial)*math.Pow(g.Factor, float64(s.Retries)), float64(g.Max))
	cur *= 0.8 + 0.4*rng.Float64()
	return dur(cur)
}

// AWSLegacy is the AWS SDK for Go v2's standard retryer's backoff before
// v1.48.0 (aws-sdk-go-v2 v1.47.8, aws/retry/jitter_backoff.go,
// backoffDelayLegacy, still the formula of NewExponentialJitterBackoff in
// v1.48.0): the retry after the a-th attempt (a = n+1) waits
// U[0,1)·2^a seconds while a ≤ ⌊log2(Max / 1 s)⌋, and exactly Max after,
// with no jitter. Its base is 1 s, fixed. From v1.48.0 the SDK's default
// is the existing full_jitter row (see table).
type AWSLegacy struct{ Max time.Duration }

// Begin implements Strategy.
func (AWSLegacy) Begin(*State, time.Duration) {}

// Next implements Strategy.
func (a AWSLegacy) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	attempt := int(s.Retries) + 1
	if attempt > int(math.Log2(float64(a.Max)/float64(time.Second))) {
		return a.Max
	}
	return dur(rng.Float64() * float64(int64(1)<<attempt) * float64(time.Second))
}

// AWSThrottled is the AWS SDK for Go v2's standard back-off from v1.48.0
// (aws/retry/jitter_backoff.go, backoffDelay2026) with every error answer
// taken for a throttling error, as the lane's aws_adaptive limiter takes it:
// the retry after a throttling error waits U[0,1)·min(1 s·2^n, Max), after
// any other failure (a timeout) U[0,1)·min(Base·2^n, Max), Base being the
// SDK's 50 ms. The SDK's retry middleware sleeps that before the next
// attempt whatever its mode; adaptive mode's own rate limit comes on top.
// Policy.Record tells it how each attempt failed; told nothing, it takes
// every failure for a timeout.
type AWSThrottled struct{ Base, Max time.Duration }

// awsThrottleBase is the SDK's base delay after a throttling error
// (backoffDelay2026: "Throttling errors always use 1s").
const awsThrottleBase = time.Second

// awsThrottledMark is what AWSThrottled keeps in State.Prev after an error
// answer: a throttling error.
const awsThrottledMark time.Duration = 1

// Begin implements Strategy.
func (AWSThrottled) Begin(*State, time.Duration) {}

// Outcome implements OutcomeStrategy: it remembers in s.Prev whether the
// attempt that just failed was a throttling error.
func (AWSThrottled) Outcome(s *State, o Outcome) {
	s.Prev = 0
	if o == Error {
		s.Prev = awsThrottledMark
	}
}

// Next implements Strategy.
func (a AWSThrottled) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	base := a.Base
	if s.Prev == awsThrottledMark {
		base = awsThrottleBase
	}
	return uniform(rng, 0, pow2(base, a.Max, int(s.Retries)))
}

// Cenkalti is cenkalti/backoff v5's ExponentialBackOff (v5.0.3,
// exponential.go, NextBackOff, incrementCurrentInterval,
// getRandomValueFromInterval): with the current interval c, starting at
// Initial, retry n waits c − r·c + U[0,1)·(2·r·c + 1) nanoseconds,
// truncated, r being Randomization (exactly c when r is 0); then c becomes
// Max once c ≥ Max/Multiplier, else c·Multiplier, truncated. Max caps the
// interval, not the randomized wait.
type Cenkalti struct {
	Initial, Max              time.Duration
	Multiplier, Randomization float64
}

// Begin implements Strategy.
func (Cenkalti) Begin(*State, time.Duration) {}

// Next implements Strategy. s.Prev holds the current interval.
func (c Cenkalti) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	cur := s.Prev
	if s.Retries == 0 || cur <= 0 {
		cur = c.Initial
	}
	next := cur
	if c.Randomization != 0 {
		delta := c.Randomization * float64(cur)
		lo, hi := float64(cur)-delta, float64(cur)+delta
		next = dur(lo + rng.Float64()*(hi-lo+1))
	}
	if float64(cur) >= float64(c.Max)/c.Multiplier {
		s.Prev = c.Max
	} else {
		s.Prev = dur(float64(cur) * c.Multiplier)
	}
	return next
}

// Resilience4j is resilience4j's Retry with its IntervalFunction
// (resilience4j v2.4.0, resilience4j-core IntervalFunction.java:
// ofExponentialRandomBackoff, ofExponentialBackoff, of, randomize), in whole
// milliseconds: the interval of the retry after attempt k (k = n+1) is the
// k-th term of x₁ = Initial, x_{i+1} = (long)(x_i·Multiplier); with
// Randomization r > 0 it is randomized to
// (long)max(1, x − r·x + Math.random()·(2·r·x + 1)); then capped at Max,
// after the randomization. Multiplier 1 and r 0 is resilience4j's default
// fixed interval (IntervalFunction.ofDefaults); Multiplier 1 and r > 0 is
// ofRandomized.
type Resilience4j struct {
	Initial, Max              time.Duration
	Multiplier, Randomization float64
}

// Begin implements Strategy.
func (Resilience4j) Begin(*State, time.Duration) {}

// Next implements Strategy. s.Prev holds the interval x in milliseconds
// (a count, not a Duration, so that Java's long arithmetic cannot
// overflow it).
func (r Resilience4j) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	x := int64(s.Prev)
	if s.Retries == 0 || x <= 0 {
		x = int64(r.Initial / time.Millisecond)
	} else {
		x = javaLong(float64(x) * r.Multiplier)
	}
	s.Prev = time.Duration(x)
	wait := x
	if r.Randomization > 0 {
		delta := r.Randomization * float64(x)
		lo, hi := float64(x)-delta, float64(x)+delta
		wait = javaLong(max(1, lo+rng.Float64()*(hi-lo+1)))
	}
	return time.Duration(min(wait, int64(r.Max/time.Millisecond))) * time.Millisecond
}

// javaLong converts a double to a long as Java's (long) cast does: toward
// zero, saturating at the ends of long's range, and 0 for NaN.
func javaLong(f float64) int64 {
	switch {
	case f != f:
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// ClientGo is client-go's wait.Backoff as wait.ExponentialBackoff runs it
// (k8s.io/apimachinery v0.37.2, pkg/util/wait/backoff.go, delay and
// ExponentialBackoff; wait.go, Jitter): with the current duration d,
// starting at Duration, retry n waits d + U[0,1)·Jitter·d (d when Jitter is
// 0), truncated; then d becomes d·Factor, truncated, and when that exceeds
// Cap it becomes Cap and Steps drops to 0, so ExponentialBackoff sleeps
// this wait and returns without another attempt: the row gives up there.
// Steps is the policy's max_attempts.
type ClientGo struct {
	Duration, Cap  time.Duration
	Factor, Jitter float64
}

// Begin implements Strategy.
func (ClientGo) Begin(*State, time.Duration) {}

// Next implements Strategy. s.Prev holds d.
func (c ClientGo) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	d := s.Prev
	if s.Retries == 0 || d <= 0 {
		d = c.Duration
	}
	next := time.Duration(float64(d) * c.Factor)
	if c.Cap > 0 && next > c.Cap {
		return Stop
	}
	s.Prev = next
	if c.Jitter > 0 {
		d += time.Duration(rng.Float64() * c.Jitter * float64(d))
	}
	return d
}

// The backoff types of Polly's retry strategy (its DelayBackoffType).
const (
	PollyConstant    = "constant"
	PollyLinear      = "linear"
	PollyExponential = "exponential"
)

// PollyBackoffTypes lists the values of backoff_type, Polly's default first.
func PollyBackoffTypes() []string { return []string{PollyConstant, PollyLinear, PollyExponential} }

// Polly is Polly v8's retry strategy (App-vNext/Polly 8.7,
// src/Polly.Core/Retry/RetryHelper.cs, GetRetryDelay, ApplyJitter,
// DecorrelatedJitterBackoffV2), whose attempt is n: constant waits Delay,
// linear (n+1)·Delay, exponential 2^n·Delay. With UseJitter, constant and
// linear waits d become d + 0.5·d·U[0,1) − 0.25·d (±25 %), and exponential
// becomes Polly's decorrelated jitter: t = n + U[0,1),
// next = 2^t·tanh(√(4t)), wait (next − prev)/1.4·Delay in 100 ns ticks,
// truncated, prev being the request's previous next (0 at first). Every
// wait is then capped at Max (MaxDelay).
type Polly struct {
	Type      string
	Delay     time.Duration
	Max       time.Duration
	UseJitter bool
}

// Begin implements Strategy.
func (Polly) Begin(*State, time.Duration) {}

// Next implements Strategy. For decorrelated jitter s.Prev holds the bits
// of the float64 prev, which starts at 0 as Begin's zeroed State does.
func (p Polly) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	n := float64(s.Retries)
	var d time.Duration
	switch {
	case p.Type == PollyExponential && p.UseJitter:
		prev := math.Float64frombits(uint64(s.Prev))
		t := n + rng.Float64()
		next := math.Pow(2, t) * math.Tanh(math.Sqrt(4*t))
		s.Prev = time.Duration(math.Float64bits(next))
		ticks := (next - prev) * (1 / 1.4) * float64(p.Delay/100)
		d = dur(math.Trunc(ticks) * 100)
	case p.Type == PollyExponential:
		d = dur(math.Pow(2, n) * float64(p.Delay))
	case p.Type == PollyLinear:
		d = dur((n + 1) * float64(p.Delay))
	default:
		d = p.Delay
	}
	if p.UseJitter && p.Type != PollyExponential {
		// In milliseconds, as RetryHelper.ApplyJitter, back to a TimeSpan
		// of 100 ns ticks.
		ms := float64(d) / float64(time.Millisecond)
		ms += ms*0.5*rng.Float64() - ms*0.5/2
		d = dur(math.Trunc(ms*1e4) * 100)
	}
	return min(d, p.Max)
}

// Tenacity is tenacity's wait_exponential and, when Random,
// wait_random_exponential (jd/tenacity 9.1, tenacity/wait.py): after the
// attempt numbered attempt_number (n+1) fails it waits
// min(Multiplier·ExpBase^(attempt_number−1), Max), so the first retry
// waits Multiplier; wait_random_exponential waits U(0, that) (its min is
// 0). Seconds are Python floats; the wait is truncated to nanoseconds.
type Tenacity struct {
	Multiplier, Max time.Duration
	ExpBase         float64
	Random          bool
}

// Begin implements Strategy.
func (Tenacity) Begin(*State, time.Duration) {}

// Next implements Strategy.
func (t Tenacity) Next(s *State, _ time.Duration, rng *rand.Rand) time.Duration {
	w := min(float64(t.Multiplier)*math.Pow(t.ExpBase, float64(s.Retries)), float64(t.Max))
	if t.Random {
		w *= rng.Float64()
	}
	return dur(w)
}

// Urllib3 is urllib3's Retry (urllib3 2.x, src/urllib3/util/retry.py,
// get_backoff_time): no wait before the first retry ("most errors are
// resolved immediately by a second try"), then BackoffFactor·2^n for retry
// n ≥ 1, capped at Max (backoff_max). Its backoff_jitter, 0 by default,
// is not modelled.
type Urllib3 struct{ BackoffFactor, Max time.Duration }

// Begin implements Strategy.
func (Urllib3) Begin(*State, time.Duration) {}

// Next implements Strategy.
func (u Urllib3) Next(s *State, _ time.Duration, _ *rand.Rand) time.Duration {
	if s.Retries == 0 {
		return 0
	}
	return min(dur(float64(u.BackoffFactor)*math.Ldexp(1, int(s.Retries))), u.Max)
}

var (
	_ AttemptTimer = Envoy{}
	_ Strategy     = GRPCRetry{}
	_ Strategy     = AWSLegacy{}
	_ Strategy     = Cenkalti{}
	_ Strategy     = Resilience4j{}
	_ Strategy     = ClientGo{}
	_ Strategy     = Polly{}
	_ Strategy     = Tenacity{}
	_ Strategy     = Urllib3{}
)
