// Package mapview is the phase map's view (/map): a grid over two
// parameters of the vocabulary, computed by package sweep as "backofflab
// sweep" computes it, streamed to its page (mappage.templ, whose script,
// mappage.js, is embedded here and served as /static/mappage.js).
package mapview

// The phase map (GET /map): a grid over two parameters of the vocabulary,
// every cell a whole simulation of the scenario with the cell's values,
// drawn per lane as a heatmap of the verdict, and the difference between
// two lanes. The engine side is package sweep: its table of parameters
// (sweep.Table) is the form's, sweep.ParseSpec reads the URL, and each cell
// is sweep.RunCell's. This file decodes the map's URL and builds what
// mappage.templ renders; mapstream.go runs the cells and streams them to
// the page (mappage.js) as they end.

import (
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/sweep"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// mapLimits are the bounds of a map on this server: the axes' steps, the
// seeds and the cells from lim, and each cell's run within the playground's
// bounds on clients and duration.
func mapLimits(lim kit.Limits) sweep.Limits {
	return sweep.Limits{MaxSteps: lim.MapMaxSteps, MaxSeeds: lim.MapMaxSeeds, MaxCells: lim.MapMaxCells,
		Check: lim.RunBounds, Bounds: lim.Bounds()}
}

// decodeMap reads a map from a URL's query: the sweep's parameters and the
// scenario's, within the server's limits. A playground link's own
// parameters are taken as the playground means them: its speed does not
// matter to a map, a lane's source must be sim (a map simulates every
// cell). Every error names its parameter.
func decodeMap(q url.Values, lim kit.Limits) (sweep.Spec, []*scenario.ParamError) {
	q = mapScenario(q, true)
	var errs []*scenario.ParamError
	for name, v := range q {
		if _, ok := scene.SourceOf(name); !ok {
			continue
		}
		if raw := v[len(v)-1]; raw != scene.SourceSim {
			errs = append(errs, &scenario.ParamError{Name: name, Value: raw,
				Allow: scene.SourceSim + ": a map simulates every cell (a real lane runs live, in the playground)"})
		}
		delete(q, name)
	}
	if len(errs) > 0 {
		return sweep.Spec{}, errs
	}
	// The scenario's own bounds first, so that a base of too many clients
	// is named as such rather than as the first cell's.
	base := mapScenario(q, false)
	for _, name := range []string{q.Get("x"), q.Get("y")} {
		delete(base, name)
	}
	if p, err := scenario.Parse(base); err == nil {
		if err := lim.RunBounds(p); err != nil {
			return sweep.Spec{}, scenario.Errors(err)
		}
	}
	spec, err := sweep.ParseSpec(q, mapLimits(lim))
	if err != nil {
		return sweep.Spec{}, scenario.Errors(err)
	}
	return spec, nil
}

// givesSweep reports whether q gives any of the sweep's own parameters.
func givesSweep(q url.Values) bool {
	return slices.ContainsFunc(sweep.Table, func(p scenario.Param) bool { return q.Has(p.Name) })
}

// decodeMapQuery is decodeMap of a raw query, for the map's stream and
// exports: a query that does not read (kit.ParseQuery) is refused as it is.
func decodeMapQuery(raw string, lim kit.Limits) (sweep.Spec, []*scenario.ParamError) {
	q, errs := kit.ParseQuery(raw)
	if len(errs) > 0 {
		return sweep.Spec{}, errs
	}
	return decodeMap(q, lim)
}

// mapScenario returns a copy of q without the playground's speed and,
// unless withSweep, without the sweep's own parameters: what is left is
// the scenario. A lane's source stays for decodeMap to judge.
func mapScenario(q url.Values, withSweep bool) url.Values {
	out := kit.CloneValues(q)
	delete(out, scene.SpeedParam)
	if !withSweep {
		for _, p := range sweep.Table {
			delete(out, p.Name)
		}
	}
	return out
}

// mapView is what mappage.templ renders.
type mapView struct {
	// Back is the playground's URL of the map's scenario.
	Back string
	// Axes are the form's two axes, x then y; Seeds its seeds control.
	Axes  []mapAxisCtl
	Seeds mapCtl
	// Scenario names what every cell runs (sweep.ScenarioParts).
	Scenario []string
	// General are the errors that name no control of the form: the
	// scenario's parameters and the cells.
	General []string
	// Lanes are the map's lanes, one heatmap each.
	Lanes []mapLane
	// Outcomes are the verdicts a cell may have, with their words.
	Outcomes []mapOutcome
	Data     mapData
}

// mapAxisCtl is one axis's row of the form: its parameter (a menu of the
// numeric parameters the scenario reads), its ends, steps and scale.
type mapAxisCtl struct {
	Letter          string // x or y
	Name            mapCtl
	From, To, Steps mapCtl
	Scale           mapCtl
	Optional        bool // y: none makes a map of one row
}

// mapCtl is one of the sweep's parameters in the form.
type mapCtl struct {
	Name    string // the parameter (sweep.Table)
	Help    string
	Value   string
	Choices []kit.Choice
	Error   string
}

// mapLane is one lane of the map's scenario.
type mapLane struct {
	Letter string `json:"letter"`
	Title  string `json:"title"` // its strategy in words and by name
}

// mapOutcome is one verdict of a cell, as the legend says it.
type mapOutcome struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	// Tone picks its colour: good, bad, warn or none.
	Tone string `json:"tone"`
	// Mark is the sign drawn on its cells and beside its legend's entry,
	// so that a map is read without telling its colours apart (red from
	// green, above all); "" for a recovered cell, whose shade is its time.
	Mark string `json:"mark"`
	// Pattern is the pattern laid over its cells, which the legend names
	// too: on a map whose cells are too small for a sign, it tells the
	// categories apart without their colours (mapPatterns).
	Pattern string `json:"pattern"`
}

