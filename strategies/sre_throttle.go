package strategies

import (
	"math/rand/v2"
	"sync"
	"time"
)

// The defaults of client-side adaptive throttling as Google's SRE book
// describes it ("Handling Overload", Site Reliability Engineering, 2016):
// K = 2 over two minutes of history. A lower K refuses sooner: the
// book's example of a more aggressive setting is 1.1.
const (
	DefaultSREK      = 2.0
	DefaultSREWindow = 2 * time.Minute
)

// sreSlices is how many slices an SREThrottle's window has: the window
// forgets its oldest requests a sixtieth of it at a time, two seconds for
// the book's two minutes. The book names no granularity.
const sreSlices = 60

// SREThrottleConfig are the parameters of an SREThrottle.
type SREThrottleConfig struct {
	K      float64       // sre_k: the multiplier of accepts
	Window time.Duration // sre_window: the history the counts cover
}

// SREThrottle is Google's client-side adaptive throttling: over the last
// Window it counts requests, the attempts the client made, and accepts,
// those the server answered with success, and it refuses each new attempt
// before it is sent, first attempts included, with probability
//
//	max(0, (requests − K·accepts) / (requests + 1))
//
// A refused attempt counts as a request and not as an accept, so that
// while the server fails the client refuses more and more of its own
// traffic, down to a trickle that tells it when the server is back. An
// attempt counts when it ends, as the outcome says whether it was
// accepted; the attempts in flight are a few seconds' worth of a window of
// minutes. The draw uses the rng the caller hands it, and none is drawn
// while the probability is 0, so that a healthy run is the same with the
// throttle as without.
//
// Its counts are a client task's, which all its requests to one backend
// share: they are shared by the Policy's clients, and it is safe for
// concurrent use.
type SREThrottle struct {
	cfg SREThrottleConfig
	mu  sync.Mutex
	w   window // counters: requests, accepts
}

// The counters of an SREThrottle's window.
const (
	sreRequests = iota
	sreAccepts
)

// NewSREThrottle returns a throttle with empty counts.
func NewSREThrottle(c SREThrottleConfig) *SREThrottle {
	return &SREThrottle{cfg: c, w: newWindow(c.Window, sreSlices, 2)}
}

// SREProbability returns the chance max(0, (requests − k·accepts) /
// (requests + 1)) that the throttle refuses an attempt: 0 while requests
// are at most k times the accepts, and for no request at all.
func SREProbability(requests, accepts int64, k float64) float64 {
	return max(0, (float64(requests)-k*float64(accepts))/(float64(requests)+1))
}

// refuse draws whether to refuse an attempt at now, and counts it as a
// request when it does.
func (t *SREThrottle) refuse(now time.Duration, rng *rand.Rand) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := SREProbability(t.w.sum(now, sreRequests), t.w.sum(now, sreAccepts), t.cfg.K)
	if p <= 0 || rng.Float64() >= p {
		return false
	}
	t.w.add(now, sreRequests, 1)
	return true
}

// AllowFirst implements FirstLimiter: it refuses a request's first attempt
// with the throttle's probability.
func (t *SREThrottle) AllowFirst(_ *State, now time.Duration, rng *rand.Rand) bool {
	return !t.refuse(now, rng)
}

// AllowRetry implements Limiter: it refuses a retry with the throttle's
// probability.
func (t *SREThrottle) AllowRetry(_ *State, now time.Duration, rng *rand.Rand) bool {
	return !t.refuse(now, rng)
}

// Record implements Limiter: every attempt that ends is a request, and a
// success is an accept.
func (t *SREThrottle) Record(_ *State, now time.Duration, o Outcome) {
	t.mu.Lock()
	t.w.add(now, sreRequests, 1)
	if o == Success {
		t.w.add(now, sreAccepts, 1)
	}
	t.mu.Unlock()
}

// Counts returns the requests and accepts in the window at now.
func (t *SREThrottle) Counts(now time.Duration) (requests, accepts int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.w.sum(now, sreRequests), t.w.sum(now, sreAccepts)
}

// Config implements SharedLimiter.
func (t *SREThrottle) Config() any { return t.cfg }

var (
	_ SharedLimiter = (*SREThrottle)(nil)
	_ FirstLimiter  = (*SREThrottle)(nil)
)
