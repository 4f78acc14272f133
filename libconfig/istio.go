package libconfig

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/backofflab/backofflab/strategies"
	"go.yaml.in/yaml/v3"
)

// IstioConfig is the retry part of an Istio VirtualService (istio.io/api
// v1.31.4, networking/v1 VirtualService; its HTTPRoute and HTTPRetry
// messages in networking/v1alpha3/virtual_service.proto), with the
// camelCase field names of its YAML.
type IstioConfig struct {
	// Routes are spec.http's routes, in order.
	Routes []IstioRoute
}

// IstioRoute is one HTTPRoute's name, timeout and retries.
type IstioRoute struct {
	// Name is name, the route's name for logs; may be empty.
	Name string
	// Timeout is timeout, the request's whole deadline with its retries;
	// 0 when unset (Istio then sets none).
	Timeout time.Duration
	// Retries is retries, or nil when unset: Istio's default policy, 2
	// retries on connect-failure,refused-stream,unavailable,cancelled,
	// retriable-status-codes.
	Retries *IstioRetry
}

// IstioRetry is HTTPRetry. Istio programs Envoy's retry policy from it, so
// the back-off is Envoy's: U(0, min(base×2^n, 10×base)).
type IstioRetry struct {
	// Attempts is attempts: retries after the first attempt, at least 0; 0
	// disables retries.
	Attempts int32
	// PerTryTimeout is perTryTimeout ("1h/1m/1s/1ms", at least 1 ms); 0
	// when unset (each try has the route's timeout).
	PerTryTimeout time.Duration
	// RetryOn is retryOn, split: Envoy's conditions and HTTP status codes;
	// empty means Istio's default connect-failure,refused-stream,
	// unavailable,cancelled. Unlike Envoy, which drops a condition it does
	// not know, Istio's validation refuses the VirtualService: so does
	// the parser.
	RetryOn []string
	// Backoff is backoff, the base interval of Envoy's back-off; 0 when
	// unset (25 ms).
	Backoff time.Duration
}

// The defaults Istio applies (HTTPRetry's documentation).
const IstioDefaultAttempts = 2

const istioDurationRule = `a duration such as "1h", "1m", "1s" or "250ms", at least 1ms`

// ParseIstio reads a VirtualService in YAML: the whole object (apiVersion,
// kind, metadata, spec) or its spec (hosts, http, …). Every HTTP route's
// timeout and retries are read; the other fields of a route (match,
// route, fault, …) are warnings.
func ParseIstio(data []byte) (IstioConfig, []Warning, error) {
	var c IstioConfig
	top, err := document(data, false)
	if err != nil {
		return c, nil, err
	}
	r := &reader{}
	spec := func(v *yaml.Node, p string) {
		r.object(v, p, fields{
			"http": func(v *yaml.Node, p string) {
				r.list(v, p, func(i int, v *yaml.Node, p string) { c.Routes = append(c.Routes, r.istioRoute(v, p)) })
			},
			"hosts": func(*yaml.Node, string) {}, "gateways": func(*yaml.Node, string) {}, "exportTo": func(*yaml.Node, string) {},
		}, map[string]string{
			"tls": "TLS routes have no retries", "tcp": "TCP routes have no retries",
		}, nil)
	}
	if hasKey(top, "spec") || hasKey(top, "kind") {
		r.object(top, "", fields{
			"apiVersion": func(*yaml.Node, string) {}, "metadata": func(*yaml.Node, string) {},
			"kind": func(v *yaml.Node, p string) {
				if s, ok := r.text(v, p, false); ok && s != "VirtualService" {
					r.fail(v, p, ErrOutOfRange, s, "VirtualService")
				}
			},
			"spec": spec,
		}, map[string]string{"status": "the status is written by Istio"}, nil)
	} else {
		spec(top, "")
	}
	return c, r.warns, r.err()
}

