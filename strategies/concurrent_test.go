package strategies

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// onParams returns the defaults of strategy fixed with every limiter on.
func onParams(t *testing.T) Params {
	t.Helper()
	p := mustDefaults(t, NameFixed)
	p.GRPCThrottle, p.AWSQuota, p.SREThrottle, p.RetryBudget, p.Breaker = LimiterOn, LimiterOn, LimiterOn, LimiterOn, BreakerAll
	return p
}

// TestLimitersConcurrent drives one Policy with every limiter on from many
// goroutines, as the real client does, each with its own State and random
// numbers; under -race it checks the limiters' locking, and after it their
// invariants: no bucket below 0 or above its size.
func TestLimitersConcurrent(t *testing.T) {
	pol := mustPolicy(t, onParams(t))
	var wg sync.WaitGroup
	start := time.Now()
	for g := range 8 {
		wg.Go(func() {
			rng, outcomes := newRNG(uint64(1060+g)), newRNG(uint64(1070+g))
			var s State
			for range 3000 {
				now := time.Since(start)
				pol.Begin(&s, now, 0)
				if !pol.AllowFirst(&s, now, rng) {
					continue
				}
				for {
					o := Outcome(outcomes.IntN(3))
					pol.Record(&s, time.Since(start), o)
					if o == Success {
						break
					}
					if _, ok := pol.Retry(&s, time.Since(start), rng); !ok {
						break
					}
				}
			}
		})
	}
	wg.Wait()
	for _, l := range pol.Limiters() {
		switch l := l.(type) {
		case *AWSQuota:
			if a := l.Available(); a < 0 || a > DefaultAWSQuotaTokens {
				t.Errorf("AWS quota at %d tokens", a)
			}
		case *GRPCThrottle:
			if n := l.Tokens(); n < 0 || n > DefaultGRPCMaxTokens {
				t.Errorf("gRPC bucket at %v tokens", n)
			}
		case *RetryBudget:
			if b := l.Balance(time.Since(start)); b < 0 {
				t.Errorf("retry budget at %v", b)
			}
		}
	}
}

// TestLimitersConcurrentExact: the yes that takes tokens takes them under
// the limiter's lock, so goroutines that decide at once never spend the
// same tokens twice: the AWS quota pays for exactly 500/14 = 35 retries, the
// budget's reserve for exactly 100, the half-open breaker for exactly 10
// probes, however many goroutines ask.
func TestLimitersConcurrentExact(t *testing.T) {
	q := newDefaultAWSQuota()
	b := newDefaultBudget()
	br := newBreaker(false)
	record(br, 0, Error, 100)
	var quota, budget, probes atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			var s State
			for range 200 {
				q.Record(&s, 0, Error)
				if q.AllowRetry(&s, 0, nil) {
					quota.Add(1)
				}
				if b.AllowRetry(&s, 0, nil) {
					budget.Add(1)
				}
				if br.AllowFirst(&s, time.Minute, nil) {
					probes.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if quota.Load() != 35 || budget.Load() != 100 || probes.Load() != 10 {
		t.Errorf("quota paid %d retries, budget %d, breaker let %d probes; want 35, 100, 10",
			quota.Load(), budget.Load(), probes.Load())
	}
}
