package libconfig

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/backofflab/backofflab/strategies"
	"go.yaml.in/yaml/v3"
)

// EnvoyConfig is the retry part of an Envoy configuration in its YAML form
// (Envoy v3 API, as go-control-plane v1.40.0 generates it): a route's
// RouteAction timeout and retry_policy (envoy.config.route.v3.RetryPolicy)
// and a cluster's circuit_breakers (envoy.config.cluster.v3.CircuitBreakers),
// with the proto's snake_case field names.
type EnvoyConfig struct {
	// Timeout is the RouteAction's timeout, the request's whole deadline
	// with its retries; nil when unset (Envoy's default is 15 s), 0 for
	// "0s", which disables it.
	Timeout *time.Duration
	// RetryPolicy is the route's retry_policy, or nil.
	RetryPolicy *EnvoyRetryPolicy
	// CircuitBreakers is the cluster's circuit_breakers, or nil.
	CircuitBreakers *EnvoyCircuitBreakers
}

// EnvoyRetryPolicy is envoy.config.route.v3.RetryPolicy's timing and
// conditions.
type EnvoyRetryPolicy struct {
	// RetryOn is retry_on, the comma-separated conditions
	// (x-envoy-retry-on and x-envoy-retry-grpc-on), split.
	RetryOn []string
	// NumRetries is num_retries: retries after the first attempt; 1 when
	// unset.
	NumRetries uint32
	// PerTryTimeout is per_try_timeout; 0 when unset (each try then has the
	// route's whole timeout).
	PerTryTimeout time.Duration
	// RetriableStatusCodes is retriable_status_codes, read with the
	// retriable-status-codes condition.
	RetriableStatusCodes []uint32
	// BackOff is retry_back_off; nil when unset: Envoy's default base of
	// 25 ms and max of 250 ms.
	BackOff *EnvoyBackOff
}

// EnvoyBackOff is RetryPolicy.RetryBackOff. Envoy's back-off is fully
// jittered exponential: before retry n it waits U(0, min(base×2^n, max))
// (the router filter's x-envoy-max-retries section).
type EnvoyBackOff struct {
	// BaseInterval is base_interval: required, greater than 0 (values
	// under 1 ms act as 1 ms).
	BaseInterval time.Duration
	// MaxInterval is max_interval: 0 when unset (10 × base_interval);
	// when set, at least base_interval.
	MaxInterval time.Duration
}

// EnvoyDefaultBaseInterval is the back-off's base when retry_back_off is
// unset (the router filter's documentation: 25 ms, max 10 × base).
const EnvoyDefaultBaseInterval = 25 * time.Millisecond

// EnvoyCircuitBreakers is envoy.config.cluster.v3.CircuitBreakers' retry
// part.
type EnvoyCircuitBreakers struct {
	// Thresholds are thresholds, one per routing priority.
	Thresholds []EnvoyThresholds
}

// EnvoyThresholds is one CircuitBreakers.Thresholds entry's retry part.
type EnvoyThresholds struct {
	// Priority is priority: DEFAULT (when unset) or HIGH.
	Priority string
	// MaxRetries is max_retries, the cluster's limit on retries in flight
	// at once; 3 when unset. A RetryBudget replaces it.
	MaxRetries uint32
	// RetryBudget is retry_budget, or nil.
	RetryBudget *EnvoyRetryBudget
}

// EnvoyRetryBudget is CircuitBreakers.Thresholds.RetryBudget: retries in
// flight may be at most BudgetPercent of the requests in flight, and never
// fewer than MinRetryConcurrency.
type EnvoyRetryBudget struct {
	// BudgetPercent is budget_percent.value, in [0, 100]; 20 when unset.
	BudgetPercent float64
	// MinRetryConcurrency is min_retry_concurrency; 3 when unset.
	MinRetryConcurrency uint32
	// BudgetInterval is budget_interval: 0 (the default) counts the
	// requests in flight now; more counts every request started that long
	// ago.
	BudgetInterval time.Duration
}

