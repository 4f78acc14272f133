package playground

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// pageFor builds the page input for a URL query as handlePlayground does.
func pageFor(t *testing.T, rawQuery string) pageInput {
	t.Helper()
	raw, err := url.ParseQuery(rawQuery)
	if err != nil {
		t.Fatal(err)
	}
	sc, errs := scene.DecodeLenient(raw, kit.DefaultLimits)
	return pageInput{Scenario: sc, Query: sc.Query(), Raw: raw, Errors: errs,
		Presets: []Preset{{Name: "p1", Title: "Preset one", Query: "lanes=1", Description: "what it shows", key: keyOf(t, "lanes=1")}},
		Limits:  kit.DefaultLimits}
}

// keyOf is the runKey of a query's state, as measure gives a preset's.
func keyOf(t *testing.T, query string) string {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	sc, errs := scene.Decode(q, kit.DefaultLimits)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return runKey(sc)
}

// allControls lists every control of a view, lane panels included.
func allControls(v pageView) []paramCtl {
	out := []paramCtl{v.LaneCtl, v.Speed}
	for _, g := range v.Groups {
		out = append(out, g.Controls...)
	}
	for _, p := range v.Panels {
		out = append(out, p.Strategy, p.Source)
		out = append(out, p.Controls...)
	}
	return out
}

func TestEveryParameterHasOneControl(t *testing.T) {
	v := newView(pageFor(t, ""))
	byName := map[string][]paramCtl{}
	for _, c := range allControls(v) {
		byName[c.Name] = append(byName[c.Name], c)
	}
	want := []string{"lanes", scene.SpeedParam}
	for _, l := range scenario.LaneNames { // the page's own per-lane parameter
		want = append(want, string(l)+"."+scene.SourceParam)
	}
	for _, p := range scenario.Table {
		if !p.Lane {
			want = append(want, p.Name)
			continue
		}
		for _, l := range scenario.LaneNames {
			want = append(want, string(l)+"."+p.Name)
		}
	}
	for _, name := range want {
		cs := byName[name]
		if len(cs) != 1 {
			t.Errorf("%s: %d controls, want 1", name, len(cs))
			continue
		}
		delete(byName, name)
		p, _, ok := scenario.Lookup(name)
		if !ok { // speed, source
			continue
		}
		c := cs[0]
		if c.Help != p.Help || c.Unit != p.Unit || c.Base != p.Name {
			t.Errorf("%s: help %q unit %q base %q, want %q %q %q", name, c.Help, c.Unit, c.Base, p.Help, p.Unit, p.Name)
		}
		if c.Type != typeName(p.Type) {
			t.Errorf("%s: type %s, want %s", name, c.Type, typeName(p.Type))
		}
		switch p.Type {
		case scenario.TypeInt, scenario.TypeFloat, scenario.TypeDuration:
			if name == "lanes" {
				continue
			}
			lo, hi := p.Min, p.Max
			if p.Type == scenario.TypeDuration {
				lo, hi = lo/1e9, hi/1e9
			}
			switch name { // capped by the server's limits
			case "clients":
				hi = float64(kit.DefaultLimits.MaxClients)
			case "duration":
				hi = kit.DefaultLimits.MaxDuration.Seconds()
			}
			if c.Min != fmtNum(lo) || c.Max != fmtNum(hi) {
				t.Errorf("%s: range %s..%s, want %s..%s", name, c.Min, c.Max, fmtNum(lo), fmtNum(hi))
			}
			if c.Scale == "" {
				t.Errorf("%s: no slider", name)
			}
			if c.Pos < 0 || c.Pos > sliderSteps {
				t.Errorf("%s: slider position %d", name, c.Pos)
			}
		case scenario.TypeEnum:
			if !slices.Equal(choiceValues(c.Choices), p.Choices) {
				t.Errorf("%s: choices %v, want %v", name, choiceValues(c.Choices), p.Choices)
			}
		}
	}
	for name := range byName {
		t.Errorf("control %s is not in the vocabulary", name)
	}
}

func choiceValues(cs []kit.Choice) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Value)
	}
	return out
}

