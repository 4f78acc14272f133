package playground

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/web/scene"
)

// Each lane's "Your library" section: a real library's defaults and knobs
// and its presets, measured. Its configuration pasted in and the lane
// written out are web/configview's (/config/*), which answers the lane's
// number boxes by LaneBoxes, the page's rule. The libraries, their syntax,
// their mapping onto a lane and back are libconfig's; this file turns a
// lane into the values its controls take.

// libraryView is one library as the page offers it.
type libraryView struct {
	Name   string `json:"name"`
	Title  string `json:"title"`
	Syntax string `json:"syntax"`
	// Note says where the defaults come from when the library has none.
	Note string `json:"note,omitempty"`
	// Values are the lane's values with the library's defaults, for every
	// parameter of the lane's strategy and limiters (named without the
	// lane's letter): the page sets them all, so that nothing of the lane's
	// last strategy stays.
	Values map[string]string `json:"values"`
	// Boxes are what the number boxes among them show, as boxesOf writes
	// them for the run's lanes.
	Boxes map[string]scene.Box `json:"boxes"`
	Knobs []libconfig.Knob     `json:"knobs"`
	// Presets are the library's defaults measured on the landing view's
	// server and on the 2014 experiment's.
	Presets []Preset `json:"-"`
}

// libraryViews lists every library of libconfig with its measured presets
// (presets, by name).
func libraryViews(presets []Preset, lim Limits) []libraryView {
	byName := map[string]Preset{}
	for _, p := range presets {
		byName[p.Name] = p
	}
	var out []libraryView
	for _, pr := range importable() {
		lib, _ := libconfig.Lookup(pr.Name)
		v := libraryView{Name: pr.Name, Title: pr.Title, Syntax: lib.Syntax, Note: pr.Note, Values: scene.LaneValues(pr.Lane), Boxes: LaneBoxes(pr.Lane, lim), Knobs: pr.Knobs}
		for _, s := range libraryServers {
			if p, ok := byName[libraryPresetName(pr.Name, s.name)]; ok {
				v.Presets = append(v.Presets, p)
			}
		}
		out = append(out, v)
	}
	return out
}

// importable lists the profiles of the libraries the section offers:
// those whose configuration it can import. A library configured in code
// has nothing to import; the export lists its code.
func importable() []libconfig.Profile {
	return slices.DeleteFunc(libconfig.Profiles(), func(p libconfig.Profile) bool { return p.Code })
}

// LaneBoxes is what lane l's number boxes among scene.LaneValues show,
// as the page renders them: the library import answers them (the web
// server hands it this function, web/configview's LaneBoxes).
func LaneBoxes(l strategies.Params, lim Limits) map[string]scene.Box {
	p := scenario.Defaults()
	p.Lanes[0].Params = l
	sc := scene.Scenario{Params: p}
	boxes := boxesOf(sc, lim)
	out := map[string]scene.Box{}
	for name := range scene.LaneValues(l) {
		if b, ok := boxes[scenario.LaneNames[:1]+"."+name]; ok {
			out[name] = b
		}
	}
	return out
}

// libraryServers are the servers each library's defaults are measured on:
// the landing view's worker queue and the 2014 experiment's curve, each
// with its outage. The run has one lane, the library's: the landing
// view and 001-published show a retry storm beside a backoff on the same
// servers, and a lane of fixed retries in each of these would cost most of
// their measure, the same run every time.
var libraryServers = []struct{ name, title, intro, query string }{
	{"queue", "on the worker queue", "The landing view's server and outage (30 workers, paused at 20 s for 15 s).", "server_model=queue"},
	{"curve", "on the 2014 server", "The 2014 experiment's curve server and outage, as published.", "server_model=curve"},
}

// possessive is a name with its possessive ending: Envoy's, the AWS SDKs'.
func possessive(name string) string {
	if strings.HasSuffix(name, "s") {
		return name + "'"
	}
	return name + "'s"
}

func libraryPresetName(lib, server string) string { return "lib-" + lib + "-" + server }

// libraryPresetQuery is a library preset's values: the server's, one lane,
// and the lane's, as libconfig maps the library's defaults.
func libraryPresetQuery(server string, lane url.Values) url.Values {
	q := values(server)
	q.Set("lanes", "1")
	maps.Copy(q, lane)
	return q
}

// libraryPresetDefs are the presets of every library's defaults on every
// one of libraryServers: its one lane runs the library's defaults as the
// library sets them.
func libraryPresetDefs() []presetDef {
	var out []presetDef
	for _, pr := range importable() {
		q := libconfig.Query(pr.Lane, "a")
		var set []string
		for _, row := range scenario.Table {
			if v, ok := q["a."+row.Name]; ok {
				set = append(set, row.Name+" "+v[0])
			}
		}
		about := possessive(pr.Title) + " defaults, as a configuration that sets only what the library requires makes them"
		if pr.Note != "" {
			about = possessive(pr.Title) + " defaults (" + pr.Note + ")"
		}
		for _, s := range libraryServers {
			out = append(out, presetDef{
				name:  libraryPresetName(pr.Name, s.name),
				title: possessive(pr.Title) + " defaults " + s.title,
				intro: s.intro + " One lane, which runs " + about + ": " + strings.Join(set, ", ") + ".",
				query: libraryPresetQuery(s.query, q),
			})
		}
	}
	return out
}
