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
	"reflect"
	"slices"
	"time"
)

// Stop is returned by Strategy.Next to say that the request should not be
// retried again.
const Stop time.Duration = -1

// Strategy computes the wait before each retry of a request.
type Strategy interface {
	// Begin prepares s for a new request, which follows a think time of
	// think (think_scaled's first retry scales it). The caller has
	// already set s.RequestStart and s.AttemptStart and zeroed the rest.
	Begin(s *State, think time.Duration)
	// Next is called when the attempt that started at s.AttemptStart fails
	// at now. It returns the wait before the next attempt, or Stop, and
	// updates the strategy's memory in s.
	Next(s *State, now time.Duration, rng *rand.Rand) time.Duration
}

// AttemptTimer is a Strategy that sets each attempt's timeout itself, as
// gRPC's connection backoff and Envoy's per_try_timeout do. Policy's
// AttemptTimeout asks it; a Strategy that is not one leaves every attempt
// the caller's timeout.
type AttemptTimer interface {
	Strategy
	// AttemptTimeout returns the timeout of the attempt that starts at
	// s.AttemptStart, as Begin or the Next that scheduled it left s, or
	// 0 (or less) for the caller's. It is a pure function of s and the
	// strategy's parameters, so that State need not keep it.
	AttemptTimeout(s *State) time.Duration
}

// OutcomeStrategy is a Strategy whose wait depends on how the attempt
// before it failed, as the AWS SDKs' back-off does after a throttling
// error. A Policy built by NewPolicy tells it of every attempt's outcome
// in Record, before Retry asks its wait.
type OutcomeStrategy interface {
	Strategy
	// Outcome is called when the current attempt ends with outcome o; it
	// may keep what it needs in s.Prev.
	Outcome(s *State, o Outcome)
}

// State is the retry state of one request. The caller owns it, one per
// client; Policy, Strategy and Limiter methods update it.
//
// It holds only what a strategy or a limit must remember between calls,
// in 40 bytes: the engine holds one per client, and its speed follows
// their size. What is a pure function of it or of the caller's own state
// is not in it: the think time that preceded the request is an argument
// of Begin, and an attempt's own timeout is AttemptTimer's to compute.
type State struct {
	// RequestStart is when the request's first attempt started.
	RequestStart time.Duration
	// AttemptStart is when the current attempt started.
	AttemptStart time.Duration
	// Retries is n: the number of retries made so far in this request.
	// It is an int32, and Policy.Retry stops counting at math.MaxInt32,
	// so that Quota fits beside it in one word.
	Retries int32
	// Quota is a retry quota's memory of the request (AWSQuota): after an
	// attempt fails, the tokens its retry would cost; once that retry is
	// allowed, the tokens it took, which come back if it succeeds. A limit
	// keeps in State only what belongs to one request, as an SDK's retry
	// token does; what it learns across requests is its own (see Limiter).
	Quota int32
	// Prev is the strategy's memory: its last delay or current backoff.
	Prev time.Duration
	// Until is gRPC's current deadline: the earliest start of the next
	// attempt. The current attempt's timeout follows from it (GRPC's
	// AttemptTimeout).
	Until time.Duration
}

// Policy is a Strategy with the limits that make a client give up: a list
// of Limits, asked in order. New puts max_attempts' MaxAttemptsLimiter and
// deadline's DeadlineLimiter there, each only when it is set, then the
// stateful limiters whose switches are on.
//
// Its callers tell it of every attempt: Begin and AllowFirst before a
// request's first attempt, Record when any attempt ends, Retry after a
// failed one, and AllowSend when the retry Retry scheduled is due. A Policy with only stateless limits costs them no interface
// call: it asks the leading MaxAttemptsLimiter and DeadlineLimiter directly, and
// Record and AllowFirst have nothing to tell.
//
// The zero Policy with a Strategy has no limits.
type Policy struct {
	// Strategy computes the wait before each retry.
	Strategy Strategy

	limits []Limiter // as given to NewPolicy

	// The limits sorted by the questions they are asked, each in list
	// order. maxAttempts and deadline are a MaxAttemptsLimiter and a
	// DeadlineLimiter that no other limit of their kind of question precedes,
	// asked directly; the built-in limits ignore outcomes, so they are not
	// in record.
	maxAttempts *MaxAttemptsLimiter
	deadline    *DeadlineLimiter
	retry       []Limiter
	send        []SendLimiter
	wait        []WaitLimiter
	first       []FirstLimiter
	record      []Limiter
	outcome     OutcomeStrategy // Strategy, when it is one
}

