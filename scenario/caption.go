package scenario

import (
	"slices"
	"strings"

	"github.com/backofflab/backofflab/strategies"
)

// caption.go names what a run is made of, for the captions under exported
// charts and the phase map's scenario line: one rule, in Go, that the
// pages show as it comes (the playground's hello and params messages, the
// map's state), so that no script keeps a second one.

// CaptionKeys are the shared parameters a caption names whatever their
// value: who the clients are, the server, the outage, the run's length,
// the seed and the number of lanes. A caption adds every other shared
// parameter whose value differs from Defaults'.
var CaptionKeys = []string{"clients", "think", "timeout", "server_model", "outage", "outage_at", "outage_for", "duration", "seed", "lanes"}

// LaneParts names lane i of p, name=value with its letter: its strategy,
// the parameters of its strategy's formula (strategies.Uses) and every
// limiter switch that is on. It names none of skip (a map's axes, whose
// values are the map's).
func LaneParts(p *Params, i int, skip ...string) []string {
	if i < 0 || i >= len(p.Lanes) || i >= len(LaneNames) {
		return nil
	}
	var out []string
	add := func(param Param) {
		if name := laneName(i, param.Name); !slices.Contains(skip, name) {
			out = append(out, name+"="+param.Value(p, i))
		}
	}
	strategy := p.Lanes[i].Strategy
	for _, param := range Table {
		switch {
		case !param.Lane:
		case param.Name == "strategy" || strategies.Uses(strategy, param.Name):
			add(param)
		case isLaneSwitch(param) && param.Value(p, i) != strategies.LimiterOff:
			add(param)
		}
	}
	return out
}

// isLaneSwitch reports whether param is a lane's limiter switch: a lane
// enum whose values include off, which other rows name as their Switch.
func isLaneSwitch(param Param) bool {
	return param.Lane && param.Type == TypeEnum && slices.Contains(param.Choices, strategies.LimiterOff)
}

// SharedParts names p's shared parameters, name=value: CaptionKeys, then
// every other whose value differs from Defaults', in the table's order.
// It names none of skip.
func SharedParts(p *Params, skip ...string) []string {
	def := Defaults()
	var out []string
	named := func(name string) bool { return slices.Contains(skip, name) || slices.Contains(CaptionKeys, name) }
	for _, name := range CaptionKeys {
		if param, _, ok := Lookup(name); ok && !slices.Contains(skip, name) {
			out = append(out, name+"="+param.Value(p, 0))
		}
	}
	for _, param := range Table {
		if param.Lane || named(param.Name) {
			continue
		}
		if v := param.Value(p, 0); v != param.Value(&def, 0) {
			out = append(out, param.Name+"="+v)
		}
	}
	return out
}

// LaneCaption says what an exported chart of lane i of p shows: the lane
// and its strategy in words, its parameters (LaneParts, but its
// strategy's name, which the words give) and the run's (SharedParts):
// "backofflab · lane a: fixed interval (fixed) · a.min_delay=100ms · clients=1000 · …".
func LaneCaption(p *Params, i int) string {
	if i < 0 || i >= len(p.Lanes) || i >= len(LaneNames) {
		return ""
	}
	parts := []string{"backofflab", "lane " + LaneNames[i:i+1] + ": " + StrategyTitle(p.Lanes[i].Strategy)}
	parts = append(parts, LaneParts(p, i, laneName(i, "strategy"))...)
	parts = append(parts, SharedParts(p)...)
	return strings.Join(parts, " · ")
}

// StrategyTitle is a strategy's label and name, as a lane's head, its
// menu and the captions show it: "fixed interval (fixed)".
func StrategyTitle(name string) string { return strategies.Label(name) + " (" + name + ")" }

// LaneCaptions are the captions of every lane of p, in order (LaneCaption).
func LaneCaptions(p *Params) []string {
	out := make([]string, 0, len(p.Lanes))
	for i := range p.Lanes {
		out = append(out, LaneCaption(p, i))
	}
	return out
}

// readsParam reports whether lane i of p reads param: its strategy's
// formula does, or a limiter switch of the lane that is on owns it.
func readsParam(p *Params, i int, param Param) bool {
	if strategies.Uses(p.Lanes[i].Strategy, param.Name) {
		return true
	}
	if param.Switch == "" {
		return false
	}
	sw, _, ok := Lookup(param.Switch)
	return ok && sw.Value(p, i) != strategies.LimiterOff
}

// LaneHeads are the headings of p's lanes, in order: each lane's strategy
// in words, then, in words, what else sets it apart from the run's other
// lanes: each limiter switch that is on ("fixed interval, gRPC retry
// throttling" beside "fixed interval"), a lane behaviour that is on
// (cancel_on_timeout, tiers); and where two lanes would still read the
// same, each parameter of their strategy whose value differs between
// them, with its value ("exponential backoff, minimum delay 1s, delay
// growth 1.5"). Lanes that are the same read the same.
func LaneHeads(p *Params) []string {
	heads := make([]string, len(p.Lanes))
	for i, l := range p.Lanes {
		parts := []string{strategies.Label(l.Strategy)}
		for _, param := range Table {
			if !param.Lane {
				continue
			}
			v := param.Value(p, i)
			switch {
			case isLaneSwitch(param) && v != strategies.LimiterOff && len(param.Choices) > 2:
				// A switch with more than one way on says which.
				parts = append(parts, param.Label()+": "+ChoiceLabel(param.Name, v))
			case isLaneSwitch(param) && v != strategies.LimiterOff,
				param.Type == TypeBool && v == "true",
				param.Type == TypeTiers && v != "":
				parts = append(parts, param.Label())
			}
		}
		heads[i] = strings.Join(parts, ", ")
	}
	// Lanes whose heads agree are told apart by the parameters that
	// differ of their strategy and of their limiters that are on.
	extra := make([][]string, len(p.Lanes))
	for i := range p.Lanes {
		for _, param := range Table {
			if !param.Lane || !readsParam(p, i, param) {
				continue
			}
			for j := range p.Lanes {
				if j != i && heads[j] == heads[i] && param.Value(p, j) != param.Value(p, i) {
					extra[i] = append(extra[i], param.Label()+" "+param.Value(p, i))
					break
				}
			}
		}
	}
	for i, e := range extra {
		if len(e) > 0 {
			heads[i] += ", " + strings.Join(e, ", ")
		}
	}
	return heads
}
