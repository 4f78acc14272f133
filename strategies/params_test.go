package strategies

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name                 string
		minDelay, maxDelay   time.Duration
		factor, jitter       float64
		minConnect           time.Duration
		checkMax, checkShape bool
	}{
		{NameFixed, 100 * ms, 0, 0, 0, 0, false, false},
		{NameExponential, 100 * ms, 15 * time.Minute, 2, 0.1, 0, true, true},
		{NameTruncated, time.Second, 32 * time.Second, 0, 0, 0, true, false},
		{NameGRPC, time.Second, 120 * time.Second, 1.6, 0.2, 20 * time.Second, true, true},
		{NameThinkScaled, 0, 5 * time.Minute, math.E, 0.1, 0, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustDefaults(t, c.name)
			if p.Strategy != c.name {
				t.Errorf("Strategy = %q", p.Strategy)
			}
			if c.minDelay != 0 && p.MinDelay != c.minDelay {
				t.Errorf("min_delay = %v, want %v", p.MinDelay, c.minDelay)
			}
			if c.checkMax && p.MaxDelay != c.maxDelay {
				t.Errorf("max_delay = %v, want %v", p.MaxDelay, c.maxDelay)
			}
			if c.checkShape && (p.Factor != c.factor || p.Jitter != c.jitter) {
				t.Errorf("factor, jitter = %v, %v; want %v, %v", p.Factor, p.Jitter, c.factor, c.jitter)
			}
			if c.minConnect != 0 && p.MinConnectTimeout != c.minConnect {
				t.Errorf("min_connect_timeout = %v, want %v", p.MinConnectTimeout, c.minConnect)
			}
			if p.MaxAttempts != 0 || p.Deadline != 0 {
				t.Errorf("limits max_attempts %d deadline %v, want none by default", p.MaxAttempts, p.Deadline)
			}
		})
	}
	for _, name := range Names() {
		p := mustDefaults(t, name)
		if p.Strategy != name || p.MinDelay <= 0 || p.MaxDelay < p.MinDelay {
			t.Errorf("Defaults(%q) = %+v: want its own name and 0 < min_delay <= max_delay", name, p)
		}
	}
	if p, ok := Defaults("linear"); ok || p != (Params{}) {
		t.Errorf("Defaults(linear) = %+v, %v; want zero, false", p, ok)
	}
}

func TestNewBuildsTheNamedStrategy(t *testing.T) {
	p := Params{MinDelay: 3 * time.Second, MaxDelay: 40 * time.Second, Factor: 1.7, Jitter: 0.25,
		MaxAttempts: 6, Deadline: time.Minute, MinConnectTimeout: 9 * time.Second,
		PerTryTimeout: 7 * time.Second, BackoffType: PollyLinear, UseJitter: true}
	want := map[string]Strategy{
		NameNone:         None{},
		NameFixed:        Fixed{Delay: 3 * time.Second},
		NameExponential:  Exponential{Base: 3 * time.Second, Cap: 40 * time.Second, Factor: 1.7, Jitter: 0.25},
		NameTruncated:    Truncated{Base: 3 * time.Second, Cap: 40 * time.Second},
		NameGRPC:         GRPC{Initial: 3 * time.Second, Max: 40 * time.Second, Factor: 1.7, Jitter: 0.25, MinConnect: 9 * time.Second},
		NameFullJitter:   FullJitter{Base: 3 * time.Second, Cap: 40 * time.Second},
		NameEqualJitter:  EqualJitter{Base: 3 * time.Second, Cap: 40 * time.Second},
		NameDecorrelated: Decorrelated{Base: 3 * time.Second, Cap: 40 * time.Second},
		NameThinkScaled:  ThinkScaled{Cap: 40 * time.Second, Factor: 1.7, Jitter: 0.25},

		NameEnvoy:                     Envoy{Base: 3 * time.Second, Max: 40 * time.Second, PerTry: 7 * time.Second},
		NameGRPCRetry:                 GRPCRetry{Initial: 3 * time.Second, Max: 40 * time.Second, Factor: 1.7, MaxAttempts: 5},
		NameAWSLegacy:                 AWSLegacy{Max: 40 * time.Second},
		NameAWSThrottled:              AWSThrottled{Base: 3 * time.Second, Max: 40 * time.Second},
		NameResilience4j:              Resilience4j{Initial: 3 * time.Second, Max: 40 * time.Second, Multiplier: 1.7, Randomization: 0.25},
		NamePolly:                     Polly{Type: PollyLinear, Delay: 3 * time.Second, Max: 40 * time.Second, UseJitter: true},
		NameCenkalti:                  Cenkalti{Initial: 3 * time.Second, Max: 40 * time.Second, Multiplier: 1.7, Randomization: 0.25},
		NameClientGo:                  ClientGo{Duration: 3 * time.Second, Cap: 40 * time.Second, Factor: 1.7, Jitter: 0.25},
		NameTenacityExponential:       Tenacity{Multiplier: 3 * time.Second, Max: 40 * time.Second, ExpBase: 1.7},
		NameTenacityRandomExponential: Tenacity{Multiplier: 3 * time.Second, Max: 40 * time.Second, ExpBase: 1.7, Random: true},
		NameUrllib3:                   Urllib3{BackoffFactor: 3 * time.Second, Max: 40 * time.Second},
	}
	if len(want) != len(Names()) {
		t.Fatalf("test covers %d strategies, Names() has %d", len(want), len(Names()))
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			p.Strategy = name
			pol := mustPolicy(t, p)
			if !reflect.DeepEqual(pol.Strategy, want[name]) {
				t.Errorf("Strategy = %#v, want %#v", pol.Strategy, want[name])
			}
			want := []Limiter{&MaxAttemptsLimiter{N: 6}, &DeadlineLimiter{D: time.Minute}}
			if got := pol.Limiters(); !reflect.DeepEqual(got, want) {
				t.Errorf("limits = %#v, want %#v", got, want)
			}
		})
	}
}