// The defaults of EnvoyThresholds and EnvoyRetryBudget (circuit_breaker.proto).
const (
	EnvoyDefaultMaxRetries          = 3
	EnvoyDefaultBudgetPercent       = 20.0
	EnvoyDefaultMinRetryConcurrency = 3
)

// envoyRetryOn are the conditions retry_on accepts (the router filter's
// x-envoy-retry-on and x-envoy-retry-grpc-on), which Istio's retryOn
// accepts too.
var envoyRetryOn = []string{"5xx", "gateway-error", "reset", "reset-before-request", "connect-failure",
	"envoy-ratelimited", "retriable-4xx", "refused-stream", "retriable-status-codes", "retriable-headers",
	"http3-post-connect-failure", "cancelled", "deadline-exceeded", "internal", "resource-exhausted", "unavailable"}

const envoyDurationRule = `a google.protobuf.Duration string such as "0.025s"`

// ParseEnvoy reads an Envoy YAML fragment: a mapping that holds a route's
// timeout and retry_policy (as in a RouteAction) and a cluster's
// circuit_breakers, any of them. The other fields of a route or cluster are
// warnings.
func ParseEnvoy(data []byte) (EnvoyConfig, []Warning, error) {
	var c EnvoyConfig
	top, err := document(data, false)
	if err != nil {
		return c, nil, err
	}
	r := &reader{}
	notRetry := "not a retry setting"
	r.object(top, "", fields{
		"timeout": func(v *yaml.Node, p string) {
			if d, ok := r.duration(v, p, parseProtoDuration, func(d time.Duration) bool { return d >= 0 }, envoyDurationRule+", 0s or more"); ok {
				c.Timeout = &d
			}
		},
		"retry_policy":     func(v *yaml.Node, p string) { c.RetryPolicy = r.envoyRetry(v, p) },
		"circuit_breakers": func(v *yaml.Node, p string) { c.CircuitBreakers = r.envoyBreakers(v, p) },
	}, map[string]string{
		"cluster": notRetry, "name": notRetry, "prefix_rewrite": notRetry, "host_rewrite_literal": notRetry,
		"idle_timeout": notRetry, "connect_timeout": notRetry, "type": notRetry, "lb_policy": notRetry,
		"load_assignment": notRetry, "hedge_policy": "hedging sends attempts in parallel; backofflab lanes retry one at a time",
	}, nil)
	return c, r.warns, r.err()
}

func (r *reader) envoyRetry(v *yaml.Node, path string) *EnvoyRetryPolicy {
	p := EnvoyRetryPolicy{NumRetries: 1}
	hostChoice := "which host a retry goes to is not a timing setting"
	ok := r.object(v, path, fields{
		"retry_on": func(v *yaml.Node, f string) {
			// Envoy's route loader keeps the conditions it knows and drops
			// the rest (RetryPolicyImpl takes parseRetryOn's bits, not its
			// all-valid flag): so does this, aloud.
			s, ok := r.text(v, f, false)
			if !ok {
				return
			}
			for _, c := range strings.Split(s, ",") {
				switch c = strings.TrimSpace(c); {
				case c == "":
				case slices.Contains(envoyRetryOn, c):
					p.RetryOn = append(p.RetryOn, c)
				default:
					r.warn(f, "Envoy ignores the unknown condition %q (it knows %s)", c, strings.Join(envoyRetryOn, ", "))
				}
			}
		},
		"num_retries": func(v *yaml.Node, f string) {
			n, _ := r.integer(v, f, 0, math.MaxUint32, "a whole number of retries, 0 to 4294967295", true)
			p.NumRetries = uint32(n)
		},
		"per_try_timeout": func(v *yaml.Node, f string) {
			p.PerTryTimeout, _ = r.duration(v, f, parseProtoDuration, positive, envoyDurationRule+", greater than 0")
		},
		"retriable_status_codes": func(v *yaml.Node, f string) {
			r.list(v, f, func(i int, v *yaml.Node, f string) {
				n, ok := r.integer(v, f, 100, 599, "an HTTP status code, 100 to 599", true)
				if ok {
					p.RetriableStatusCodes = append(p.RetriableStatusCodes, uint32(n))
				}
			})
		},
		"retry_back_off": func(v *yaml.Node, f string) { p.BackOff = r.envoyBackOff(v, f) },
		"rate_limited_retry_back_off": func(v *yaml.Node, f string) {
			r.fail(v, f, ErrUnsupported, "", "back-off read from a rate-limited response's headers: backofflab's server sends no reset headers")
		},
	}, map[string]string{
		"retry_priority": hostChoice, "retry_host_predicate": hostChoice,
		"host_selection_retry_max_attempts": hostChoice, "retry_options_predicates": hostChoice,
		"refresh_cluster_on_retry":  hostChoice,
		"retriable_headers":         "backofflab's answers carry no headers to match",
		"retriable_request_headers": "backofflab's requests carry no headers to match",
		"per_try_idle_timeout":      "backofflab's answers do not stream, so an idle timeout is the per-try timeout",
	}, nil)
	if !ok {
		return nil
	}
	return &p
}

