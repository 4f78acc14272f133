package strategies

import (
	"math/rand/v2"
	"sync"
	"time"
)

// The defaults of resilience4j's CircuitBreaker (CircuitBreakerConfig's
// DEFAULT_ constants, and its documentation, resilience4j 2.2.0): it opens
// when at least 50 % of the last 100 calls failed, once 100 calls were
// recorded; it stays open 60 s; then it lets 10 calls through half-open.
const (
	DefaultBreakerThreshold = 50.0
	DefaultBreakerWindow    = 100
	DefaultBreakerMinCalls  = 100
	DefaultBreakerOpenFor   = 60 * time.Second
	DefaultBreakerProbes    = 10
)

// BreakerConfig are the parameters of a Breaker.
type BreakerConfig struct {
	// RetriesOnly makes the breaker refuse retries alone (breaker=retries);
	// otherwise it refuses every attempt, first attempts included
	// (breaker=all).
	RetriesOnly bool
	// Threshold is the failure rate, in percent, at or above which the
	// breaker opens (breaker_threshold).
	Threshold float64
	// Window is how many of the last outcomes the failure rate is over
	// (breaker_window).
	Window int
	// MinCalls is how many outcomes the window must hold before the rate
	// counts (breaker_min_calls); past Window it is Window, as in
	// resilience4j.
	MinCalls int
	// OpenFor is how long the breaker stays open (breaker_open_for).
	OpenFor time.Duration
	// Probes is how many attempts the half-open breaker lets through
	// (breaker_probes); it judges min(MinCalls, Probes) outcomes.
	Probes int
}

// BreakerState is a Breaker's state.
type BreakerState uint8

// The states of a Breaker.
const (
	// BreakerClosed lets every attempt through and counts their outcomes.
	BreakerClosed BreakerState = iota
	// BreakerOpen refuses the attempts it breaks.
	BreakerOpen
	// BreakerHalfOpen lets Probes attempts through and judges their outcomes.
	BreakerHalfOpen
)

// String returns the state's name.
func (s BreakerState) String() string {
	switch s {
	case BreakerClosed:
		return "closed"
	case BreakerOpen:
		return "open"
	case BreakerHalfOpen:
		return "half-open"
	}
	return "breaker(?)"
}

// Breaker is a circuit breaker as resilience4j's count-based one works.
// Closed, it lets every attempt through and keeps the outcomes of the last
// Window attempts; once it holds at least MinCalls of them and at least
// Threshold percent failed, it opens and forgets them. Open, it refuses
// the attempts it breaks (every attempt, or retries only) for OpenFor;
// the first attempt asked about after that finds it half-open. Half-open,
// it lets Probes attempts through and refuses the rest; once it heard
// min(MinCalls, Probes) outcomes it opens again if at least Threshold
// percent of them failed, and closes otherwise, with an empty window.
// That is resilience4j's half-open state (CircuitBreakerStateMachine's
// HalfOpenState, resilience4j 2.2.0, as since 1.2.0 and its
// minimumNumberOfCalls): it hands out permittedNumberOfCallsInHalfOpenState
// permissions, and its metrics, CircuitBreakerMetrics.forHalfOpen, are a
// count-based window of that size whose minimum number of calls is
// min(minimumNumberOfCalls, permittedNumberOfCallsInHalfOpenState), so it
// decides as soon as it holds that many outcomes. Every error and timeout
// is a failure, as resilience4j records every exception by default.
//
// It is asked about a retry when the retry is due, not when the attempt
// before it failed (a SendLimiter): resilience4j asks for permission when
// the call runs, after the Retry's wait. A retry whose wait began while
// the breaker was closed is refused if it opened during the wait.
//
// Outcomes heard while open are of attempts sent before it opened: they
// are ignored, as resilience4j's open state drops them with its metrics.
// Half-open, every outcome heard counts, a probe's or not: the breaker
// cannot tell them apart, nor can resilience4j. A request refused by the
// breaker ends unsent: the engine and the real client count it as given
// up.
//
// One departure: a half-open breaker whose probes were all sent but did not
// all end within OpenFor of the last one opens again. An attempt whose
// client left never ends, and resilience4j, whose default is to wait for
// its probes forever, can stay half-open for good.
//
// Its state is one breaker's for one backend, which every call of a
// process shares: it is shared by the Policy's clients, and safe for
// concurrent use.
type Breaker struct {
	cfg      BreakerConfig
	minCalls int // closed: min(MinCalls, Window), at least 1
	halfMin  int // half-open: min(MinCalls, Probes), at least 1

	mu    sync.Mutex
	state BreakerState
	since time.Duration // when it opened, or when its last probe went

	// Closed: the last outcomes, failures true, in a ring of
	// max(1, Window) slots. It grows as outcomes arrive, so that a breaker
	// that hears few of them (a request's alone, in RetryDelays) costs
	// what it holds, not its whole window.
	ring  []bool
	next  int // where the next outcome goes
	n     int // outcomes in the ring
	fails int // failures in the ring

	// Half-open: the probes let through and the outcomes heard.
	permits, heard, heardFails int
}

