package playground

import (
	"github.com/backofflab/backofflab/bands"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// pageRules are what the page shows that follows from the run, computed
// here once: which controls it hides, which preset it is, and its links
// to the other views. The page gets them in its input when it is rendered
// and in every hello and params message (and a rules message when a set is
// refused); its script draws them and decides none.
type pageRules struct {
	// Hidden are the controls the run does not read, by name (a lane's
	// with its letter): a switch's value (a server model, an arrival, a
	// lane's limiter) and a lane's strategy decide them. Every lane's
	// panel is there, the lanes beyond the run's with their defaults.
	Hidden []string `json:"hidden"`
	// Preset is the name of the preset whose run this is, at any speed,
	// or "".
	Preset string `json:"preset"`
	// Links are the other views' URLs for this run.
	Links viewLinks `json:"links"`
}

// viewLinks are a run's links to the other views: its phase map, its seed
// bands with the seeds box's first value (the page puts the seeds the
// box asks for in the link's seeds parameter) and the advice for its
// system (kit.AdviseLink).
type viewLinks struct {
	Map    string `json:"map"`
	Bands  string `json:"bands"`
	Advise string `json:"advise"`
}

// rulesOf returns the rules of the run shown, whose canonical query is
// query, among presets, with controls that show the values in effect.
func rulesOf(values scenario.Params, shown scene.Scenario, query string, presets []presetKey) pageRules {
	return pageRules{Hidden: hiddenControls(values), Preset: presetOf(shown, presets), Links: linksOf(query)}
}

// linksOf returns the links to the other views of a run whose canonical
// query is query.
func linksOf(query string) viewLinks {
	return viewLinks{Map: "/map?" + query, Bands: kit.BandsLink(query, bands.DefaultSeeds), Advise: kit.AdviseLink(query)}
}

// hiddenControls returns the names of the controls that p does not read:
// a shared parameter that no switch's value reads, and in each lane's
// panel (lanes beyond p's with their defaults) a parameter its strategy
// does not use or its switches do not read. A lane's strategy and source
// always show.
func hiddenControls(p scenario.Params) []string {
	hidden := []string{}
	all := withEveryLane(p)
	for _, param := range scenario.Table {
		if !param.Lane && !scenario.ReadsParam(&p, param.Name) {
			hidden = append(hidden, param.Name)
		}
	}
	for i := range scenario.MaxLanes {
		for _, param := range scenario.Table {
			if param.Lane && laneHides(&all, i, param.Name) {
				hidden = append(hidden, scenario.LaneNames[i:i+1]+"."+param.Name)
			}
		}
	}
	return hidden
}

// laneHides reports whether lane i's panel hides its parameter name: its
// strategy does not use it, or its switches do not read it.
func laneHides(all *scenario.Params, i int, name string) bool {
	return name != "strategy" && (!scenario.Uses(all.Lanes[i].Strategy, name) || !scenario.ReadsLaneParam(all, i, name))
}

// withEveryLane returns p with every lane the page has a panel for: the
// lanes beyond p's with their defaults.
func withEveryLane(p scenario.Params) scenario.Params {
	all := p
	all.Lanes = append([]scenario.Lane(nil), p.Lanes...)
	for i := len(all.Lanes); i < scenario.MaxLanes; i++ {
		all.Lanes = append(all.Lanes, scenario.DefaultLane(i))
	}
	return all
}

// runKey is sc's canonical query without its speed: two runs of one key
// are the same run, played at any speed.
func runKey(sc scene.Scenario) string {
	sc.Speed = scene.SpeedOf(scene.DefaultSpeed)
	if sc.Real != "" {
		sc.Speed = scene.SpeedOf("1")
	}
	return sc.Query()
}

// presetKey is a preset's name and its run's runKey.
type presetKey struct{ name, key string }

// keysOf returns the keys of measured presets.
func keysOf(presets []Preset) []presetKey {
	out := make([]presetKey, len(presets))
	for i, p := range presets {
		out[i] = presetKey{p.Name, p.key}
	}
	return out
}

// presetOf returns the name of the preset whose run sc is, at any speed,
// or "".
func presetOf(sc scene.Scenario, presets []presetKey) string {
	key := runKey(sc)
	for _, p := range presets {
		if p.key == key {
			return p.name
		}
	}
	return ""
}