func TestControlValuesShowTheState(t *testing.T) {
	v := newView(pageFor(t, "think=2500ms&a.strategy=exponential&a.factor=2.7&clients=300&b.cancel_on_timeout=true&speed=3"))
	got := map[string]paramCtl{}
	for _, c := range allControls(v) {
		got[c.Name] = c
	}
	for name, want := range map[string]string{
		"think": "2.5", "timeout": "2", "a.factor": "2.7", "a.max_delay": "900", "clients": "300",
		"a.strategy": "exponential", "b.strategy": "exponential", "seed": "1", "speed": "3", "lanes": "2",
	} {
		if got[name].Value != want {
			t.Errorf("%s shows %q, want %q", name, got[name].Value, want)
		}
	}
	if !got["b.cancel_on_timeout"].Checked || got["a.cancel_on_timeout"].Checked {
		t.Error("cancel_on_timeout checkboxes do not follow the state")
	}
	if !slices.ContainsFunc(v.Speed.Choices, func(c kit.Choice) bool { return c.Value == "3" }) {
		t.Error("a speed from the URL is missing from the menu")
	}
	if v.Panels[2].Active || v.Panels[3].Active || !v.Panels[1].Active {
		t.Error("lane panels do not follow lanes=2")
	}
}

// TestLanePanelsShowOnlyWhatTheStrategyUses: a lane shows the parameters
// its strategy reads, and of its limiters only their switches while they
// are off.
func TestLanePanelsShowOnlyWhatTheStrategyUses(t *testing.T) {
	for _, name := range strategies.Names() {
		v := newView(pageFor(t, "a.strategy="+name))
		p := v.Panels[0]
		if p.Strategy.Value != name || p.About != strategies.About(name) {
			t.Errorf("%s: panel shows %q, %q", name, p.Strategy.Value, p.About)
		}
		def := scenario.Defaults()
		for _, c := range p.Controls {
			// Every limiter is off by default: its own parameters hide.
			shown := (scenario.Uses(name, c.Base) || c.Base == "cancel_on_timeout") && scenario.ReadsLaneParam(&def, 0, c.Base)
			if c.Hidden == shown {
				t.Errorf("%s: %s hidden=%v, want %v", name, c.Name, c.Hidden, !shown)
			}
		}
	}
}

func TestBadRawValueStaysInItsControl(t *testing.T) {
	in := pageFor(t, "a.strategy=exponential&a.factor=99&clients=abc&think=5x&e.foo=1&speed=fast")
	if len(in.Errors) != 5 {
		t.Fatalf("errors %v, want 5", in.Errors)
	}
	v := newView(in)
	got := map[string]paramCtl{}
	for _, c := range allControls(v) {
		got[c.Name] = c
	}
	for name, raw := range map[string]string{"a.factor": "99", "clients": "abc", "think": "5x"} {
		c := got[name]
		if c.Value != raw {
			t.Errorf("%s shows %q, want the raw %q", name, c.Value, raw)
		}
		if !strings.HasPrefix(c.Error, name+": ") || !strings.Contains(c.Error, strconv.Quote(raw)) {
			t.Errorf("%s: message %q", name, c.Error)
		}
	}
	if got["timeout"].Error != "" || got["a.jitter"].Value != "0.1" {
		t.Error("a good value lost its state")
	}
	if got[scene.SpeedParam].Error == "" {
		t.Error("no message for a bad speed")
	}
	if len(v.General) != 1 || !strings.HasPrefix(v.General[0], "e.foo: ") {
		t.Errorf("general messages %q, want the one of e.foo", v.General)
	}

	// A bad value for a parameter the lane's strategy hides lands in the
	// general area, where it can be seen.
	v = newView(pageFor(t, "a.strategy=fixed&a.factor=99"))
	if len(v.General) != 1 || !strings.HasPrefix(v.General[0], "a.factor: ") {
		t.Errorf("general messages %q, want the one of the hidden a.factor", v.General)
	}
}