// conditions reads a comma-separated list of retry conditions, each one of
// known or, with codes, an HTTP status code (Istio's retryOn).
func (r *reader) conditions(v *yaml.Node, path string, known []string, codes bool) []string {
	s, ok := r.text(v, path, false)
	if !ok {
		return nil
	}
	allowed := "a comma-separated list of " + strings.Join(known, ", ")
	if codes {
		allowed += ", or HTTP status codes"
	}
	var out []string
	for _, c := range strings.Split(s, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		if !slices.Contains(known, c) && !(codes && isStatusCode(c)) {
			r.fail(v, path, ErrOutOfRange, c, allowed)
			continue
		}
		out = append(out, c)
	}
	return out
}

// isStatusCode reports whether s is an HTTP status code, 100 to 599.
func isStatusCode(s string) bool {
	return len(s) == 3 && s[0] >= '1' && s[0] <= '5' && s[1] >= '0' && s[1] <= '9' && s[2] >= '0' && s[2] <= '9'
}

func (r *reader) envoyBackOff(v *yaml.Node, path string) *EnvoyBackOff {
	var b EnvoyBackOff
	ok := r.object(v, path, fields{
		"base_interval": func(v *yaml.Node, f string) {
			b.BaseInterval, _ = r.duration(v, f, parseProtoDuration, positive, envoyDurationRule+", greater than 0")
		},
		"max_interval": func(v *yaml.Node, f string) {
			b.MaxInterval, _ = r.duration(v, f, parseProtoDuration, positive, envoyDurationRule+", greater than 0")
		},
	}, nil, nil)
	if !ok {
		return nil
	}
	if b.BaseInterval == 0 && !hasKey(v, "base_interval") {
		r.fail(v, join(path, "base_interval"), ErrMissing, "", "Envoy requires it when retry_back_off is set")
	}
	if b.MaxInterval != 0 && b.BaseInterval != 0 && b.MaxInterval < b.BaseInterval {
		r.fail(v, join(path, "max_interval"), ErrOutOfRange, formatProtoDuration(b.MaxInterval),
			"at least base_interval, "+formatProtoDuration(b.BaseInterval))
	}
	return &b
}

// hasKey reports whether mapping n has the key.
func hasKey(n *yaml.Node, key string) bool {
	n = resolve(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if resolve(n.Content[i]).Value == key {
			return true
		}
	}
	return false
}

func (r *reader) envoyBreakers(v *yaml.Node, path string) *EnvoyCircuitBreakers {
	var c EnvoyCircuitBreakers
	ok := r.object(v, path, fields{
		"thresholds": func(v *yaml.Node, f string) {
			r.list(v, f, func(i int, v *yaml.Node, f string) {
				c.Thresholds = append(c.Thresholds, r.envoyThresholds(v, f))
			})
		},
	}, map[string]string{"per_host_thresholds": "per-host limits are on connections, not retries"}, nil)
	if !ok {
		return nil
	}
	return &c
}