func TestNewRejectsUnknownName(t *testing.T) {
	for _, name := range []string{"", "Fixed", "linear", "full-jitter"} {
		pol, err := New(Params{Strategy: name})
		if err == nil || pol != nil {
			t.Errorf("New(%q) = %v, %v; want an error", name, pol, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "strategy") || !strings.Contains(msg, `"`+name+`"`) {
			t.Errorf("New(%q) error %q: want it to name the parameter strategy and the value", name, msg)
		}
	}
}

// TestUses: a strategy uses its formula's parameters, not the limits, which
// the Policy applies around every formula.
func TestUses(t *testing.T) {
	params := []string{"min_delay", "max_delay", "factor", "jitter", "min_connect_timeout", "max_attempts", "deadline",
		"per_try_timeout", "backoff_type", "use_jitter"}
	want := map[string][]string{
		NameNone:         {},
		NameFixed:        {"min_delay"},
		NameExponential:  {"min_delay", "max_delay", "factor", "jitter"},
		NameTruncated:    {"min_delay", "max_delay"},
		NameGRPC:         {"min_delay", "max_delay", "factor", "jitter", "min_connect_timeout"},
		NameFullJitter:   {"min_delay", "max_delay"},
		NameEqualJitter:  {"min_delay", "max_delay"},
		NameDecorrelated: {"min_delay", "max_delay"},
		NameThinkScaled:  {"max_delay", "factor", "jitter"},

		NameEnvoy:                     {"min_delay", "max_delay", "per_try_timeout"},
		NameGRPCRetry:                 {"min_delay", "max_delay", "factor"},
		NameAWSLegacy:                 {"max_delay"},
		NameAWSThrottled:              {"min_delay", "max_delay"},
		NameResilience4j:              {"min_delay", "max_delay", "factor", "jitter"},
		NamePolly:                     {"min_delay", "max_delay", "backoff_type", "use_jitter"},
		NameCenkalti:                  {"min_delay", "max_delay", "factor", "jitter"},
		NameClientGo:                  {"min_delay", "max_delay", "factor", "jitter"},
		NameTenacityExponential:       {"min_delay", "max_delay", "factor"},
		NameTenacityRandomExponential: {"min_delay", "max_delay", "factor"},
		NameUrllib3:                   {"min_delay", "max_delay"},
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			uses, ok := want[name]
			if !ok {
				t.Fatalf("no expectation for %q", name)
			}
			for _, param := range params {
				w := false
				for _, u := range uses {
					w = w || u == param
				}
				if got := Uses(name, param); got != w {
					t.Errorf("Uses(%q, %q) = %v, want %v", name, param, got, w)
				}
			}
			for _, other := range []string{"strategy", "clients", "think", "seed", ""} {
				if Uses(name, other) {
					t.Errorf("Uses(%q, %q) = true", name, other)
				}
			}
		})
	}
	if Uses("linear", "min_delay") || Uses("linear", "max_attempts") {
		t.Error("an unknown strategy uses nothing")
	}
}

