package libconfig

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/strategies"
	"go.yaml.in/yaml/v3"
)

// GRPCServiceConfig is the retry part of a gRPC service config, the JSON
// document a channel takes (grpc/grpc doc/service_config.md; the message
// grpc.service_config.ServiceConfig in grpc-proto's
// grpc/service_config/service_config.proto; gRFC A6 "gRPC Retry Design",
// the rules below; grpc-go v1.7x's service_config.go reads it the same
// way).
type GRPCServiceConfig struct {
	// MethodConfigs are the methodConfig entries, in order.
	MethodConfigs []GRPCMethodConfig
	// Throttling is retryThrottling, or nil when the config has none.
	Throttling *GRPCThrottling
}

// GRPCMethodConfig is one methodConfig entry: the methods it names and
// their retry policy.
type GRPCMethodConfig struct {
	// Names are the entry's name list: a service and method each, an empty
	// method for every method of the service, both empty for every method
	// of the channel.
	Names []GRPCName
	// Timeout is the call's whole deadline, retries included (timeout, a
	// google.protobuf.Duration, "1.5s"); 0 when unset.
	Timeout time.Duration
	// RetryPolicy is retryPolicy, or nil.
	RetryPolicy *GRPCRetryPolicy
}

// GRPCName is one element of a methodConfig's name list.
type GRPCName struct {
	Service string `json:"service,omitempty"`
	Method  string `json:"method,omitempty"`
}

// GRPCRetryPolicy is a methodConfig's retryPolicy (gRFC A6).
type GRPCRetryPolicy struct {
	// MaxAttempts is maxAttempts, the original attempt included: required,
	// an integer greater than 1; gRPC treats values above 5 as 5 (kept here
	// as written, with a warning).
	MaxAttempts int
	// InitialBackoff and MaxBackoff are initialBackoff and maxBackoff:
	// required, google.protobuf.Duration strings ("0.1s"), greater than 0.
	InitialBackoff, MaxBackoff time.Duration
	// BackoffMultiplier is backoffMultiplier: required, greater than 0.
	BackoffMultiplier float64
	// RetryableStatusCodes are retryableStatusCodes: required, not empty,
	// status code names ("UNAVAILABLE"); a number in the JSON is read as
	// its name.
	RetryableStatusCodes []string
	// PerAttemptRecvTimeout is perAttemptRecvTimeout (gRFC A6's later
	// addition, in service_config.proto): each attempt's timeout; 0 when
	// unset, greater than 0 when set.
	PerAttemptRecvTimeout time.Duration
}

// GRPCThrottling is retryThrottling (gRFC A6): a channel's token bucket of
// MaxTokens that each failure drains by 1 and each success refills by
// TokenRatio; retries stop while it holds half or less.
type GRPCThrottling struct {
	// MaxTokens is maxTokens: required, an integer in (0, 1000]
	// (uint32 max_tokens in service_config.proto).
	MaxTokens int
	// TokenRatio is tokenRatio: required, greater than 0; gRPC reads three
	// decimal places and ignores the rest (kept here as written, with a
	// warning).
	TokenRatio float64
}

// GRPCMaxAttemptsCap is gRFC A6's cap on maxAttempts: larger values are
// treated as 5.
const GRPCMaxAttemptsCap = 5

// grpcCodes are the canonical status code names, by number
// (google.rpc.Code).
var grpcCodes = []string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
	"OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}

const grpcDurationRule = `a google.protobuf.Duration string such as "0.1s", greater than 0`

// ParseGRPC reads a gRPC service config JSON document. Fields that are not
// about retries (loadBalancingConfig, waitForReady, message sizes) are
// warnings; a hedgingPolicy is an ErrUnsupported error.
func ParseGRPC(data []byte) (GRPCServiceConfig, []Warning, error) {
	var c GRPCServiceConfig
	top, err := document(data, true)
	if err != nil {
		return c, nil, err
	}
	r := &reader{}
	seen := map[GRPCName]string{}
	r.object(top, "", fields{
		"methodConfig": func(v *yaml.Node, p string) {
			r.list(v, p, func(i int, v *yaml.Node, p string) {
				c.MethodConfigs = append(c.MethodConfigs, r.grpcMethod(v, p, seen))
			})
		},
		"retryThrottling": func(v *yaml.Node, p string) { c.Throttling = r.grpcThrottling(v, p) },
	}, map[string]string{
		"loadBalancingPolicy": "load balancing is not a retry setting",
		"loadBalancingConfig": "load balancing is not a retry setting",
		"healthCheckConfig":   "health checking is not a retry setting",
	}, nil)
	return c, r.warns, r.err()
}

