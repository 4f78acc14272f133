package strategies

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// The defaults of Finagle's retry budget (RetryBudget.apply, since
// Finagle 6.31; "Retry Budgets", the Finagle blog, 8 February 2016): 20 %
// of requests may be retried on top of a minimum of 10 retries per
// second, over a ttl of 10 seconds.
const (
	DefaultBudgetPercent   = 20.0
	DefaultBudgetMinPerSec = 10
	DefaultBudgetTTL       = 10 * time.Second
)

// budgetSlices is how many slices a RetryBudget's window has: Finagle's
// leaky token bucket keeps its deposits in a WindowedAdder of 10 slices.
const budgetSlices = 10

// budgetScale is what a request deposits when the budget has a percentage:
// Finagle's ScaleFactor, which keeps its arithmetic in whole numbers.
const budgetScale = 1000

// RetryBudgetConfig are the parameters of a RetryBudget.
type RetryBudgetConfig struct {
	// Percent is the share of requests that may be retried, in percent
	// (budget_percent): Finagle's percentCanRetry times 100.
	Percent float64
	// MinPerSec is the retries per second allowed whatever the requests
	// (budget_min_per_sec): Finagle's minRetriesPerSec.
	MinPerSec int
	// TTL is how long a deposit or a withdrawal counts (budget_ttl).
	// Finagle requires 1 s to 60 s.
	TTL time.Duration
}

// RetryBudget is Finagle's retry budget: every request deposits, every
// retry withdraws, and a retry that the balance cannot pay is not sent.
// In Finagle's units a request deposits 1000 (none when Percent is 0) and
// a retry costs 1000/(Percent/100) (1 when Percent is 0): 5000 at 20 %, so
// five requests pay for one retry. Deposits and withdrawals count for TTL
// (in slices of a tenth of it), and on top of them a reserve of MinPerSec
// retries per second of TTL is always there: the balance is
//
//	reserve + deposits − withdrawals over the last TTL
//
// so that over any span the retries are at most Percent of the requests
// plus MinPerSec per second, give or take a TTL. (Finagle counts TTL in
// whole seconds for the reserve; this budget does not round it.)
//
// Its balance is a Finagle client's, which every request through it
// shares: it is shared by the Policy's clients, and safe for concurrent
// use.
type RetryBudget struct {
	cfg                 RetryBudgetConfig
	deposit, withdrawal int64
	reserve             int64
	mu                  sync.Mutex
	w                   window // one counter: deposits less withdrawals
}

// NewRetryBudget returns a budget of c with nothing deposited.
func NewRetryBudget(c RetryBudgetConfig) *RetryBudget {
	b := &RetryBudget{cfg: c, withdrawal: 1, w: newWindow(c.TTL, budgetSlices, 1)}
	if c.Percent > 0 {
		b.deposit = budgetScale
		b.withdrawal = max(1, int64(100*budgetScale/c.Percent)) // truncated, as Finagle's toInt
	}
	b.reserve = int64(math.Round(float64(c.MinPerSec) * float64(b.withdrawal) * c.TTL.Seconds()))
	return b
}

// AllowFirst implements FirstLimiter: it lets every request through, and
// deposits its share.
func (b *RetryBudget) AllowFirst(_ *State, now time.Duration, _ *rand.Rand) bool {
	if b.deposit > 0 {
		b.mu.Lock()
		b.w.add(now, 0, b.deposit)
		b.mu.Unlock()
	}
	return true
}

// AllowRetry implements Limiter: it withdraws a retry's cost when the
// balance holds it.
func (b *RetryBudget) AllowRetry(_ *State, now time.Duration, _ *rand.Rand) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reserve+b.w.sum(now, 0) < b.withdrawal {
		return false
	}
	b.w.add(now, 0, -b.withdrawal)
	return true
}

// Release implements ReserveLimiter: a retry refused after the budget paid
// for it is paid back. A request refused by another limit keeps its
// deposit: it was made.
func (b *RetryBudget) Release(_ *State, now time.Duration, first bool) {
	if first {
		return
	}
	b.mu.Lock()
	b.w.add(now, 0, b.withdrawal)
	b.mu.Unlock()
}

// Record implements Limiter; the budget counts requests and retries, not
// outcomes.
func (*RetryBudget) Record(*State, time.Duration, Outcome) {}

// Balance returns the retries the budget would pay for at now.
func (b *RetryBudget) Balance(now time.Duration) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return float64(b.reserve+b.w.sum(now, 0)) / float64(b.withdrawal)
}

// Config implements SharedLimiter.
func (b *RetryBudget) Config() any { return b.cfg }

var (
	_ SharedLimiter  = (*RetryBudget)(nil)
	_ FirstLimiter   = (*RetryBudget)(nil)
	_ ReserveLimiter = (*RetryBudget)(nil)
)