// The patterns of a map's categorical cells (mapOutcome.Pattern), each
// drawn by the page's script under its name.
const (
	patternHatched = "hatched" // diagonal lines: nothing recovered
	patternDotted  = "dotted"  // dots: no outage
	patternCrossed = "crossed" // a grid: stopped
	patternLined   = "lined"   // horizontal lines: the server only
)

// mapOutcomes are the sweep's outcomes as the maps say and draw them, a
// row each (mapOutcome): its words; its tone, a stopped run, which
// outgrew its memory budget, told apart from a collapse; its sign, a
// cross for a collapse, as a person would strike it out; and its pattern.
var mapOutcomes = []mapOutcome{
	{Name: sweep.OutcomeRecovered, Label: "recovered", Tone: scenario.ToneGood},
	{Name: sweep.OutcomeCollapsed, Label: "collapsed", Tone: scenario.ToneBad, Mark: "×", Pattern: patternHatched},
	{Name: sweep.OutcomeNoOutage, Label: "no outage", Tone: "none", Mark: "–", Pattern: patternDotted},
	{Name: sweep.OutcomeStopped, Label: "stopped (memory budget)", Tone: scenario.ToneWarn, Mark: "!", Pattern: patternCrossed},
}

// mapOutcomeOf returns the row of the outcome name in mapOutcomes; an
// outcome without one is said by its name, with no tone, sign or
// pattern (TestEveryCategoryHasASign names it).
func mapOutcomeOf(name string) mapOutcome {
	if i := slices.IndexFunc(mapOutcomes, func(o mapOutcome) bool { return o.Name == name }); i >= 0 {
		return mapOutcomes[i]
	}
	return mapOutcome{Name: name, Label: name}
}

// mapDiffSign is how the difference map tells a category apart without
// its colour: its sign and its pattern ("" for none).
type mapDiffSign struct{ Mark, Pattern string }

// mapDiffSigns are the difference map's categories' signs, a row each:
// the letter of the lane that alone recovered (its colour and its
// letter; diffMarks fills in the letters for a pair of lanes), a cross
// where neither did, hatched as a collapse is.
var mapDiffSigns = map[string]mapDiffSign{
	sweep.DiffOnlyA:    {Mark: "a"},
	sweep.DiffOnlyB:    {Mark: "b"},
	sweep.DiffNeither:  {Mark: "×", Pattern: patternHatched},
	sweep.DiffNoOutage: {Mark: "–", Pattern: patternDotted},
}

