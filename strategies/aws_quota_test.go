package strategies

import (
	"testing"
	"time"
)

func newDefaultAWSQuota() *AWSQuota {
	return NewAWSQuota(AWSQuotaConfig{Tokens: DefaultAWSQuotaTokens, RetryCost: DefaultAWSRetryCost,
		TimeoutCost: DefaultAWSTimeoutCost, NoRetryIncrement: DefaultAWSNoRetryIncrement})
}

// newLegacyAWSQuota returns a quota of the legacy costs, 5 and 10, which
// tell an error's cost from a timeout's.
func newLegacyAWSQuota() *AWSQuota {
	return NewAWSQuota(AWSQuotaConfig{Tokens: DefaultAWSQuotaTokens, RetryCost: LegacyAWSRetryCost,
		TimeoutCost: LegacyAWSTimeoutCost, NoRetryIncrement: DefaultAWSNoRetryIncrement})
}

// TestAWSQuotaDefaults: the defaults are aws-sdk-go-v2 v1.48.0's, a retry
// costing 14 whether an error or a timeout preceded it, and the legacy
// costs are 5 and 10.
func TestAWSQuotaDefaults(t *testing.T) {
	if DefaultAWSQuotaTokens != 500 || DefaultAWSRetryCost != 14 || DefaultAWSTimeoutCost != 14 ||
		DefaultAWSNoRetryIncrement != 1 || LegacyAWSRetryCost != 5 || LegacyAWSTimeoutCost != 10 {
		t.Errorf("quota %d, costs %d/%d, increment %d, legacy %d/%d; want 500, 14/14, 1, 5/10",
			DefaultAWSQuotaTokens, DefaultAWSRetryCost, DefaultAWSTimeoutCost, DefaultAWSNoRetryIncrement,
			LegacyAWSRetryCost, LegacyAWSTimeoutCost)
	}
}

// TestAWSQuotaArithmetic: at the legacy costs a retry after an error takes
// 5 tokens, after a timeout 10; a successful retry gives back what it
// took, a failed one nothing; a success at the first attempt adds 1;
// never above 500.
func TestAWSQuotaArithmetic(t *testing.T) {
	q := newLegacyAWSQuota()
	pol := NewPolicy(Fixed{Delay: time.Second}, q)
	rng := newRNG(1020)
	var s State
	check := func(step string, want int) {
		t.Helper()
		if got := q.Available(); got != want {
			t.Errorf("%s: %d tokens, want %d", step, got, want)
		}
	}
	retry := func(step string, want bool) {
		t.Helper()
		if _, ok := pol.Retry(&s, 0, rng); ok != want {
			t.Fatalf("%s: Retry = %v, want %v", step, ok, want)
		}
	}

	pol.Begin(&s, 0, 0)
	pol.Record(&s, 0, Success)
	check("a first-attempt success at the cap", 500)

	pol.Begin(&s, 0, 0)
	pol.Record(&s, 0, Error)
	check("a failed first attempt", 500)
	retry("retry after an error", true)
	check("retry after an error", 495)
	pol.Record(&s, 0, Timeout)
	check("a failed retry keeps its tokens", 495)
	retry("retry after a timeout", true)
	check("retry after a timeout", 485)
	pol.Record(&s, 0, Success)
	check("the successful retry gives back its 10", 495)

	pol.Begin(&s, 0, 0)
	pol.Record(&s, 0, Success)
	check("a first-attempt success adds 1", 496)

	pol.Begin(&s, 0, 0)
	pol.Record(&s, 0, Error)
	retry("retry after an error", true)
	pol.Record(&s, 0, Success)
	check("the successful retry gives back its 5", 496)
	for range 10 {
		pol.Begin(&s, 0, 0)
		pol.Record(&s, 0, Success)
	}
	check("successes stop at the cap", 500)
}

// TestAWSQuotaExhausted: with no success, the quota pays for exactly
// 500/14 = 35 retries, after errors or timeouts alike, at the defaults
// (35 × 14 = 490 tokens, and the 10 left are fewer than a retry's 14);
// at the legacy costs for 500/5 = 100 retries after errors, or 500/10 =
// 50 after timeouts. Then it refuses every retry, touching nothing; a
// refusal leaves the request holding nothing.
func TestAWSQuotaExhausted(t *testing.T) {
	for _, c := range []struct {
		name       string
		q          func() *AWSQuota
		o          Outcome
		want, left int
	}{
		{"errors", newDefaultAWSQuota, Error, 35, 10},
		{"timeouts", newDefaultAWSQuota, Timeout, 35, 10},
		{"legacy_errors", newLegacyAWSQuota, Error, 100, 0},
		{"legacy_timeouts", newLegacyAWSQuota, Timeout, 50, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := c.q()
			pol := NewPolicy(Fixed{Delay: time.Second}, q)
			rng := newRNG(1021)
			var s State
			retries := 0
			for range 300 { // requests, each retrying until refused
				pol.Begin(&s, 0, 0)
				pol.Record(&s, 0, c.o)
				for {
					if _, ok := pol.Retry(&s, 0, rng); !ok {
						break
					}
					retries++
					pol.Record(&s, 0, c.o)
				}
				if s.Quota != 0 {
					t.Fatalf("a refused request holds %d tokens", s.Quota)
				}
			}
			if retries != c.want || q.Available() != c.left {
				t.Errorf("%d retries, %d tokens left; want %d, %d", retries, q.Available(), c.want, c.left)
			}
		})
	}
	t.Run("too_few_tokens", func(t *testing.T) {
		q := newLegacyAWSQuota()
		q.available = 9
		var s State
		q.Record(&s, 0, Timeout)
		if q.AllowRetry(&s, 0, nil) || q.Available() != 9 || s.Quota != 0 {
			t.Errorf("a retry costing 10 of 9 tokens: allowed, or took some (%d left, %d held)", q.Available(), s.Quota)
		}
		q.Record(&s, 0, Error)
		if !q.AllowRetry(&s, 0, nil) || q.Available() != 4 {
			t.Errorf("a retry costing 5 of 9 tokens: refused, or %d left", q.Available())
		}
	})
}

// TestAWSQuotaReleased: a retry the quota paid for and a later limit, the
// strategy or the deadline refused gives its tokens back.
func TestAWSQuotaReleased(t *testing.T) {
	for _, c := range []struct {
		name   string
		st     Strategy
		limits func(q *AWSQuota) []Limiter
	}{
		{"later_limit", Fixed{Delay: time.Second}, func(q *AWSQuota) []Limiter { return []Limiter{q, refuser{}} }},
		{"strategy_stops", None{}, func(q *AWSQuota) []Limiter { return []Limiter{q} }},
		{"deadline", Fixed{Delay: time.Hour}, func(q *AWSQuota) []Limiter { return []Limiter{&DeadlineLimiter{D: time.Minute}, q} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := newDefaultAWSQuota()
			pol := NewPolicy(c.st, c.limits(q)...)
			var s State
			pol.Begin(&s, 0, 0)
			pol.Record(&s, 0, Timeout)
			if _, ok := pol.Retry(&s, 0, newRNG(1022)); ok {
				t.Fatal("retry allowed")
			}
			if q.Available() != 500 || s.Quota != 0 {
				t.Errorf("%d tokens, %d held; want 500, 0", q.Available(), s.Quota)
			}
		})
	}
}
