package strategies

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// The defaults of an Envoy cluster's retry limits (envoyproxy/envoy
// api/envoy/config/cluster/v3/circuit_breaker.proto, Thresholds:
// max_retries "If not specified, the default is 3"; RetryBudget:
// budget_percent "defaults to 20%", min_retry_concurrency "Defaults to 3";
// source/common/upstream/resource_manager_impl.h, RetryBudgetImpl::max).
const (
	DefaultEnvoyMaxRetries          = 3
	DefaultEnvoyBudgetPercent       = 20.0
	DefaultEnvoyMinRetryConcurrency = 3
)

// The values of envoy_retry_limit's switch besides LimiterOff: Envoy's
// cluster circuit breaker on retries, which every Envoy cluster has
// (max_retries, 3 unless set), or the retry budget that replaces it when a
// cluster's thresholds set one.
const (
	EnvoyMaxRetries = "max_retries"
	EnvoyBudget     = "budget"
)

// EnvoyRetryLimitModes lists the values of envoy_retry_limit's switch.
func EnvoyRetryLimitModes() []string { return []string{LimiterOff, EnvoyMaxRetries, EnvoyBudget} }

// EnvoyRetryLimitConfig are the parameters of an EnvoyRetryLimit.
type EnvoyRetryLimitConfig struct {
	// Budget chooses the retry budget (budget_percent,
	// min_retry_concurrency) over the fixed max_retries.
	Budget bool
	// MaxRetries is the most retries outstanding at once without a
	// budget (envoy_max_retries): Thresholds.max_retries.
	MaxRetries int
	// BudgetPercent is the share of the active requests that may be
	// retries, in percent (envoy_budget_percent).
	BudgetPercent float64
	// MinRetryConcurrency is the retries the budget always allows at once
	// (envoy_min_retry_concurrency).
	MinRetryConcurrency int
}

// EnvoyRetryLimit is an Envoy cluster's limit on outstanding retries, as
// its router and resource manager keep it
// (source/common/router/retry_state_impl.cc, shouldRetry and resetRetry;
// source/common/upstream/resource_manager_impl.h, RetryBudgetImpl). A
// retry is allowed while the retries outstanding are fewer than the
// limit: MaxRetries, or with a budget
// max(uint64(BudgetPercent/100 · active), MinRetryConcurrency), where
// active is the cluster's upstream requests in flight (Envoy adds its
// pending requests, which wait for a connection; this model has no
// connection pool, so there are none). A retry is outstanding from the
// decision to retry (shouldRetry's retries().inc()) through its backoff
// and its attempt until that attempt ends (the next shouldRetry's or the
// request's end's resetRetry, whatever the outcome).
//
// The limit learns of first attempts from AllowFirst and of each retry's
// start from AllowWait, where Policy tells it the wait; New puts it last
// of the limits, so that no limit refuses a retry after it counted it in
// flight. An attempt abandoned because its client left never ends, and
// stays counted: the engine removes clients only when the client count
// goes down.
//
// Its counts are the cluster's, which every request through the Envoy
// shares: they are shared by the Policy's clients, and safe for
// concurrent use.
type EnvoyRetryLimit struct {
	cfg EnvoyRetryLimitConfig

	mu          sync.Mutex
	active      int64     // attempts in flight
	outstanding int64     // retries from their decision to their attempt's end
	starts      startHeap // the starts of retries still in their backoff
}

// NewEnvoyRetryLimit returns the limit of c with nothing in flight.
func NewEnvoyRetryLimit(c EnvoyRetryLimitConfig) *EnvoyRetryLimit {
	return &EnvoyRetryLimit{cfg: c}
}

// advance counts in flight the retries that started by now. The caller
// holds l.mu.
func (l *EnvoyRetryLimit) advance(now time.Duration) {
	for len(l.starts) > 0 && l.starts[0] <= now {
		l.starts.pop()
		l.active++
	}
}

// limit returns the most retries that may be outstanding. The caller
// holds l.mu, after advance.
func (l *EnvoyRetryLimit) limit() int64 {
	if !l.cfg.Budget {
		return int64(l.cfg.MaxRetries)
	}
	share := l.cfg.BudgetPercent / 100 * float64(l.active)
	return max(int64(min(share, math.MaxInt64)), int64(l.cfg.MinRetryConcurrency))
}

