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

type kind struct {
	name     string
	about    string
	uses     []string // the vocabulary names of the parameters it reads
	defaults Params
}

var kinds = []kind{
	{NameNone, "give up at the first failure", nil,
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2}},
	{NameFixed, "wait min_delay before every retry (001)", []string{"min_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2}},
	{NameExponential, "min_delay, then ×factor up to max_delay, plus Normal(0, delay×jitter) (001's text)",
		[]string{"min_delay", "max_delay", "factor", "jitter"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: 15 * time.Minute, Factor: 2, Jitter: 0.1}},
	{NameTruncated, "min(min_delay×2^n + U[0,1s), max_delay), then every max_delay (Cloud Storage)",
		[]string{"min_delay", "max_delay"},
		Params{MinDelay: time.Second, MaxDelay: 32 * time.Second, Factor: 2}},
	{NameGRPC, "sleep until the attempt's deadline; backoff ×factor up to max_delay, ±jitter (gRPC)",
		[]string{"min_delay", "max_delay", "factor", "jitter", "min_connect_timeout"},
		Params{MinDelay: time.Second, MaxDelay: 120 * time.Second, Factor: 1.6, Jitter: 0.2, MinConnectTimeout: 20 * time.Second}},
	{NameFullJitter, "U(0, min(max_delay, min_delay×2^n)) (AWS)", []string{"min_delay", "max_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2}},
	{NameEqualJitter, "t/2 + U(0, t/2), t = min(max_delay, min_delay×2^n) (AWS)", []string{"min_delay", "max_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2}},
	{NameDecorrelated, "min(max_delay, U(min_delay, 3×previous)) (AWS)", []string{"min_delay", "max_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2}},
	{NameThinkScaled, "factor × last think time, then ×factor up to max_delay, plus Normal(0, jitter×1s) (001's program)",
		[]string{"max_delay", "factor", "jitter"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: 5 * time.Minute, Factor: math.E, Jitter: 0.1}},
}

func init() {
	for i := range kinds {
		kinds[i].defaults.Strategy = kinds[i].name
		if kinds[i].defaults.MinConnectTimeout == 0 {
			kinds[i].defaults.MinConnectTimeout = 20 * time.Second
		}
	}
}

func lookup(name string) (kind, bool) {
	i := slices.IndexFunc(kinds, func(k kind) bool { return k.name == name })
	if i < 0 {
		return kind{}, false
	}
	return kinds[i], true
}

// Names returns the strategy names in display order.
func Names() []string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.name
	}
	return names
}

// Defaults returns the parameters that strategy name uses when the user sets
// none, and false for an unknown name.
func Defaults(name string) (Params, bool) {
	k, ok := lookup(name)
	return k.defaults, ok
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
// Deadline is. It reports an error only for an
// unknown strategy name; the ranges of the values are the caller's to check.
func New(p Params) (*Policy, error) {
	var s Strategy
	switch p.Strategy {
	case NameNone:
		s = None{}
	case NameFixed:
		s = Fixed{Delay: p.MinDelay}
	case NameExponential:
		s = Exponential{Base: p.MinDelay, Cap: p.MaxDelay, Factor: p.Factor, Jitter: p.Jitter}
	case NameTruncated:
		s = Truncated{Base: p.MinDelay, Cap: p.MaxDelay}
	case NameGRPC:
		s = GRPC{Initial: p.MinDelay, Max: p.MaxDelay, Factor: p.Factor, Jitter: p.Jitter, MinConnect: p.MinConnectTimeout}
	case NameFullJitter:
		s = FullJitter{Base: p.MinDelay, Cap: p.MaxDelay}
	case NameEqualJitter:
		s = EqualJitter{Base: p.MinDelay, Cap: p.MaxDelay}
	case NameDecorrelated:
		s = Decorrelated{Base: p.MinDelay, Cap: p.MaxDelay}
	case NameThinkScaled:
		s = ThinkScaled{Cap: p.MaxDelay, Factor: p.Factor, Jitter: p.Jitter}
	default:
		return nil, fmt.Errorf("strategy: %q is not one of %v", p.Strategy, Names())
	}
	var limits []Limit
	if p.MaxAttempts > 0 {
		limits = append(limits, &MaxAttemptsLimit{N: p.MaxAttempts})
	}
	if p.Deadline > 0 {
		limits = append(limits, &DeadlineLimit{D: p.Deadline})
	}
	return NewPolicy(s, limits...), nil
}
