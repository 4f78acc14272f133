package libconfig

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// This file maps each library's model onto a backofflab lane and back,
// through the library rows of strategies' table (one row, or a reused
// one, per library, with the vocabulary's parameters it reads). The rows
// compute what each library computes; what a row cannot express is said
// here, as a Warning on import and as a CannotExpress on export.

// CannotExpress is a lane that library Lib cannot express, with every
// reason in plain words.
type CannotExpress struct {
	Lib     string
	Reasons []string
}

// Error names the library and every reason, as one sentence.
func (e *CannotExpress) Error() string {
	return fmt.Sprintf("%s cannot express this lane: %s", e.Lib, strings.Join(e.Reasons, "; "))
}

// Unwrap makes errors.Is(err, ErrUnsupported) true.
func (e *CannotExpress) Unwrap() error { return ErrUnsupported }

// Library constants the mapping uses, each with its source.
const (
	// awsBaseDelay and awsMaxBackoff are aws-sdk-go-v2 v1.48.0's standard
	// mode back-off for a non-throttling error (aws/retry/jitter_backoff.go,
	// backoffDelay2026: U[0,1)·min(50 ms·2^n, 20 s)).
	awsBaseDelay  = 50 * time.Millisecond
	awsMaxBackoff = 20 * time.Second
	// awsRetryCost2026 is v1.48.0's retry cost, which it charges timeouts
	// too (aws/retry/standard.go); before it, 5 and 10.
	awsRetryCost2026 = 14
	// awsThrottlingRetryCost is v1.48.0's cost of a retry after a
	// throttling error (standard.go, DefaultThrottlingRetryCost), which
	// adaptive mode's lane charges error answers.
	awsThrottlingRetryCost = 5
	// envoyDefaultRouteTimeout is RouteAction.timeout when unset.
	envoyDefaultRouteTimeout = 15 * time.Second
	// linkerdDelay stands for a Linkerd retry with no back-off, the least
	// min_delay of the vocabulary. No row models linkerd2-proxy's retry
	// timing yet; import says so in a warning.
	linkerdDelay = time.Millisecond
)

// laneOf is the lane parameters of row with its defaults.
func laneOf(row string) strategies.Params {
	p, ok := strategies.Defaults(row)
	if !ok {
		panic("libconfig: no strategy row " + row)
	}
	return p
}

// ToLane maps a library's configuration onto a lane: the strategy row that
// computes what the library computes and its parameters. Settings the lane
// cannot express are warnings; a configuration that holds several retry
// policies (methodConfigs, routes, profiles, instances) is ErrAmbiguous,
// one with none ErrMissing; a value outside the vocabulary's range is a
// FieldError naming the library's field and the lane's parameter.
func ToLane(c Config) (strategies.Params, []Warning, error) {
	l, w, _, err := toLane(c, "")
	return l, w, err
}

// policiesLane is a library's Config that may hold several retry
// policies, which pick chooses from (as Pick names them; "" when it holds
// one). Each library's mapping is in its own file.
type policiesLane interface {
	toLane(pick string) (strategies.Params, []Warning, map[string]string, error)
}

// policyLane is a library's Config that holds one retry policy.
type policyLane interface {
	toLane() (strategies.Params, []Warning, map[string]string, error)
}

// toLane is ToLane with the map from each lane parameter it set to the
// library's field that set it (nil for a code-configured library).
func toLane(c Config, pick string) (strategies.Params, []Warning, map[string]string, error) {
	var (
		l     strategies.Params
		w     []Warning
		err   error
		field map[string]string
	)
	switch c := c.(type) {
	case policiesLane:
		l, w, field, err = c.toLane(pick)
	case policyLane:
		l, w, field, err = c.toLane()
		if pick != "" {
			return l, nil, nil, &FieldError{Value: pick, Kind: ErrOutOfRange, Allowed: "the configuration holds one retry policy: nothing to pick"}
		}
	default:
		return l, nil, nil, fmt.Errorf("libconfig: no lane mapping for %T", c)
	}
	if err != nil {
		return l, w, field, err
	}
	return l, w, field, checkLane(l, field)
}

// toLane maps cenkalti/backoff's ExponentialBackOff onto a lane.
func (c CenkaltiBackoff) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameCenkalti)
	l.MinDelay, l.MaxDelay, l.Factor, l.Jitter = c.InitialInterval, c.MaxInterval, c.Multiplier, c.RandomizationFactor
	l.MaxAttempts, l.Deadline = c.MaxTries, c.MaxElapsedTime
	return l, nil, nil, nil
}

// toLane maps client-go's wait.Backoff onto a lane.
func (c ClientGoBackoff) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameClientGo)
	l.MinDelay, l.Factor, l.Jitter, l.MaxAttempts = c.Duration, c.Factor, c.Jitter, c.Steps
	if c.Cap > 0 {
		l.MaxDelay = c.Cap
	}
	return l, nil, nil, nil
}

// toLane maps tenacity's wait and stop onto a lane.
func (c Tenacity) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameTenacityExponential)
	if c.Random {
		l = laneOf(strategies.NameTenacityRandomExponential)
	}
	l.MinDelay, l.Factor, l.MaxAttempts, l.Deadline = c.Multiplier, c.ExpBase, c.StopAfterAttempt, c.StopAfterDelay
	if c.Max > 0 {
		l.MaxDelay = c.Max
	}
	return l, nil, nil, nil
}