// mapDiffPatterns are the patterns of mapDiffSigns' categories that have
// one, by category.
func mapDiffPatterns() map[string]string {
	out := map[string]string{}
	for c, s := range mapDiffSigns {
		if s.Pattern != "" {
			out[c] = s.Pattern
		}
	}
	return out
}

// mapServerOnly is the maps' word for a recovered cell whose server came
// back but whose service did not by the run's end: shading it by the
// server's time would make it look as good as a full recovery.
var mapServerOnly = mapOutcome{Name: "server_only", Label: "server back, service not (by the run's end)", Tone: "part", Mark: "~", Pattern: patternLined}

// mapData is what the page's script starts from.
type mapData struct {
	// Valid reports that the URL names a whole map: the page runs it.
	Valid bool `json:"valid"`
	// Query is the map's canonical query (sweep.Spec.Encode), its share
	// URL's; Base the scenario's alone, to which the form adds its own.
	Query string `json:"query"`
	Base  string `json:"base"`
	// Params are the sweep's parameters, in the form's order.
	Params []string `json:"params"`
	// YParams are those that y names and that a map of one row leaves out.
	YParams []string `json:"yParams"`
	// Axes name each axis's parameters, x's then y's.
	Axes []mapAxisNames `json:"axes"`
	// Recovered is the outcome the lanes' maps draw apart, shaded by
	// their time (a difference is the server's: DiffCats).
	Recovered string      `json:"recovered"`
	Cells     int         `json:"cells"`
	Seeds     int         `json:"seeds"`
	X         mapAxisInfo `json:"x"`
	Y         mapAxisInfo `json:"y"`
	Lanes     []mapLane   `json:"lanes"`
	// Outcomes are the cells' verdicts in the legend's order.
	Outcomes []mapOutcome `json:"outcomes"`
	// ServerOnly is how the maps show a recovered cell whose service
	// never came back, only its server (pointLane.Recovery).
	ServerOnly mapOutcome `json:"serverOnly"`
	// Captions say what each exported map shows, by its id: a lane's
	// letter, or "a/b" for lane b's difference from lane a
	// (sweep.Captions).
	Captions map[string]string `json:"captions"`
	// DiffCats are the categories of the map of two lanes' difference,
	// in its legend's order, and DiffWords say them for each pair of
	// lanes, by "a/b" (sweep.DiffCategories, sweep.AllDiffWords).
	DiffCats  []string                     `json:"diffCats"`
	DiffWords map[string]map[string]string `json:"diffWords"`
	// DiffMarks are the signs of DiffCats on the difference map, for
	// each pair of lanes, by "a/b" (mapDiffSigns, diffMarks); DiffPatterns
	// their patterns, by category (mapDiffPatterns).
	DiffMarks    map[string]map[string]string `json:"diffMarks"`
	DiffPatterns map[string]string            `json:"diffPatterns"`
	// Here is the cell of the scenario's own values, which the maps
	// outline (hereOf).
	Here *mapHere `json:"here,omitempty"`
	// Suggest gives, for each parameter the axis menus offer, the range
	// the form fills in when it is chosen: about the scenario's value
	// divided and multiplied by 4, within the parameter's range, in round
	// steps (suggestRange).
	Suggest map[string]axisSuggestion `json:"suggest"`
}

// mapAxisNames are an axis's parameters in the form.
type mapAxisNames struct {
	Name  string `json:"name"`
	From  string `json:"from"`
	To    string `json:"to"`
	Steps string `json:"steps"`
	Scale string `json:"scale"`
}

// mapAxisInfo is an axis as the charts label it.
type mapAxisInfo struct {
	Name   string   `json:"name"`
	Label  string   `json:"label"` // the parameter in words
	Unit   string   `json:"unit"`
	Values []string `json:"values"`
	// Ticks are the values as the axis's labels say them: a duration in
	// the page's words (5 s, 1 min), anything else as it is.
	Ticks []string `json:"ticks"`
}