// TestCrossFieldErrorUnderTheGivenControl: a lane's delays out of order
// are reported under the control whose value the URL gives (both when it
// gives both), with its value and allowed range, and every other value of
// the URL is kept, the lane's strategy included.
func TestCrossFieldErrorUnderTheGivenControl(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		strategy    string            // lane b's strategy after the page reads the URL
		errs        map[string]string // control → what its message must hold
		box         map[string]string // control → what its box shows
	}{
		{"min above the strategy's max", "b.strategy=grpc&b.min_delay=1h", "grpc",
			map[string]string{"b.min_delay": `b.min_delay: "1h0m0s" is not allowed (allowed: a duration from 1ms to b.max_delay (2m0s))`},
			map[string]string{"b.min_delay": "1h", "b.max_delay": "120"}},
		{"min above the default max", "b.min_delay=1h&clients=500", "exponential",
			map[string]string{"b.min_delay": `b.min_delay: "1h0m0s" is not allowed (allowed: a duration from 1ms to b.max_delay (15m0s))`},
			map[string]string{"b.min_delay": "1h", "clients": "500"}},
		{"max below the default min", "b.strategy=grpc&b.max_delay=50ms", "grpc",
			map[string]string{"b.max_delay": `b.max_delay: "50ms" is not allowed (allowed: at least b.min_delay (1s))`},
			map[string]string{"b.max_delay": "50ms", "b.min_delay": "1"}},
		{"both given", "b.strategy=grpc&b.min_delay=2s&b.max_delay=1s", "grpc",
			map[string]string{"b.max_delay": `b.max_delay: "1s" is not allowed (allowed: at least b.min_delay (2s))`,
				"b.min_delay": `b.min_delay: "2s" is not allowed (allowed: a duration from 1ms to b.max_delay (1s))`},
			map[string]string{"b.min_delay": "2s", "b.max_delay": "1s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := pageFor(t, tc.query)
			if got := in.Scenario.Params.Lanes[1].Strategy; got != tc.strategy {
				t.Errorf("lane b's strategy %q, want %q: the URL's other values must stay", got, tc.strategy)
			}
			v := newView(in)
			if len(v.General) != 0 {
				t.Errorf("general messages %q, want none", v.General)
			}
			got := map[string]paramCtl{}
			for _, c := range allControls(v) {
				got[c.Name] = c
				if want, ok := tc.errs[c.Name]; ok {
					if c.Error != want {
						t.Errorf("%s's message %q, want %q", c.Name, c.Error, want)
					}
					if c.Hidden {
						t.Errorf("%s shows its message on a hidden control", c.Name)
					}
				} else if c.Error != "" {
					t.Errorf("%s has the message %q, want none", c.Name, c.Error)
				}
			}
			for name, want := range tc.box {
				if got[name].Value != want {
					t.Errorf("%s's box shows %q, want %q", name, got[name].Value, want)
				}
			}
		})
	}
}

func TestSliderScales(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scale string
	}{
		{"clients", scaleLog}, {"think", scaleLog}, {"server_factor", scaleLin}, {"server_k", scaleLog},
		{"backlog", scaleLog}, {"outage_at", scaleLog}, {"tick", scaleLog}, {"a.jitter", scaleLin},
		{"a.factor", scaleLin}, {"a.max_attempts", scaleLog},
	} {
		p, _, _ := scenario.Lookup(tc.name)
		lo, hi := p.Min, p.Max
		if p.Type == scenario.TypeDuration {
			lo, hi = lo/1e9, hi/1e9
		}
		if got := sliderScale(p.Type, lo, hi); got != tc.scale {
			t.Errorf("%s: scale %s, want %s", tc.name, got, tc.scale)
			continue
		}
		if sliderPos(tc.scale, p.Type, lo, hi, lo) != 0 || sliderPos(tc.scale, p.Type, lo, hi, hi) != sliderSteps {
			t.Errorf("%s: the range's ends are not the slider's ends", tc.name)
		}
		prev := -1
		for _, f := range []float64{0, 0.001, 0.01, 0.1, 0.5, 1} {
			pos := sliderPos(tc.scale, p.Type, lo, hi, lo+f*(hi-lo))
			if pos < prev {
				t.Errorf("%s: slider not monotonic at %g", tc.name, f)
			}
			prev = pos
		}
	}
	// A log slider puts 001's values in the middle of its travel, not at one end.
	if pos := sliderPos(scaleLog, scenario.TypeInt, 1, 20000, 1000); pos < 500 || pos > 800 {
		t.Errorf("clients=1000 at %d", pos)
	}
}