func (r *reader) istioRoute(v *yaml.Node, path string) IstioRoute {
	var rt IstioRoute
	notRetry := "not a retry setting"
	r.object(v, path, fields{
		"name": func(v *yaml.Node, p string) { rt.Name, _ = r.text(v, p, false) },
		"timeout": func(v *yaml.Node, p string) {
			rt.Timeout, _ = r.duration(v, p, parseGoDuration, func(d time.Duration) bool { return d >= time.Millisecond }, istioDurationRule)
		},
		"retries": func(v *yaml.Node, p string) { rt.Retries = r.istioRetry(v, p) },
	}, map[string]string{
		"match": notRetry, "route": notRetry, "redirect": notRetry, "directResponse": notRetry, "delegate": notRetry,
		"rewrite": notRetry, "fault": notRetry, "mirror": notRetry, "mirrors": notRetry, "mirrorPercentage": notRetry,
		"mirrorPercent": notRetry, "corsPolicy": notRetry, "headers": notRetry,
	}, nil)
	return rt
}

func (r *reader) istioRetry(v *yaml.Node, path string) *IstioRetry {
	var t IstioRetry
	hostChoice := "which host a retry goes to is not a timing setting"
	ok := r.object(v, path, fields{
		"attempts": func(v *yaml.Node, p string) {
			n, _ := r.integer(v, p, 0, math.MaxInt32, "a whole number of retries, 0 or more", false)
			t.Attempts = int32(n)
		},
		"perTryTimeout": func(v *yaml.Node, p string) {
			t.PerTryTimeout, _ = r.duration(v, p, parseGoDuration, func(d time.Duration) bool { return d >= time.Millisecond }, istioDurationRule)
		},
		"retryOn": func(v *yaml.Node, p string) { t.RetryOn = r.conditions(v, p, envoyRetryOn, true) },
		"backoff": func(v *yaml.Node, p string) {
			t.Backoff, _ = r.duration(v, p, parseGoDuration, func(d time.Duration) bool { return d >= time.Millisecond }, istioDurationRule)
		},
	}, map[string]string{"retryRemoteLocalities": hostChoice, "retryIgnorePreviousHosts": hostChoice}, nil)
	if !ok {
		return nil
	}
	return &t
}

// The YAML shapes that IstioConfig.Marshal writes.
type (
	istioWire struct {
		HTTP []istioRouteWire `yaml:"http"`
	}
	istioRouteWire struct {
		Name    string          `yaml:"name,omitempty"`
		Timeout string          `yaml:"timeout,omitempty"`
		Retries *istioRetryWire `yaml:"retries,omitempty"`
	}
	istioRetryWire struct {
		Attempts      int32  `yaml:"attempts"`
		PerTryTimeout string `yaml:"perTryTimeout,omitempty"`
		RetryOn       string `yaml:"retryOn,omitempty"`
		Backoff       string `yaml:"backoff,omitempty"`
	}
)

// Marshal writes c as a VirtualService's spec fragment: its http routes'
// names, timeouts and retries (a route's match and destination are the
// user's to add).
func (c IstioConfig) Marshal() ([]byte, error) {
	w := istioWire{HTTP: []istioRouteWire{}}
	for _, rt := range c.Routes {
		rw := istioRouteWire{Name: rt.Name}
		if rt.Timeout != 0 {
			rw.Timeout = formatGoDuration(rt.Timeout)
		}
		if t := rt.Retries; t != nil {
			rw.Retries = &istioRetryWire{Attempts: t.Attempts, RetryOn: strings.Join(t.RetryOn, ",")}
			if t.PerTryTimeout != 0 {
				rw.Retries.PerTryTimeout = formatGoDuration(t.PerTryTimeout)
			}
			if t.Backoff != 0 {
				rw.Retries.Backoff = formatGoDuration(t.Backoff)
			}
		}
		w.HTTP = append(w.HTTP, rw)
	}
	return marshalYAML(w)
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
	at, err := choose(cands, pick, "route (one without retries has Istio's default, 2 retries)",
		&FieldError{Path: "http", Kind: ErrMissing, Allowed: "an HTTP route: only HTTP routes retry"})
	if err != nil {
		return l, nil, nil, err
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

func istioFromLane(l strategies.Params) (Config, []Warning, error) {
	why := otherRow("Istio", l, strategies.NameEnvoy)
	why = append(why, noCount(l, "Istio's attempts")...)
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