// toLane maps urllib3's Retry onto a lane.
func (c Urllib3Retry) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameUrllib3)
	l.MinDelay, l.MaxDelay, l.MaxAttempts = c.BackoffFactor, c.BackoffMax, c.Total+1
	return l, nil, nil, nil
}

// checkLane checks l against the vocabulary's ranges; each error names
// the library's field that set the parameter (field maps a parameter's
// name to it) and the lane's parameter with its range.
func checkLane(l strategies.Params, field map[string]string) error {
	p := scenario.Defaults()
	p.Lanes[0].Params = l
	var errs []error
	for _, pe := range scenario.Errors(p.ValidateLane(0, scenario.ScopeStrategy, scenario.ScopeLimiter)) {
		path := field[pe.Name]
		if path == "" {
			path = "the lane's " + pe.Name
		}
		errs = append(errs, &FieldError{Path: path, Value: pe.Value, Kind: ErrUnsupported,
			Allowed: fmt.Sprintf("backofflab's %s takes %s", pe.Name, pe.Allow)})
	}
	return errors.Join(errs...)
}

// Query is lane l as the vocabulary writes it for the lane with the given
// letter (a, b, …): its strategy and every lane parameter whose value
// differs from the strategy's default, which scenario.Parse reads back as
// l. The values are the table's own formatting of l's typed values.
func Query(l strategies.Params, letter string) url.Values {
	p, def := scenario.Defaults(), scenario.Defaults()
	p.Lanes[0].Params = l
	def.Lanes[0].Params = laneOf(l.Strategy)
	q := url.Values{}
	for _, param := range scenario.Table {
		if !param.Lane {
			continue
		}
		v := param.Value(&p, 0)
		if param.Name == "strategy" || v != param.Value(&def, 0) {
			q.Set(letter+"."+param.Name, v)
		}
	}
	return q
}

// noLimiters lists, for a lane about to be written as library lib's
// configuration, every limiter the lane turns on that the library has no
// setting for; allowed are the limiters it has.
func noLimiters(l strategies.Params, lib string, allowed ...string) []string {
	var out []string
	for _, s := range []struct{ name, value string }{
		{"grpc_throttle", l.GRPCThrottle}, {"aws_quota", l.AWSQuota}, {"sre_throttle", l.SREThrottle},
		{"aws_adaptive", l.AWSAdaptive}, {"retry_budget", l.RetryBudget}, {"breaker", l.Breaker}, {"envoy_retry_limit", l.EnvoyRetryLimit},
	} {
		if s.value != "" && s.value != strategies.LimiterOff && !slices.Contains(allowed, s.name) {
			out = append(out, fmt.Sprintf("%s has no setting for the lane's %s limiter", lib, s.name))
		}
	}
	return out
}

// wrongRow is the reason a lane of another strategy cannot be written as
// library lib's configuration.
func wrongRow(lib string, l strategies.Params, rows ...string) string {
	return fmt.Sprintf("%s's back-off is the row %s; the lane's strategy is %s", lib, strings.Join(rows, " or "), l.Strategy)
}

// noDeadline is the reason a lane with a deadline cannot be written as
// library lib's configuration, which has none; nothing when the lane has
// none.
func noDeadline(l strategies.Params, lib string) []string {
	if l.Deadline == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s has no deadline for a request's retries; the lane's deadline is %v", lib, l.Deadline)}
}

// decimalShift returns x × 10^n computed on x's shortest decimal form, so
// that a ratio of 0.07 is a percentage of exactly 7.
func decimalShift(x float64, n int) float64 {
	mant, exp, _ := strings.Cut(strconv.FormatFloat(x, 'e', -1, 64), "e")
	e, _ := strconv.Atoi(exp)
	y, _ := strconv.ParseFloat(mant+"e"+strconv.Itoa(e+n), 64)
	return y
}