// AllowFirst implements FirstLimiter: a first attempt is always sent, and
// counts in flight from now.
func (l *EnvoyRetryLimit) AllowFirst(_ *State, now time.Duration, _ *rand.Rand) bool {
	l.mu.Lock()
	l.advance(now)
	l.active++
	l.mu.Unlock()
	return true
}

// AllowRetry implements Limiter: it allows the retry while fewer retries
// than the limit are outstanding, and counts it outstanding.
func (l *EnvoyRetryLimit) AllowRetry(_ *State, now time.Duration, _ *rand.Rand) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.advance(now)
	if l.outstanding >= l.limit() {
		return false
	}
	l.outstanding++
	return true
}

// AllowWait implements WaitLimiter: it always allows, and notes when the
// retry's attempt will start, to count it in flight from then.
func (l *EnvoyRetryLimit) AllowWait(_ *State, now, at time.Duration) bool {
	l.mu.Lock()
	l.advance(now)
	l.starts.push(at)
	l.mu.Unlock()
	return true
}

// Release implements ReserveLimiter: a retry refused after the limit
// counted it outstanding is no longer outstanding, and when it was refused
// once its wait was scheduled (by a limit that judges a retry when it is
// due), its start, s.AttemptStart, is taken back from the starts to come.
// The starts have no owner: a retry refused before its wait was scheduled
// takes back a start only if another retry was scheduled to start at the
// very nanosecond its failed attempt started, which the clock's
// resolution makes negligible. A first attempt is never refused here, but
// another limit may refuse it after AllowFirst counted it: then it is not
// in flight.
func (l *EnvoyRetryLimit) Release(s *State, _ time.Duration, first bool) {
	l.mu.Lock()
	if first {
		l.active = max(0, l.active-1)
	} else {
		l.outstanding = max(0, l.outstanding-1)
		l.starts.remove(s.AttemptStart)
	}
	l.mu.Unlock()
}

// Record implements Limiter: the attempt that ended at now is no longer in
// flight, and a retry's attempt ends its retry's outstanding.
func (l *EnvoyRetryLimit) Record(s *State, now time.Duration, _ Outcome) {
	l.mu.Lock()
	l.advance(now)
	l.active = max(0, l.active-1)
	if s.Retries > 0 {
		l.outstanding = max(0, l.outstanding-1)
	}
	l.mu.Unlock()
}

// Counts returns the attempts in flight and the retries outstanding at now.
func (l *EnvoyRetryLimit) Counts(now time.Duration) (active, outstanding int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.advance(now)
	return l.active, l.outstanding
}

// Config implements SharedLimiter.
func (l *EnvoyRetryLimit) Config() any { return l.cfg }

// startHeap is a min-heap of retries' start times, typed so that a push
// boxes nothing.
type startHeap []time.Duration

func (h *startHeap) push(at time.Duration) {
	*h = append(*h, at)
	a := *h
	for i := len(a) - 1; i > 0; {
		up := (i - 1) / 2
		if a[up] <= a[i] {
			break
		}
		a[up], a[i] = a[i], a[up]
		i = up
	}
}

func (h *startHeap) pop() time.Duration {
	top := (*h)[0]
	h.removeAt(0)
	return top
}

// remove takes one start at from the heap, if it holds one.
func (h *startHeap) remove(at time.Duration) {
	for i, v := range *h {
		if v == at {
			h.removeAt(i)
			return
		}
	}
}

// removeAt takes the heap's i-th element out.
func (h *startHeap) removeAt(i int) {
	a := *h
	last := len(a) - 1
	a[i] = a[last]
	a = a[:last]
	*h = a
	if i == last {
		return
	}
	for i > 0 && a[(i-1)/2] > a[i] {
		a[(i-1)/2], a[i] = a[i], a[(i-1)/2]
		i = (i - 1) / 2
	}
	for {
		least := i
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(a) && a[c] < a[least] {
				least = c
			}
		}
		if least == i {
			break
		}
		a[i], a[least] = a[least], a[i]
		i = least
	}
}

var (
	_ SharedLimiter  = (*EnvoyRetryLimit)(nil)
	_ FirstLimiter   = (*EnvoyRetryLimit)(nil)
	_ WaitLimiter    = (*EnvoyRetryLimit)(nil)
	_ ReserveLimiter = (*EnvoyRetryLimit)(nil)
)
