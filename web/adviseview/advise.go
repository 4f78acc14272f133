// Package adviseview is the advice's view (/advise): a practitioner gives
// their system, the outage they fear, the retry library they use and
// their goals, and gets the settings that survive it, searched by
// package advise as "backofflab advise" searches them. The page
// (advise.templ) is a form whose URL is the request; its script
// (advise.js, embedded here and served as /static/advise.js) streams the
// search from /advise/stream as NDJSON, progress lines then the advice,
// and draws what the advice says: Go computes and words it all.
package adviseview

import (
	"embed"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/backofflab/backofflab/advise"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/kit"
)

// Mount adds the advice's routes: its page, its stream, its exports and
// its script.
func Mount(mux *http.ServeMux, k *kit.Kit) {
	mux.Handle("GET /advise", handleAdvisePage(k))
	mux.Handle("GET /advise/stream", k.Stream(handleAdviseStream(k)))
	mux.Handle("GET /advise.json", k.Export(handleAdviseExport(k, formatJSON)))
	mux.Handle("GET /advise.txt", k.Export(handleAdviseExport(k, formatText)))
	mux.Handle("GET /static/advise.js", kit.Assets(adviseAssets))
}

// adviseAssets holds the page's script.
//
//go:embed advise.js
var adviseAssets embed.FS

// adviseLimits are the bounds of a request on this server: the seeds
// row's own, and every run the advice may make (its margins' longest
// outage and highest load included) within the server's bounds on one
// run.
func adviseLimits(lim kit.Limits) advise.Limits {
	return advise.Limits{MaxSeeds: advise.CLILimits.MaxSeeds, Check: lim.RunBounds, Bounds: lim.Bounds()}
}

// decodeAdvise reads an advice's request from a URL's raw query within
// the server's limits: the one place the page, the stream and the
// exports decode it. It returns the values it read too, for the form,
// and every error, each naming its parameter, the value and the range.
func decodeAdvise(raw string, lim kit.Limits) (advise.Request, url.Values, []*scenario.ParamError) {
	q, qerrs := kit.ParseQuery(raw)
	req, err := advise.ParseRequest(q, adviseLimits(lim))
	var errs []*scenario.ParamError
	if err != nil {
		errs = scenario.Errors(err)
	}
	return req, q, kit.WithQueryErrors(qerrs, errs)
}

// handleAdvisePage renders the page for its URL. A bad value does not
// fail the page: the page names it beside its control and runs nothing.
func handleAdvisePage(k *kit.Kit) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, q, errs := decodeAdvise(r.URL.RawQuery, k.Limits)
		v := newAdviseView(req, q, errs, r.URL.RawQuery != "")
		kit.WritePage(w, r, k.Log, "advise", advisePage(v))
	})
}

// adviseView is what advise.templ renders.
type adviseView struct {
	// Groups are the form's sections, each a fieldset of controls.
	Groups []ctlGroup
	// General are the errors that name no control of the form.
	General []string
	// Bad reports that the URL has a bad value: the page runs nothing.
	Bad bool
	// Hidden are the request's values that no control shows (lane a's
	// settings today, a seed, a run's length…), carried by the form as
	// they are: name and value.
	Hidden []hiddenValue
	Data   adviseData
}

// hiddenValue is a value of the request that no control shows: Listed
// when the page says it, as a value the link carries that is not a
// default.
type hiddenValue struct {
	Name, Value string
	Listed      bool
}

// listed reports whether any of hs is listed.
func listed(hs []hiddenValue) bool {
	return slices.ContainsFunc(hs, func(h hiddenValue) bool { return h.Listed })
}

// ctlGroup is a section of the form.
type ctlGroup struct {
	ID, Legend string
	Controls   []control
}