func TestChartOptions(t *testing.T) {
	v := newView(pageFor(t, "duration=300s"))
	if len(v.Charts) != len(scene.ChartSpecs) {
		t.Fatalf("%d chart options, want %d", len(v.Charts), len(scene.ChartSpecs))
	}
	for i, c := range v.Charts {
		id := scene.ChartSpecs[i].ID
		if c.ID != "chart-"+id {
			t.Errorf("chart %d has id %s", i, c.ID)
		}
		if strings.Contains(string(c.JSON), "__f__") {
			t.Errorf("%s: function markers in the JSON", id)
		}
		var opt struct {
			Series []struct {
				Name string `json:"name"`
				ID   string `json:"id"`
				Data []any  `json:"data"`
			} `json:"series"`
			XAxis []struct {
				Type string   `json:"type"`
				Max  *float64 `json:"max"`
			} `json:"xAxis"`
			YAxis   []json.RawMessage `json:"yAxis"`
			Toolbox struct {
				Feature map[string]json.RawMessage `json:"feature"`
			} `json:"toolbox"`
		}
		if err := json.Unmarshal(c.JSON, &opt); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		var names []string
		for _, s := range opt.Series {
			names = append(names, s.Name)
			if s.Data == nil || len(s.Data) != 0 {
				t.Errorf("%s/%s: data %v, want []", id, s.Name, s.Data)
			}
		}
		want := scene.DelaySeries
		switch id {
		case "delay":
		case "requests":
			// Bars of the latency bins, whose x axis the script sets as
			// the bins arrive.
			want = []string{"ended", "ok"}
			if len(opt.XAxis) != 1 || opt.XAxis[0].Type != "value" || opt.XAxis[0].Max != nil {
				t.Errorf("%s: x axis %+v, want a value axis the script bounds", id, opt.XAxis)
			}
		default:
			want = nil
			i := slices.IndexFunc(scene.ChartSpecs, func(k scene.ChartSpec) bool { return k.ID == id })
			for _, s := range scene.ChartSpecs[i].Series {
				want = append(want, s.Name)
				if !slices.Contains(scenario.Columns, s.Name) {
					t.Errorf("%s: series %s is not a column", id, s.Name)
				}
			}
			if len(opt.XAxis) != 1 || opt.XAxis[0].Type != "value" || opt.XAxis[0].Max == nil || *opt.XAxis[0].Max != 300 {
				t.Errorf("%s: x axis %+v, want value up to the duration", id, opt.XAxis)
			}
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: series %v, want %v", id, names, want)
		}
		if opt.Toolbox.Feature == nil {
			t.Errorf("%s: no toolbox for the script's buttons", id)
		}
		wantY := 1
		if id == "server" {
			wantY = 2
		}
		if len(opt.YAxis) != wantY {
			t.Errorf("%s: %d y axes, want %d", id, len(opt.YAxis), wantY)
		}
	}
	// The script draws the charts the specs say: every one, every time
	// chart from columns, every series on one of its axes.
	if len(v.Data.Charts) != len(scene.ChartSpecs) {
		t.Errorf("%d chart specs for the script, want %d", len(v.Data.Charts), len(scene.ChartSpecs))
	}
	for _, k := range v.Data.Charts {
		if k.Empty == "" || k.Help == "" {
			t.Errorf("%s: no message for no data (%q) or no help (%q)", k.ID, k.Empty, k.Help)
		}
		for _, s := range k.Series {
			if k.X == scene.XTime && !slices.Contains(scenario.Columns, s.Name) {
				t.Errorf("%s: %s is not a column", k.ID, s.Name)
			}
			if s.Axis < 0 || s.Axis >= len(k.Units) {
				t.Errorf("%s/%s: axis %d of %d", k.ID, s.Name, s.Axis, len(k.Units))
			}
		}
	}
}