func (r *reader) grpcMethod(v *yaml.Node, path string, seen map[GRPCName]string) GRPCMethodConfig {
	var m GRPCMethodConfig
	r.object(v, path, fields{
		"name": func(v *yaml.Node, p string) {
			r.list(v, p, func(i int, v *yaml.Node, p string) {
				var n GRPCName
				r.object(v, p, fields{
					"service": func(v *yaml.Node, p string) { n.Service, _ = r.text(v, p, false) },
					"method":  func(v *yaml.Node, p string) { n.Method, _ = r.text(v, p, false) },
				}, nil, nil)
				if n.Service == "" && n.Method != "" {
					r.fail(v, p, ErrMissing, "", "a name with a method names its service too")
				}
				if other, dup := seen[n]; dup {
					r.fail(v, p, ErrDuplicate, n.Service+"/"+n.Method, "each method in one methodConfig only; also at "+other)
				}
				seen[n] = p
				m.Names = append(m.Names, n)
			})
		},
		"timeout": func(v *yaml.Node, p string) {
			m.Timeout, _ = r.duration(v, p, parseProtoDuration, positive, grpcDurationRule)
		},
		"retryPolicy": func(v *yaml.Node, p string) { m.RetryPolicy = r.grpcRetry(v, p) },
		"hedgingPolicy": func(v *yaml.Node, p string) {
			r.fail(v, p, ErrUnsupported, "", "hedging sends attempts in parallel; backofflab lanes retry one attempt at a time")
		},
	}, map[string]string{
		"waitForReady":            "waiting for a ready connection is not a retry setting",
		"maxRequestMessageBytes":  "message sizes are not retry settings",
		"maxResponseMessageBytes": "message sizes are not retry settings",
	}, nil)
	return m
}

func positive(d time.Duration) bool { return d > 0 }

func (r *reader) grpcRetry(v *yaml.Node, path string) *GRPCRetryPolicy {
	var p GRPCRetryPolicy
	set := map[string]bool{}
	ok := r.object(v, path, fields{
		"maxAttempts": func(v *yaml.Node, f string) {
			n, ok := r.integer(v, f, 2, math.MaxInt32, "an integer greater than 1; values above 5 are treated as 5", false)
			p.MaxAttempts, set["maxAttempts"] = int(n), ok
			if ok && n > GRPCMaxAttemptsCap {
				r.warn(f, "%d is treated as %d, gRPC's limit (gRFC A6)", n, GRPCMaxAttemptsCap)
			}
		},
		"initialBackoff": func(v *yaml.Node, f string) {
			p.InitialBackoff, set["initialBackoff"] = r.duration(v, f, parseProtoDuration, positive, grpcDurationRule)
		},
		"maxBackoff": func(v *yaml.Node, f string) {
			p.MaxBackoff, set["maxBackoff"] = r.duration(v, f, parseProtoDuration, positive, grpcDurationRule)
		},
		"backoffMultiplier": func(v *yaml.Node, f string) {
			p.BackoffMultiplier, set["backoffMultiplier"] = r.number(v, f, func(x float64) bool { return x > 0 }, "a number greater than 0", false)
		},
		"retryableStatusCodes": func(v *yaml.Node, f string) {
			r.list(v, f, func(i int, v *yaml.Node, f string) {
				if code, ok := r.grpcCode(v, f); ok {
					p.RetryableStatusCodes = append(p.RetryableStatusCodes, code)
				}
			})
			set["retryableStatusCodes"] = len(p.RetryableStatusCodes) > 0
			if len(resolve(v).Content) == 0 && resolve(v).Kind == yaml.SequenceNode {
				r.fail(v, f, ErrMissing, "", "a non-empty list of status codes")
			}
		},
		"perAttemptRecvTimeout": func(v *yaml.Node, f string) {
			p.PerAttemptRecvTimeout, _ = r.duration(v, f, parseProtoDuration, positive, grpcDurationRule)
		},
	}, nil, nil)
	if !ok {
		return nil
	}
	for _, name := range []string{"maxAttempts", "initialBackoff", "maxBackoff", "backoffMultiplier", "retryableStatusCodes"} {
		if _, given := set[name]; !given {
			r.fail(v, join(path, name), ErrMissing, "", "gRFC A6 requires it")
		}
	}
	return &p
}

// grpcCode reads a status code, a name or its number, as its name.
func (r *reader) grpcCode(v *yaml.Node, path string) (string, bool) {
	allowed := "a status code name (" + strings.Join(grpcCodes, ", ") + ") or its number 0–16"
	if !r.scalar(v, path, allowed) {
		return "", false
	}
	if v.ShortTag() == "!!int" {
		n, err := strconv.Atoi(v.Value)
		if err != nil || n < 0 || n >= len(grpcCodes) {
			r.fail(v, path, ErrOutOfRange, v.Value, allowed)
			return "", false
		}
		return grpcCodes[n], true
	}
	if v.ShortTag() != "!!str" || !slices.Contains(grpcCodes, v.Value) {
		r.fail(v, path, ErrType, v.Value, allowed)
		return "", false
	}
	return v.Value, true
}

