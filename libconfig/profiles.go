package libconfig

import (
	"fmt"
	"slices"
	"sync"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// Profile is a library as a page offers it: its name in words, the lane
// its defaults make, and its knobs: the lane parameters its configuration
// sets, each under the library's own name.
type Profile struct {
	// Name is the library's name, as Library.Name.
	Name string
	// Title is the library in words ("Envoy").
	Title string
	// Lane is the lane the library's defaults make: its strategy row and
	// its limiter, as ToLane maps a configuration that sets nothing the
	// library does not require.
	Lane strategies.Params
	// Defaults is that configuration, in the library's own syntax.
	Defaults string
	// Note says where the defaults come from when the library has none
	// of its own; empty otherwise.
	Note string
	// Knobs are the lane parameters the library's settings map to, in the
	// vocabulary table's order.
	Knobs []Knob
	// Code is true for a library configured in code: Defaults is the code
	// its exporter writes, and there is nothing to parse back.
	Code bool
}

// Knob is one setting of a library and the lane parameter it maps to.
type Knob struct {
	Param string // the vocabulary's lane parameter (min_delay)
	Field string // the library's setting, its path in the library's own names
}

// profileDef is a library's profile as written, a column of its row of
// libraries: its defaults and a configuration that sets every setting the
// mapping reads, whose fields name the knobs.
type profileDef struct {
	note     string // where the defaults come from, when not the library's own
	defaults string // the least configuration that retries, in the library's syntax
	full     string // every retry setting set, its optional sections too
}

// codeProfileDef is a library configured in code (code.go): with nothing
// to parse, its defaults are its strategy row's, which are the library's
// own with their source (strategies/library.go), and its knobs name the
// model's fields, which its exporter writes from the lane.
type codeProfileDef struct {
	name  string // its exporter's name
	row   string // its strategy row
	knobs []Knob
}

// codeProfileDefs holds the libraries configured in code (their knobs in
// any order: the profile sorts them). Polly's C# is
// Polly's profile, written by another exporter.
var codeProfileDefs = []codeProfileDef{
	{"cenkalti", strategies.NameCenkalti, []Knob{{"min_delay", "InitialInterval"}, {"factor", "Multiplier"},
		{"jitter", "RandomizationFactor"}, {"max_delay", "MaxInterval"}, {"max_attempts", "WithMaxTries"}, {"deadline", "WithMaxElapsedTime"}}},
	{"client-go", strategies.NameClientGo, []Knob{{"min_delay", "Duration"}, {"factor", "Factor"},
		{"jitter", "Jitter"}, {"max_delay", "Cap"}, {"max_attempts", "Steps"}}},
	{"tenacity", strategies.NameTenacityExponential, []Knob{{"min_delay", "wait_exponential(multiplier)"}, {"factor", "wait_exponential(exp_base)"},
		{"max_delay", "wait_exponential(max)"}, {"max_attempts", "stop_after_attempt"}, {"deadline", "stop_after_delay"}}},
	{"urllib3", strategies.NameUrllib3, []Knob{{"min_delay", "backoff_factor"}, {"max_delay", "backoff_max"}, {"max_attempts", "total + 1"}}},
}

// Profiles lists every library's profile: those whose configuration is
// text, in Libraries' order, then those configured in code. Every call
// shares the profiles' Knobs: read them, never change them.
func Profiles() []Profile { return slices.Clone(profiles()) }

// profiles builds the profiles once: each parses its library's defaults
// and settings, and the advice and the playground ask for them per
// request.
var profiles = sync.OnceValue(func() []Profile {
	out := make([]Profile, 0, len(libraries)+len(codeProfileDefs))
	for _, lib := range libraries {
		p, err := profileOf(lib)
		if err != nil {
			panic(err) // a bad profile in libraries: its test catches it
		}
		out = append(out, p)
	}
	for _, d := range codeProfileDefs {
		p, err := codeProfileOf(d)
		if err != nil {
			panic(err) // a bad row of codeProfileDefs: its test catches it
		}
		out = append(out, p)
	}
	return out
})

// LookupProfile returns the profile of the library named name.
func LookupProfile(name string) (Profile, bool) {
	ps := profiles()
	i := slices.IndexFunc(ps, func(p Profile) bool { return p.Name == name })
	if i < 0 {
		return Profile{}, false
	}
	return ps[i], true
}

// codeProfileOf is d's profile: its row's defaults, written by its
// exporter.
func codeProfileOf(d codeProfileDef) (Profile, error) {
	lane, ok := strategies.Defaults(d.row)
	if !ok {
		return Profile{}, fmt.Errorf("libconfig: profile of %s: no strategy row %s", d.name, d.row)
	}
	e, ok := LookupExporter(d.name)
	if !ok {
		return Profile{}, fmt.Errorf("libconfig: profile of %s: no such exporter", d.name)
	}
	c, _, err := e.Export(lane)
	if err != nil {
		return Profile{}, fmt.Errorf("libconfig: %s's defaults: %w", d.name, err)
	}
	text, err := c.Marshal()
	if err != nil {
		return Profile{}, fmt.Errorf("libconfig: %s's defaults: %w", d.name, err)
	}
	knobs := slices.Clone(d.knobs)
	slices.SortStableFunc(knobs, func(a, b Knob) int {
		at := func(name string) int {
			return slices.IndexFunc(scenario.Table, func(r scenario.Param) bool { return r.Name == name })
		}
		return at(a.Param) - at(b.Param)
	})
	return Profile{Name: d.name, Title: Title(d.name), Lane: lane, Defaults: string(text), Knobs: knobs, Code: true}, nil
}

// profileOf is lib's profile: its defaults and its knobs, read from its
// row's profile.
func profileOf(lib Library) (Profile, error) {
	d := lib.profile
	lane, _, _, err := laneFields(lib, d.defaults)
	if err != nil {
		return Profile{}, fmt.Errorf("libconfig: %s's defaults: %w", lib.Name, err)
	}
	_, _, field, err := laneFields(lib, d.full)
	if err != nil {
		return Profile{}, fmt.Errorf("libconfig: %s's settings: %w", lib.Name, err)
	}
	p := Profile{Name: lib.Name, Title: Title(lib.Name), Lane: lane, Defaults: d.defaults, Note: d.note}
	for _, row := range scenario.Table {
		if f, ok := field[row.Name]; ok && row.Lane {
			p.Knobs = append(p.Knobs, Knob{Param: row.Name, Field: f})
		}
	}
	return p, nil
}

// laneFields parses text as lib's configuration and maps it onto a lane,
// as ToLane does, with the map from each lane parameter set to the
// library's field that set it.
func laneFields(lib Library, text string) (strategies.Params, []Warning, map[string]string, error) {
	c, w, err := lib.Parse([]byte(text))
	if err != nil {
		return strategies.Params{}, w, nil, err
	}
	l, lw, field, err := toLane(c, "")
	return l, append(w, lw...), field, err
}

// Title is a library's or an exporter's name in words ("Envoy",
// "tenacity (Python code)"), its exporter's Title; the name itself for one
// it does not know.
func Title(name string) string {
	if e, ok := LookupExporter(name); ok {
		return e.Title
	}
	return name
}