// render renders the page and parses it.
func render(t *testing.T, in pageInput) *html.Node {
	t.Helper()
	var buf bytes.Buffer
	if err := playground(in).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func attrOf(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

func TestPageHasNoInlineCodeAndEveryHook(t *testing.T) {
	doc := render(t, pageFor(t, "a.factor=99&a.strategy=exponential&e.foo=1"))
	ids := map[string]int{}
	params := map[string]int{}
	sliders := map[string]bool{}
	slots := map[string]string{}
	charts := map[string]bool{}
	var jsonBlocks []string
	var scripts []string
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		for _, a := range n.Attr {
			if a.Key == "style" || strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s> has an inline %s attribute", n.Data, a.Key)
			}
		}
		if n.Data == "style" {
			t.Error("the page has a <style> element")
		}
		if n.Data == "script" {
			src, hasSrc := attrOf(n, "src")
			typ, _ := attrOf(n, "type")
			switch {
			case hasSrc:
				scripts = append(scripts, src)
				// Every script is an ES module but ECharts, vendored as
				// published.
				if module := typ == "module"; module == strings.Contains(src, "/vendor/") {
					t.Errorf("script %s of type %q", src, typ)
				}
			case typ == "application/json":
				id, _ := attrOf(n, "id")
				jsonBlocks = append(jsonBlocks, id)
				if !json.Valid([]byte(textOf(n))) {
					t.Errorf("JSON block %s is not valid JSON", id)
				}
			default:
				t.Errorf("inline script: %.60q", textOf(n))
			}
		}
		if id, ok := attrOf(n, "id"); ok {
			ids[id]++
		}
		if p, ok := attrOf(n, "data-param"); ok {
			params[p]++
			if name, _ := attrOf(n, "name"); name != p {
				t.Errorf("data-param %s has name %q", p, name)
			}
		}
		if p, ok := attrOf(n, "data-slider-for"); ok {
			sliders[p] = true
		}
		if p, ok := attrOf(n, "data-error-for"); ok {
			slots[p] = strings.TrimSpace(textOf(n))
		}
		if k, ok := attrOf(n, "data-chart"); ok {
			l, _ := attrOf(n, "data-lane")
			charts[k+"."+l] = true
		}
	})
	for id, n := range ids {
		if n > 1 {
			t.Errorf("id %s used %d times", id, n)
		}
	}
	for _, id := range []string{"play", "reset", "outage", "speed", "copy-link", "lane-add", "lane-remove",
		"clock", "status", "export-csv", "export-json", "page-data", "view-map", "view-bands", "view-advise", "view-contention"} {
		if ids[id] != 1 {
			t.Errorf("no #%s", id)
		}
	}
	// The playground's modules, which the page names all so that they load
	// at once (app.js imports the others).
	if !slices.Equal(scripts, []string{"/static/vendor/echarts/echarts.min.js", "/static/common.js", "/static/play-state.js",
		"/static/play-controls.js", "/static/play-socket.js", "/static/play-charts.js", "/static/play-draw.js",
		"/static/play-explain.js", "/static/play-exports.js", "/static/play-picture.js", "/static/play-library.js", "/static/app.js"}) {
		t.Errorf("scripts %v", scripts)
	}
	for _, k := range scene.ChartSpecs {
		if !slices.Contains(jsonBlocks, "chart-"+k.ID) {
			t.Errorf("no option block for %s", k.ID)
		}
		for _, l := range scenario.LaneNames {
			if !charts[k.ID+"."+string(l)] {
				t.Errorf("no chart %s for lane %c", k.ID, l)
			}
		}
	}
	v := newView(pageFor(t, ""))
	for _, c := range allControls(v) {
		if params[c.Name] != 1 {
			t.Errorf("%s: %d inputs with data-param", c.Name, params[c.Name])
		}
		if _, ok := slots[c.Name]; !ok {
			t.Errorf("%s: no error slot", c.Name)
		}
		if c.Scale != "" && !sliders[c.Name] {
			t.Errorf("%s: no slider", c.Name)
		}
	}
	if !strings.HasPrefix(slots["a.factor"], `a.factor: "99" is not allowed`) {
		t.Errorf("a.factor's slot holds %q", slots["a.factor"])
	}
	if !strings.HasPrefix(slots[""], `e.foo: "1" is not allowed`) {
		t.Errorf("the general slot holds %q", slots[""])
	}
}