func TestAbout(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range Names() {
		a := About(name)
		if a == "" || seen[a] {
			t.Errorf("About(%q) = %q: want a distinct, non-empty line", name, a)
		}
		seen[a] = true
	}
	if About("linear") != "" {
		t.Errorf("About(linear) = %q, want empty", About("linear"))
	}
}

// TestDefaultsLimitersOff: every strategy's defaults carry the limiters'
// defaults, every one off, and New builds none of them: only the
// stateless limits of a library's own defaults (its max_attempts, its
// deadline).
func TestDefaultsLimitersOff(t *testing.T) {
	for _, name := range Names() {
		p := mustDefaults(t, name)
		for _, sw := range []string{p.GRPCThrottle, p.AWSQuota, p.SREThrottle, p.RetryBudget, p.Breaker, p.AWSAdaptive, p.EnvoyRetryLimit} {
			if sw != LimiterOff {
				t.Errorf("%s: a limiter switch is %q by default, want off", name, sw)
			}
		}
		if p.GRPCMaxTokens != 10 || p.GRPCTokenRatio != 0.1 || p.AWSQuotaTokens != 500 || p.AWSRetryCost != 14 ||
			p.AWSTimeoutCost != 14 || p.AWSNoRetryIncrement != 1 || p.SREK != 2 || p.SREWindow != 2*time.Minute ||
			p.BudgetPercent != 20 || p.BudgetMinPerSec != 10 || p.BudgetTTL != 10*time.Second ||
			p.BreakerThreshold != 50 || p.BreakerWindow != 100 || p.BreakerMinCalls != 100 ||
			p.BreakerOpenFor != time.Minute || p.BreakerProbes != 10 ||
			p.EnvoyMaxRetries != 3 || p.EnvoyBudgetPercent != 20 || p.EnvoyMinRetryConcurrency != 3 {
			t.Errorf("%s: limiter defaults %+v", name, p)
		}
		var want []Limiter
		if p.MaxAttempts > 0 {
			want = append(want, &MaxAttemptsLimiter{N: p.MaxAttempts})
		}
		if p.Deadline > 0 {
			want = append(want, &DeadlineLimiter{D: p.Deadline})
		}
		if got := mustPolicy(t, p).Limiters(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: limits %#v by default, want %#v", name, got, want)
		}
	}
}

