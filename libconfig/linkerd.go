package libconfig

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/strategies"
	"go.yaml.in/yaml/v3"
)

// LinkerdConfig is Linkerd's retry configuration: the retry annotations on
// a Service, HTTPRoute or GRPCRoute (Linkerd 2.16 and later,
// linkerd.io/2/reference/retries and …/timeouts) and a ServiceProfile's
// retryBudget (linkerd.io/2/reference/service-profiles). Linkerd retries at
// once, with no back-off between attempts.
type LinkerdConfig struct {
	// HTTP is retry.linkerd.io/http split at commas: "5xx", "gateway-error"
	// (502–504), a code ("504") or a range ("500-504").
	HTTP []string
	// GRPC is retry.linkerd.io/grpc split at commas: cancelled,
	// deadline-exceeded, internal, resource-exhausted, unavailable.
	GRPC []string
	// Limit is retry.linkerd.io/limit, the most retries of one request;
	// 1 when unset.
	Limit int
	// Timeout is retry.linkerd.io/timeout, after which an attempt is
	// cancelled and retried; 0 when unset (none).
	Timeout time.Duration
	// RequestTimeout is timeout.linkerd.io/request, the request's whole
	// deadline with its retries; 0 when unset.
	RequestTimeout time.Duration
	// Budget is a ServiceProfile's spec.retryBudget, or nil.
	Budget *LinkerdBudget
}

// LinkerdBudget is a ServiceProfile's retryBudget: retries may add at most
// RetryRatio of the requests, over a window of TTL, and MinRetriesPerSecond
// more.
type LinkerdBudget struct {
	// RetryRatio is retryRatio, 0 or more (0.2 in Linkerd's default budget).
	RetryRatio float64
	// MinRetriesPerSecond is minRetriesPerSecond, 0 or more (10 by default).
	MinRetriesPerSecond int
	// TTL is ttl, a Go duration ("10s", the default), greater than 0.
	TTL time.Duration
}

// LinkerdDefaultLimit is retry.linkerd.io/limit when unset.
const LinkerdDefaultLimit = 1

var linkerdGRPC = []string{"cancelled", "deadline-exceeded", "internal", "resource-exhausted", "unavailable"}

const linkerdDurationRule = `a whole number with its unit, ms, s, m, h or d ("300ms", "5s")`

// ParseLinkerd reads Linkerd's retry configuration in YAML: a Kubernetes
// object (Service, HTTPRoute, GRPCRoute or ServiceProfile) whose
// metadata.annotations hold the retry annotations and, for a
// ServiceProfile, whose spec holds retryBudget; or a bare mapping of the
// annotations and retryBudget. Annotations of other tools are warnings;
// an unknown retry.linkerd.io/ or timeout.linkerd.io/ annotation is an
// error.
func ParseLinkerd(data []byte) (LinkerdConfig, []Warning, error) {
	c := LinkerdConfig{Limit: LinkerdDefaultLimit}
	top, err := document(data, false)
	if err != nil {
		return c, nil, err
	}
	r := &reader{}
	budget := func(v *yaml.Node, p string) { c.Budget = r.linkerdBudget(v, p) }
	if hasKey(top, "kind") || hasKey(top, "metadata") || hasKey(top, "spec") {
		kind := ""
		r.object(top, "", fields{
			"apiVersion": func(*yaml.Node, string) {},
			"kind": func(v *yaml.Node, p string) {
				kind, _ = r.text(v, p, false)
				switch kind {
				case "Service", "HTTPRoute", "GRPCRoute", "ServiceProfile":
				default:
					r.fail(v, p, ErrOutOfRange, kind, "Service, HTTPRoute, GRPCRoute or ServiceProfile")
				}
			},
			"metadata": func(v *yaml.Node, p string) {
				r.object(v, p, fields{
					"annotations": func(v *yaml.Node, p string) { r.linkerdAnnotations(v, p, &c) },
					"name":        func(*yaml.Node, string) {}, "namespace": func(*yaml.Node, string) {},
					"labels": func(*yaml.Node, string) {}, "uid": func(*yaml.Node, string) {},
					"resourceVersion": func(*yaml.Node, string) {}, "generation": func(*yaml.Node, string) {},
					"creationTimestamp": func(*yaml.Node, string) {}, "managedFields": func(*yaml.Node, string) {},
				}, nil, nil)
			},
			"spec": func(v *yaml.Node, p string) {
				if !hasKey(top, "kind") || kindOf(top) == "ServiceProfile" {
					r.object(v, p, fields{"retryBudget": budget}, map[string]string{
						"routes":       "a route's isRetryable and timeout are per route; a lane is one route",
						"dstOverrides": "traffic splitting is not a retry setting", "opaquePorts": "not a retry setting",
					}, nil)
					return
				}
				r.warn(p, "not read: the %s's spec holds no retry annotations", kindOf(top))
			},
		}, map[string]string{"status": "the status is written by Kubernetes"}, nil)
	} else {
		r.linkerdAnnotations(top, "", &c, "retryBudget")
		if hasKey(top, "retryBudget") {
			budget(valueOf(top, "retryBudget"), "retryBudget")
		}
	}
	if c.Budget != nil && (len(c.HTTP) > 0 || len(c.GRPC) > 0) {
		r.warn("", "Linkerd ignores the retry annotations of a Service that has a ServiceProfile; both are kept here")
	}
	return c, r.warns, r.err()
}

