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
	{NameFixed, "wait min_delay before every retry (001)", []string{"min_delay"},
		Params{MinDelay: 100 * time.Millisecond, MaxDelay: time.Minute, Factor: 2},
		func(p Params) Strategy { return Fixed{Delay: p.MinDelay} }},
	{NameExponential, "min_delay, then ×factor up to max_delay, plus Normal(0, delay×jitter) (001's text)",
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
	{NameThinkScaled, "factor × last think time, then ×factor up to max_delay, plus Normal(0, jitter×1s) (001's program)",
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
// Deadline is. It reports an error only for an
// unknown strategy name; the ranges of the values are the caller's to check.
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
	return NewPolicy(s, limits...), nil
}