// control is one parameter of the form: a row of scenario.Table or of
// advise.Table, labelled in words with its vocabulary name beside.
type control struct {
	Name    string // the vocabulary name, the URL's
	Label   string // in words
	Help    string // the row's meaning in a line
	Unit    string
	Allowed string
	Value   string
	Choices []kit.Choice // a menu's, else a text box
	Error   string
	// Hidden is true when a switch's value (arrival, server_model) does
	// not read it: the page hides it, and the script follows the switch.
	Hidden bool
}

// adviseData is what the page's script starts from (the JSON block
// "advise-data").
type adviseData struct {
	// Run says the URL names a whole request: the page streams it.
	Run bool `json:"run"`
	// Query is the request's canonical query (advise.Request.Query),
	// the page's link; "" when the URL is bad.
	Query string `json:"query"`
	// Switches say, for each value of each switch of the form, which of
	// its controls that value hides (scenario.Reads).
	Switches map[string]map[string][]string `json:"switches"`
}

// formGroups are the form's sections in order, each with the rows it
// shows: the scenario's system and outage, then the advice's own.
var formGroups = []struct {
	id, legend string
	names      []string
}{
	{"clients", "Your clients", []string{"arrival", "clients", "think", "rate", "timeout"}},
	{"server", "Your server", []string{"server_model", "workers", "service_time", "server_limit", "server_delay", "server_factor", "server_k", "server_slope", "backlog"}},
	{"outage", "The outage to survive", []string{"outage", "outage_at", "outage_for", "duration"}},
}

// ownLabels are the advice's own parameters (advise.Table) in words, as
// scenario's labels are its table's.
var ownLabels = map[string]string{
	advise.LibraryParam:  "your retry library",
	advise.RecoverParam:  "recover within",
	advise.AttemptsParam: "attempts per request, at most",
	advise.P99Param:      "an ordinary day's p99 per request, at most",
	advise.SuccessParam:  "requests that succeed within the patience, at least",
	advise.ErrorsParam:   "an ordinary day's share of errors",
	scenario.SeedsParam:  "seeds per setting",
}

// newAdviseView builds the page of the request q names (req when errs is
// empty), every bad value named beside its control; run says whether the
// URL asks for advice at all (a bare /advise shows the form only).
func newAdviseView(req advise.Request, q url.Values, errs []*scenario.ParamError, run bool) adviseView {
	valid := len(errs) == 0
	f := requestForm{vals: q, byName: map[string][]string{}, shown: map[string]bool{}}
	if valid {
		f.vals = req.Query()
	}
	for _, e := range errs {
		f.byName[e.Name] = append(f.byName[e.Name], e.Error())
	}
	v := adviseView{Bad: !valid, Data: adviseData{Run: valid && run}}
	if valid {
		v.Data.Query = f.vals.Encode()
	}
	var names []string
	v.Groups, names = f.groups()
	v.Data.Switches = switchHides(names)
	hideSwitched(v.Groups, v.Data.Switches)
	v.Hidden = f.hidden()
	for _, e := range errs {
		if !f.shown[e.Name] {
			v.General = append(v.General, e.Error())
		}
	}
	return v
}

// requestForm is the form of a request's values (vals) and errors (byName,
// by parameter) as its controls are made: shown records the parameters
// that have one.
type requestForm struct {
	vals   url.Values
	byName map[string][]string
	shown  map[string]bool
}

// control is p's control, its value the request's or else value.
func (f *requestForm) control(p scenario.Param, value string) control {
	label := p.Label()
	if l, ok := ownLabels[p.Name]; ok {
		label = l
	}
	c := control{Name: p.Name, Label: label, Help: p.Help, Unit: p.Unit, Allowed: p.Allowed(), Value: value,
		Error: strings.Join(f.byName[p.Name], "; ")}
	if vs, ok := f.vals[p.Name]; ok && len(vs) > 0 {
		c.Value = vs[len(vs)-1]
	}
	for _, ch := range p.Choices {
		switch {
		case p.Name == "outage" && ch == scenario.OutageNone:
			continue // the advice is of an outage to survive
		case p.Name == advise.LibraryParam:
			c.Choices = append(c.Choices, kit.Choice{Value: ch, Label: advise.LibraryTitle(ch)})
		default:
			c.Choices = append(c.Choices, kit.Choice{Value: ch, Label: scenario.ChoiceLabel(p.Name, ch)})
		}
	}
	if len(c.Choices) > 0 && !slices.ContainsFunc(c.Choices, func(ch kit.Choice) bool { return ch.Value == c.Value }) {
		// A value the menu does not offer (none, a typo): kept, so
		// that its error shows beside what was asked.
		c.Choices = append(c.Choices, kit.Choice{Value: c.Value, Label: c.Value})
	}
	f.shown[p.Name] = true
	return c
}