// axisSuggestion is a range the form offers for a parameter.
type axisSuggestion struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Steps string `json:"steps"`
	Scale string `json:"scale"`
}

// newMapView builds the page of the map q names, or of its form only,
// with every bad value named beside its control: qerrs are the errors of
// reading q from its URL (kit.ParseQuery). A q that gives none of the
// sweep's parameters names its scenario's default map (withDefaultMap).
func newMapView(q url.Values, qerrs []*scenario.ParamError, lim kit.Limits) mapView {
	q, spec, errs := decodeMapView(q, qerrs, lim)
	valid := len(errs) == 0 && q.Get("x") != ""
	base, p := mapBase(q)
	if valid {
		base = spec.Base
		q = spec.Encode()
	}
	f := mapFields{q: q, byName: map[string][]string{}, shown: map[string]bool{}}
	for _, e := range errs {
		f.byName[e.Name] = append(f.byName[e.Name], e.Error())
	}
	v := mapView{Back: "/?" + base.Encode()}
	v.Data = mapData{Valid: valid, Base: base.Encode(), Suggest: map[string]axisSuggestion{},
		Recovered: sweep.OutcomeRecovered, ServerOnly: mapServerOnly}
	if valid {
		v.Data.Query = q.Encode()
	}
	choices := axisChoices(&p, v.Data.Suggest)
	for _, letter := range []string{"x", "y"} {
		ax := f.axis(letter, choices)
		v.Data.Axes = append(v.Data.Axes, mapAxisNames{Name: ax.Name.Name, From: ax.From.Name, To: ax.To.Name, Steps: ax.Steps.Name, Scale: ax.Scale.Name})
		if ax.Optional {
			v.Data.YParams = append(v.Data.YParams, ax.Name.Name, ax.From.Name, ax.To.Name, ax.Steps.Name, ax.Scale.Name)
		}
		v.Axes = append(v.Axes, ax)
	}
	v.Seeds = f.control("seeds")
	v.Data.Params = f.params
	for _, e := range errs {
		if !f.shown[e.Name] {
			v.General = append(v.General, e.Error())
		}
	}
	for i, l := range p.Lanes {
		v.Lanes = append(v.Lanes, mapLane{Letter: scenario.LaneNames[i : i+1], Title: scenario.StrategyTitle(l.Strategy)})
	}
	for _, o := range sweep.Outcomes {
		v.Outcomes = append(v.Outcomes, mapOutcomeOf(o))
	}
	v.Scenario = sweep.ScenarioParts(&p, q.Get(v.Data.Axes[0].Name), q.Get(v.Data.Axes[1].Name))
	v.Data.Lanes, v.Data.Outcomes = v.Lanes, v.Outcomes
	if valid {
		v.Data.describe(spec, &p)
	}
	return v
}

// decodeMapView reads the map q names, q with its scenario's default map
// when it gives none of the sweep's parameters (withDefaultMap) and its
// URL read without errors (qerrs), and returns q, the map and its errors:
// qerrs and the map's own, but for the axes the form before any is
// chosen lacks.
func decodeMapView(q url.Values, qerrs []*scenario.ParamError, lim kit.Limits) (url.Values, sweep.Spec, []*scenario.ParamError) {
	if len(qerrs) == 0 {
		q = withDefaultMap(q, lim)
	}
	spec, errs := decodeMap(q, lim)
	if !givesSweep(q) {
		// The form before any axis is chosen, as the playground's link
		// opens it: the axes it lacks are to fill in, not errors.
		errs = slices.DeleteFunc(errs, func(e *scenario.ParamError) bool {
			_, ok := sweep.Lookup(e.Name)
			return ok
		})
	}
	return q, spec, kit.WithQueryErrors(qerrs, errs)
}

// mapBase is the scenario of q: the URL's, whatever the sweep's
// parameters say, its simulated lanes' sources left out, as values and
// read, its defaults where it does not parse (its errors are listed).
func mapBase(q url.Values) (url.Values, scenario.Params) {
	base := mapScenario(q, false)
	for name := range base {
		if i, ok := scene.SourceOf(name); ok && i >= 0 && base.Get(name) == scene.SourceSim {
			delete(base, name)
		}
	}
	p, err := scenario.Parse(base)
	if err != nil {
		p = scenario.Defaults()
	}
	return base, p
}