func (c GRPCServiceConfig) toLane(pick string) (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameGRPCRetry)
	var w []Warning
	var cands []candidate
	var at []int // the methodConfig of each candidate
	for i, m := range c.MethodConfigs {
		if m.RetryPolicy == nil {
			continue
		}
		cands = append(cands, candidate{names: grpcNames(m, i), path: fmt.Sprintf("methodConfig[%d]", i)})
		at = append(at, i)
	}
	k, err := choose(cands, pick, "methodConfig with a retryPolicy")
	if err != nil {
		return l, nil, nil, err
	}
	if k < 0 {
		return l, nil, nil, &FieldError{Path: "methodConfig[].retryPolicy", Kind: ErrMissing, Allowed: "gRPC retries only with a retryPolicy"}
	}
	i := at[k]
	for j, m := range c.MethodConfigs {
		switch {
		case j == i:
		case m.RetryPolicy == nil:
			w = append(w, Warning{fmt.Sprintf("methodConfig[%d]", j), fmt.Sprintf("no retryPolicy: gRPC does not retry calls to %s; not the lane, which is methodConfig[%d] (%s)", grpcNames(m, j)[0], i, cands[k].names[0])})
		default:
			w = append(w, Warning{fmt.Sprintf("methodConfig[%d]", j), fmt.Sprintf("not the lane, which is methodConfig[%d] (%s): pick %q for this one", i, cands[k].names[0], grpcNames(m, j)[0])})
		}
	}
	m := c.MethodConfigs[i]
	p := m.RetryPolicy
	base := fmt.Sprintf("methodConfig[%d]", i)
	rp := base + ".retryPolicy"
	l.MinDelay, l.MaxDelay, l.Factor, l.MaxAttempts = p.InitialBackoff, p.MaxBackoff, p.BackoffMultiplier, p.MaxAttempts
	l.Deadline = m.Timeout
	if m.Timeout > 0 {
		w = append(w, Warning{base + ".timeout", "the call's deadline over every attempt: the lane's deadline stops new attempts at it, but gRPC also cancels the attempt in flight there, which the lane lets run to the clients' timeout (so its last attempt may end up to that timeout past the deadline)"})
	}
	w = append(w, Warning{rp + ".retryableStatusCodes", "not expressed: the lane retries every failure, a timeout or an error answer"})
	if p.PerAttemptRecvTimeout != 0 {
		w = append(w, Warning{rp + ".perAttemptRecvTimeout", "not expressed: the row grpc_retry reads no per-attempt timeout; set the clients' timeout to it"})
	}
	field := map[string]string{"min_delay": rp + ".initialBackoff", "max_delay": rp + ".maxBackoff",
		"factor": rp + ".backoffMultiplier", "max_attempts": rp + ".maxAttempts", "deadline": base + ".timeout"}
	if t := c.Throttling; t != nil {
		l.GRPCThrottle, l.GRPCMaxTokens = strategies.LimiterOn, float64(t.MaxTokens)
		l.GRPCTokenRatio = math.Trunc(decimalShift(t.TokenRatio, 3)) / 1000 // gRPC reads three decimal places
		field["grpc_max_tokens"], field["grpc_token_ratio"] = "retryThrottling.maxTokens", "retryThrottling.tokenRatio"
	}
	return l, w, field, nil
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

func (c IstioConfig) toLane(pick string) (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameEnvoy)
	var w []Warning
	// Every route retries: one without retries takes Istio's default
	// policy, so each is a candidate.
	cands := make([]candidate, len(c.Routes))
	for i, r := range c.Routes {
		cands[i] = candidate{names: []string{fmt.Sprintf("http[%d]", i)}, path: fmt.Sprintf("http[%d]", i)}
		if r.Name != "" {
			cands[i].names = []string{r.Name, cands[i].names[0]}
		}
	}
	at, err := choose(cands, pick, "route (one without retries has Istio's default, 2 retries)")
	if err != nil {
		return l, nil, nil, err
	}
	if at < 0 {
		return l, nil, nil, &FieldError{Path: "http", Kind: ErrMissing, Allowed: "an HTTP route: only HTTP routes retry"}
	}
	rt := c.Routes[at]
	base := fmt.Sprintf("http[%d]", at)
	if len(c.Routes) > 1 {
		w = append(w, Warning{base, fmt.Sprintf("the lane is this route, %s, of %d; the others are not imported", cands[at].names[0], len(c.Routes))})
	}
	attempts := int32(IstioDefaultAttempts)
	l.MinDelay = EnvoyDefaultBaseInterval
	if t := rt.Retries; t != nil {
		attempts = t.Attempts
		l.PerTryTimeout = t.PerTryTimeout
		if t.Backoff != 0 {
			l.MinDelay = t.Backoff
		}
		w = append(w, Warning{base + ".retries.retryOn", "not expressed: the lane retries every failure, a timeout or an error answer"})
	} else {
		w = append(w, Warning{base + ".retries", "unset: Istio's default, 2 retries with Envoy's back-off"})
	}
	// Istio's DestinationRule, not this file, sets its clusters' limit;
	// its default, 2^32−1 retries outstanding at once, is no limit.
	w = append(w, Warning{"", "a DestinationRule's trafficPolicy.connectionPool.http.maxRetries limits the retries outstanding at once (Envoy's max_retries; Istio's default, 2^32−1, is no limit): the lane's envoy_retry_limit is off; if your DestinationRule sets maxRetries, set envoy_retry_limit=max_retries and envoy_max_retries to it"})
	l.MaxDelay = 10 * l.MinDelay
	l.MaxAttempts = int(attempts) + 1
	l.Deadline = rt.Timeout
	return l, w, map[string]string{"min_delay": base + ".retries.backoff", "max_delay": base + ".retries.backoff",
		"max_attempts": base + ".retries.attempts", "per_try_timeout": base + ".retries.perTryTimeout", "deadline": base + ".timeout"}, nil
}