// TestPresetLinks: each preset is a chip that links to its query and says
// its lanes' outcomes, marked by tone, and a line of the phone's menu; the
// preset whose query is the page's but for the speed is the current one in
// both.
func TestPresetLinks(t *testing.T) {
	in := pageFor(t, "lanes=1&speed=20")
	in.Presets = []Preset{
		{Name: "p1", Title: "Preset one", Query: "lanes=1", Description: "what it shows", key: keyOf(t, "lanes=1"),
			Outcomes: []PresetOutcome{{Lane: "a", Strategy: "fixed", Brief: "COLLAPSED", Tone: scenario.ToneBad}}},
		{Name: "p2", Title: "Preset two", Query: "lanes=2", Description: "what it shows too", key: keyOf(t, "lanes=2"),
			Outcomes: []PresetOutcome{{Lane: "a", Strategy: "fixed", Brief: "COLLAPSED", Tone: scenario.ToneBad},
				{Lane: "b", Strategy: "exponential", Brief: "recovered in 21.8s", Tone: scenario.ToneGood}}},
	}
	in.Query = "lanes=1&speed=20" // a preset at another speed is still that preset
	doc := render(t, in)
	type chip struct{ href, title, text, current, outcomes string }
	var chips []chip
	var options []string
	walk(doc, func(n *html.Node) {
		if name, ok := attrOf(n, "data-preset"); ok && n.Data == "a" {
			c := chip{text: name}
			c.href, _ = attrOf(n, "href")
			c.current, _ = attrOf(n, "aria-current")
			walk(n, func(m *html.Node) {
				switch cls, _ := attrOf(m, "class"); {
				case cls == "preset-title":
					c.title = textOf(m)
				case strings.HasPrefix(cls, "outcome "):
					c.outcomes += "[" + cls + "|" + strings.Join(strings.Fields(textOf(m)), " ") + "]"
				}
			})
			chips = append(chips, c)
		}
		if n.Data == "option" && n.Parent != nil {
			if _, ok := attrOf(n.Parent, "data-preset-select"); ok {
				v, _ := attrOf(n, "value")
				_, sel := attrOf(n, "selected")
				options = append(options, fmt.Sprintf("%s|%s|%v", v, textOf(n), sel))
			}
		}
	})
	want := []chip{
		{"?lanes=1", "Preset one", "p1", "page", "[outcome bad|✕ a: COLLAPSED]"},
		{"?lanes=2", "Preset two", "p2", "", "[outcome bad|✕ a: COLLAPSED][outcome good|✓ b: recovered in 21.8s]"},
	}
	if !slices.Equal(chips, want) {
		t.Errorf("chips\n%q\nwant\n%q", chips, want)
	}
	wantOpts := []string{"|Choose a preset…|false", "?lanes=1|Preset one — a: COLLAPSED|true",
		"?lanes=2|Preset two — a: COLLAPSED, b: recovered in 21.8s|false"}
	if !slices.Equal(options, wantOpts) {
		t.Errorf("menu\n%q\nwant\n%q", options, wantOpts)
	}
}

