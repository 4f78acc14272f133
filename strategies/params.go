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
	p.SREThrottle, p.SREK, p.SREWindow = LimiterOff, DefaultSREK, DefaultSREWindow
	p.RetryBudget, p.BudgetPercent, p.BudgetMinPerSec, p.BudgetTTL = LimiterOff, DefaultBudgetPercent, DefaultBudgetMinPerSec, DefaultBudgetTTL
	p.Breaker, p.BreakerThreshold, p.BreakerWindow, p.BreakerMinCalls = LimiterOff, DefaultBreakerThreshold, DefaultBreakerWindow, DefaultBreakerMinCalls
	p.BreakerOpenFor, p.BreakerProbes = DefaultBreakerOpenFor, DefaultBreakerProbes
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
)

// entry is one row of table: a strategy's name, its formula in one line,
// the vocabulary names of the parameters the formula reads, its defaults
// (its Strategy and, where zero, MinConnectTimeout are filled in by
// Defaults) and the constructor of its formula.
type entry struct {
	name     string
	about    string
	uses     []string
	defaults Params
	make     func(p Params) Strategy
}

// DefaultMinConnectTimeout is min_connect_timeout for every strategy: gRPC's
// MIN_CONNECT_TIMEOUT of 20 s (grpc/doc/connection-backoff.md). Only grpc
// reads it; the others carry it so that every lane's value is in range.
const DefaultMinConnectTimeout = 20 * time.Second

// table lists the strategies in the order the user interface shows them.
// A new strategy is a type in formulas.go and one row here.
var table = []entry{
	{NameNone, "give up at the first failure", nil,
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2},
		func(Params) Strategy { return None{} }},
	{NameFixed, "wait min_delay before every retry (the 2014 experiment)", []string{"min_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2},
		func(p Params) Strategy { return Fixed{Delay: p.MinDelay} }},
	{NameExponential, "min_delay, then ×factor up to max_delay, plus Normal(0, delay×jitter) (the 2014 article's text)",
		[]string{"min_delay", "max_delay", "factor", "jitter"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: 15 * time.Minute, Factor: 2, Jitter: 0.1},
		func(p Params) Strategy {
			return Exponential{Base: p.MinDelay, Cap: p.MaxDelay, Factor: p.Factor, Jitter: p.Jitter}
		}},
	{NameTruncated, "min(min_delay×2^n + U[0,1s), max_delay), then every max_delay (Cloud Storage)",
		[]string{"min_delay", "max_delay"},
		Params{MinDelay: time.Second, MaxDelay: 32 * time.Second, Factor: 2},
		func(p Params) Strategy { return Truncated{Base: p.MinDelay, Cap: p.MaxDelay} }},
	{NameGRPC, "sleep until the attempt's deadline; backoff ×factor up to max_delay, ±jitter (gRPC)",
		[]string{"min_delay", "max_delay", "factor", "jitter", "min_connect_timeout"},
		Params{MinDelay: time.Second, MaxDelay: 120 * time.Second, Factor: 1.6, Jitter: 0.2},
		func(p Params) Strategy {
			return GRPC{Initial: p.MinDelay, Max: p.MaxDelay, Factor: p.Factor, Jitter: p.Jitter, MinConnect: p.MinConnectTimeout}
		}},
	{NameFullJitter, "U(0, min(max_delay, min_delay×2^n)) (AWS)", []string{"min_delay", "max_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2},
		func(p Params) Strategy { return FullJitter{Base: p.MinDelay, Cap: p.MaxDelay} }},
	{NameEqualJitter, "t/2 + U(0, t/2), t = min(max_delay, min_delay×2^n) (AWS)", []string{"min_delay", "max_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2},
		func(p Params) Strategy { return EqualJitter{Base: p.MinDelay, Cap: p.MaxDelay} }},
	{NameDecorrelated, "min(max_delay, U(min_delay, 3×previous)) (AWS)", []string{"min_delay", "max_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2},
		func(p Params) Strategy { return Decorrelated{Base: p.MinDelay, Cap: p.MaxDelay} }},
	{NameThinkScaled, "factor × last think time, then ×factor up to max_delay, plus Normal(0, jitter×1s) (the 2014 program)",
		[]string{"max_delay", "factor", "jitter"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: 5 * time.Minute, Factor: math.E, Jitter: 0.1},
		func(p Params) Strategy { return ThinkScaled{Cap: p.MaxDelay, Factor: p.Factor, Jitter: p.Jitter} }},
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
	setLimiterDefaults(&d)
	return d, true
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
// MaxAttemptsLimit when MaxAttempts is positive and a DeadlineLimit when
// Deadline is, then the limiters whose switches are on, in this order: the
// Breaker, the GRPCThrottle, the SREThrottle, the RetryBudget, the
// AWSQuota. The stateless limits come first, so that the Policy asks them
// without an interface call; the breaker and the throttles, which take
// nothing, before the budget and the quota, which take tokens that a
// refusal after them would have to give back. A lane whose strategy is
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
	s := e.make(p)
	var limits []Limit
	if p.MaxAttempts > 0 {
		limits = append(limits, &MaxAttemptsLimit{N: p.MaxAttempts})
	}
	if p.Deadline > 0 {
		limits = append(limits, &DeadlineLimit{D: p.Deadline})
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

// limiters returns the stateful limiters that p's switches turn on, in
// New's order.
func limiters(p Params) ([]Limit, error) {
	on := func(name, v string, choices []string) (bool, error) {
		switch {
		case v == "" || v == LimiterOff:
			return false, nil
		case slices.Contains(choices, v):
			return true, nil
		}
		return false, fmt.Errorf("%s: %q is not one of %v", name, v, choices)
	}
	var limits []Limit
	if ok, err := on("breaker", p.Breaker, BreakerModes()); err != nil {
		return nil, err
	} else if ok {
		limits = append(limits, NewBreaker(BreakerConfig{RetriesOnly: p.Breaker == BreakerRetries,
			Threshold: p.BreakerThreshold, Window: p.BreakerWindow, MinCalls: p.BreakerMinCalls,
			OpenFor: p.BreakerOpenFor, Probes: p.BreakerProbes}))
	}
	if ok, err := on("grpc_throttle", p.GRPCThrottle, LimiterSwitch()); err != nil {
		return nil, err
	} else if ok {
		limits = append(limits, NewGRPCThrottle(GRPCThrottleConfig{MaxTokens: p.GRPCMaxTokens, TokenRatio: p.GRPCTokenRatio}))
	}
	if ok, err := on("sre_throttle", p.SREThrottle, LimiterSwitch()); err != nil {
		return nil, err
	} else if ok {
		limits = append(limits, NewSREThrottle(SREThrottleConfig{K: p.SREK, Window: p.SREWindow}))
	}
	if ok, err := on("retry_budget", p.RetryBudget, LimiterSwitch()); err != nil {
		return nil, err
	} else if ok {
		limits = append(limits, NewRetryBudget(RetryBudgetConfig{Percent: p.BudgetPercent,
			MinPerSec: p.BudgetMinPerSec, TTL: p.BudgetTTL}))
	}
	if ok, err := on("aws_quota", p.AWSQuota, LimiterSwitch()); err != nil {
		return nil, err
	} else if ok {
		limits = append(limits, NewAWSQuota(AWSQuotaConfig{Tokens: p.AWSQuotaTokens, RetryCost: p.AWSRetryCost,
			TimeoutCost: p.AWSTimeoutCost, NoRetryIncrement: p.AWSNoRetryIncrement}))
	}
	return limits, nil
}
