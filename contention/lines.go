package contention

import (
	"fmt"
	"slices"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// The simulator's backoff parameters: every strategy is built with
// backoff_cls(5, 2000), a base of 5 ms and a cap of 2 s (setup_sim).
const (
	Base = 5 * time.Millisecond
	Cap  = 2 * time.Second
)

// FirstWait is the window of the simulator's first exponential backoff:
// its client counts attempts from 1 and adds 1 before it backs off
// (OccClient.write_rsp), so its first wait is expo(1) = min(cap, 2^1 ×
// base), not base. backofflab's exponential strategies wait min_delay ×
// 2^n at the retry that follows n retries, n from 0, so min_delay =
// 2 × Base gives them the simulator's windows, retry for retry: 10 ms,
// 20 ms, …, 1.28 s, then the cap of 2 s. With min_delay = Base every
// window would be half the simulator's until the cap.
const FirstWait = 2 * Base

// Line is one strategy of the study: one line on each of its charts.
type Line struct {
	// Strategy is the strategy's name in backofflab's vocabulary
	// (strategies.Names), which the flags, the URL and the exports use.
	Strategy string
	// Blog is the simulator's name of the line (its backoff_types).
	Blog string
	// Params are the strategy's parameters in the study.
	Params strategies.Params
	// note says how Params differ from the strategy's usual ones, after
	// its label.
	note string
}

// Label is the line's name in words: the strategy's label
// (strategies.Label) and what the study sets apart.
func (l Line) Label() string { return strategies.Label(l.Strategy) + l.note }

// params returns strategy name's defaults with min_delay, max_delay,
// factor and jitter set.
func params(name string, minDelay time.Duration, factor, jitter float64) strategies.Params {
	p, ok := strategies.Defaults(name)
	if !ok {
		panic("contention: no strategy " + name)
	}
	p.MinDelay, p.MaxDelay, p.Factor, p.Jitter = minDelay, Cap, factor, jitter
	return p
}

// lines are the simulator's five backoff_types, in the blog's order. Its
// NoBackoff, which retries at once, is backofflab's fixed with min_delay 0:
// backofflab's none gives up at the first failure, and a client here must
// write once. Its ExpoBackoff, min(cap, 2^n × base) with no jitter, is
// exponential with factor 2 and jitter 0. It, full jitter and equal jitter
// start from FirstWait, as the simulator's expo(n) does at its n = 1.
// Decorrelated jitter does not count attempts: its sleep starts at base
// and base is the floor of every draw, U(base, 3 × sleep), as here.
var lines = []Line{
	{strategies.NameFixed, "None", params(strategies.NameFixed, 0, 2, 0), ", 0 ms: no backoff"},
	{strategies.NameExponential, "Exponential", params(strategies.NameExponential, FirstWait, 2, 0), ", no jitter"},
	{strategies.NameFullJitter, "FullJitter", params(strategies.NameFullJitter, FirstWait, 2, 0), ""},
	{strategies.NameEqualJitter, "EqualJitter", params(strategies.NameEqualJitter, FirstWait, 2, 0), ""},
	{strategies.NameDecorrelated, "Decorr", params(strategies.NameDecorrelated, Base, 2, 0), ""},
}

// Lines returns the study's strategies, in the blog's order.
func Lines() []Line { return slices.Clone(lines) }

// LineNames returns the strategy names of Lines, in order.
func LineNames() []string {
	names := make([]string, len(lines))
	for i, l := range lines {
		names[i] = l.Strategy
	}
	return names
}

// LineOf returns the study's line of strategy name.
func LineOf(name string) (Line, error) {
	i := slices.IndexFunc(lines, func(l Line) bool { return l.Strategy == name })
	if i < 0 {
		if name == strategies.NameNone {
			return Line{}, fmt.Errorf("strategies: %q gives up at the first failure, and every client here must write once; the blog's no backoff is %q (min_delay 0); want some of %v",
				name, strategies.NameFixed, LineNames())
		}
		return Line{}, fmt.Errorf("strategies: %q is not one of %v", name, LineNames())
	}
	return lines[i], nil
}