// groups are the form's sections: the scenario's rows of formGroups, at
// the scenario's defaults, whose names it returns too, then the
// advice's own rows at theirs.
func (f *requestForm) groups() ([]ctlGroup, []string) {
	def := scenario.Defaults()
	var groups []ctlGroup
	var names []string
	for _, g := range formGroups {
		grp := ctlGroup{ID: g.id, Legend: g.legend}
		for _, name := range g.names {
			p, _, _ := scenario.Lookup(name)
			grp.Controls = append(grp.Controls, f.control(p, p.Value(&def, 0)))
			names = append(names, name)
		}
		groups = append(groups, grp)
	}
	own := ctlGroup{ID: "goals", Legend: "Your library and your goals"}
	for _, p := range advise.Table {
		own.Controls = append(own.Controls, f.control(p, p.Default))
	}
	return append(groups, own), names
}

// switchHides are the switches' hidden controls among names, by switch
// and choice: computed here, for the page and its script alike.
func switchHides(names []string) map[string]map[string][]string {
	out := map[string]map[string][]string{}
	for _, sw := range []string{"arrival", "server_model"} {
		row, _, _ := scenario.Lookup(sw)
		out[sw] = map[string][]string{}
		for _, choice := range row.Choices {
			hides := []string{}
			for _, name := range names {
				if name != sw && !scenario.Reads(sw, choice, name) {
					hides = append(hides, name)
				}
			}
			out[sw][choice] = hides
		}
	}
	return out
}

// hideSwitched hides the controls of groups that a switch's current
// value hides (switches, switchHides').
func hideSwitched(groups []ctlGroup, switches map[string]map[string][]string) {
	current := map[string]string{}
	for _, g := range groups {
		for _, c := range g.Controls {
			current[c.Name] = c.Value
		}
	}
	for gi := range groups {
		for ci := range groups[gi].Controls {
			c := &groups[gi].Controls[ci]
			for sw, byChoice := range switches {
				if slices.Contains(byChoice[current[sw]], c.Name) {
					c.Hidden = true
				}
			}
		}
	}
}

// hidden are the request's values that no control shows, carried by the
// form: lane a's values that are the library's own defaults, which go
// without saying (the library's request without them has them too), and
// a bad value no control shows, listed.
func (f *requestForm) hidden() []hiddenValue {
	vals := f.vals
	libDefaults := url.Values{}
	lib := url.Values{}
	if l := vals.Get(advise.LibraryParam); l != "" {
		lib.Set(advise.LibraryParam, l)
	}
	if r, err := advise.ParseRequest(lib, advise.CLILimits); err == nil {
		libDefaults = r.Query()
	}
	var out []hiddenValue
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		if len(vals[name]) > 0 && strings.HasPrefix(name, "a.") && libDefaults.Get(name) == vals.Get(name) {
			// Sent all the same, so that the request's link is its
			// canonical query; not listed.
			out = append(out, hiddenValue{Name: name, Value: vals.Get(name)})
			continue
		}
		if !f.shown[name] && len(vals[name]) > 0 && len(f.byName[name]) == 0 {
			// A bad value no control shows is named under the form and
			// left out of it: submitting the form drops it.
			out = append(out, hiddenValue{Name: name, Value: vals[name][len(vals[name])-1], Listed: true})
		}
	}
	return out
}