// TestNewLimiters: each switch turns its limiter on, with the parameters
// given, in New's order after the stateless limits; a lane of strategy
// none gets none; an unknown switch value is an error naming it.
func TestNewLimiters(t *testing.T) {
	p := mustDefaults(t, NameExponential)
	p.MaxAttempts = 4
	p.GRPCThrottle, p.GRPCMaxTokens = LimiterOn, 20
	p.AWSQuota, p.AWSQuotaTokens = LimiterOn, 100
	p.SREThrottle, p.SREK = LimiterOn, 1.5
	p.RetryBudget, p.BudgetPercent = LimiterOn, 10
	p.Breaker, p.BreakerProbes = BreakerRetries, 3
	pol := mustPolicy(t, p)
	var types []string
	for _, l := range pol.Limiters() {
		types = append(types, reflect.TypeOf(l).Elem().Name())
	}
	want := []string{"MaxAttemptsLimiter", "Breaker", "GRPCThrottle", "SREThrottle", "RetryBudget", "AWSQuota"}
	if !reflect.DeepEqual(types, want) {
		t.Fatalf("limits %v, want %v", types, want)
	}
	lims := pol.Limiters()
	if c := lims[1].(*Breaker).Config().(BreakerConfig); !c.RetriesOnly || c.Probes != 3 || c.Window != 100 {
		t.Errorf("breaker %+v", c)
	}
	if c := lims[2].(*GRPCThrottle).Config().(GRPCThrottleConfig); c != (GRPCThrottleConfig{20, 0.1}) {
		t.Errorf("gRPC throttle %+v", c)
	}
	if c := lims[3].(*SREThrottle).Config().(SREThrottleConfig); c != (SREThrottleConfig{1.5, 2 * time.Minute}) {
		t.Errorf("SRE throttle %+v", c)
	}
	if c := lims[4].(*RetryBudget).Config().(RetryBudgetConfig); c != (RetryBudgetConfig{10, 10, 10 * time.Second}) {
		t.Errorf("retry budget %+v", c)
	}
	if c := lims[5].(*AWSQuota).Config().(AWSQuotaConfig); c != (AWSQuotaConfig{100, 14, 14, 1}) {
		t.Errorf("AWS quota %+v", c)
	}

	p.Strategy = NameNone
	if got := mustPolicy(t, p).Limiters(); len(got) != 1 {
		t.Errorf("strategy none: limits %v, want max_attempts alone", got)
	}

	p.Strategy = NameFixed
	p.Breaker = "sometimes"
	if pol, err := New(p); err == nil || !strings.Contains(err.Error(), "breaker") || !strings.Contains(err.Error(), `"sometimes"`) {
		t.Errorf("New with breaker=sometimes: %v, %v; want an error naming it", pol, err)
	}
	p.Breaker, p.SREThrottle = "", "yes"
	if _, err := New(p); err == nil || !strings.Contains(err.Error(), "sre_throttle") {
		t.Errorf("New with sre_throttle=yes: %v, want an error naming it", err)
	}
	p.SREThrottle = ""
	if _, err := New(p); err != nil {
		t.Errorf("empty switches: %v, want them off", err)
	}
}

// TestNewLimitersKept: a Policy rebuilt by New keeps a limiter's state when
// its own parameters are unchanged (Policy.Keep), whatever else changed,
// and starts it afresh when they changed.
func TestNewLimitersKept(t *testing.T) {
	p := onParams(t)
	old := mustPolicy(t, p)
	var s State
	for range 3 {
		old.Record(&s, 0, Error)
	}
	cases := []struct {
		name string
		set  func(p *Params)
		kept int // limiters kept of 5
	}{
		{"min_delay", func(p *Params) { p.MinDelay *= 2 }, 5},
		{"max_attempts", func(p *Params) { p.MaxAttempts = 3 }, 5},
		{"grpc_token_ratio", func(p *Params) { p.GRPCTokenRatio = 0.2 }, 4},
		{"breaker_variant", func(p *Params) { p.Breaker = BreakerRetries }, 4},
		{"budget_ttl", func(p *Params) { p.BudgetTTL = 5 * time.Second }, 4},
		{"aws_retry_cost", func(p *Params) { p.AWSRetryCost = 7 }, 4},
		{"sre_window", func(p *Params) { p.SREWindow = time.Minute }, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			q := p
			c.set(&q)
			pol := mustPolicy(t, q)
			pol.Keep(old)
			kept := 0
			for _, l := range pol.Limiters() {
				for _, o := range old.Limiters() {
					if l == o {
						kept++
					}
				}
			}
			if kept != c.kept {
				t.Errorf("%d limiters kept, want %d", kept, c.kept)
			}
		})
	}
}

// TestLimitersOn: a lane with no limiter on has none; with every one on,
// all of them, each by its switch's name, in New's order.
func TestLimitersOn(t *testing.T) {
	p, _ := Defaults(NameExponential)
	if got := LimitersOn(p); len(got) != 0 {
		t.Errorf("LimitersOn(defaults) = %v, want none", got)
	}
	p.Breaker, p.GRPCThrottle, p.SREThrottle, p.RetryBudget = BreakerAll, LimiterOn, LimiterOn, LimiterOn
	p.AWSQuota, p.AWSAdaptive, p.EnvoyRetryLimit = LimiterOn, LimiterOn, EnvoyBudget
	want := []string{"breaker", "grpc_throttle", "sre_throttle", "retry_budget", "aws_quota", "aws_adaptive", "envoy_retry_limit"}
	if got := LimitersOn(p); !slices.Equal(got, want) {
		t.Errorf("LimitersOn(every one on) = %v, want %v", got, want)
	}
}