// NewPolicy returns the Policy of strategy s with the given limits, asked
// in that order.
func NewPolicy(s Strategy, limits ...Limiter) *Policy {
	p := &Policy{Strategy: s, limits: slices.Clone(limits)}
	p.compile()
	return p
}

// compile sorts p.limits by the questions they are asked.
func (p *Policy) compile() {
	p.maxAttempts, p.deadline = nil, nil
	p.retry, p.send, p.wait, p.first, p.record = nil, nil, nil, nil, nil
	p.outcome, _ = p.Strategy.(OutcomeStrategy)
	for _, l := range p.limits {
		switch b := l.(type) {
		case *MaxAttemptsLimiter:
			if p.maxAttempts == nil && len(p.retry) == 0 {
				p.maxAttempts = b
				continue
			}
		case *DeadlineLimiter:
			if p.deadline == nil && len(p.wait) == 0 {
				p.deadline = b // its AllowRetry always allows
				continue
			}
		}
		if s, ok := l.(SendLimiter); ok {
			p.send = append(p.send, s) // its AllowRetry is not asked
		} else {
			p.retry = append(p.retry, l)
		}
		if w, ok := l.(WaitLimiter); ok {
			p.wait = append(p.wait, w)
		}
		if f, ok := l.(FirstLimiter); ok {
			p.first = append(p.first, f)
		}
		switch l.(type) {
		case *MaxAttemptsLimiter, *DeadlineLimiter: // they ignore outcomes
		default:
			p.record = append(p.record, l)
		}
	}
}

// Limits returns a copy of p's limits, in the order p asks them.
func (p *Policy) Limiters() []Limiter { return slices.Clone(p.limits) }

// Keep makes p, a Policy built to replace old, take over old's shared
// state: each SharedLimiter of p whose type and Config equal those of one of
// old's is replaced by old's, state and all. A live change of parameters
// that leaves a limit's own parameters alone then leaves its state alone;
// a changed limit starts afresh. Per-client state lives in the clients'
// States and is not p's to keep. old may be nil.
func (p *Policy) Keep(old *Policy) {
	if old == nil {
		return
	}
	used := make([]bool, len(old.limits))
	kept := false
	for i, l := range p.limits {
		nl, ok := l.(SharedLimiter)
		if !ok {
			continue
		}
		for j, o := range old.limits {
			ol, ok := o.(SharedLimiter)
			if ok && !used[j] && reflect.TypeOf(ol) == reflect.TypeOf(nl) && ol.Config() == nl.Config() {
				p.limits[i], used[j], kept = o, true, true
				break
			}
		}
	}
	if kept {
		p.compile()
	}
}

// Begin resets s for a request whose first attempt starts at now, after the
// client thought for think.
func (p *Policy) Begin(s *State, now, think time.Duration) {
	*s = State{RequestStart: now, AttemptStart: now}
	p.Strategy.Begin(s, think)
}

// AllowFirst reports whether the first attempt of the request that Begin
// just prepared in s may be sent at now: whether every FirstLimiter allows it.
// When it does not, the request ends without an attempt, and the
// ReserveLimits that allowed it get back what they took.
func (p *Policy) AllowFirst(s *State, now time.Duration, rng *rand.Rand) bool {
	return p.allowFirst(s, now, rng) == nil
}

// allowFirst is AllowFirst, which returns the limit that refused the first
// attempt, or nil when every one allowed it.
func (p *Policy) allowFirst(s *State, now time.Duration, rng *rand.Rand) FirstLimiter {
	for i, l := range p.first {
		if !l.AllowFirst(s, now, rng) {
			releaseAll(p.first[:i], s, now, true)
			return l
		}
	}
	return nil
}

// Record tells p's stateful limits that the current attempt ended at now
// with outcome o. Callers call it once for every attempt that ends, before
// Retry for a failed one.
func (p *Policy) Record(s *State, now time.Duration, o Outcome) {
	if p.outcome != nil {
		p.outcome.Outcome(s, o)
	}
	for _, l := range p.record {
		l.Record(s, now, o)
	}
}