// kindOf is the kind field of a Kubernetes object, or "".
func kindOf(top *yaml.Node) string {
	if v := valueOf(top, "kind"); v != nil {
		return v.Value
	}
	return ""
}

// valueOf is the value of key in mapping n, or nil.
func valueOf(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if resolve(n.Content[i]).Value == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}

// linkerdAnnotations reads the retry and timeout annotations of mapping v;
// skip names keys that another reader takes.
func (r *reader) linkerdAnnotations(v *yaml.Node, path string, c *LinkerdConfig, skip ...string) {
	v = resolve(v)
	if v.Kind != yaml.MappingNode {
		r.fail(v, path, ErrType, short(v), "a mapping of annotations")
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := resolve(v.Content[i]), resolve(v.Content[i+1])
		p := join(path, k.Value)
		if seen[k.Value] {
			r.fail(k, p, ErrDuplicate, "", "each annotation once")
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "retry.linkerd.io/http":
			if s, ok := r.text(val, p, false); ok {
				c.HTTP = r.linkerdHTTP(val, p, s)
			}
		case "retry.linkerd.io/grpc":
			c.GRPC = r.conditions(val, p, linkerdGRPC, false)
		case "retry.linkerd.io/limit":
			n, _ := r.integer(val, p, 0, math.MaxUint32, "a whole number of retries, 0 or more, as a string", true)
			c.Limit = int(n)
		case "retry.linkerd.io/timeout":
			c.Timeout, _ = r.duration(val, p, parseLinkerdDuration, positive, linkerdDurationRule+", greater than 0")
		case "timeout.linkerd.io/request":
			c.RequestTimeout, _ = r.duration(val, p, parseLinkerdDuration, positive, linkerdDurationRule+", greater than 0")
		case "timeout.linkerd.io/response", "timeout.linkerd.io/idle":
			r.warn(p, "not read: a timeout that is not retried; backofflab's per-attempt timeout is the lane's timeout")
		default:
			switch {
			case slicesContains(skip, k.Value):
			case strings.HasPrefix(k.Value, "retry.linkerd.io/") || strings.HasPrefix(k.Value, "timeout.linkerd.io/"):
				r.fail(k, p, ErrUnknownField, "", "one of retry.linkerd.io/http, retry.linkerd.io/grpc, retry.linkerd.io/limit, retry.linkerd.io/timeout, timeout.linkerd.io/request, timeout.linkerd.io/response, timeout.linkerd.io/idle")
			default:
				r.warn(p, "not read: not a Linkerd retry annotation")
			}
		}
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// linkerdHTTP checks retry.linkerd.io/http's elements.
func (r *reader) linkerdHTTP(v *yaml.Node, path, s string) []string {
	allowed := `a comma-separated list of "5xx", "gateway-error", a status code ("504") or a range ("500-504")`
	var out []string
	for _, e := range strings.Split(s, ",") {
		e = strings.TrimSpace(e)
		if e == "" {
			continue
		}
		ok := e == "5xx" || e == "gateway-error" || isStatusCode(e)
		if lo, hi, found := strings.Cut(e, "-"); found && isStatusCode(lo) && isStatusCode(hi) {
			a, _ := strconv.Atoi(lo)
			b, _ := strconv.Atoi(hi)
			ok = a <= b
		}
		if !ok {
			r.fail(v, path, ErrOutOfRange, e, allowed)
			continue
		}
		out = append(out, e)
	}
	return out
}

func (r *reader) linkerdBudget(v *yaml.Node, path string) *LinkerdBudget {
	b := LinkerdBudget{RetryRatio: 0.2, MinRetriesPerSecond: 10, TTL: 10 * time.Second}
	if !r.object(v, path, fields{
		"retryRatio": func(v *yaml.Node, p string) {
			b.RetryRatio, _ = r.number(v, p, func(x float64) bool { return x >= 0 }, "a ratio, 0 or more", false)
		},
		"minRetriesPerSecond": func(v *yaml.Node, p string) {
			n, _ := r.integer(v, p, 0, math.MaxUint32, "a whole number, 0 or more", false)
			b.MinRetriesPerSecond = int(n)
		},
		"ttl": func(v *yaml.Node, p string) {
			b.TTL, _ = r.duration(v, p, parseGoDuration, positive, `a Go duration such as "10s", greater than 0`)
		},
	}, nil, nil) {
		return nil
	}
	return &b
}

// Marshal writes c as YAML: the annotations under metadata.annotations
// (each a string, as Kubernetes requires) and the budget under
// spec.retryBudget, as on the objects that carry them.
func (c LinkerdConfig) Marshal() ([]byte, error) {
	doc := &yaml.Node{Kind: yaml.MappingNode}
	ann := &yaml.Node{Kind: yaml.MappingNode}
	add := func(m *yaml.Node, k string, v *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, v)
	}
	str := func(s string) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: styleFor(s)}
	}
	if len(c.HTTP) > 0 {
		add(ann, "retry.linkerd.io/http", str(strings.Join(c.HTTP, ",")))
	}
	if len(c.GRPC) > 0 {
		add(ann, "retry.linkerd.io/grpc", str(strings.Join(c.GRPC, ",")))
	}
	if c.Limit != LinkerdDefaultLimit {
		add(ann, "retry.linkerd.io/limit", str(strconv.Itoa(c.Limit)))
	}
	if c.Timeout != 0 {
		add(ann, "retry.linkerd.io/timeout", str(formatLinkerdDuration(c.Timeout)))
	}
	if c.RequestTimeout != 0 {
		add(ann, "timeout.linkerd.io/request", str(formatLinkerdDuration(c.RequestTimeout)))
	}
	if len(ann.Content) > 0 {
		meta := &yaml.Node{Kind: yaml.MappingNode}
		add(meta, "annotations", ann)
		add(doc, "metadata", meta)
	}
	if b := c.Budget; b != nil {
		bn := &yaml.Node{Kind: yaml.MappingNode}
		add(bn, "retryRatio", floatNode(b.RetryRatio))
		add(bn, "minRetriesPerSecond", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(b.MinRetriesPerSecond)})
		add(bn, "ttl", str(formatGoDuration(b.TTL)))
		spec := &yaml.Node{Kind: yaml.MappingNode}
		add(spec, "retryBudget", bn)
		add(doc, "spec", spec)
	}
	return marshalYAML(doc)
}

// styleFor quotes a string that YAML would otherwise read as a number or
// another type ("3", "504").
func styleFor(s string) yaml.Style {
	var probe yaml.Node
	if err := yaml.Unmarshal([]byte(s), &probe); err != nil || len(probe.Content) != 1 || probe.Content[0].ShortTag() != "!!str" {
		return yaml.DoubleQuotedStyle
	}
	return 0
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