func (c LinkerdConfig) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameFixed)
	l.MinDelay = linkerdDelay
	w := []Warning{{"", "Linkerd's retry timing is not a row (its back-off was not checked against linkerd2-proxy): the lane retries after 1ms, the least min_delay, as a retry with no back-off; the limit, the budget and the timeouts are Linkerd's"}}
	field := map[string]string{"deadline": `["timeout.linkerd.io/request"]`, "max_attempts": `["retry.linkerd.io/limit"]`}
	annotated := len(c.HTTP)+len(c.GRPC) > 0
	if !annotated && c.Budget == nil {
		return l, nil, nil, &FieldError{Path: `["retry.linkerd.io/http"]`, Kind: ErrMissing,
			Allowed: "Linkerd retries with retry.linkerd.io/http or /grpc, or by a ServiceProfile's retryBudget"}
	}
	l.Deadline = c.RequestTimeout
	if b := c.Budget; b != nil {
		// A ServiceProfile's retries have no limit per request: its budget
		// bounds them.
		l.RetryBudget = strategies.LimiterOn
		l.BudgetPercent, l.BudgetMinPerSec, l.BudgetTTL = decimalShift(b.RetryRatio, 2), b.MinRetriesPerSecond, b.TTL
		field["budget_percent"], field["budget_min_per_sec"], field["budget_ttl"] = "spec.retryBudget.retryRatio", "spec.retryBudget.minRetriesPerSecond", "spec.retryBudget.ttl"
		if annotated {
			w = append(w, Warning{`["retry.linkerd.io/limit"]`, "ignored: Linkerd uses a service's ServiceProfile and ignores its retry annotations; the lane retries within the budget, with no limit per request"})
		}
		return l, w, field, nil
	}
	l.MaxAttempts = c.Limit + 1
	w = append(w, Warning{`["retry.linkerd.io/http"]`, "not expressed: the lane retries every failure, a timeout or an error answer"})
	if c.Timeout != 0 {
		w = append(w, Warning{`["retry.linkerd.io/timeout"]`, "not expressed: the row fixed reads no per-attempt timeout; set the clients' timeout to it"})
	}
	return l, w, field, nil
}

func (c AWSConfig) toLane(pick string) (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameFullJitter)
	sectionOf := func(name string) string {
		if name == "default" {
			return "[default]"
		}
		return "[profile " + name + "]"
	}
	cands := make([]candidate, len(c.Profiles))
	for i, p := range c.Profiles {
		cands[i] = candidate{names: []string{p.Name, sectionOf(p.Name)}, path: sectionOf(p.Name)}
	}
	at, err := choose(cands, pick, "profile that sets retry settings")
	if err != nil {
		return l, nil, nil, err
	}
	if at < 0 {
		return l, nil, nil, &FieldError{Path: "retry_mode", Kind: ErrMissing, Allowed: "a profile that sets retry_mode or max_attempts"}
	}
	p := c.Profiles[at]
	section := sectionOf(p.Name)
	var w []Warning
	switch p.RetryMode {
	case "legacy":
		return l, nil, nil, &FieldError{Path: section + ".retry_mode", Value: p.RetryMode, Kind: ErrUnsupported,
			Allowed: "legacy is each SDK's own behaviour from before standard mode (botocore's, for one), not a row; standard or adaptive (the row aws_legacy is aws-sdk-go-v2's standard mode before v1.48.0, not this)"}
	case "adaptive":
		// Adaptive mode is standard mode's retries and quota with the
		// client rate limiter in front of every attempt. The lane takes
		// error answers for throttling errors, and so does all the SDK
		// does with one: its rate limiter backs off, its back-off starts
		// from 1 s, its quota charges 5.
		l = laneOf(strategies.NameAWSThrottled)
		l.AWSAdaptive = strategies.LimiterOn
		w = append(w, Warning{section + ".retry_mode", "adaptive: its client rate limiter is the lane's aws_adaptive, with two choices of the model: an attempt that finds no token fails at once (the SDK's FailOnNoAttemptTokens; by default the SDK waits for a token), and an error answer is a throttling error, a timeout is not"})
		w = append(w, Warning{section + ".retry_mode", "adaptive mode's back-off and quota as aws-sdk-go-v2 v1.48.0 runs them with error answers as throttling errors (the row aws_throttled: base 1s after an error answer, 50ms after a timeout, cap 20s; retry cost 5 after an error answer, 14 after a timeout)"})
	case "":
		w = append(w, Warning{section + ".retry_mode", "unset: the SDKs' default, standard"})
	}
	l.MinDelay, l.MaxDelay = awsBaseDelay, awsMaxBackoff
	l.MaxAttempts = AWSDefaultMaxAttempts
	if p.MaxAttempts != 0 {
		l.MaxAttempts = p.MaxAttempts
	}
	l.AWSQuota, l.AWSRetryCost, l.AWSTimeoutCost = strategies.LimiterOn, awsRetryCost2026, awsRetryCost2026
	if l.AWSAdaptive == strategies.LimiterOn {
		l.AWSRetryCost = awsThrottlingRetryCost
	} else {
		w = append(w, Warning{section + ".retry_mode", "standard mode's back-off and quota as aws-sdk-go-v2 v1.48.0 runs them (base 50ms, cap 20s, retry cost 14), no error answer taken for a throttling error; before v1.48.0 the back-off is the row aws_legacy"})
	}
	return l, w, map[string]string{"max_attempts": section + ".max_attempts"}, nil
}