// Retry is called when the current attempt fails at now, after Record. It
// returns the wait before the next attempt and true, or false when the
// request gives up. It asks every limit's AllowRetry but a SendLimiter's
// (AllowSend asks those when the retry is due), then draws the
// strategy's wait, then asks every WaitLimiter's AllowWait; on true it
// advances s to the next attempt, which starts at now plus the wait. On
// false the ReserveLimits that allowed the retry get back what they took.
//
// A wait that would end after math.MaxInt64 (think_scaled's delay after its
// int64 addition wrapped, about 292 years) is cut to end there, so that now
// plus the wait never overflows for Retry, its limits or its caller; the
// engine takes math.MaxInt64 as never. now is not negative.
func (p *Policy) Retry(s *State, now time.Duration, rng *rand.Rand) (time.Duration, bool) {
	d, _, ok := p.retryBy(s, now, rng)
	return d, ok
}

// retryBy is Retry, which also returns, when the request gives up, the
// limit that refused the retry, or nil when the strategy itself stopped.
func (p *Policy) retryBy(s *State, now time.Duration, rng *rand.Rand) (time.Duration, Limiter, bool) {
	if p.maxAttempts != nil && !p.maxAttempts.AllowRetry(s, now, rng) {
		return 0, p.maxAttempts, false
	}
	for i, l := range p.retry {
		if !l.AllowRetry(s, now, rng) {
			return 0, l, p.release(s, now, i)
		}
	}
	d := p.Strategy.Next(s, now, rng)
	if d < 0 {
		return 0, nil, p.release(s, now, len(p.retry))
	}
	if now > 0 && d > math.MaxInt64-now {
		d = math.MaxInt64 - now
	}
	at := now + d
	if p.deadline != nil && !p.deadline.AllowWait(s, now, at) {
		return 0, p.deadline, p.release(s, now, len(p.retry))
	}
	for _, l := range p.wait {
		if !l.AllowWait(s, now, at) {
			return 0, l, p.release(s, now, len(p.retry))
		}
	}
	if s.Retries < math.MaxInt32 {
		s.Retries++
	}
	s.AttemptStart = at
	return d, nil, true
}

// AllowSend reports whether the retry that Retry scheduled in s may be sent
// at now, when it is due: whether every SendLimiter allows it. When it does
// not, the request ends unsent, and every ReserveLimiter that allowed the
// retry, at its failure or now, gets back what it took. A Policy without
// SendLimits allows every retry that Retry allowed.
func (p *Policy) AllowSend(s *State, now time.Duration, rng *rand.Rand) bool {
	// Small enough to inline: a Policy without SendLimits, the usual one,
	// costs its callers' retries no call.
	return len(p.send) == 0 || p.allowSend(s, now, rng) == nil
}

// allowSend is AllowSend for a Policy with SendLimits, which returns the
// limit that refused the retry, or nil when every one allowed it.
func (p *Policy) allowSend(s *State, now time.Duration, rng *rand.Rand) SendLimiter {
	for i, l := range p.send {
		if !l.AllowSend(s, now, rng) {
			releaseAll(p.send[:i], s, now, false)
			p.release(s, now, len(p.retry))
			return l
		}
	}
	return nil
}

// releaseAll gives back what the ReserveLimits among limits, which all
// allowed the attempt a later limit now refuses, took for it; first says
// whether it is a request's first attempt.
func releaseAll[L any](limits []L, s *State, now time.Duration, first bool) {
	for _, y := range limits {
		if r, ok := any(y).(ReserveLimiter); ok {
			r.Release(s, now, first)
		}
	}
}

// release gives back what the ReserveLimits among the first n of p.retry,
// which all allowed the retry that Retry or AllowSend now refuses, took for
// it. It returns false, their answer.
func (p *Policy) release(s *State, now time.Duration, n int) bool {
	for _, l := range p.retry[:n] {
		if r, ok := l.(ReserveLimiter); ok {
			r.Release(s, now, false)
		}
	}
	return false
}

// AttemptTimeout returns the timeout of the attempt that Begin or Retry
// prepared in s: the strategy's own when it is an AttemptTimer that sets
// one, otherwise def.
func (p *Policy) AttemptTimeout(s *State, def time.Duration) time.Duration {
	if t, ok := p.Strategy.(AttemptTimer); ok {
		if d := t.AttemptTimeout(s); d > 0 {
			return d
		}
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