// mapFields are the map's form as its controls are made, from its values
// (q) and errors (byName, by parameter): shown records the parameters
// that have a control, params them in the form's order.
type mapFields struct {
	q      url.Values
	byName map[string][]string
	shown  map[string]bool
	params []string
}

// control is the control of the sweep's parameter name, its value q's or
// else its default.
func (f *mapFields) control(name string) mapCtl {
	param, _ := sweep.Lookup(name)
	c := mapCtl{Name: name, Help: param.Help, Value: param.Default}
	if vs, ok := f.q[name]; ok && len(vs) > 0 {
		c.Value = vs[len(vs)-1]
	}
	c.Error = strings.Join(f.byName[name], "; ")
	f.shown[name] = true
	f.params = append(f.params, name)
	return c
}

// axis is the controls of the axis letter (x or y, which is optional):
// its parameter, a menu of choices, its range, steps and scale.
func (f *mapFields) axis(letter string, choices []kit.Choice) mapAxisCtl {
	ax := mapAxisCtl{Letter: letter, Optional: letter == "y"}
	ax.Name = f.control(letter)
	ax.Name.Choices = choices
	if ax.Optional {
		ax.Name.Choices = append([]kit.Choice{{Value: "", Label: "none: one row"}}, choices...)
	}
	if !ax.Optional && ax.Name.Value == "" {
		// No default map for this scenario: the menu asks rather than
		// showing a parameter whose range is blank.
		ax.Name.Choices = append([]kit.Choice{{Value: "", Label: "choose a parameter"}}, choices...)
	}
	if ax.Name.Value != "" && !hasChoice(ax.Name.Choices, ax.Name.Value) {
		// A parameter the scenario does not read, or none at all: kept
		// in the menu, so that its error shows beside what was asked.
		ax.Name.Choices = append(ax.Name.Choices, kit.Choice{Value: ax.Name.Value, Label: ax.Name.Value})
	}
	ax.From, ax.To, ax.Steps, ax.Scale = f.control(letter+"_from"), f.control(letter+"_to"), f.control(letter+"_steps"), f.control(letter+"_scale")
	for _, s := range sweep.Scales {
		ax.Scale.Choices = append(ax.Scale.Choices, kit.Choice{Value: s, Label: s})
	}
	return ax
}

// describe sets what the page's script draws of a whole map, spec of the
// scenario p: its cells and seeds, its axes, its captions, its lanes'
// differences with their signs, and the cell of the scenario's own
// values.
func (st *mapData) describe(spec sweep.Spec, p *scenario.Params) {
	st.Cells, st.Seeds = spec.Cells(), spec.Seeds
	st.X = axisInfo(spec.X)
	if spec.Y.Name != "" {
		st.Y = axisInfo(spec.Y)
	}
	st.Captions = sweep.Captions(spec, p)
	st.DiffCats, st.DiffWords = sweep.DiffCategories, sweep.AllDiffWords(len(p.Lanes))
	st.DiffMarks, st.DiffPatterns = diffMarks(st.DiffWords), mapDiffPatterns()
	here := hereOf(spec, p)
	st.Here = &here
}

// diffMarks returns the difference map's signs for each pair of lanes
// words names ("a/b"): mapDiffSigns' marks with the pair's own letters for the
// lane that alone recovered.
func diffMarks(words map[string]map[string]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for pair := range words {
		a, b, _ := strings.Cut(pair, "/")
		m := map[string]string{}
		for c, sign := range mapDiffSigns {
			m[c] = sign.Mark
		}
		m[sweep.DiffOnlyA], m[sweep.DiffOnlyB] = a, b
		out[pair] = m
	}
	return out
}

func hasChoice(cs []kit.Choice, v string) bool {
	for _, c := range cs {
		if c.Value == v {
			return true
		}
	}
	return false
}