// TestPresetOutcomesAreMeasured: every preset's chip says, for each of its
// lanes, the brief of the verdict its description quotes.
func TestPresetOutcomesAreMeasured(t *testing.T) {
	for _, p := range newPresets(kit.DefaultLimits).list() {
		t.Run(p.Name, func(t *testing.T) {
			q, _ := url.ParseQuery(p.Query)
			sc, _ := scene.Decode(q, kit.DefaultLimits)
			if len(p.Outcomes) != len(sc.Params.Lanes) {
				t.Fatalf("%d outcomes for %d lanes", len(p.Outcomes), len(sc.Params.Lanes))
			}
			for i, o := range p.Outcomes {
				if o.Lane != scenario.LaneNames[i:i+1] || o.Strategy != sc.Params.Lanes[i].Strategy || o.Brief == "" {
					t.Errorf("outcome %d: %+v", i, o)
				}
				// The description's verdict for the lane says the same.
				verdict := "lane " + o.Lane + " (" + o.Strategy + "): "
				j := strings.Index(p.Description, verdict)
				if j < 0 {
					t.Fatalf("the description lacks %q", verdict)
				}
				outcome := strings.SplitN(p.Description[j+len(verdict):], "; ", 3)[1] // baseline; outcome; peak
				switch {
				case o.Brief == "never recovered" && o.Tone == scenario.ToneBad:
					if !strings.HasPrefix(outcome, "COLLAPSED") {
						t.Errorf("%s: brief %q, verdict's outcome %q", o.Lane, o.Brief, outcome)
					}
				case strings.HasPrefix(o.Brief, "recovered ") && o.Tone == scenario.ToneGood:
					// The brief rounds the service's time as the headline does.
					m := regexp.MustCompile(`\bservice (?:back )?([0-9.]+)s after`).FindStringSubmatch(outcome)
					if m == nil {
						t.Fatalf("%s: brief %q, verdict's outcome %q", o.Lane, o.Brief, outcome)
					}
					secs, _ := strconv.ParseFloat(m[1], 64)
					want := fmt.Sprintf("recovered in %.1f s", secs)
					switch {
					case secs < 0.05:
						want = "recovered at once"
					case secs >= 10:
						want = fmt.Sprintf("recovered in %.0f s", secs)
					}
					if o.Brief != want {
						t.Errorf("%s: brief %q, want %q for the verdict's outcome %q", o.Lane, o.Brief, want, outcome)
					}
				case o.Brief == "answers never recovered":
					if !strings.Contains(outcome, "service never (") {
						t.Errorf("%s: brief %q, verdict's outcome %q", o.Lane, o.Brief, outcome)
					}
				case strings.HasSuffix(o.Brief, " ok/s over the last 60 s"):
					lane := withoutHeadline(p.Description[j:])[len(verdict):]
					if k := strings.Index(lane, ". "); k >= 0 {
						lane = lane[:k+1]
					}
					if !strings.HasSuffix(lane, "; "+o.Brief+".") {
						t.Errorf("%s: brief %q, not in the description's verdict %q", o.Lane, o.Brief, p.Description[j:])
					}
				default:
					if o.Brief != outcome {
						t.Errorf("%s: brief %q (%s), verdict's outcome %q", o.Lane, o.Brief, o.Tone, outcome)
					}
				}
			}
		})
	}
}

func TestPageStateForTheScript(t *testing.T) {
	v := newView(pageFor(t, "lanes=3"))
	b, err := json.Marshal(v.Data)
	if err != nil {
		t.Fatal(err)
	}
	var ps pageData
	if err := json.Unmarshal(b, &ps); err != nil {
		t.Fatal(err)
	}
	if ps.Lanes != 3 || ps.Query != v.Query || !slices.Equal(ps.Columns, scenario.Columns) || ps.Steps != sliderSteps {
		t.Errorf("page state %+v", ps)
	}
	if len(ps.Strategies) != len(strategies.Names()) {
		t.Errorf("%d strategies", len(ps.Strategies))
	}
	for _, s := range ps.Strategies {
		if hidden := hiddenControls(pageFor(t, "a.strategy="+s.Name).Scenario.Params); slices.Contains(hidden, "a.cancel_on_timeout") {
			t.Errorf("%s: cancel_on_timeout not shown", s.Name)
		}
	}
}

func TestZeroInputRenders(t *testing.T) {
	var buf bytes.Buffer
	if err := playground(pageInput{}).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `data-param="clients"`) {
		t.Error("a zero input renders no controls")
	}
}

// The generated page_templ.go must match page.templ (templ generate).
func TestTemplGeneratedIsFresh(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go tool templ")
	}
	cmd := exec.Command("go", "tool", "templ", "generate", "-f", "page.templ", "-stdout")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	want, err := cmd.Output()
	if err != nil {
		t.Skipf("templ unavailable: %v: %s", err, stderr.String())
	}
	got, err := os.ReadFile("page_templ.go")
	if err != nil {
		t.Fatal(err)
	}
	// Generated from the module's root (go tool templ generate), the file
	// names its source web/playground/page.templ; generated here, page.templ.
	want = bytes.ReplaceAll(want, []byte("FileName: `page.templ`"), []byte("FileName: `web/playground/page.templ`"))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Error("page_templ.go is stale: run go tool templ generate")
	}
}