func (r *reader) envoyThresholds(v *yaml.Node, path string) EnvoyThresholds {
	t := EnvoyThresholds{Priority: "DEFAULT", MaxRetries: EnvoyDefaultMaxRetries}
	notRetry := "a limit on connections or requests, not on retries"
	r.object(v, path, fields{
		"priority": func(v *yaml.Node, f string) {
			if s, ok := r.text(v, f, false); ok {
				if s != "DEFAULT" && s != "HIGH" {
					r.fail(v, f, ErrOutOfRange, s, "DEFAULT or HIGH")
				}
				t.Priority = s
			}
		},
		"max_retries": func(v *yaml.Node, f string) {
			n, _ := r.integer(v, f, 0, math.MaxUint32, "a whole number, 0 to 4294967295", true)
			t.MaxRetries = uint32(n)
		},
		"retry_budget": func(v *yaml.Node, f string) {
			b := EnvoyRetryBudget{BudgetPercent: EnvoyDefaultBudgetPercent, MinRetryConcurrency: EnvoyDefaultMinRetryConcurrency}
			if r.object(v, f, fields{
				"budget_percent": func(v *yaml.Node, f string) {
					r.object(v, f, fields{"value": func(v *yaml.Node, f string) {
						b.BudgetPercent, _ = r.number(v, f, func(x float64) bool { return x >= 0 && x <= 100 }, "a percentage in [0, 100]", false)
					}}, nil, nil)
				},
				"min_retry_concurrency": func(v *yaml.Node, f string) {
					n, _ := r.integer(v, f, 0, math.MaxUint32, "a whole number, 0 to 4294967295", true)
					b.MinRetryConcurrency = uint32(n)
				},
				"budget_interval": func(v *yaml.Node, f string) {
					b.BudgetInterval, _ = r.duration(v, f, parseProtoDuration, func(d time.Duration) bool { return d >= 0 }, envoyDurationRule+", 0s or more")
				},
			}, nil, nil) {
				t.RetryBudget = &b
			}
		},
	}, map[string]string{
		"max_connections": notRetry, "max_pending_requests": notRetry, "max_requests": notRetry,
		"max_connection_pools": notRetry, "track_remaining": "statistics, not a limit",
	}, nil)
	return t
}

// The YAML shapes that EnvoyConfig.Marshal writes.
type (
	envoyWire struct {
		Timeout         string             `yaml:"timeout,omitempty"`
		RetryPolicy     *envoyRetryWire    `yaml:"retry_policy,omitempty"`
		CircuitBreakers *envoyBreakersWire `yaml:"circuit_breakers,omitempty"`
	}
	envoyRetryWire struct {
		RetryOn              string            `yaml:"retry_on,omitempty"`
		NumRetries           uint32            `yaml:"num_retries"`
		PerTryTimeout        string            `yaml:"per_try_timeout,omitempty"`
		RetriableStatusCodes []uint32          `yaml:"retriable_status_codes,omitempty,flow"`
		RetryBackOff         *envoyBackOffWire `yaml:"retry_back_off,omitempty"`
	}
	envoyBackOffWire struct {
		BaseInterval string `yaml:"base_interval"`
		MaxInterval  string `yaml:"max_interval,omitempty"`
	}
	envoyBreakersWire struct {
		Thresholds []envoyThresholdsWire `yaml:"thresholds"`
	}
	envoyThresholdsWire struct {
		Priority    string           `yaml:"priority"`
		MaxRetries  uint32           `yaml:"max_retries"`
		RetryBudget *envoyBudgetWire `yaml:"retry_budget,omitempty"`
	}
	envoyBudgetWire struct {
		BudgetPercent       struct{ Value float64 } `yaml:"budget_percent"`
		MinRetryConcurrency uint32                  `yaml:"min_retry_concurrency"`
		BudgetInterval      string                  `yaml:"budget_interval,omitempty"`
	}
)

