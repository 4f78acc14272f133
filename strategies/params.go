package strategies

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Params are a lane's strategy parameters, under the names of backofflab's
// vocabulary (in the comments).
type Params struct {
	Strategy          string        // strategy
	MinDelay          time.Duration // min_delay: base
	MaxDelay          time.Duration // max_delay: cap
	Factor            float64       // factor
	Jitter            float64       // jitter
	MaxAttempts       int           // max_attempts: 0 means no limit
	Deadline          time.Duration // deadline: 0 means none
	MinConnectTimeout time.Duration // min_connect_timeout (grpc)
	PerTryTimeout     time.Duration // per_try_timeout (envoy): 0 means the caller's timeout
	BackoffType       string        // backoff_type (polly): one of PollyBackoffTypes
	UseJitter         bool          // use_jitter (polly)

	// The retry limiters' parameters (each limiter's file has its
	// defaults and their source). A limiter is on when its switch, the
	// first of its parameters, is not LimiterOff; its other parameters
	// are read only then.
	GRPCThrottle        string        // grpc_throttle: off or on (GRPCThrottle)
	GRPCMaxTokens       float64       // grpc_max_tokens
	GRPCTokenRatio      float64       // grpc_token_ratio
	AWSQuota            string        // aws_quota: off or on (AWSQuota)
	AWSQuotaTokens      int           // aws_quota_tokens
	AWSRetryCost        int           // aws_retry_cost
	AWSTimeoutCost      int           // aws_timeout_cost
	AWSNoRetryIncrement int           // aws_no_retry_increment
	AWSAdaptive         string        // aws_adaptive: off or on (AWSAdaptive)
	SREThrottle         string        // sre_throttle: off or on (SREThrottle)
	SREK                float64       // sre_k
	SREWindow           time.Duration // sre_window
	RetryBudget         string        // retry_budget: off or on (RetryBudget)
	BudgetPercent       float64       // budget_percent
	BudgetMinPerSec     int           // budget_min_per_sec
	BudgetTTL           time.Duration // budget_ttl
	Breaker             string        // breaker: off, all or retries (Breaker)
	BreakerThreshold    float64       // breaker_threshold
	BreakerWindow       int           // breaker_window
	BreakerMinCalls     int           // breaker_min_calls
	BreakerOpenFor      time.Duration // breaker_open_for
	BreakerProbes       int           // breaker_probes

	EnvoyRetryLimit          string  // envoy_retry_limit: off, max_retries or budget (EnvoyRetryLimit)
	EnvoyMaxRetries          int     // envoy_max_retries
	EnvoyBudgetPercent       float64 // envoy_budget_percent
	EnvoyMinRetryConcurrency int     // envoy_min_retry_concurrency
}

// The values of the limiters' switches. Every limiter has one switch, an
// enum whose first value, LimiterOff, is its default; its other values
// turn it on: LimiterOn, or for the breaker the attempts it refuses. The
// empty string, a Params built by hand, is off too.
const (
	LimiterOff     = "off"
	LimiterOn      = "on"
	BreakerAll     = "all"     // the breaker refuses every attempt while open
	BreakerRetries = "retries" // the breaker refuses retries only
)

// LimiterSwitch lists the values of a limiter's switch that has no
// variants (grpc_throttle, aws_quota, sre_throttle, retry_budget).
func LimiterSwitch() []string { return []string{LimiterOff, LimiterOn} }

// BreakerModes lists the values of breaker's switch.
func BreakerModes() []string { return []string{LimiterOff, BreakerAll, BreakerRetries} }