// axisChoices lists the parameters an axis may sweep in p's scenario: the
// numeric ones its run reads, each lane's strategy parameters for the
// lanes whose strategy uses them. It fills suggest with a range for each.
func axisChoices(p *scenario.Params, suggest map[string]axisSuggestion) []kit.Choice {
	var out []kit.Choice
	add := func(param scenario.Param, name, label string, lane int) {
		out = append(out, kit.Choice{Value: name, Label: label + " (" + name + ")", Help: param.Help})
		suggest[name] = suggestRange(param, param.Field(p, lane))
	}
	for _, param := range scenario.Table {
		if param.Lane || !numericType(param.Type) || param.Name == "lanes" || !scenario.ReadsParam(p, param.Name) {
			continue
		}
		add(param, param.Name, param.Label(), 0)
	}
	for i, l := range p.Lanes {
		letter := scenario.LaneNames[i : i+1]
		for _, param := range scenario.Table {
			if !param.Lane || !numericType(param.Type) || !scenario.Uses(l.Strategy, param.Name) || !scenario.ReadsLaneParam(p, i, param.Name) {
				continue
			}
			add(param, letter+"."+param.Name, "lane "+letter+": "+param.Label(), i)
		}
	}
	return out
}

// numericType reports whether an axis may sweep a parameter of type t.
func numericType(t scenario.Type) bool {
	return t == scenario.TypeInt || t == scenario.TypeFloat || t == scenario.TypeDuration
}

// suggestRange is the range the form offers for param, whose value in the
// scenario ptr points at: about a quarter of it to four times it, within
// the parameter's range, in about 16 round steps (roundRange); for a value
// of 0 (off, or none), from its least value to 10 s (a duration) or 16.
func suggestRange(param scenario.Param, ptr any) axisSuggestion {
	v := fieldValue(ptr)
	lo, hi := v/4, v*4
	if v <= 0 {
		top := 16.0
		if param.Type == scenario.TypeDuration {
			top = float64(10 * time.Second)
		}
		lo, hi = param.Min, max(param.Min*16, top)
	}
	if r, ok := roundRange(param, lo, hi, 16); ok {
		return r
	}
	// A range too narrow for two round values (a parameter whose range
	// is the value itself): its ends as they are.
	lo, hi = math.Max(lo, param.Min), math.Min(hi, param.Max)
	format := func(f float64) string {
		switch param.Type {
		case scenario.TypeInt:
			return strconv.Itoa(int(math.Round(f)))
		case scenario.TypeDuration:
			return time.Duration(f).Round(time.Millisecond).String()
		}
		return strconv.FormatFloat(f, 'g', 4, 64)
	}
	return axisSuggestion{From: format(lo), To: format(hi), Steps: "2", Scale: sweep.ScaleLinear}
}

// axisInfo labels an axis for the charts.
func axisInfo(a sweep.Axis) mapAxisInfo {
	info := mapAxisInfo{Name: a.Name, Label: a.Name, Values: a.Values()}
	info.Ticks = info.Values
	if param, lane, ok := scenario.Lookup(a.Name); ok {
		info.Label, info.Unit = param.Label(), param.Unit
		if param.Type == scenario.TypeDuration {
			info.Ticks = nil
			for _, d := range a.Quantities() {
				info.Ticks = append(info.Ticks, kit.Say(time.Duration(d)))
			}
		}
		if lane >= 0 {
			info.Label = "lane " + scenario.LaneNames[lane:lane+1] + ": " + info.Label
		}
	}
	return info
}

func joinDot(parts []string) string { return strings.Join(parts, " · ") }

// mapIdle is the status a page shows before its map starts.
func mapIdle(valid bool) string {
	if valid {
		return "starting…"
	}
	return "choose the axes, then run the map"
}

// handleMap renders the map's page for its URL: the form, and when the
// URL names a whole map, the page starts it (GET /map/cells).
func handleMap(log *slog.Logger, lim kit.Limits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, qerrs := kit.ParseQuery(r.URL.RawQuery)
		v := newMapView(q, qerrs, lim)
		kit.WritePage(w, r, log, "map", mapPage(v))
	})
}
