package strategies

import (
	"math/rand/v2"
	"time"
)

// Outcome is how an attempt ended.
type Outcome uint8

// The outcomes of an attempt.
const (
	// Success is an attempt answered in time with success.
	Success Outcome = iota
	// Error is an attempt that failed with an answer: an error status, a
	// refused or reset connection.
	Error
	// Timeout is an attempt the client abandoned at its timeout.
	Timeout
)

// String returns the outcome's name as the vocabulary's columns spell it.
func (o Outcome) String() string {
	switch o {
	case Success:
		return "ok"
	case Error:
		return "errors"
	case Timeout:
		return "timeouts"
	}
	return "outcome(?)"
}

// Limiter is a retry limiter: it decides whether a failed request may retry,
// on top of the strategy that decides when. MaxAttemptsLimiter and
// DeadlineLimiter are the stateless ones; the stateful ones learn from every
// attempt's outcome through Record: gRPC's retry throttling
// (GRPCThrottle), the AWS SDKs' retry quota (AWSQuota), Google SRE's
// client-side adaptive throttling (SREThrottle), Finagle's retry budget
// (RetryBudget) and a circuit breaker (Breaker). New builds them from a
// lane's parameters, each off by default, and any of them combine.
//
// A Limiter's answers are a pure function of its state, the request's State,
// the clock and, where it draws random numbers, the rng it is handed: the
// same calls give the same answers, so a simulation stays reproducible.
//
// Its state is shared: held by the Limiter value itself, it is common to
// every client of its Policy, all the clients of a lane, all the clients
// of a real population; and, as a SharedLimiter, it survives a rebuild of
// its Policy that does not change its parameters (see Policy.Keep). What
// belongs to one request, as an AWS retry token does, it keeps in that
// request's State (State.Quota).
//
// There is no per-client scope, on purpose. The systems these limiters
// come from keep their state in an object that a whole process shares: a
// gRPC channel, an AWS service client, a Finagle client, a client task's
// throttle, a resilience4j breaker per backend; a simulated client is one
// user of such a process. One such user makes one request at a time and
// thinks between them (10 s on average by default), so a limiter of its
// own would see too few outcomes to act: a dozen requests in the SRE
// throttle's two minutes, a breaker's 100 calls never reached within an
// outage, a retry budget whose floor of 10 retries a second never binds.
// And its state would sit beside every client, whose size the engine's
// speed follows: a breaker's window of 100 outcomes alone is more than the
// 72 bytes the engine holds for a client now. Were a per-client limiter
// added, its state belongs beside the engine's clients, allocated only
// when it is on, not in State, whose every byte every run pays.
//
// The engine calls a Limiter from one goroutine; the real client
// (package realexp) calls its Policy's limits from every client's
// goroutine, so a Limiter with shared state must be safe for concurrent use:
// the stateful ones here lock a mutex.
type Limiter interface {
	// AllowRetry reports whether the request whose current attempt failed
	// at now may be retried. Policy.Retry asks the limits in list order,
	// but for SendLimits, before the strategy draws the wait, and stops at
	// the first no: a
	// refused retry costs the strategy no random number and leaves its
	// memory alone. A limit that draws (SREThrottle) draws from rng, the
	// strategy's stream, so that a run stays reproducible.
	AllowRetry(s *State, now time.Duration, rng *rand.Rand) bool
	// Record tells the limit that the request's current attempt ended at
	// now with outcome o. It is told of every attempt that ends, exactly
	// once, before AllowRetry is asked about the same failure; an attempt
	// abandoned because its client left (the client count went down, the
	// run stopped) never ends.
	Record(s *State, now time.Duration, o Outcome)
}

// FirstLimiter is a Limiter that also decides whether a request's first attempt
// may be sent, as a circuit breaker does. A Limiter that is not a FirstLimiter
// lets every first attempt through.
type FirstLimiter interface {
	Limiter
	// AllowFirst reports whether the first attempt of the request that
	// Policy.Begin just prepared in s may be sent at now.
	AllowFirst(s *State, now time.Duration, rng *rand.Rand) bool
}

