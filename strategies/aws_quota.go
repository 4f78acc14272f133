package strategies

import (
	"math/rand/v2"
	"sync"
	"time"
)

// The defaults of the AWS SDKs' retry quota in standard retry mode, as
// aws-sdk-go-v2 v1.48.0 (2026-11-10) ships them, which made the SDKs'
// Retry Behavior 2.1 its default and dropped the AWS_NEW_RETRIES_2026
// switch:
//
//   - quota 500: aws-sdk-go-v2 v1.48.0, aws/retry/standard.go,
//     DefaultRetryRateTokens;
//   - retry cost 14: aws-sdk-go-v2 v1.48.0, aws/retry/standard.go,
//     defaultRetryCost, the RetryCost of standardDefaults;
//   - timeout cost 14: aws-sdk-go-v2 v1.48.0, aws/retry/standard.go, whose
//     GetRetryToken charges a timeout RetryCost like any error
//     (StandardOptions.RetryTimeoutCost is deprecated and unused);
//   - no-retry increment 1: aws-sdk-go-v2 v1.48.0, aws/retry/standard.go,
//     DefaultNoRetryIncrement.
//
// The same file charges a retry after a throttling error 5
// (DefaultThrottlingRetryCost); the simulated and the real servers answer
// no throttling error (their errors are refusals, resets and 5xx, which
// the SDK retries at the full cost), so the quota has no cost of its own
// for one. The legacy costs, the defaults up to aws-sdk-go-v2 v1.47.8
// (aws/retry/standard.go, DefaultRetryCost 5 and DefaultRetryTimeoutCost
// 10, now deprecated) and aws-sdk-js-v3's middleware-retry constants
// RETRY_COST and TIMEOUT_RETRY_COST, are LegacyAWSRetryCost and
// LegacyAWSTimeoutCost: aws_retry_cost=5 and aws_timeout_cost=10.
const (
	DefaultAWSQuotaTokens      = 500
	DefaultAWSRetryCost        = 14
	DefaultAWSTimeoutCost      = 14
	DefaultAWSNoRetryIncrement = 1
)

// The legacy costs of the AWS SDKs' retry quota: aws-sdk-go-v2 v1.47.8,
// aws/retry/standard.go, DefaultRetryCost and DefaultRetryTimeoutCost.
const (
	LegacyAWSRetryCost   = 5
	LegacyAWSTimeoutCost = 10
)

// AWSQuotaConfig are the parameters of an AWSQuota.
type AWSQuotaConfig struct {
	Tokens           int // aws_quota_tokens: the quota's size and its tokens at the start
	RetryCost        int // aws_retry_cost: a retry after an error takes this many
	TimeoutCost      int // aws_timeout_cost: a retry after a timeout takes this many
	NoRetryIncrement int // aws_no_retry_increment: a success at the first attempt adds this many
}

// AWSQuota is the AWS SDKs' retry quota of standard retry mode: a bucket
// that starts full, at Tokens. A retry takes RetryCost tokens, or
// TimeoutCost when the attempt it follows timed out, and is not sent when
// fewer are left: the request gives up. A success at the first attempt
// adds NoRetryIncrement; a successful retry gives back what it took; a
// failed one keeps it. Never above Tokens. So under a total outage the
// quota allows Tokens/RetryCost retries (500/14: 35; 100 at the legacy
// cost of 5) and then none until successes refill it: what the retries of
// a failing service may cost is bounded, and a healthy one pays for its
// rare retries.
//
// The tokens a request's retry took are the request's, kept in its
// State.Quota as the SDK's retry token keeps them, so that its success
// gives back exactly those. Its bucket is the one of an SDK client, which
// a process shares between its calls: it is shared by the Policy's
// clients, and safe for concurrent use.
type AWSQuota struct {
	cfg       AWSQuotaConfig
	mu        sync.Mutex
	available int
}

// NewAWSQuota returns a full quota of c's size.
func NewAWSQuota(c AWSQuotaConfig) *AWSQuota {
	return &AWSQuota{cfg: c, available: c.Tokens}
}

// AllowRetry implements Limiter: it takes the retry's cost, as Record set it
// in s.Quota, when the quota holds that many tokens.
func (q *AWSQuota) AllowRetry(s *State, _ time.Duration, _ *rand.Rand) bool {
	cost := int(s.Quota)
	if cost <= 0 { // a Policy that learned of no failure: the plain cost
		cost = q.cfg.RetryCost
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.available < cost {
		s.Quota = 0
		return false
	}
	q.available -= cost
	s.Quota = int32(cost)
	return true
}

// Release implements ReserveLimiter: a retry refused after the quota took
// its tokens gives them back.
func (q *AWSQuota) Release(s *State, _ time.Duration, first bool) {
	if first {
		return
	}
	q.mu.Lock()
	q.available = min(q.cfg.Tokens, q.available+int(s.Quota))
	q.mu.Unlock()
	s.Quota = 0
}

// Record implements Limiter: a success adds NoRetryIncrement, or gives back
// what its retry took; a failure sets in s.Quota what its retry would cost.
func (q *AWSQuota) Record(s *State, _ time.Duration, o Outcome) {
	switch o {
	case Success:
		add := q.cfg.NoRetryIncrement
		if s.Retries > 0 {
			add = int(s.Quota)
		}
		q.mu.Lock()
		q.available = min(q.cfg.Tokens, q.available+add)
		q.mu.Unlock()
		s.Quota = 0
	case Timeout:
		s.Quota = int32(q.cfg.TimeoutCost)
	default:
		s.Quota = int32(q.cfg.RetryCost)
	}
}

// Available returns the tokens left.
func (q *AWSQuota) Available() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.available
}

// Config implements SharedLimiter.
func (q *AWSQuota) Config() any { return q.cfg }

var (
	_ SharedLimiter  = (*AWSQuota)(nil)
	_ ReserveLimiter = (*AWSQuota)(nil)
)