func (c Resilience4jConfig) toLane(pick string) (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameResilience4j)
	cands := make([]candidate, len(c.Instances))
	for i, in := range c.Instances {
		cands[i] = candidate{names: []string{in.Name}, path: "resilience4j.retry.instances"}
	}
	at, err := choose(cands, pick, "instance")
	if err != nil {
		return l, nil, nil, err
	}
	if at < 0 {
		return l, nil, nil, &FieldError{Path: "resilience4j.retry.instances", Kind: ErrMissing, Allowed: "a retry or circuit-breaker instance"}
	}
	in := c.Instances[at]
	var w []Warning
	rp := "resilience4j.retry.instances." + in.Name
	cp := "resilience4j.circuitbreaker.instances." + in.Name
	field := map[string]string{"min_delay": rp + ".waitDuration", "max_delay": rp + ".exponentialMaxWaitDuration",
		"factor": rp + ".exponentialBackoffMultiplier", "jitter": rp + ".randomizedWaitFactor", "max_attempts": rp + ".maxAttempts",
		"breaker_threshold": cp + ".failureRateThreshold", "breaker_window": cp + ".slidingWindowSize",
		"breaker_min_calls": cp + ".minimumNumberOfCalls", "breaker_open_for": cp + ".waitDurationInOpenState",
		"breaker_probes": cp + ".permittedNumberOfCallsInHalfOpenState"}
	if t := in.Retry; t != nil {
		l.MaxAttempts, l.MinDelay = t.MaxAttempts, t.WaitDuration
		if t.EnableExponentialBackoff {
			l.Factor = t.ExponentialBackoffMultiplier
			if t.ExponentialMaxWaitDuration != 0 {
				l.MaxDelay = t.ExponentialMaxWaitDuration
			}
		}
		if t.EnableRandomizedWait {
			l.Jitter = t.RandomizedWaitFactor
		}
	} else {
		// Not strategy none, which reads no limiter: the breaker must still
		// judge the one attempt.
		l.MaxAttempts = 1
		w = append(w, Warning{rp, "unset: the lane makes one attempt per request (max_attempts 1)"})
	}
	if b := in.CircuitBreaker; b != nil {
		if b.SlidingWindowType != "COUNT_BASED" {
			return l, nil, nil, &FieldError{Path: cp + ".slidingWindowType", Value: b.SlidingWindowType, Kind: ErrUnsupported,
				Allowed: "COUNT_BASED: backofflab's breaker counts calls"}
		}
		l.Breaker = strategies.BreakerAll
		l.BreakerThreshold, l.BreakerWindow, l.BreakerMinCalls = b.FailureRateThreshold, b.SlidingWindowSize, b.MinimumNumberOfCalls
		l.BreakerOpenFor, l.BreakerProbes = b.WaitDurationInOpenState, b.PermittedNumberOfCallsInHalfOpenState
		w = append(w, Warning{cp, "every attempt passes the breaker (resilience4j's default aspect order: Retry around CircuitBreaker)"})
		if b.SlowCallRateThreshold < 100 {
			w = append(w, Warning{cp + ".slowCallRateThreshold", "not expressed: the breaker counts failures, not slow calls"})
		}
	}
	return l, w, field, nil
}

func (p PollyRetry) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NamePolly)
	l.MaxAttempts, l.MinDelay, l.MaxDelay = p.MaxRetryAttempts+1, p.Delay, strategies.DefaultNoCap
	if p.MaxDelay != nil {
		l.MaxDelay = *p.MaxDelay
	}
	l.BackoffType, l.UseJitter = strings.ToLower(p.BackoffType), p.UseJitter
	return l, nil, map[string]string{"max_attempts": "MaxRetryAttempts", "min_delay": "Delay", "max_delay": "MaxDelay"}, nil
}

// Exporter is one library a lane can be written as: the text libraries'
// configurations and the code-configured libraries' lines of code.
type Exporter struct {
	// Name is the library's name on the command line (-lib).
	Name string
	// Export writes lane l as the library's model, with the warnings of
	// what it had to choose (the retry conditions), or a *CannotExpress.
	Export func(l strategies.Params) (Config, []Warning, error)
}

// Exporters lists every library a lane can be written as.
func Exporters() []Exporter { return slices.Clone(exporters) }

// LookupExporter returns the exporter named name.
func LookupExporter(name string) (Exporter, bool) {
	i := slices.IndexFunc(exporters, func(e Exporter) bool { return e.Name == name })
	if i < 0 {
		return Exporter{}, false
	}
	return exporters[i], true
}

var exporters = []Exporter{
	{"grpc", grpcFromLane}, {"envoy", envoyFromLane}, {"istio", istioFromLane}, {"linkerd", linkerdFromLane},
	{"aws", awsFromLane}, {"resilience4j", r4jFromLane},
	{"polly", func(l strategies.Params) (Config, []Warning, error) { return pollyFromLane(l, "polly") }},
	{"polly-csharp", func(l strategies.Params) (Config, []Warning, error) {
		p, w, err := pollyFromLane(l, "polly-csharp")
		if err != nil {
			return nil, w, err
		}
		return PollyCode{p.(PollyRetry)}, w, nil
	}},
	{"cenkalti", cenkaltiFromLane}, {"client-go", clientGoFromLane}, {"tenacity", tenacityFromLane}, {"urllib3", urllib3FromLane},
}

// cannot returns a *CannotExpress when reasons holds any.
func cannot(lib string, reasons []string) error {
	if len(reasons) == 0 {
		return nil
	}
	return &CannotExpress{Lib: lib, Reasons: reasons}
}