func (r *reader) grpcThrottling(v *yaml.Node, path string) *GRPCThrottling {
	var t GRPCThrottling
	set := map[string]bool{}
	ok := r.object(v, path, fields{
		"maxTokens": func(v *yaml.Node, f string) {
			n, ok := r.integer(v, f, 1, 1000, "an integer in (0, 1000]", false)
			t.MaxTokens, set["maxTokens"] = int(n), ok
		},
		"tokenRatio": func(v *yaml.Node, f string) {
			x, ok := r.number(v, f, func(x float64) bool { return x > 0 }, "a number greater than 0, three decimal places", false)
			t.TokenRatio, set["tokenRatio"] = x, ok
			if ok && math.Abs(x*1000-math.Round(x*1000)) > 1e-6 {
				r.warn(f, "gRPC reads three decimal places: %s acts as %.3f", v.Value, math.Trunc(x*1000)/1000)
			}
		},
	}, nil, nil)
	if !ok {
		return nil
	}
	for _, name := range []string{"maxTokens", "tokenRatio"} {
		if _, given := set[name]; !given {
			r.fail(v, join(path, name), ErrMissing, "", "gRFC A6 requires it")
		}
	}
	return &t
}

// The JSON shapes that GRPCServiceConfig.Marshal writes, in the field
// order of gRPC's documentation.
type (
	grpcWire struct {
		MethodConfig    []grpcMethodWire    `json:"methodConfig,omitempty"`
		RetryThrottling *grpcThrottlingWire `json:"retryThrottling,omitempty"`
	}
	grpcMethodWire struct {
		Name        []GRPCName     `json:"name,omitempty"`
		Timeout     string         `json:"timeout,omitempty"`
		RetryPolicy *grpcRetryWire `json:"retryPolicy,omitempty"`
	}
	grpcRetryWire struct {
		MaxAttempts           int      `json:"maxAttempts"`
		InitialBackoff        string   `json:"initialBackoff"`
		MaxBackoff            string   `json:"maxBackoff"`
		BackoffMultiplier     float64  `json:"backoffMultiplier"`
		RetryableStatusCodes  []string `json:"retryableStatusCodes"`
		PerAttemptRecvTimeout string   `json:"perAttemptRecvTimeout,omitempty"`
	}
	grpcThrottlingWire struct {
		MaxTokens  int     `json:"maxTokens"`
		TokenRatio float64 `json:"tokenRatio"`
	}
)

// Marshal writes c as a service config JSON document.
func (c GRPCServiceConfig) Marshal() ([]byte, error) {
	var w grpcWire
	for _, m := range c.MethodConfigs {
		mw := grpcMethodWire{Name: m.Names}
		if m.Timeout != 0 {
			mw.Timeout = formatProtoDuration(m.Timeout)
		}
		if p := m.RetryPolicy; p != nil {
			rw := &grpcRetryWire{MaxAttempts: p.MaxAttempts, InitialBackoff: formatProtoDuration(p.InitialBackoff),
				MaxBackoff: formatProtoDuration(p.MaxBackoff), BackoffMultiplier: p.BackoffMultiplier,
				RetryableStatusCodes: p.RetryableStatusCodes}
			if p.PerAttemptRecvTimeout != 0 {
				rw.PerAttemptRecvTimeout = formatProtoDuration(p.PerAttemptRecvTimeout)
			}
			mw.RetryPolicy = rw
		}
		w.MethodConfig = append(w.MethodConfig, mw)
	}
	if t := c.Throttling; t != nil {
		w.RetryThrottling = &grpcThrottlingWire{MaxTokens: t.MaxTokens, TokenRatio: t.TokenRatio}
	}
	return marshalJSON(w)
}

// marshalJSON writes v indented by two spaces, ending in a newline.
func marshalJSON(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("libconfig: writing %T: %w", v, err)
	}
	return append(b, '\n'), nil
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
	k, err := choose(cands, pick, "methodConfig with a retryPolicy",
		&FieldError{Path: "methodConfig[].retryPolicy", Kind: ErrMissing, Allowed: "gRPC retries only with a retryPolicy"})
	if err != nil {
		return l, nil, nil, err
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

func grpcFromLane(l strategies.Params) (Config, []Warning, error) {
	why := otherRow("gRPC", l, strategies.NameGRPCRetry)
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