// NewBreaker returns a closed breaker with an empty window.
func NewBreaker(c BreakerConfig) *Breaker {
	return &Breaker{cfg: c, minCalls: max(1, min(c.MinCalls, c.Window)), halfMin: max(1, min(c.MinCalls, c.Probes))}
}

// size is the window's size: how many outcomes the ring holds when full.
func (b *Breaker) size() int { return max(1, b.cfg.Window) }

// failing reports whether fails of n outcomes reach the threshold.
func (b *Breaker) failing(fails, n int) bool {
	return float64(fails)*100 >= b.cfg.Threshold*float64(n)
}

// open opens the breaker at now.
func (b *Breaker) open(now time.Duration) {
	b.state, b.since = BreakerOpen, now
	b.n, b.next, b.fails = 0, 0, 0
	b.permits, b.heard, b.heardFails = 0, 0, 0
}

// close closes the breaker with an empty window.
func (b *Breaker) close() {
	b.state = BreakerClosed
	b.n, b.next, b.fails = 0, 0, 0
	b.permits, b.heard, b.heardFails = 0, 0, 0
}

// advance makes an open breaker half-open once OpenFor has passed, and a
// half-open one whose probes went unanswered for OpenFor open again.
func (b *Breaker) advance(now time.Duration) {
	switch {
	case b.state == BreakerOpen && now-b.since >= b.cfg.OpenFor:
		b.state = BreakerHalfOpen
		b.permits, b.heard, b.heardFails = 0, 0, 0
	case b.state == BreakerHalfOpen && b.permits >= b.cfg.Probes && now-b.since >= b.cfg.OpenFor:
		b.open(now)
	}
}

// allow decides whether an attempt may go at now.
func (b *Breaker) allow(now time.Duration, first bool) bool {
	if first && b.cfg.RetriesOnly {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance(now)
	switch b.state {
	case BreakerOpen:
		return false
	case BreakerHalfOpen:
		if b.permits >= b.cfg.Probes {
			return false
		}
		b.permits++
		b.since = now
	}
	return true
}

// AllowFirst implements FirstLimiter: a breaker of all traffic refuses a
// request's first attempt while open, and half-open beyond its probes.
func (b *Breaker) AllowFirst(_ *State, now time.Duration, _ *rand.Rand) bool {
	return b.allow(now, true)
}

// AllowRetry implements Limiter: it allows every retry when the attempt
// before it fails; AllowSend decides when the retry is due.
func (*Breaker) AllowRetry(*State, time.Duration, *rand.Rand) bool { return true }

// AllowSend implements SendLimiter: the breaker refuses a retry due at now
// while open, and half-open beyond its probes.
func (b *Breaker) AllowSend(_ *State, now time.Duration, _ *rand.Rand) bool {
	return b.allow(now, false)
}

// Release implements ReserveLimiter: an attempt refused by another limit
// after the half-open breaker let it through gives its probe back. In the
// real client another client's outcome may have moved the breaker on in
// between; the probe then stays spent.
func (b *Breaker) Release(_ *State, _ time.Duration, first bool) {
	if first && b.cfg.RetriesOnly {
		return
	}
	b.mu.Lock()
	if b.state == BreakerHalfOpen && b.permits > 0 {
		b.permits--
	}
	b.mu.Unlock()
}

// Record implements Limiter: closed, the outcome enters the window, and may
// open the breaker; half-open, it is judged with the others.
func (b *Breaker) Record(_ *State, now time.Duration, o Outcome) {
	failed := o != Success
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state {
	case BreakerClosed:
		if b.n == b.size() {
			if b.ring[b.next] {
				b.fails--
			}
		} else {
			b.n++
		}
		// next only steps forward from 0, so the ring grows one slot
		// at a time until it is full.
		if b.next == len(b.ring) {
			b.ring = append(b.ring, failed)
		} else {
			b.ring[b.next] = failed
		}
		if failed {
			b.fails++
		}
		b.next = (b.next + 1) % b.size()
		if b.n >= b.minCalls && b.failing(b.fails, b.n) {
			b.open(now)
		}
	case BreakerHalfOpen:
		b.heard++
		if failed {
			b.heardFails++
		}
		if b.heard >= b.halfMin {
			if b.failing(b.heardFails, b.heard) {
				b.open(now)
			} else {
				b.close()
			}
		}
	}
}

// State returns the breaker's state at now.
func (b *Breaker) State(now time.Duration) BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.advance(now)
	return b.state
}

// Config implements SharedLimiter.
func (b *Breaker) Config() any { return b.cfg }

var (
	_ SharedLimiter  = (*Breaker)(nil)
	_ FirstLimiter   = (*Breaker)(nil)
	_ SendLimiter    = (*Breaker)(nil)
	_ ReserveLimiter = (*Breaker)(nil)
)