// setLimiterDefaults gives p every limiter's defaults: all off.
func setLimiterDefaults(p *Params) {
	p.GRPCThrottle, p.GRPCMaxTokens, p.GRPCTokenRatio = LimiterOff, DefaultGRPCMaxTokens, DefaultGRPCTokenRatio
	p.AWSQuota, p.AWSQuotaTokens = LimiterOff, DefaultAWSQuotaTokens
	p.AWSRetryCost, p.AWSTimeoutCost, p.AWSNoRetryIncrement = DefaultAWSRetryCost, DefaultAWSTimeoutCost, DefaultAWSNoRetryIncrement
	p.AWSAdaptive = LimiterOff
	p.SREThrottle, p.SREK, p.SREWindow = LimiterOff, DefaultSREK, DefaultSREWindow
	p.RetryBudget, p.BudgetPercent, p.BudgetMinPerSec, p.BudgetTTL = LimiterOff, DefaultBudgetPercent, DefaultBudgetMinPerSec, DefaultBudgetTTL
	p.Breaker, p.BreakerThreshold, p.BreakerWindow, p.BreakerMinCalls = LimiterOff, DefaultBreakerThreshold, DefaultBreakerWindow, DefaultBreakerMinCalls
	p.BreakerOpenFor, p.BreakerProbes = DefaultBreakerOpenFor, DefaultBreakerProbes
	p.EnvoyRetryLimit, p.EnvoyMaxRetries = LimiterOff, DefaultEnvoyMaxRetries
	p.EnvoyBudgetPercent, p.EnvoyMinRetryConcurrency = DefaultEnvoyBudgetPercent, DefaultEnvoyMinRetryConcurrency
}

// The strategy names, in the order the user interface lists them.
const (
	NameNone         = "none"
	NameFixed        = "fixed"
	NameExponential  = "exponential"
	NameTruncated    = "truncated"
	NameGRPC         = "grpc"
	NameFullJitter   = "full_jitter"
	NameEqualJitter  = "equal_jitter"
	NameDecorrelated = "decorrelated"
	NameThinkScaled  = "think_scaled"

	// The library-exact strategies (library.go). The AWS SDKs' standard
	// mode from aws-sdk-go-v2 v1.48.0 on is full_jitter; see table.
	NameEnvoy                     = "envoy"
	NameGRPCRetry                 = "grpc_retry"
	NameAWSLegacy                 = "aws_legacy"
	NameAWSThrottled              = "aws_throttled"
	NameResilience4j              = "resilience4j"
	NamePolly                     = "polly"
	NameCenkalti                  = "cenkalti"
	NameClientGo                  = "client_go"
	NameTenacityExponential       = "tenacity_exponential"
	NameTenacityRandomExponential = "tenacity_random_exponential"
	NameUrllib3                   = "urllib3"
)

// entry is one row of table: a strategy's name, its label (the strategy in
// plain words, which the page shows beside the name), its formula in one line,
// the vocabulary names of the parameters the formula reads, its defaults
// (its Strategy and, where zero, MinConnectTimeout and BackoffType are
// filled in by Defaults) and the constructor of its formula.
type entry struct {
	name     string
	label    string
	about    string
	uses     []string
	defaults Params
	make     func(p Params) Strategy
}

// DefaultMinConnectTimeout is min_connect_timeout for every strategy: gRPC's
// MIN_CONNECT_TIMEOUT of 20 s (grpc/doc/connection-backoff.md). Only grpc
// reads it; the others carry it so that every lane's value is in range.
const DefaultMinConnectTimeout = 20 * time.Second

// DefaultNoCap is max_delay for a library whose cap is off by default
// (Polly's MaxDelay, client-go's Cap, tenacity's max): the vocabulary's
// largest max_delay, which no realistic run reaches.
const DefaultNoCap = 24 * time.Hour

