package playground

import (
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// view.go turns a pageInput into what page.templ shows: one control per
// parameter of the vocabulary, grouped; one panel and one chart column per
// lane; the charts' options; and the page data the page script starts from.
// Everything the templates print is decided here, so that the tests can
// check it without parsing HTML.

// sliderSteps is the resolution of every slider: a slider's position runs
// from 0 to sliderSteps and maps onto its parameter's range, linearly or
// logarithmically (sliderValue, and sliderPos its inverse). play-controls.js
// has no formula of its own: it looks a position's text up in the page's
// slider tables, and takes a box's position from the server (scene.Box).
const sliderSteps = 1000

// The slider scales.
const (
	scaleLin = "lin"
	scaleLog = "log"
)

// keepOnStrategyChange are the lane parameters that survive a change of the
// lane's strategy: those that are not the strategy's (cancel_on_timeout,
// the limits and the limiters, whose defaults every strategy shares) and
// the lane's source. The strategy's own are dropped so that the new
// strategy's defaults apply.
var keepOnStrategyChange = func() []string {
	keep := []string{scene.SourceParam}
	for _, param := range scenario.Table {
		if param.Lane && param.Scope != scenario.ScopeStrategy {
			keep = append(keep, param.Name)
		}
	}
	return keep
}()

// missionGroup is the first section of shared controls, open on the
// first screen: the few the landing view's question turns on (how many
// clients, how much the server serves, how long it stays down), each
// shown only where the run's server model reads it.
const missionGroup = "mission"

// missionShared are missionGroup's parameters, in the order of the page:
// the clients, the server's capacity (workers for the worker queue, the
// healthy concurrency for the latency curves) and the outage's length.
var missionShared = []string{"clients", "workers", "server_limit", "outage_for"}

// missionLane are the lane parameters that show on the first screen, under
// the lane's strategy (those its strategy reads): the backoff's own. The
// lane's other parameters (its limits, limiters, source) wait in a section
// of their own, closed.
var missionLane = []string{"min_delay", "factor", "jitter", "max_delay"}

// controlGroups are the control sections for the parameters shared by
// every lane, in the order of the page, after missionGroup's; each shows
// the rows of its group (scenario.Param.Group) that missionShared has not
// placed, closed until opened. A parameter of no listed group lands in a
// last section, so that every parameter always has a control.
var controlGroups = []struct{ id, title string }{
	{scenario.GroupClients, "More about the clients"},
	{scenario.GroupServer, "Server model and protections"},
	{scenario.GroupOutage, "Outage timing and other faults"},
	{scenario.GroupRun, "Run settings"},
}

// speedChoices are the playback speeds the speed menu offers: virtual seconds per
// wall second, 1 being real time.
var speedChoices = []string{"1", "2", scene.DefaultSpeed, "10", "20", "50", "100", scene.SpeedMax}

// pageView is everything page.templ renders.
type pageView struct {
	Query   string
	Lanes   int            // lanes in the run
	LaneCtl paramCtl       // the lanes parameter (a hidden input the buttons change)
	Groups  []controlGroup // clients, server, outage, run
	Panels  []lanePanel    // one per possible lane; Active for the run's lanes
	Speed   paramCtl       // the speed menu
	Presets []Preset
	// Current is the name of the preset whose scenario the page shows, at
	// any speed, or "" (pageRules.Preset).
	Current string
	// Links are the run's links to the other views (pageRules.Links).
	Links viewLinks
	// General are the messages of bad values that have no visible control.
	General []string
	Specs   []scene.ChartSpec // the chart grid's rows
	Charts  []chartJSON       // one option per chart spec
	Data    pageData
	// ExportCSV and ExportJSON are the headless exports of the same run.
	ExportCSV, ExportJSON string
	Duration              string // seconds, for the clock before the first tick
	// Libraries are what each lane's "Your library" section offers.
	Libraries []libraryView
}

// controlGroup is one collapsible section of controls.
type controlGroup struct {
	ID, Title string
	Controls  []paramCtl
	// Open is the section of the first screen (missionGroup); the others
	// are closed until opened.
	Open bool
}

// lanePanel is one lane's controls: its strategy and the parameters the
// strategy uses (the others are present but hidden, so the query keeps them).
type lanePanel struct {
	Letter   string
	Index    int
	Active   bool // the lane is in the run
	Strategy paramCtl
	// Head is the lane's heading in words (scenario.LaneHeads): its
	// strategy and what else sets it apart from the run's other lanes.
	Head  string
	About string // the strategy's formula
	// Source is the lane's source menu: sim, or real (a real HTTP server and
	// clients, see real.go); SourceLabel is what the lane's head says of it.
	Source      paramCtl
	SourceLabel string
	// Controls are the lane's parameters but its strategy, in the table's
	// order; Mission and More split them for the page: the backoff's own
	// (missionLane) on the first screen, the rest in a closed section.
	Controls      []paramCtl
	Mission, More []paramCtl
}

// hidesChart reports whether lane lp leaves out chart k: a chart that
// needs a lane parameter (scene.ChartSpec.OnlyWith) the lane has not set.
func (lp lanePanel) hidesChart(k scene.ChartSpec) bool {
	if k.OnlyWith == "" {
		return false
	}
	i := slices.IndexFunc(lp.Controls, func(c paramCtl) bool { return c.Base == k.OnlyWith })
	return i < 0 || lp.Controls[i].Value == ""
}

// paramCtl is one parameter's control: for numbers and durations a slider and
// a number box with its unit; for enums a menu; for booleans a checkbox.
type paramCtl struct {
	Name string // the vocabulary name, with the lane letter: name and data-param
	Base string // the name without the lane letter
	Lane string // the lane letter, or ""
	Type string // int, float, duration, enum, bool or seed
	Help string // the parameter's meaning, from the table
	// Label is the parameter in plain words (scenario.Param.Label), shown
	// beside its name.
	Label string
	// Allowed describes the accepted values, as the validator words them.
	Allowed string
	Unit    string
	// Min and Max bound the value in the number box's unit (seconds for
	// durations), capped by the server's limits.
	Min, Max string
	Scale    string // the slider's scale, lin or log; "" for no slider
	Value    string // the number box's text or the menu's value
	Pos      int    // the slider's position, 0 to sliderSteps
	Checked  bool   // a checkbox's state
	Choices  []kit.Choice
	Error    string // the message of a bad value, shown beside the control
	Hidden   bool   // a parameter the lane's strategy or the server's model does not read
	// ValueText is what a screen reader says of the slider: the box's value
	// and its unit in words ("0.1 seconds"), rather than the slider's
	// position; UnitOne and UnitMany are the unit's words, for the script
	// to say a new value as the slider moves.
	ValueText         string
	UnitOne, UnitMany string
	// slider is the slider's scale, the key of its table in the page
	// state; zero for no slider.
	slider sliderSpec
}

// sliderSpec is everything a slider's scale depends on: controls with the
// same spec (a parameter in every lane) share one table.
type sliderSpec struct {
	scale  string // scaleLin or scaleLog; "" for no slider
	typ    scenario.Type
	lo, hi float64 // in the box's unit
}

// chartJSON is the ECharts option of one chart, embedded with
// templ.JSONScript under ID.
type chartJSON struct {
	ID   string
	JSON json.RawMessage
}

// pageData is the page script's starting point, embedded as JSON.
type pageData struct {
	Query      string         `json:"query"`
	Lanes      int            `json:"lanes"`
	Duration   float64        `json:"duration"` // seconds
	Columns    []string       `json:"columns"`
	LaneNames  string         `json:"laneNames"`
	Strategies []strategyInfo `json:"strategies"`
	Keep       []string       `json:"keep"` // kept on a strategy change
	// Charts are the charts' specs, row by row: the script draws what
	// they say.
	Charts  []scene.ChartSpec `json:"charts"`
	Steps   int               `json:"steps"` // slider resolution
	Presets []Preset          `json:"presets"`
	// Libraries are the libraries a lane can take the defaults of: their
	// values and knobs.
	Libraries []libraryView `json:"libraries"`
	// Sliders maps each slider's control name to its table in Scales;
	// Scales[i][pos] is the box's text at slider position pos, so that the
	// page moves the box with the slider without a formula of its own.
	Sliders map[string]int `json:"sliders"`
	Scales  [][]string     `json:"scales"`
	// Rules are what the page shows that follows from the run: the
	// hello and params messages bring them anew.
	Rules pageRules `json:"rules"`
}

// strategyInfo tells the script how to show a strategy: its label, its
// title and its formula. Which lane parameters show is the rules' to say
// (pageRules.Hidden).
type strategyInfo struct {
	Name  string `json:"name"`
	Label string `json:"label"` // in plain words (strategies.Label)
	Title string `json:"title"` // label and name, as a lane's head and menu show it
	About string `json:"about"`
	// AboutParts is About as the page shows it (prose).
	AboutParts []scene.ProsePart `json:"about_parts"`
}

// newView builds the page's view model from its input.
func newView(in pageInput) pageView {
	sc := in.Scenario
	if len(sc.Params.Lanes) == 0 { // a zero pageInput: show the defaults
		sc.Params = scenario.Defaults()
	}
	if sc.Speed.Text == "" {
		sc.Speed = scene.SpeedOf(scene.DefaultSpeed)
	}
	p := sc.Params
	query := in.Query
	if query == "" {
		query = scene.Scenario{Params: p, Speed: sc.Speed}.Query()
	}
	rules := rulesOf(p, sc, query, keysOf(in.Presets))
	v := pageView{Query: query, Lanes: len(p.Lanes), Presets: in.Presets, Specs: scene.ChartSpecs,
		ExportCSV: "/export.csv?" + query, ExportJSON: "/export.json?" + query,
		Duration: fmtNum(p.Duration.Seconds()), Current: rules.Preset, Links: rules.Links}
	b := newControls(in, p, rules.Hidden)
	v.LaneCtl = b.laneCount(len(p.Lanes))
	v.Groups = b.sharedGroups()
	v.Panels = b.lanePanels(in.Scenario.Real, scenario.LaneHeads(&p))
	v.Speed = b.speedMenu(sc.Speed.Text)
	v.General = b.general()
	v.Charts = chartsJSON(p.Duration.Seconds())
	v.Data = newPageData(query, p, in.Presets)
	v.Data.Rules = rules
	v.Libraries = in.Libraries
	if v.Libraries == nil {
		v.Libraries = libraryViews(nil, in.Limits)
	}
	v.Data.Libraries = v.Libraries
	v.Data.Sliders, v.Data.Scales = sliderTables(v)
	return v
}

// controls builds the page's controls for one input: each with its value,
// its error, and hidden when the run does not read it; it keeps which
// names have a visible control, for the errors that have none.
type controls struct {
	in     pageInput
	all    scenario.Params // the run's values, every lane's panel with its own
	errs   map[string][]string
	hidden map[string]bool
	shown  map[string]bool // names whose error shows beside a visible control
}

func newControls(in pageInput, p scenario.Params, hidden []string) *controls {
	b := &controls{in: in, all: withEveryLane(p), errs: map[string][]string{}, hidden: map[string]bool{}, shown: map[string]bool{}}
	for _, e := range in.Errors {
		b.errs[e.Name] = append(b.errs[e.Name], e.Error())
	}
	for _, name := range hidden {
		b.hidden[name] = true
	}
	return b
}

// control is param's control (lane i, or -1 for a shared one) with its
// error and hidden as the rules say.
func (b *controls) control(param scenario.Param, lane int) paramCtl {
	c := newControl(param, lane, &b.all, b.in)
	if msgs, ok := b.errs[c.Name]; ok {
		c.Error = strings.Join(msgs, "; ")
	}
	c.Hidden = b.hidden[c.Name]
	return c
}

// laneCount is the number of lanes: a hidden input, shown by the lane
// buttons.
func (b *controls) laneCount(n int) paramCtl {
	lp := scenario.MustLookup("lanes")
	c := b.control(lp, -1)
	c.Value = strconv.Itoa(n)
	b.shown["lanes"] = true
	return c
}

// sharedGroups are the sections of the parameters every lane shares: the
// first screen's (missionShared), controlGroups', and the rest.
func (b *controls) sharedGroups() []controlGroup {
	placed := map[string]bool{}
	mission := controlGroup{ID: missionGroup, Title: "Clients, server, outage", Open: true}
	for _, name := range missionShared {
		param, _, ok := scenario.Lookup(name)
		if !ok || param.Lane {
			panic("web: missionShared names " + name + ", not a shared parameter") // a bug of the list
		}
		mission.Controls = append(mission.Controls, b.control(param, -1))
		placed[name] = true
	}
	groups := []controlGroup{mission}
	for _, g := range controlGroups {
		cg := controlGroup{ID: g.id, Title: g.title}
		for _, param := range scenario.Table {
			if param.Lane || param.Group != g.id || placed[param.Name] {
				continue
			}
			cg.Controls = append(cg.Controls, b.control(param, -1))
			placed[param.Name] = true
		}
		groups = append(groups, cg)
	}
	var rest []paramCtl
	for _, param := range scenario.Table {
		if !param.Lane && !placed[param.Name] {
			rest = append(rest, b.control(param, -1))
		}
	}
	if len(rest) > 0 {
		groups = append(groups, controlGroup{ID: "other", Title: "Other", Controls: rest})
	}
	for _, g := range groups {
		for _, c := range g.Controls {
			if !c.Hidden {
				b.shown[c.Name] = true
			}
		}
	}
	return groups
}

// lanePanels are every lane's panel, the run's lanes active with their
// heads; real is the letter of the real lane, or "".
func (b *controls) lanePanels(real string, heads []string) []lanePanel {
	var panels []lanePanel
	for i := range scenario.MaxLanes {
		lp := lanePanel{Letter: scenario.LaneNames[i : i+1], Index: i, Active: i < len(heads)}
		strategy := b.all.Lanes[i].Strategy
		lp.About = strategies.About(strategy)
		lp.Head = strategies.Label(strategy)
		if lp.Active {
			lp.Head = heads[i]
		}
		lp.Source = sourceControl(lp.Letter, real == lp.Letter)
		if msgs, ok := b.errs[lp.Source.Name]; ok {
			lp.Source.Error = strings.Join(msgs, "; ")
		}
		if real == lp.Letter {
			lp.SourceLabel = "real HTTP"
		}
		if lp.Active {
			b.shown[lp.Source.Name] = true
		}
		for _, param := range scenario.Table {
			if !param.Lane {
				continue
			}
			c := b.control(param, i)
			if param.Name == "strategy" {
				lp.Strategy = c
			} else {
				lp.Controls = append(lp.Controls, c)
				if slices.Contains(missionLane, param.Name) {
					lp.Mission = append(lp.Mission, c)
				} else {
					lp.More = append(lp.More, c)
				}
			}
			if lp.Active && !c.Hidden {
				b.shown[c.Name] = true
			}
		}
		panels = append(panels, lp)
	}
	return panels
}

// speedMenu is the speed menu at speed, which it offers even when
// speedChoices lack it (a speed from the URL).
func (b *controls) speedMenu(speed string) paramCtl {
	c := paramCtl{Name: scene.SpeedParam, Base: scene.SpeedParam, Label: "speed", Type: "enum", Value: speed,
		Help: "playback: virtual seconds per wall second (1× is real time)"}
	for _, s := range speedChoices {
		c.Choices = append(c.Choices, kit.Choice{Value: s, Label: speedLabel(s)})
	}
	if !slices.Contains(speedChoices, speed) {
		c.Choices = append(c.Choices, kit.Choice{Value: speed, Label: speedLabel(speed)})
	}
	if msgs, ok := b.errs[scene.SpeedParam]; ok {
		c.Error = strings.Join(msgs, "; ")
	}
	b.shown[scene.SpeedParam] = true
	return c
}

// general are the messages of the bad values that have no visible
// control; it is called after every control is built.
func (b *controls) general() []string {
	var out []string
	for _, e := range b.in.Errors {
		if !b.shown[e.Name] {
			out = append(out, e.Error())
		}
	}
	return out
}

// chartsJSON is every chart's ECharts option, for a run of duration
// seconds.
func chartsJSON(duration float64) []chartJSON {
	var out []chartJSON
	for _, k := range scene.ChartSpecs {
		js, err := scene.ChartOption(k.ID, duration)
		if err != nil {
			panic(err) // scene.ChartSpecs and scene.ChartOption disagree: a bug
		}
		out = append(out, chartJSON{ID: "chart-" + k.ID, JSON: js})
	}
	return out
}

// sliderTables gathers the tables of every slider of v, one per distinct
// scale: four lanes' min_delay sliders share one.
func sliderTables(v pageView) (map[string]int, [][]string) {
	names := map[string]int{}
	var tables [][]string
	index := map[sliderSpec]int{}
	add := func(c paramCtl) {
		if c.slider.scale == "" {
			return
		}
		i, ok := index[c.slider]
		if !ok {
			i = len(tables)
			index[c.slider] = i
			tables = append(tables, sliderTable(c.slider))
		}
		names[c.Name] = i
	}
	for _, g := range v.Groups {
		for _, c := range g.Controls {
			add(c)
		}
	}
	for _, lp := range v.Panels {
		for _, c := range lp.Controls {
			add(c)
		}
	}
	return names, tables
}

// sliderTable is the box's text at each slider position of sp.
func sliderTable(sp sliderSpec) []string {
	t := make([]string, sliderSteps+1)
	for pos := range t {
		t[pos] = fmtNum(sliderValue(sp.scale, sp.typ, sp.lo, sp.hi, pos))
	}
	return t
}

// boxesOf is what every number box of sc's run shows (its lanes' and the
// shared ones), the same text and position the page renders: the page
// shows the server's canonical values without parsing or formatting Go
// durations itself.
func boxesOf(sc scene.Scenario, lim Limits) map[string]scene.Box {
	p := sc.Params
	in := pageInput{Limits: lim}
	boxes := map[string]scene.Box{}
	for _, param := range scenario.Table {
		switch param.Type {
		case scenario.TypeInt, scenario.TypeFloat, scenario.TypeDuration, scenario.TypeSeed:
		default:
			continue
		}
		lanes := []int{-1}
		if param.Lane {
			lanes = lanes[:0]
			for i := range p.Lanes {
				lanes = append(lanes, i)
			}
		}
		for _, i := range lanes {
			c := newControl(param, i, &p, in)
			boxes[c.Name] = scene.Box{Text: c.Value, Pos: c.Pos}
		}
	}
	return boxes
}

// sourceControl is lane letter's source menu.
func sourceControl(letter string, real bool) paramCtl {
	c := paramCtl{Name: letter + "." + scene.SourceParam, Base: scene.SourceParam, Label: "source", Lane: letter, Type: "enum", Help: scene.SourceHelp,
		Allowed: "one of " + scene.SourceSim + ", " + scene.SourceReal, Value: scene.SourceSim,
		Choices: []kit.Choice{
			{Value: scene.SourceSim, Label: scene.SourceSim, Help: "simulated, in virtual time at any speed"},
			{Value: scene.SourceReal, Label: scene.SourceReal, Help: scene.SourceHelp},
		}}
	if real {
		c.Value = scene.SourceReal
	}
	return c
}

func newPageData(query string, p scenario.Params, presets []Preset) pageData {
	ps := pageData{Query: query, Lanes: len(p.Lanes), Duration: p.Duration.Seconds(),
		Columns: scenario.Columns, LaneNames: scenario.LaneNames,
		Keep: keepOnStrategyChange, Charts: scene.ChartSpecs, Steps: sliderSteps, Presets: presets}
	if ps.Presets == nil {
		ps.Presets = []Preset{}
	}
	for _, name := range strategies.Names() {
		ps.Strategies = append(ps.Strategies, strategyInfo{Name: name, Label: strategies.Label(name), Title: strategyLabel(name),
			About: strategies.About(name), AboutParts: scene.ProseOf(strategies.About(name))})
	}
	return ps
}

// newControl builds the control of param (lane i, or -1 for a shared
// parameter) showing its value in ps, or the URL's raw value when that one
// was bad.
func newControl(param scenario.Param, lane int, ps *scenario.Params, in pageInput) paramCtl {
	c := paramCtl{Name: param.Name, Base: param.Name, Label: param.Label(), Type: typeName(param.Type), Help: param.Help,
		Allowed: param.Allowed(), Unit: param.Unit}
	if lane >= 0 {
		c.Lane = scenario.LaneNames[lane : lane+1]
		c.Name = c.Lane + "." + param.Name
	}
	if param.Name == "lanes" {
		c.Allowed = "1 to " + strconv.Itoa(scenario.MaxLanes)
		return c
	}
	goText := param.Value(ps, max(lane, 0))
	lo, hi := param.Min, param.Max
	switch param.Name { // the server's own caps narrow the table's ranges
	case "clients":
		if in.Limits.MaxClients > 0 {
			hi = math.Min(hi, float64(in.Limits.MaxClients))
		}
	case "duration":
		if in.Limits.MaxDuration > 0 {
			hi = math.Min(hi, float64(in.Limits.MaxDuration))
		}
	}
	switch param.Type {
	case scenario.TypeEnum:
		c.Value = goText
		for _, ch := range param.Choices {
			h, label := "", scenario.ChoiceLabel(param.Name, ch)
			if param.Name == "strategy" {
				// Its name shows as code beside the menu and in the
				// lane's head: the menu says it in plain words.
				h, label = strategies.About(ch), strategies.Label(ch)
			}
			c.Choices = append(c.Choices, kit.Choice{Value: ch, Label: label, Help: h})
		}
		return c
	case scenario.TypeBool:
		c.Checked = goText == "true"
		c.Value = goText
		return c
	case scenario.TypeSeed:
		c.Min, c.Max = "0", strconv.FormatUint(math.MaxUint64, 10)
		c.Value = rawOr(in.Raw, c.Name, in.Errors, goText)
		return c
	case scenario.TypeFaults, scenario.TypeTiers:
		c.Value = rawOr(in.Raw, c.Name, in.Errors, goText)
		return c
	}
	val := 0.0
	if param.Type == scenario.TypeDuration {
		d, _ := time.ParseDuration(goText)
		val, lo, hi = d.Seconds(), lo/1e9, hi/1e9
		c.Value = fmtNum(val)
	} else {
		val, _ = strconv.ParseFloat(goText, 64)
		c.Value = goText
	}
	c.Min, c.Max = fmtNum(lo), fmtNum(hi)
	c.Scale = sliderScale(param.Type, lo, hi)
	c.Pos = sliderPos(c.Scale, param.Type, lo, hi, val)
	c.slider = sliderSpec{scale: c.Scale, typ: param.Type, lo: lo, hi: hi}
	c.UnitOne, c.UnitMany = spokenUnit(param.Unit)
	c.ValueText = valueText(c.Value, c.UnitOne, c.UnitMany)
	c.Value = rawOr(in.Raw, c.Name, in.Errors, c.Value)
	return c
}

// spokenUnits are the table's units in words, singular and plural, for
// the sliders' aria-valuetext: a screen reader would spell "req/s".
var spokenUnits = map[string][2]string{
	"s":         {"second", "seconds"},
	"%":         {"percent", "percent"},
	"attempts":  {"attempt", "attempts"},
	"calls":     {"call", "calls"},
	"clients":   {"client", "clients"},
	"conn":      {"connection", "connections"},
	"lanes":     {"lane", "lanes"},
	"req":       {"request", "requests"},
	"req/s":     {"request per second", "requests per second"},
	"retries/s": {"retry per second", "retries per second"},
	"tokens":    {"token", "tokens"},
	"workers":   {"worker", "workers"},
}

// spokenUnit returns unit in words, singular and plural; a unit that
// spokenUnits lacks is said as written.
func spokenUnit(unit string) (one, many string) {
	if w, ok := spokenUnits[unit]; ok {
		return w[0], w[1]
	}
	return unit, unit
}

// valueText is a slider's aria-valuetext: the box's text and its unit in
// words. play-controls.js says it the same way as the slider moves.
func valueText(text, one, many string) string {
	unit := many
	if text == "1" {
		unit = one
	}
	return strings.TrimSpace(text + " " + unit)
}

// rawOr returns the URL's raw value of name when it was bad, so that the
// user sees what they wrote beside the message, else shown.
func rawOr(raw url.Values, name string, errs []*scenario.ParamError, shown string) string {
	for _, e := range errs {
		if e.Name == name {
			if vals, ok := raw[name]; ok && len(vals) > 0 {
				return vals[len(vals)-1]
			}
			return e.Value
		}
	}
	return shown
}

func typeName(k scenario.Type) string {
	switch k {
	case scenario.TypeInt:
		return "int"
	case scenario.TypeFloat:
		return "float"
	case scenario.TypeDuration:
		return "duration"
	case scenario.TypeEnum:
		return "enum"
	case scenario.TypeBool:
		return "bool"
	case scenario.TypeSeed:
		return "seed"
	case scenario.TypeFaults:
		return "faults"
	case scenario.TypeTiers:
		return "tiers"
	}
	return "unknown"
}

// logLow is where a logarithmic slider over [0, max] starts above 0:
// position 0 is 0 and position 1 is logLow.
func logLow(typ scenario.Type, hi float64) float64 {
	switch typ {
	case scenario.TypeInt:
		return 1
	case scenario.TypeDuration:
		return 0.01 // seconds
	}
	return hi / 1e4
}

// sliderScale chooses a slider's scale: logarithmic for wide ranges
// (max/min ≥ 100), where a linear slider would spend nearly all of its
// travel on values nobody wants.
func sliderScale(typ scenario.Type, lo, hi float64) string {
	if lo <= 0 {
		if typ == scenario.TypeFloat {
			return scaleLin // jitter: 0 to 1
		}
		lo = logLow(typ, hi)
	}
	if hi/lo >= 100 {
		return scaleLog
	}
	return scaleLin
}

// sliderPos is the slider position of value v, the inverse of sliderValue.
func sliderPos(scale string, typ scenario.Type, lo, hi, v float64) int {
	var f float64
	switch {
	case hi <= lo:
		return 0
	case scaleLog == scale && lo > 0:
		f = math.Log(math.Max(v, lo)/lo) / math.Log(hi/lo) * sliderSteps
	case scaleLog == scale:
		if v <= lo {
			return 0
		}
		low := logLow(typ, hi)
		f = 1 + math.Log(math.Max(v, low)/low)/math.Log(hi/low)*(sliderSteps-1)
	default:
		f = (v - lo) / (hi - lo) * sliderSteps
	}
	return int(math.Max(0, math.Min(sliderSteps, math.Round(f))))
}

// sliderValue is the value at slider position pos, in the box's unit:
// rounded to 3 significant digits on a log scale (1230 clients, 0.0123 s),
// and to the slider's step on a linear one, so that the box reads well.
func sliderValue(scale string, typ scenario.Type, lo, hi float64, pos int) float64 {
	if hi <= lo {
		return lo
	}
	var v float64
	if scale == scaleLog {
		switch {
		case lo > 0:
			v = lo * math.Pow(hi/lo, float64(pos)/sliderSteps)
		case pos == 0:
			v = lo
		default:
			low := logLow(typ, hi)
			v = low * math.Pow(hi/low, float64(pos-1)/(sliderSteps-1))
		}
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	} else {
		dec := max(0, int(math.Round(-math.Log10((hi-lo)/sliderSteps))))
		v, _ = strconv.ParseFloat(strconv.FormatFloat(lo+(hi-lo)*float64(pos)/sliderSteps, 'f', dec, 64), 64)
	}
	if typ == scenario.TypeInt {
		v = math.Round(v)
	}
	return math.Min(hi, math.Max(lo, v))
}

// fmtNum writes a number in plain decimal, as the number boxes show it.
func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// strategyLabel is a strategy in plain words with its name, as a menu
// shows it: "fixed interval (fixed)".
func strategyLabel(name string) string { return scenario.StrategyTitle(name) }

func speedLabel(s string) string {
	if s == scene.SpeedMax {
		return "max"
	}
	return s + "×"
}

// sourceHead is what a lane's head says after its strategy: nothing for a
// simulated lane.
func sourceHead(label string) string {
	if label == "" {
		return ""
	}
	return " · " + label
}

// toneMark is the sign beside a preset lane's outcome, so that its tone
// does not rest on colour alone.
func toneMark(tone string) string {
	switch tone {
	case scenario.ToneGood:
		return "✓"
	case scenario.ToneBad:
		return "✕"
	}
	return "·"
}

// presetOption is a preset's line in the phone's preset menu: its title
// and its lanes' outcomes.
func presetOption(p Preset) string {
	parts := make([]string, len(p.Outcomes))
	for i, o := range p.Outcomes {
		parts[i] = o.Lane + ": " + o.Brief
	}
	if len(parts) == 0 {
		return p.Title
	}
	return p.Title + " — " + strings.Join(parts, ", ")
}

// inputMode picks the phone keyboard of a box: a list (faults, tiers)
// has names in it.
func inputMode(typ string) string {
	switch typ {
	case "int", "seed":
		return "numeric"
	case "faults", "tiers":
		return "text"
	}
	return "decimal"
}