var everyFailure = "the lane retries every failure; the conditions written are the usual transient ones: add your service's"

func grpcFromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	if l.Strategy != strategies.NameGRPCRetry {
		why = append(why, wrongRow("gRPC", l, strategies.NameGRPCRetry))
	}
	if l.MaxAttempts < 2 || l.MaxAttempts > GRPCMaxAttemptsCap {
		why = append(why, fmt.Sprintf("gRPC's maxAttempts is 2 to 5; the lane's max_attempts is %d (0: no limit)", l.MaxAttempts))
	}
	why = append(why, noLimiters(l, "gRPC", "grpc_throttle")...)
	c := GRPCServiceConfig{MethodConfigs: []GRPCMethodConfig{{Names: []GRPCName{{}}, Timeout: l.Deadline,
		RetryPolicy: &GRPCRetryPolicy{MaxAttempts: l.MaxAttempts, InitialBackoff: l.MinDelay, MaxBackoff: l.MaxDelay,
			BackoffMultiplier: l.Factor, RetryableStatusCodes: []string{"UNAVAILABLE"}}}}}
	if l.GRPCThrottle == strategies.LimiterOn {
		if l.GRPCMaxTokens != math.Trunc(l.GRPCMaxTokens) {
			why = append(why, fmt.Sprintf("gRPC's maxTokens is a whole number; the lane's grpc_max_tokens is %g", l.GRPCMaxTokens))
		}
		if r := decimalShift(l.GRPCTokenRatio, 3); r != math.Trunc(r) {
			why = append(why, fmt.Sprintf("gRPC reads three decimal places of tokenRatio; the lane's grpc_token_ratio is %g", l.GRPCTokenRatio))
		}
		c.Throttling = &GRPCThrottling{MaxTokens: int(l.GRPCMaxTokens), TokenRatio: l.GRPCTokenRatio}
	}
	return c, []Warning{{"methodConfig[0].retryPolicy.retryableStatusCodes", everyFailure}}, cannot("grpc", why)
}

func envoyFromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	if l.Strategy != strategies.NameEnvoy {
		why = append(why, wrongRow("Envoy", l, strategies.NameEnvoy))
	}
	if l.MaxAttempts < 1 {
		why = append(why, "Envoy's num_retries is a count; the lane has no max_attempts")
	}
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

func istioFromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	if l.Strategy != strategies.NameEnvoy {
		why = append(why, wrongRow("Istio", l, strategies.NameEnvoy))
	}
	if l.MaxAttempts < 1 {
		why = append(why, "Istio's attempts is a count; the lane has no max_attempts")
	}
	if l.MaxDelay != 10*l.MinDelay {
		why = append(why, fmt.Sprintf("Istio sets only the back-off's base (backoff); its cap is 10 × that, %v, and the lane's max_delay is %v", 10*l.MinDelay, l.MaxDelay))
	}
	why = append(why, noLimiters(l, "Istio", "envoy_retry_limit")...)
	switch l.EnvoyRetryLimit {
	case strategies.EnvoyMaxRetries:
		why = append(why, fmt.Sprintf("a VirtualService has no retry limit across requests: the lane's envoy_max_retries %d is a DestinationRule's trafficPolicy.connectionPool.http.maxRetries, which export does not write", l.EnvoyMaxRetries))
	case strategies.EnvoyBudget:
		why = append(why, "Istio has no setting for an Envoy retry_budget, the lane's envoy_retry_limit")
	}
	t := &IstioRetry{Attempts: int32(max(l.MaxAttempts-1, 0)), PerTryTimeout: l.PerTryTimeout, RetryOn: []string{"5xx", "reset", "connect-failure"}}
	if l.MinDelay != EnvoyDefaultBaseInterval {
		t.Backoff = l.MinDelay
	}
	return IstioConfig{Routes: []IstioRoute{{Timeout: l.Deadline, Retries: t}}}, []Warning{{"http[0].retries.retryOn", everyFailure}}, cannot("istio", why)
}

func linkerdFromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	if l.Strategy != strategies.NameFixed || l.MinDelay != linkerdDelay {
		why = append(why, fmt.Sprintf("Linkerd's configuration sets no back-off: the lane's strategy must be fixed with min_delay 1ms, a retry with no back-off (it is %s, %v)", l.Strategy, l.MinDelay))
	}
	why = append(why, noLimiters(l, "Linkerd", "retry_budget")...)
	c := LinkerdConfig{Limit: LinkerdDefaultLimit, RequestTimeout: l.Deadline}
	if l.Deadline%time.Millisecond != 0 {
		why = append(why, "Linkerd's timeouts are whole milliseconds; the lane's deadline is "+l.Deadline.String())
	}
	switch {
	case l.RetryBudget == strategies.LimiterOn && l.MaxAttempts > 0:
		why = append(why, "Linkerd bounds retries by a ServiceProfile's budget or by the annotations' limit, never both: a proxy ignores the annotations of a service with a ServiceProfile")
	case l.RetryBudget == strategies.LimiterOn:
		c.Budget = &LinkerdBudget{RetryRatio: decimalShift(l.BudgetPercent, -2), MinRetriesPerSecond: l.BudgetMinPerSec, TTL: l.BudgetTTL}
		return c, nil, cannot("linkerd", why)
	case l.MaxAttempts > 0:
		c.HTTP, c.Limit = []string{"5xx"}, l.MaxAttempts-1
	default:
		why = append(why, "Linkerd's retry annotations need a limit: the lane has neither max_attempts nor a retry_budget")
	}
	return c, []Warning{{`["retry.linkerd.io/http"]`, everyFailure}}, cannot("linkerd", why)
}

func awsFromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	adaptive := l.AWSAdaptive == strategies.LimiterOn
	row, retryCost := strategies.NameFullJitter, awsRetryCost2026
	if adaptive {
		row, retryCost = strategies.NameAWSThrottled, awsThrottlingRetryCost
	}
	switch {
	case l.Strategy == strategies.NameAWSLegacy:
		why = append(why, "the row aws_legacy is aws-sdk-go-v2's standard mode before v1.48.0, and the shared config cannot choose an SDK's version: v1.48.0's standard mode is full_jitter with min_delay 50ms and max_delay 20s")
	case l.Strategy != row || l.MinDelay != awsBaseDelay || l.MaxDelay != awsMaxBackoff:
		why = append(why, fmt.Sprintf("the shared config sets no delays: standard mode is full_jitter, adaptive mode (aws_adaptive on) aws_throttled, with min_delay 50ms and max_delay 20s (the lane: %s, %v, %v, aws_adaptive %s)", l.Strategy, l.MinDelay, l.MaxDelay, l.AWSAdaptive))
	}
	if l.MaxAttempts < 1 {
		why = append(why, "max_attempts is a count; the lane has no max_attempts")
	}
	why = append(why, noDeadline(l, "the AWS SDKs' retryer")...)
	if l.AWSQuota != strategies.LimiterOn || l.AWSQuotaTokens != strategies.DefaultAWSQuotaTokens || l.AWSRetryCost != retryCost ||
		l.AWSTimeoutCost != awsRetryCost2026 || l.AWSNoRetryIncrement != strategies.DefaultAWSNoRetryIncrement {
		why = append(why, fmt.Sprintf("the SDKs' retry quota is always on, with 500 tokens and a retry cost of 14, 5 after a throttling error, which adaptive mode's lane takes every error answer for (aws-sdk-go-v2 v1.48.0): the lane's aws_quota should be on with aws_retry_cost %d and aws_timeout_cost 14", retryCost))
	}
	why = append(why, noLimiters(l, "the AWS shared config", "aws_quota", "aws_adaptive")...)
	mode := "standard"
	if l.AWSAdaptive == strategies.LimiterOn {
		mode = "adaptive"
	}
	return AWSConfig{Profiles: []AWSProfile{{Name: "default", RetryMode: mode, MaxAttempts: l.MaxAttempts}}}, nil, cannot("aws", why)
}

func r4jFromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	in := R4jInstance{Name: "backend"}
	switch l.Strategy {
	case strategies.NameResilience4j:
		if l.MaxAttempts < 1 {
			why = append(why, "maxAttempts is a count; the lane has no max_attempts")
		}
		t := R4jRetryDefaults()
		t.MaxAttempts, t.WaitDuration = l.MaxAttempts, l.MinDelay
		if l.Factor != 1 || l.MaxDelay != strategies.DefaultNoCap {
			t.EnableExponentialBackoff, t.ExponentialBackoffMultiplier = true, l.Factor
			if l.MaxDelay != strategies.DefaultNoCap {
				t.ExponentialMaxWaitDuration = l.MaxDelay
			}
		}
		if l.Jitter > 0 {
			t.EnableRandomizedWait, t.RandomizedWaitFactor = true, l.Jitter
			if l.Jitter >= 1 {
				why = append(why, fmt.Sprintf("resilience4j's randomizedWaitFactor is under 1 (InstanceProperties refuses 1); the lane's jitter is %g", l.Jitter))
			}
		}
		in.Retry = &t
	default:
		why = append(why, wrongRow("resilience4j", l, strategies.NameResilience4j))
	}
	switch l.Breaker {
	case strategies.BreakerAll:
		b := R4jCircuitBreakerDefaults()
		b.FailureRateThreshold, b.SlidingWindowSize, b.MinimumNumberOfCalls = l.BreakerThreshold, l.BreakerWindow, l.BreakerMinCalls
		b.WaitDurationInOpenState, b.PermittedNumberOfCallsInHalfOpenState = l.BreakerOpenFor, l.BreakerProbes
		in.CircuitBreaker = &b
	case strategies.BreakerRetries:
		why = append(why, "resilience4j's CircuitBreaker sees every call; the lane's breaker refuses retries only")
	}
	why = append(why, noDeadline(l, "resilience4j's Retry")...)
	why = append(why, noLimiters(l, "resilience4j", "breaker")...)
	return Resilience4jConfig{Instances: []R4jInstance{in}}, nil, cannot("resilience4j", why)
}