// table lists the strategies in the order the user interface shows them.
// A new strategy is a type in formulas.go (library.go for a library's own
// policy) and one row here.
//
// The library rows' defaults are the library's own, with their source:
// a row's max_attempts counts the first attempt, so a library's "retries"
// N is max_attempts N+1. Where a library's policy is already a row, the
// row is reused instead of copied: the AWS SDKs' standard mode of
// aws-sdk-go-v2 v1.48.0 (aws/retry/jitter_backoff.go, backoffDelay2026:
// U[0,1)·min(50 ms·2^n, 20 s), with MaxAttempts 3, standard.go) is
// full_jitter with min_delay 50 ms, max_delay 20 s, max_attempts 3, and
// Istio's HTTPRetry is envoy with max_attempts attempts+1. The retry
// limiters reused likewise: gRPC's retryThrottling is grpc_throttle,
// Linkerd's retry budget retry_budget, the AWS retry quota aws_quota,
// resilience4j's CircuitBreaker breaker.
var table = []entry{
	{NameNone, "no retries", "give up at the first failure", nil,
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2},
		func(Params) Strategy { return None{} }},
	{NameFixed, "fixed interval", "wait min_delay before every retry (the 2014 experiment)", []string{"min_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2},
		func(p Params) Strategy { return Fixed{Delay: p.MinDelay} }},
	{NameExponential, "exponential backoff", "min_delay, then ×factor up to max_delay, plus Normal(0, delay×jitter) (the 2014 article's text)",
		[]string{"min_delay", "max_delay", "factor", "jitter"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: 15 * time.Minute, Factor: 2, Jitter: 0.1},
		func(p Params) Strategy {
			return Exponential{Base: p.MinDelay, Cap: p.MaxDelay, Factor: p.Factor, Jitter: p.Jitter}
		}},
	{NameTruncated, "truncated exponential (Cloud Storage)", "min(min_delay×2^n + U[0,1s), max_delay), then every max_delay (Cloud Storage)",
		[]string{"min_delay", "max_delay"},
		Params{MinDelay: time.Second, MaxDelay: 32 * time.Second, Factor: 2},
		func(p Params) Strategy { return Truncated{Base: p.MinDelay, Cap: p.MaxDelay} }},
	{NameGRPC, "gRPC connection backoff", "sleep until the attempt's deadline; backoff ×factor up to max_delay, ±jitter (gRPC)",
		[]string{"min_delay", "max_delay", "factor", "jitter", "min_connect_timeout"},
		Params{MinDelay: time.Second, MaxDelay: 120 * time.Second, Factor: 1.6, Jitter: 0.2},
		func(p Params) Strategy {
			return GRPC{Initial: p.MinDelay, Max: p.MaxDelay, Factor: p.Factor, Jitter: p.Jitter, MinConnect: p.MinConnectTimeout}
		}},
	{NameFullJitter, "full jitter (AWS; the AWS SDKs' standard mode)", "U(0, min(max_delay, min_delay×2^n)) (AWS)", []string{"min_delay", "max_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2},
		func(p Params) Strategy { return FullJitter{Base: p.MinDelay, Cap: p.MaxDelay} }},
	{NameEqualJitter, "equal jitter (AWS)", "t/2 + U(0, t/2), t = min(max_delay, min_delay×2^n) (AWS)", []string{"min_delay", "max_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2},
		func(p Params) Strategy { return EqualJitter{Base: p.MinDelay, Cap: p.MaxDelay} }},
	{NameDecorrelated, "decorrelated jitter (AWS)", "min(max_delay, U(min_delay, 3×previous)) (AWS)", []string{"min_delay", "max_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2},
		func(p Params) Strategy { return Decorrelated{Base: p.MinDelay, Cap: p.MaxDelay} }},
	{NameThinkScaled, "the 2014 program: waits scaled by think time", "factor × last think time, then ×factor up to max_delay, plus Normal(0, jitter×1s) (the 2014 program)",
		[]string{"max_delay", "factor", "jitter"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: 5 * time.Minute, Factor: math.E, Jitter: 0.1},
		func(p Params) Strategy { return ThinkScaled{Cap: p.MaxDelay, Factor: p.Factor, Jitter: p.Jitter} }},

	// Envoy's route retry policy: retry_back_off.base_interval 25 ms (the
	// router's default, runtime upstream.base_retry_backoff_ms),
	// max_interval 10 × base (250 ms), num_retries 1 (max_attempts 2), no
	// per_try_timeout (envoy/config/route/v3/route_components.proto,
	// RetryPolicy; source/common/router/retry_state_impl.cc).
	{NameEnvoy, "Envoy / Istio route retries", "U{0..b−1} ms, b = min_delay doubling up to max_delay, each attempt per_try_timeout (Envoy, Istio)",
		[]string{"min_delay", "max_delay", "per_try_timeout"},
		Params{MinDelay: 25 * time.Millisecond, MaxDelay: 250 * time.Millisecond, Factor: 2, MaxAttempts: 2},
		func(p Params) Strategy { return Envoy{Base: p.MinDelay, Max: p.MaxDelay, PerTry: p.PerTryTimeout} }},
	// gRPC has no default retry policy; these are gRFC A6's example:
	// maxAttempts 4, initialBackoff 0.1 s, maxBackoff 1 s,
	// backoffMultiplier 2 (grpc/proposal A6-client-retries.md).
	{NameGRPCRetry, "gRPC retry policy (gRFC A6)", "min(min_delay×factor^n, max_delay)×U[0.8,1.2), at most 5 attempts (gRPC retry policy)",
		[]string{"min_delay", "max_delay", "factor"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Second, Factor: 2, MaxAttempts: 4},
		func(p Params) Strategy {
			n := GRPCMaxAttemptsCap
			if p.MaxAttempts > 0 {
				n = min(p.MaxAttempts, GRPCMaxAttemptsCap)
			}
			return GRPCRetry{Initial: p.MinDelay, Max: p.MaxDelay, Factor: p.Factor, MaxAttempts: n}
		}},
	// aws-sdk-go-v2 before v1.48.0: DefaultMaxBackoff 20 s,
	// DefaultMaxAttempts 3 (aws/retry/standard.go); min_delay is unread,
	// its base fixed at 1 s.
	{NameAWSLegacy, "AWS SDK standard mode, before 2026", "U[0,1)×2^(n+1) s, then max_delay once 2^(n+1) s would pass it (AWS SDK before 2026)",
		[]string{"max_delay"},
		Params{MinDelay: time.Second, MaxDelay: 20 * time.Second, Factor: 2, MaxAttempts: 3},
		func(p Params) Strategy { return AWSLegacy{Max: p.MaxDelay} }},
	// aws-sdk-go-v2 v1.48.0's back-off with error answers as throttling
	// errors (adaptive mode, whose rate limiter takes them so): base 50 ms
	// after a timeout, 1 s after an error answer, cap 20 s, MaxAttempts 3
	// (aws/retry/standard.go, jitter_backoff.go).
	{NameAWSThrottled, "AWS SDK, error answers as throttling errors (adaptive mode)", "U[0,1)×min(b×2^n, max_delay), b = 1 s after an error answer (a throttling error), min_delay after a timeout (AWS SDK)",
		[]string{"min_delay", "max_delay"},
		Params{MinDelay: 50 * time.Millisecond, MaxDelay: 20 * time.Second, Factor: 2, MaxAttempts: 3},
		func(p Params) Strategy { return AWSThrottled{Base: p.MinDelay, Max: p.MaxDelay} }},
	// resilience4j's RetryConfig: maxAttempts 3, waitDuration 500 ms, a
	// fixed interval (RetryConfig.java DEFAULT_MAX_ATTEMPTS,
	// DEFAULT_WAIT_DURATION); its exponential functions' defaults are
	// multiplier 1.5 and randomizationFactor 0.5 (IntervalFunction.java).
	{NameResilience4j, "resilience4j Retry", "x = min_delay ×factor per retry in whole ms, ±jitter×x, capped at max_delay (resilience4j)",
		[]string{"min_delay", "max_delay", "factor", "jitter"},
		Params{MinDelay: 500 * time.Millisecond, MaxDelay: DefaultNoCap, Factor: 1, MaxAttempts: 3},
		func(p Params) Strategy {
			return Resilience4j{Initial: p.MinDelay, Max: p.MaxDelay, Multiplier: p.Factor, Randomization: p.Jitter}
		}},
	// Polly v8's RetryStrategyOptions: MaxRetryAttempts 3 (max_attempts
	// 4), Delay 2 s, BackoffType Constant, UseJitter false, no MaxDelay
	// (src/Polly.Core/Retry/RetryConstants.cs).
	{NamePolly, "Polly v8 retry", "min_delay, (n+1)×min_delay or 2^n×min_delay by backoff_type, use_jitter ±25 % or decorrelated (Polly)",
		[]string{"min_delay", "max_delay", "backoff_type", "use_jitter"},
		Params{MinDelay: 2 * time.Second, MaxDelay: DefaultNoCap, Factor: 2, MaxAttempts: 4, BackoffType: PollyConstant},
		func(p Params) Strategy {
			return Polly{Type: p.BackoffType, Delay: p.MinDelay, Max: p.MaxDelay, UseJitter: p.UseJitter}
		}},
	// cenkalti/backoff v5.0.3's NewExponentialBackOff: InitialInterval
	// 500 ms, RandomizationFactor 0.5, Multiplier 1.5, MaxInterval 60 s
	// (exponential.go); its Retry stops after 15 min (DefaultMaxElapsedTime,
	// retry.go): deadline.
	{NameCenkalti, "cenkalti/backoff ExponentialBackOff", "c ± jitter×c, c = min_delay ×factor per retry up to max_delay (cenkalti/backoff)",
		[]string{"min_delay", "max_delay", "factor", "jitter"},
		Params{MinDelay: 500 * time.Millisecond, MaxDelay: time.Minute, Factor: 1.5, Jitter: 0.5, Deadline: 15 * time.Minute},
		func(p Params) Strategy {
			return Cenkalti{Initial: p.MinDelay, Max: p.MaxDelay, Multiplier: p.Factor, Randomization: p.Jitter}
		}},
	// client-go's retry.DefaultBackoff: Steps 4, Duration 10 ms, Factor 5,
	// Jitter 0.1, no Cap (k8s.io/client-go/util/retry/util.go).
	{NameClientGo, "client-go wait.Backoff", "d + U[0,1)×jitter×d, d = min_delay ×factor; gives up once d would pass max_delay (client-go)",
		[]string{"min_delay", "max_delay", "factor", "jitter"},
		Params{MinDelay: 10 * time.Millisecond, MaxDelay: DefaultNoCap, Factor: 5, Jitter: 0.1, MaxAttempts: 4},
		func(p Params) Strategy {
			return ClientGo{Duration: p.MinDelay, Cap: p.MaxDelay, Factor: p.Factor, Jitter: p.Jitter}
		}},
	// tenacity's wait_exponential(multiplier=1, max=MAX_WAIT, exp_base=2,
	// min=0) (tenacity/wait.py); tenacity's default stop is stop_never.
	{NameTenacityExponential, "tenacity wait_exponential", "min(min_delay×factor^n, max_delay) (tenacity wait_exponential)",
		[]string{"min_delay", "max_delay", "factor"},
		Params{MinDelay: time.Second, MaxDelay: DefaultNoCap, Factor: 2},
		func(p Params) Strategy { return Tenacity{Multiplier: p.MinDelay, Max: p.MaxDelay, ExpBase: p.Factor} }},
	{NameTenacityRandomExponential, "tenacity wait_random_exponential", "U(0, min(min_delay×factor^n, max_delay)) (tenacity wait_random_exponential)",
		[]string{"min_delay", "max_delay", "factor"},
		Params{MinDelay: time.Second, MaxDelay: DefaultNoCap, Factor: 2},
		func(p Params) Strategy {
			return Tenacity{Multiplier: p.MinDelay, Max: p.MaxDelay, ExpBase: p.Factor, Random: true}
		}},
	// urllib3's Retry: total 10 (max_attempts 11), backoff_max 120 s
	// (DEFAULT_BACKOFF_MAX); its backoff_factor's default 0 means no wait,
	// which min_delay cannot say: 100 ms here is the docstring's example
	// (0.1) (src/urllib3/util/retry.py).
	{NameUrllib3, "urllib3 Retry", "0 before the first retry, then min_delay×2^n up to max_delay (urllib3)",
		[]string{"min_delay", "max_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: 120 * time.Second, Factor: 2, MaxAttempts: 11},
		func(p Params) Strategy { return Urllib3{BackoffFactor: p.MinDelay, Max: p.MaxDelay} }},
}

func lookup(name string) (entry, bool) {
	i := slices.IndexFunc(table, func(e entry) bool { return e.name == name })
	if i < 0 {
		return entry{}, false
	}
	return table[i], true
}

// Names returns the strategy names in display order.
func Names() []string {
	names := make([]string, len(table))
	for i, k := range table {
		names[i] = k.name
	}
	return names
}

// Defaults returns the parameters that strategy name uses when the user sets
// none, and false for an unknown name.
func Defaults(name string) (Params, bool) {
	e, ok := lookup(name)
	if !ok {
		return Params{}, false
	}
	d := e.defaults
	d.Strategy = name
	if d.MinConnectTimeout == 0 {
		d.MinConnectTimeout = DefaultMinConnectTimeout
	}
	if d.BackoffType == "" {
		d.BackoffType = PollyConstant
	}
	setLimiterDefaults(&d)
	return d, true
}

// Label returns strategy name's label, or the name when it has none.
func Label(name string) string {
	if e, ok := lookup(name); ok {
		return e.label
	}
	return name
}

// About returns a one-line description of strategy name's formula.
func About(name string) string {
	k, _ := lookup(name)
	return k.about
}

// Uses reports whether strategy name's formula reads the parameter with the
// given vocabulary name. The limits (max_attempts, deadline) are not the
// formula's: the Policy applies them around it, and scenario.Uses says which
// strategies obey them.
func Uses(name, param string) bool {
	k, ok := lookup(name)
	return ok && slices.Contains(k.uses, param)
}

// New returns the Policy that p describes: its strategy, then a
// MaxAttemptsLimiter when MaxAttempts is positive and a DeadlineLimiter when
// Deadline is, then the limiters whose switches are on, in this order: the
// Breaker, the GRPCThrottle, the SREThrottle, the RetryBudget, the
// AWSQuota, the AWSAdaptive, the EnvoyRetryLimit. The stateless limits
// come first, so that
// the Policy asks them without an interface call; the breaker and the
// throttles, which take nothing, before the budget and the quota, which
// take tokens that a refusal after them would have to give back; the AWS
// adaptive mode's attempt token after the quota's retry token, as the SDK
// takes them; Envoy's limit last, since it counts a retry in flight once
// it allowed its wait. A lane whose strategy is
// none never retries and reads no limiter (scenario.Uses): it gets none,
// so that none stays the baseline whatever its hidden switches say.
//
// It reports an error for an unknown strategy name or switch value; the
// ranges of the values are the caller's to check.
func New(p Params) (*Policy, error) {
	e, ok := lookup(p.Strategy)
	if !ok {
		return nil, fmt.Errorf("strategy: %q is not one of %v", p.Strategy, Names())
	}
	if p.BackoffType != "" && !slices.Contains(PollyBackoffTypes(), p.BackoffType) {
		return nil, fmt.Errorf("backoff_type: %q is not one of %v", p.BackoffType, PollyBackoffTypes())
	}
	s := e.make(p)
	var limits []Limiter
	if p.MaxAttempts > 0 {
		limits = append(limits, &MaxAttemptsLimiter{N: p.MaxAttempts})
	}
	if p.Deadline > 0 {
		limits = append(limits, &DeadlineLimiter{D: p.Deadline})
	}
	stateful, err := limiters(p)
	if err != nil {
		return nil, err
	}
	if p.Strategy != NameNone {
		limits = append(limits, stateful...)
	}
	return NewPolicy(s, limits...), nil
}

// limiterRow is one stateful limiter: the switch that turns it on, as the
// vocabulary spells it (an error names the switch, and RetryDelays the
// limiter that stopped a request), the switch's values, the switch's value
// in a Params, the limiter a Params describes, and whether a Limiter is this
// limiter. A new limiter is its type in a file of its own and one row here.
type limiterRow struct {
	name    string
	choices func() []string
	value   func(p Params) string
	make    func(p Params) Limiter
	is      func(l Limiter) bool
}

// isA reports whether l is a T.
func isA[T Limiter](l Limiter) bool {
	_, ok := l.(T)
	return ok
}

// limiterTable lists the stateful limiters in New's order.
var limiterTable = []limiterRow{
	{"breaker", BreakerModes, func(p Params) string { return p.Breaker },
		func(p Params) Limiter {
			return NewBreaker(BreakerConfig{RetriesOnly: p.Breaker == BreakerRetries,
				Threshold: p.BreakerThreshold, Window: p.BreakerWindow, MinCalls: p.BreakerMinCalls,
				OpenFor: p.BreakerOpenFor, Probes: p.BreakerProbes})
		}, isA[*Breaker]},
	{"grpc_throttle", LimiterSwitch, func(p Params) string { return p.GRPCThrottle },
		func(p Params) Limiter {
			return NewGRPCThrottle(GRPCThrottleConfig{MaxTokens: p.GRPCMaxTokens, TokenRatio: p.GRPCTokenRatio})
		}, isA[*GRPCThrottle]},
	{"sre_throttle", LimiterSwitch, func(p Params) string { return p.SREThrottle },
		func(p Params) Limiter { return NewSREThrottle(SREThrottleConfig{K: p.SREK, Window: p.SREWindow}) },
		isA[*SREThrottle]},
	{"retry_budget", LimiterSwitch, func(p Params) string { return p.RetryBudget },
		func(p Params) Limiter {
			return NewRetryBudget(RetryBudgetConfig{Percent: p.BudgetPercent,
				MinPerSec: p.BudgetMinPerSec, TTL: p.BudgetTTL})
		}, isA[*RetryBudget]},
	{"aws_quota", LimiterSwitch, func(p Params) string { return p.AWSQuota },
		func(p Params) Limiter {
			return NewAWSQuota(AWSQuotaConfig{Tokens: p.AWSQuotaTokens, RetryCost: p.AWSRetryCost,
				TimeoutCost: p.AWSTimeoutCost, NoRetryIncrement: p.AWSNoRetryIncrement})
		}, isA[*AWSQuota]},
	{"aws_adaptive", LimiterSwitch, func(p Params) string { return p.AWSAdaptive },
		func(Params) Limiter { return NewAWSAdaptive(AWSAdaptiveConfig{}) }, isA[*AWSAdaptive]},
	// Last: it counts a retry in flight from the start AllowWait tells
	// it, which no limit after it may then refuse.
	{"envoy_retry_limit", EnvoyRetryLimitModes, func(p Params) string { return p.EnvoyRetryLimit },
		func(p Params) Limiter {
			return NewEnvoyRetryLimit(EnvoyRetryLimitConfig{Budget: p.EnvoyRetryLimit == EnvoyBudget,
				MaxRetries: p.EnvoyMaxRetries, BudgetPercent: p.EnvoyBudgetPercent, MinRetryConcurrency: p.EnvoyMinRetryConcurrency})
		}, isA[*EnvoyRetryLimit]},
}

// LimitersOn returns the switches of p's stateful limiters that are on
// (neither off nor empty), by their vocabulary names, in New's order.
func LimitersOn(p Params) []string {
	var on []string
	for _, r := range limiterTable {
		if v := r.value(p); v != "" && v != LimiterOff {
			on = append(on, r.name)
		}
	}
	return on
}

// limiters returns the stateful limiters that p's switches turn on, in
// New's order.
func limiters(p Params) ([]Limiter, error) {
	var limits []Limiter
	for _, r := range limiterTable {
		switch v := r.value(p); {
		case v == "" || v == LimiterOff:
		case slices.Contains(r.choices(), v):
			limits = append(limits, r.make(p))
		default:
			return nil, fmt.Errorf("%s: %q is not one of %v", r.name, v, r.choices())
		}
	}
	return limits, nil
}