// Marshal writes c as an Envoy YAML fragment.
func (c EnvoyConfig) Marshal() ([]byte, error) { return marshalYAML(c.wire()) }

// wire is c as the YAML Marshal writes.
func (c EnvoyConfig) wire() envoyWire {
	var w envoyWire
	if c.Timeout != nil {
		w.Timeout = formatProtoDuration(*c.Timeout)
	}
	if p := c.RetryPolicy; p != nil {
		rw := &envoyRetryWire{RetryOn: strings.Join(p.RetryOn, ","), NumRetries: p.NumRetries, RetriableStatusCodes: p.RetriableStatusCodes}
		if p.PerTryTimeout != 0 {
			rw.PerTryTimeout = formatProtoDuration(p.PerTryTimeout)
		}
		if b := p.BackOff; b != nil {
			rw.RetryBackOff = &envoyBackOffWire{BaseInterval: formatProtoDuration(b.BaseInterval)}
			if b.MaxInterval != 0 {
				rw.RetryBackOff.MaxInterval = formatProtoDuration(b.MaxInterval)
			}
		}
		w.RetryPolicy = rw
	}
	if cb := c.CircuitBreakers; cb != nil {
		bw := &envoyBreakersWire{Thresholds: []envoyThresholdsWire{}}
		for _, t := range cb.Thresholds {
			tw := envoyThresholdsWire{Priority: t.Priority, MaxRetries: t.MaxRetries}
			if b := t.RetryBudget; b != nil {
				tw.RetryBudget = &envoyBudgetWire{MinRetryConcurrency: b.MinRetryConcurrency}
				tw.RetryBudget.BudgetPercent.Value = b.BudgetPercent
				if b.BudgetInterval != 0 {
					tw.RetryBudget.BudgetInterval = formatProtoDuration(b.BudgetInterval)
				}
			}
			bw.Thresholds = append(bw.Thresholds, tw)
		}
		w.CircuitBreakers = bw
	}
	return w
}

// marshalYAML writes v as YAML indented by two spaces.
func marshalYAML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("libconfig: writing %T: %w", v, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("libconfig: writing %T: %w", v, err)
	}
	return b.Bytes(), nil
}

