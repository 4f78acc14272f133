// Package strategies holds the retry strategies that backofflab compares: the
// delay a client waits after a failed attempt before it tries again.
//
// A Strategy is a pure function of one request's State, the clock and an
// injected random source, so the same policy objects drive the simulated
// clients of package simengine and real HTTP clients alike. Times are
// time.Durations on the caller's clock: virtual time since the start of a
// simulation, or wall time since a fixed origin.
//
// In the formulas below n is the number of retries made so far in the current
// request (0 before the first retry), base is MinDelay and cap is MaxDelay.
package strategies

import (
	"math"
	"math/rand/v2"
	"time"
)

// Stop is returned by Strategy.Next to say that the request should not be
// retried again.
const Stop time.Duration = -1

// Strategy computes the wait before each retry of a request.
type Strategy interface {
	// Begin prepares s for a new request. The caller has already set
	// s.Think, s.RequestStart and s.AttemptStart and zeroed the rest.
	Begin(s *State)
	// Next is called when the attempt that started at s.AttemptStart fails
	// at now. It returns the wait before the next attempt, or Stop, and
	// updates the strategy's memory in s.
	Next(s *State, now time.Duration, rng *rand.Rand) time.Duration
}

// State is the retry state of one request. The caller owns it; Policy and
// Strategy methods update it.
type State struct {
	// Think is the think time that preceded the request (used by think_scaled).
	Think time.Duration
	// RequestStart is when the request's first attempt started.
	RequestStart time.Duration
	// AttemptStart is when the current attempt started.
	AttemptStart time.Duration
	// Retries is n: the number of retries made so far in this request.
	Retries int
	// Prev is the strategy's memory: its last delay or current backoff.
	Prev time.Duration
	// Until is gRPC's current deadline: the earliest start of the next attempt.
	Until time.Duration
	// Timeout, when positive, is the per-attempt timeout the strategy asks
	// for the current attempt instead of the caller's default.
	Timeout time.Duration
}

// Policy is a Strategy with the limits that make a client give up.
// The zero values of MaxAttempts and Deadline mean no limit.
type Policy struct {
	Strategy Strategy
	// MaxAttempts is the most attempts (first one included) a request makes.
	MaxAttempts int
	// Deadline is the longest a request may last: no attempt starts at or
	// after RequestStart+Deadline.
	Deadline time.Duration
}

// Begin resets s for a request whose first attempt starts at now, after the
// client thought for think.
func (p *Policy) Begin(s *State, now, think time.Duration) {
	*s = State{Think: think, RequestStart: now, AttemptStart: now}
	p.Strategy.Begin(s)
}

// Retry is called when the current attempt fails at now. It returns the wait
// before the next attempt and true, or false when the request gives up. On
// true it advances s to the next attempt, which starts at now plus the wait.
func (p *Policy) Retry(s *State, now time.Duration, rng *rand.Rand) (time.Duration, bool) {
	if p.MaxAttempts > 0 && s.Retries+1 >= p.MaxAttempts {
		return 0, false
	}
	d := p.Strategy.Next(s, now, rng)
	if d < 0 {
		return 0, false
	}
	if p.Deadline > 0 && now+d-s.RequestStart >= p.Deadline {
		return 0, false
	}
	s.Retries++
	s.AttemptStart = now + d
	return d, true
}

// AttemptTimeout returns the timeout of the current attempt: the strategy's
// own when it sets one, otherwise def.
func (s *State) AttemptTimeout(def time.Duration) time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return def
}

// dur converts nanoseconds held in a float64 to a Duration, saturating
// instead of overflowing and mapping NaN and negatives to 0.
func dur(ns float64) time.Duration {
	switch {
	case !(ns > 0):
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// uniform returns a Duration drawn from [lo, hi), or lo when the range is empty.
func uniform(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(rng.Int64N(int64(hi-lo)))
}

// pow2 returns min(cap, base*2^n) without overflowing.
func pow2(base, cap time.Duration, n int) time.Duration {
	if n >= 62 {
		return cap
	}
	return min(cap, dur(float64(base)*math.Ldexp(1, n)))
}