// TestSliderTables checks the tables the page moves its boxes with: one per
// distinct scale, each from the range's low end to its high end, never
// decreasing, and each value back at its own position (or one that shows
// the same text, or a neighbour where rounding the value moved it), so that
// a box set from a slider leaves the slider where it was.
func TestSliderTables(t *testing.T) {
	v := newView(pageFor(t, ""))
	names, tables := v.Data.Sliders, v.Data.Scales
	if names["clients"] == names["a.min_delay"] || names["a.min_delay"] != names["b.min_delay"] {
		t.Errorf("tables not shared by scale: %v", names)
	}
	js, _ := json.Marshal(v.Data)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(js)
	zw.Close()
	t.Logf("%d sliders, %d tables; page state %d bytes, %d gzipped", len(names), len(tables), len(js), zipped.Len())
	if len(tables) > 30 {
		t.Errorf("%d tables", len(tables))
	}
	for _, g := range v.Groups {
		for _, c := range g.Controls {
			if c.slider.scale == "" {
				continue
			}
			tab := tables[names[c.Name]]
			if len(tab) != sliderSteps+1 || tab[0] != c.Min || tab[sliderSteps] != c.Max {
				t.Errorf("%s: table of %d from %s to %s, want %s to %s", c.Name, len(tab), tab[0], tab[len(tab)-1], c.Min, c.Max)
				continue
			}
			prev := math.Inf(-1)
			for pos, text := range tab {
				f, err := strconv.ParseFloat(text, 64)
				if err != nil || f < prev {
					t.Fatalf("%s: position %d reads %q after %g", c.Name, pos, text, prev)
				}
				prev = f
				back := sliderPos(c.slider.scale, c.slider.typ, c.slider.lo, c.slider.hi, f)
				if tab[back] != text && (back < pos-1 || back > pos+1) {
					t.Errorf("%s: position %d reads %s, which is at position %d (%s)", c.Name, pos, text, back, tab[back])
					break
				}
			}
		}
	}
}

// TestBoxesOf checks the boxes the server sends after a set: the texts and
// positions the page renders for the same query.
func TestBoxesOf(t *testing.T) {
	in := pageFor(t, "a.min_delay=250ms&clients=2500&lanes=3")
	v := newView(in)
	boxes := boxesOf(in.Scenario, in.Limits)
	for _, c := range append(append([]paramCtl{}, v.Groups[0].Controls...), v.Panels[0].Controls...) {
		if c.Type == "enum" || c.Type == "bool" || c.Type == "tiers" { // no number box
			continue
		}
		if b, ok := boxes[c.Name]; !ok || b.Text != c.Value || b.Pos != c.Pos {
			t.Errorf("%s: box %+v, the page renders %q at %d", c.Name, b, c.Value, c.Pos)
		}
	}
	if b := boxes["a.min_delay"]; b.Text != "0.25" {
		t.Errorf("a.min_delay shows %q, want 0.25 (seconds)", b.Text)
	}
	if _, ok := boxes["c.min_delay"]; !ok {
		t.Errorf("no box for lane c")
	}
	if _, ok := boxes["d.min_delay"]; ok {
		t.Errorf("a box for lane d, which is not in the run")
	}
}

// TestSliderValueText: every unit of the table has its words, and each
// slider's aria-valuetext is its box's value with them.
func TestSliderValueText(t *testing.T) {
	for _, p := range scenario.Table {
		if _, ok := spokenUnits[p.Unit]; p.Unit != "" && !ok {
			t.Errorf("%s: unit %q has no words in spokenUnits", p.Name, p.Unit)
		}
	}
	v := newView(pageFor(t, "a.strategy=fixed&a.min_delay=1s&clients=1&b.strategy=exponential&b.min_delay=250ms"))
	got := map[string]string{}
	for _, c := range allControls(v) {
		if c.Scale != "" {
			got[c.Name] = c.ValueText
		}
	}
	for name, want := range map[string]string{
		"a.min_delay": "1 second", "b.min_delay": "0.25 seconds", "clients": "1 client", "b.jitter": "0.1",
		"b.factor": "2",
	} {
		if got[name] != want {
			t.Errorf("%s's slider says %q, want %q", name, got[name], want)
		}
	}
	doc := render(t, pageFor(t, "clients=1500"))
	walk(doc, func(n *html.Node) {
		if name, ok := attrOf(n, "data-slider-for"); ok && name == "clients" {
			if vt, _ := attrOf(n, "aria-valuetext"); vt != "1500 clients" {
				t.Errorf("the clients slider's aria-valuetext %q, want 1500 clients", vt)
			}
		}
	})
}