func pollyFromLane(l strategies.Params, lib string) (Config, []Warning, error) {
	var why []string
	if l.Strategy != strategies.NamePolly {
		why = append(why, wrongRow("Polly", l, strategies.NamePolly))
	}
	if l.MaxAttempts < 2 {
		why = append(why, fmt.Sprintf("MaxRetryAttempts is at least 1 (max_attempts 2); the lane's max_attempts is %d (0: no limit)", l.MaxAttempts))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"min_delay", l.MinDelay}, {"max_delay", l.MaxDelay}} {
		if d.v%100 != 0 || d.v > 24*time.Hour {
			why = append(why, fmt.Sprintf("a TimeSpan is whole 100 ns ticks up to 1 day; the lane's %s is %v", d.name, d.v))
		}
	}
	why = append(why, noDeadline(l, "Polly's retry strategy")...)
	why = append(why, noLimiters(l, "Polly")...)
	i := slices.Index(strategies.PollyBackoffTypes(), l.BackoffType)
	if i < 0 {
		i = 0
	}
	p := PollyRetry{MaxRetryAttempts: l.MaxAttempts - 1, Delay: l.MinDelay, BackoffType: pollyBackoffTypes[i], UseJitter: l.UseJitter}
	if l.MaxDelay != strategies.DefaultNoCap {
		d := l.MaxDelay
		p.MaxDelay = &d
	}
	return p, nil, cannot(lib, why)
}

func cenkaltiFromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	if l.Strategy != strategies.NameCenkalti {
		why = append(why, wrongRow("cenkalti/backoff", l, strategies.NameCenkalti))
	}
	why = append(why, noLimiters(l, "cenkalti/backoff")...)
	return CenkaltiBackoff{InitialInterval: l.MinDelay, RandomizationFactor: l.Jitter, Multiplier: l.Factor, MaxInterval: l.MaxDelay,
		MaxTries: l.MaxAttempts, MaxElapsedTime: l.Deadline}, nil, cannot("cenkalti", why)
}

func clientGoFromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	if l.Strategy != strategies.NameClientGo {
		why = append(why, wrongRow("client-go", l, strategies.NameClientGo))
	}
	if l.MaxAttempts < 1 {
		why = append(why, "Steps is a count; the lane has no max_attempts")
	}
	why = append(why, noDeadline(l, "client-go's wait.Backoff")...)
	why = append(why, noLimiters(l, "client-go")...)
	c := ClientGoBackoff{Duration: l.MinDelay, Factor: l.Factor, Jitter: l.Jitter, Steps: l.MaxAttempts}
	if l.MaxDelay != strategies.DefaultNoCap {
		c.Cap = l.MaxDelay
	}
	return c, nil, cannot("client-go", why)
}

func tenacityFromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	if l.Strategy != strategies.NameTenacityExponential && l.Strategy != strategies.NameTenacityRandomExponential {
		why = append(why, wrongRow("tenacity", l, strategies.NameTenacityExponential, strategies.NameTenacityRandomExponential))
	}
	why = append(why, noLimiters(l, "tenacity")...)
	t := Tenacity{Random: l.Strategy == strategies.NameTenacityRandomExponential, Multiplier: l.MinDelay, ExpBase: l.Factor,
		StopAfterAttempt: l.MaxAttempts, StopAfterDelay: l.Deadline}
	if l.MaxDelay != strategies.DefaultNoCap {
		t.Max = l.MaxDelay
	}
	w := []Warning{{"min", "0, the lane's: tenacity raises every wait to min after the cap (max(min, min(wait, max))), which the lane's row does not; leave it 0"}}
	return t, w, cannot("tenacity", why)
}

func urllib3FromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	if l.Strategy != strategies.NameUrllib3 {
		why = append(why, wrongRow("urllib3", l, strategies.NameUrllib3))
	}
	if l.MaxAttempts < 1 {
		why = append(why, "total is a count; the lane has no max_attempts")
	}
	why = append(why, noDeadline(l, "urllib3's Retry")...)
	why = append(why, noLimiters(l, "urllib3")...)
	w := []Warning{
		{"status_forcelist", "the lane retries every error answer; urllib3 retries an answer only if its status is listed: the ones written are the usual server errors: add your service's"},
		{"connect, read, redirect, status, other", "None: the lane counts every failure against max_attempts alone, as total does; urllib3 counts each of these kinds on its own when one is set (status=3 with total=6 stops retrying error answers after 4 attempts, where total allows 7)"},
		{"allowed_methods", "None: the lane retries every request; urllib3's default retries a read error, a timeout, only for idempotent methods"},
		{"backoff_jitter", "0.0, the lane's: urllib3 adds U[0,1)×backoff_jitter seconds to each wait before the cap, which the lane's row does not draw"},
	}
	return Urllib3Retry{Total: max(l.MaxAttempts-1, 0), BackoffFactor: l.MinDelay, BackoffMax: l.MaxDelay}, w, cannot("urllib3", why)
}

// grpcNames are the names that pick methodConfig i: each of its names as
// "service/method", or "service" for a whole service, then its index;
// the first is the one a list shows ("*" for the channel's default).
func grpcNames(m GRPCMethodConfig, i int) []string {
	var out []string
	for _, n := range m.Names {
		switch {
		case n.Service == "":
			out = append(out, "*")
		case n.Method == "":
			out = append(out, n.Service)
		default:
			out = append(out, n.Service+"/"+n.Method)
		}
	}
	return append(out, fmt.Sprintf("methodConfig[%d]", i))
}