func (c EnvoyConfig) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameEnvoy)
	var w []Warning
	field := map[string]string{"min_delay": "retry_policy.retry_back_off.base_interval", "max_delay": "retry_policy.retry_back_off.max_interval",
		"max_attempts": "retry_policy.num_retries", "per_try_timeout": "retry_policy.per_try_timeout", "deadline": "timeout"}
	p := c.RetryPolicy
	if p == nil {
		return l, nil, nil, &FieldError{Path: "retry_policy", Kind: ErrMissing, Allowed: "Envoy retries only with a retry_policy"}
	}
	l.MaxAttempts = int(p.NumRetries) + 1
	l.PerTryTimeout = p.PerTryTimeout
	l.MinDelay = EnvoyDefaultBaseInterval
	l.MaxDelay = 10 * l.MinDelay
	if b := p.BackOff; b != nil {
		l.MinDelay, l.MaxDelay = max(b.BaseInterval, time.Millisecond), 10*max(b.BaseInterval, time.Millisecond)
		if b.BaseInterval < time.Millisecond {
			w = append(w, Warning{"retry_policy.retry_back_off.base_interval", "under 1 ms: Envoy rounds it up to 1 ms, as the lane does"})
		}
		if b.MaxInterval != 0 {
			l.MaxDelay = b.MaxInterval
		}
	}
	if len(p.RetryOn) > 0 || len(p.RetriableStatusCodes) > 0 {
		w = append(w, Warning{"retry_policy.retry_on", "not expressed: the lane retries every failure, a timeout or an error answer"})
	}
	switch {
	case c.Timeout == nil:
		l.Deadline = envoyDefaultRouteTimeout
		w = append(w, Warning{"timeout", "unset: Envoy's default route timeout, 15s, is the lane's deadline (Envoy also cuts the attempt in flight there; the lane's deadline only stops new attempts)"})
	default:
		l.Deadline = *c.Timeout
		if l.Deadline > 0 {
			w = append(w, Warning{"timeout", "the lane's deadline stops new attempts only; Envoy also cuts the attempt in flight"})
		}
	}
	// Every Envoy cluster limits the retries outstanding at once. A lane's
	// requests are of the default routing priority: its thresholds are the
	// DEFAULT entry's, or Envoy's defaults (max_retries 3) without one.
	l.EnvoyRetryLimit = strategies.EnvoyMaxRetries
	if c.CircuitBreakers == nil {
		w = append(w, Warning{"circuit_breakers", "absent: the lane takes Envoy's default, max_retries 3 outstanding at once; paste the cluster's circuit_breakers if it sets its own"})
		return l, w, field, nil
	}
	for i, t := range c.CircuitBreakers.Thresholds {
		tp := fmt.Sprintf("circuit_breakers.thresholds[%d]", i)
		if t.Priority != "DEFAULT" {
			w = append(w, Warning{tp, "not read: a lane's requests are of the DEFAULT priority"})
			continue
		}
		l.EnvoyMaxRetries = int(t.MaxRetries)
		field["envoy_max_retries"] = tp + ".max_retries"
		if b := t.RetryBudget; b != nil {
			l.EnvoyRetryLimit, l.EnvoyBudgetPercent, l.EnvoyMinRetryConcurrency = strategies.EnvoyBudget, b.BudgetPercent, int(b.MinRetryConcurrency)
			field["envoy_budget_percent"], field["envoy_min_retry_concurrency"] = tp+".retry_budget.budget_percent.value", tp+".retry_budget.min_retry_concurrency"
			if b.BudgetInterval != 0 {
				w = append(w, Warning{tp + ".retry_budget.budget_interval", "not expressed: the lane's budget counts the requests in flight now"})
			}
		}
	}
	return l, w, field, nil
}

func envoyFromLane(l strategies.Params) (Config, []Warning, error) {
	why := otherRow("Envoy", l, strategies.NameEnvoy)
	why = append(why, noCount(l, "Envoy's num_retries")...)
	why = append(why, noLimiters(l, "Envoy", "envoy_retry_limit")...)
	p := &EnvoyRetryPolicy{RetryOn: []string{"5xx", "reset", "connect-failure"}, NumRetries: uint32(max(l.MaxAttempts-1, 0)), PerTryTimeout: l.PerTryTimeout}
	if l.MinDelay != EnvoyDefaultBaseInterval || l.MaxDelay != 10*EnvoyDefaultBaseInterval {
		p.BackOff = &EnvoyBackOff{BaseInterval: l.MinDelay}
		if l.MaxDelay != 10*l.MinDelay {
			p.BackOff.MaxInterval = l.MaxDelay
		}
	}
	d := l.Deadline
	c := EnvoyConfig{Timeout: &d, RetryPolicy: p}
	w := []Warning{{"retry_policy.retry_on", everyFailure}}
	switch l.EnvoyRetryLimit {
	case strategies.EnvoyMaxRetries, strategies.EnvoyBudget:
		t := EnvoyThresholds{Priority: "DEFAULT", MaxRetries: uint32(l.EnvoyMaxRetries)}
		if l.EnvoyRetryLimit == strategies.EnvoyBudget {
			t.RetryBudget = &EnvoyRetryBudget{BudgetPercent: l.EnvoyBudgetPercent, MinRetryConcurrency: uint32(l.EnvoyMinRetryConcurrency)}
		}
		c.CircuitBreakers = &EnvoyCircuitBreakers{Thresholds: []EnvoyThresholds{t}}
	default:
		why = append(why, "every Envoy cluster limits the retries outstanding at once (circuit_breakers max_retries, 3 by default), and the lane's envoy_retry_limit is off: set it to max_retries or budget")
	}
	return c, w, cannot("envoy", why)
}
