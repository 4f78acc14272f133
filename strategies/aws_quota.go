package strategies

import (
	"math/rand/v2"
	"sync"
	"time"
)

// The defaults of the AWS SDKs' retry quota in standard retry mode, the
// same in every SDK: INITIAL_RETRY_TOKENS 500, RETRY_COST 5,
// TIMEOUT_RETRY_COST 10 and NO_RETRY_INCREMENT 1 (aws-sdk-js-v3's
// middleware-retry constants; aws-sdk-go-v2's retry.DefaultRetryRateTokens,
// DefaultRetryCost, DefaultRetryTimeoutCost, DefaultNoRetryIncrement; the
// Rust SDK's token bucket, which names them its legacy costs). The AWS
// SDKs' newer retry behaviour, opt-in in 2026 (AWS_NEW_RETRIES_2026),
// charges other costs; aws_retry_cost and aws_timeout_cost model it.
const (
	DefaultAWSQuotaTokens      = 500
	DefaultAWSRetryCost        = 5
	DefaultAWSTimeoutCost      = 10
	DefaultAWSNoRetryIncrement = 1
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
// quota allows Tokens/RetryCost retries (100) and then none until
// successes refill it: what the retries of a failing service may cost is
// bounded, and a healthy one pays for its rare retries.
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

// AllowRetry implements Limit: it takes the retry's cost, as Record set it
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

// Release implements ReserveLimit: a retry refused after the quota took
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

// Record implements Limit: a success adds NoRetryIncrement, or gives back
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

// Config implements SharedLimit.
func (q *AWSQuota) Config() any { return q.cfg }

var (
	_ SharedLimit  = (*AWSQuota)(nil)
	_ ReserveLimit = (*AWSQuota)(nil)
)