// SendLimiter is a Limiter that decides whether a retry may be sent when it is
// due, at its attempt's start, rather than when the attempt before it
// failed, one wait earlier. A circuit breaker is one: resilience4j asks a
// CircuitBreaker for permission when the decorated call runs
// (acquirePermission, first thing in its decorate* functions), so a retry
// whose wait began while the breaker was closed is refused if it opened
// during the wait. The limits whose sources decide before the wait are
// not: gRPC's retry throttling (gRFC A6 checks the tokens when the
// attempt fails), the AWS quota (aws-sdk-go-v2's retry middleware takes
// the retry token, then draws and sleeps the delay) and Finagle's budget
// (its RequeueFilter and RetryFilter withdraw, then schedule the retry).
//
// Policy.Retry does not ask a SendLimiter's AllowRetry, which may always say
// yes: Policy.AllowSend asks its AllowSend when the retry is due.
type SendLimiter interface {
	Limiter
	// AllowSend reports whether the retry that Policy.Retry scheduled in
	// s, due at now, may be sent.
	AllowSend(s *State, now time.Duration, rng *rand.Rand) bool
}

// WaitLimiter is a Limiter that also judges when a retry would start, as
// DeadlineLimiter does. Policy.Retry asks AllowWait, in list order, once the
// strategy drew the wait and only when every AllowRetry said yes.
type WaitLimiter interface {
	Limiter
	// AllowWait reports whether the retry may start at at, which is now
	// plus the wait the strategy drew.
	AllowWait(s *State, now, at time.Duration) bool
}

// ReserveLimiter is a Limiter whose yes takes something from its shared state
// for the attempt it allows: a quota's tokens, a budget's balance, a
// half-open breaker's probe. It takes it in the yes itself, under its
// lock, so that the real client's clients, which decide at once, cannot
// spend the same tokens twice; and when a limit asked after it, the
// strategy or a WaitLimiter then refuses the same attempt, Policy gives it
// back by Release, so that an attempt not sent costs nothing and the order
// of the limits does not matter.
type ReserveLimiter interface {
	Limiter
	// Release gives back what the limit's yes for the request in s took:
	// AllowFirst's when first is true, else AllowRetry's or, for a
	// SendLimiter, AllowSend's. now is when the attempt is refused: the
	// failure's time, or for a retry a SendLimiter refused when it was due,
	// that time. It is called at most once per yes, before the request's
	// next attempt is decided.
	Release(s *State, now time.Duration, first bool)
}

// SharedLimiter is a Limiter with shared state that can say which parameters
// made it, so that a Policy rebuilt with the same parameters keeps the old
// limit and its state (Policy.Keep): a live change of another parameter
// does not refill a token bucket or close a breaker.
type SharedLimiter interface {
	Limiter
	// Config returns the limit's parameters as a comparable value (a
	// struct of numbers, say): two limits of the same type whose Configs
	// are equal behave alike from the same state.
	Config() any
}

// MaxAttemptsLimiter stops a request after N attempts, the first one
// included (max_attempts). It has no state.
type MaxAttemptsLimiter struct {
	// N is the most attempts a request makes; it is at least 1.
	N int
}

// AllowRetry implements Limiter: it allows a retry while the request made
// fewer than N attempts.
func (m *MaxAttemptsLimiter) AllowRetry(s *State, _ time.Duration, _ *rand.Rand) bool {
	return int(s.Retries)+1 < m.N
}

// Record implements Limiter; MaxAttemptsLimiter ignores outcomes.
func (*MaxAttemptsLimiter) Record(*State, time.Duration, Outcome) {}

// DeadlineLimiter bounds how long a request lasts (deadline): no attempt
// starts at or after RequestStart+D. It has no state.
type DeadlineLimiter struct {
	// D is the longest a request may last; it is positive.
	D time.Duration
}

// AllowRetry implements Limiter; the deadline is judged by AllowWait.
func (*DeadlineLimiter) AllowRetry(*State, time.Duration, *rand.Rand) bool { return true }

// AllowWait implements WaitLimiter: it allows a retry that starts before the
// request's deadline.
func (d *DeadlineLimiter) AllowWait(s *State, _, at time.Duration) bool {
	return at-s.RequestStart < d.D
}

// Record implements Limiter; DeadlineLimiter ignores outcomes.
func (*DeadlineLimiter) Record(*State, time.Duration, Outcome) {}

var (
	_ Limiter     = (*MaxAttemptsLimiter)(nil)
	_ Limiter     = (*DeadlineLimiter)(nil)
	_ WaitLimiter = (*DeadlineLimiter)(nil)
)
