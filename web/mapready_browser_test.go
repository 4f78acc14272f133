package web

// The phase map as a newcomer meets it, in the headless Chromium of
// browser_test.go: /map alone and the playground's link (a scenario, no
// axes) open a default map that runs on load, without an error; its
// tick labels do not touch on a phone; its cells carry signs besides
// their colours, which the test finds drawn on the canvas and looks at
// through an emulated colour blindness. Run them with:
// go test -count=1 -run TestBrowserMapReady -v ./web
//
// BACKOFFLAB_MAP_SHOTS=dir saves their screenshots there.

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// mapReady is a map's state once it has run on load: its errors, its
// cells, what its charts draw and its axes' values.
type mapReady struct {
	Errors  []string
	Valid   bool
	Error   string
	Cells   int
	Total   int
	Drawn   []int
	X, Y    string
	XValues []string
	YValues []string
	Search  string
}

const mapReadyState = `(() => {
	const m = window.backofflabMap, s = m.state(), S = JSON.parse(document.querySelector('#map-data').textContent);
	const charts = m.charts();
	return {errors: [...document.querySelectorAll('[data-error-for]')].map(e => e.textContent.trim()).filter(t => t),
		valid: S.valid, error: s ? s.error : '', cells: s ? s.cells : 0, total: s ? s.total : 0,
		drawn: Object.keys(charts).sort().map(id => charts[id].getOption().series.filter(s => s.name !== 'this scenario').reduce((n, s) => n + s.data.length, 0)),
		x: S.x.name, y: S.y.name, xValues: S.x.values || [], yValues: S.y.values || [],
		search: location.search.slice(1)};
})()`

// waitReady waits until the map in tb has run on load and drawn its
// cells, and returns its state; it fails at once on an error.
func waitReady(tb *tab) mapReady {
	tb.t.Helper()
	if s := eval[string](tb, `JSON.stringify(window.backofflabMap.state())`); s == "null" {
		tb.t.Fatalf("the map did not start on load: %+v", eval[mapReady](tb, mapReadyState))
	}
	waitMapDone(tb)
	eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
	return eval[mapReady](tb, mapReadyState)
}

// checkReady fails unless m is a whole map, run without an error, whose
// every chart draws every cell.
func checkReady(t *testing.T, m mapReady) {
	t.Helper()
	if len(m.Errors) > 0 || m.Error != "" || !m.Valid {
		t.Fatalf("the map opens with errors: %q, %q (valid %v)", m.Errors, m.Error, m.Valid)
	}
	if m.Cells == 0 || m.Cells != m.Total {
		t.Fatalf("the map ran %d of %d cells", m.Cells, m.Total)
	}
	for i, n := range m.Drawn {
		if n != m.Cells {
			t.Errorf("chart %d draws %d cells of %d", i, n, m.Cells)
		}
	}
	if len(m.Drawn) == 0 {
		t.Errorf("no chart drawn")
	}
	q, err := url.ParseQuery(m.Search)
	if err != nil || q.Get("x") != m.X {
		t.Errorf("the URL %q is not the map's canonical query (x=%s)", m.Search, m.X)
	}
}

// tickBoxes are the map's axis labels as drawn on its canvas, each with
// its box in the chart's pixels.
const tickBoxes = `(id => {
	const c = window.backofflabMap.charts()[id];
	const S = JSON.parse(document.querySelector('#map-data').textContent);
	const ticks = new Set([...(S.x.ticks || []), ...(S.y.ticks || [])]);
	const out = [];
	for (const el of c.getZr().storage.getDisplayList(true)) {
		if (!/^(text|tspan)$/.test(el.type) || !el.style || !ticks.has(el.style.text) || el.ignore || el.invisible) continue;
		const r = el.getBoundingRect().clone();
		r.applyTransform(el.getComputedTransform());
		out.push({text: el.style.text, x: r.x, y: r.y, w: r.width, h: r.height});
	}
	return out;
})`

// tickBox is one tick label a map drew, and its box in the chart's pixels.
type tickBox struct {
	Text       string
	X, Y, W, H float64
}

func (a tickBox) overlaps(b tickBox) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// markCounts counts, in chart id, the cells of each sign drawn on its
// canvas and the cells of each category its data holds: a sign per
// categorical cell is the map's encoding besides colour.
const markCounts = `(id => {
	const c = window.backofflabMap.charts()[id];
	const S = JSON.parse(document.querySelector('#map-data').textContent);
	const drawn = {};
	for (const el of c.getZr().storage.getDisplayList(true)) {
		if (!/^(text|tspan)$/.test(el.type) || !el.style || el.ignore || el.invisible) continue;
		drawn[el.style.text] = (drawn[el.style.text] || 0) + 1;
	}
	const o = c.getOption();
	const other = o.series.find(s => s.name === 'other');
	const cells = {};
	for (const d of other.data) {
		const k = (d.value || d)[2];
		cells[k] = (cells[k] || 0) + 1;
	}
	return {drawn, cells, labels: o.visualMap[1].pieces.map(p => p.label)};
})`

type marks struct {
	Drawn  map[string]int
	Cells  map[string]int
	Labels []string
}

// visionDeficiency emulates a colour blindness (CDP's
// Emulation.setEmulatedVisionDeficiency): "deuteranopia", "none", ….
func visionDeficiency(kind emulation.SetEmulatedVisionDeficiencyType) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedVisionDeficiency, emulation.SetEmulatedVisionDeficiencyParams{Type: kind})
		return err
	})
}

func saveShot(t *testing.T, tb *tab, name string) {
	t.Helper()
	if d := os.Getenv("BACKOFFLAB_MAP_SHOTS"); d != "" {
		if err := os.WriteFile(filepath.Join(d, name), tb.screenshot(), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func TestBrowserMapReady(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other browser tests
	env := newMapEnv(t, Limits{RunMemory: 32 << 20})
	axe := readAxe(t)

	t.Run("NoQuery", func(t *testing.T) {
		tb := openMap(t, env, "")
		m := waitReady(tb)
		checkReady(t, m)
		if m.X != "outage_for" || m.Y != "clients" {
			t.Errorf("the default map is %s × %s, want outage_for × clients", m.X, m.Y)
		}
		t.Logf("the default map: %d cells, x %v, y %v", m.Cells, m.XValues, m.YValues)
		tb.axeCheck(axe, "the default map")
		saveShot(t, tb, "map-ready-desktop.png")
	})

	t.Run("PlaygroundLink", func(t *testing.T) {
		// The scenario of the links' test, as the playground's "Phase
		// map of this run" carries it: a third lane, 300 clients, 30 s.
		tb := openMap(t, env, linksStart)
		m := waitReady(tb)
		checkReady(t, m)
		q, _ := url.ParseQuery(m.Search)
		for _, name := range []string{"lanes", "c.strategy", "duration", "outage_at"} {
			want, _ := url.ParseQuery(linksStart)
			if q.Get(name) != want.Get(name) {
				t.Errorf("the map's %s = %q, the link's %q", name, q.Get(name), want.Get(name))
			}
		}
		if len(m.Drawn) != 4 { // three lanes and their difference
			t.Errorf("%d charts for three lanes", len(m.Drawn))
		}
		t.Logf("the link's map: %d cells, x %v, y %v", m.Cells, m.XValues, m.YValues)
	})

	for _, tc := range []struct {
		name, query string
		emulate     []chromedp.Action[chromedp.Void]
	}{
		{"PhoneTicks", "", []chromedp.Action[chromedp.Void]{phone()}},
		{"PhoneDarkTicks", linksStart, []chromedp.Action[chromedp.Void]{phone(), scheme("dark")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := openMap(t, env, tc.query, tc.emulate...)
			checkReady(t, waitReady(tb))
			if w := eval[float64](tb, `innerWidth`); w != phoneW {
				t.Fatalf("the window is %g px wide, want %d", w, phoneW)
			}
			for _, id := range eval[[]string](tb, `Object.keys(window.backofflabMap.charts())`) {
				boxes := eval[[]tickBox](tb, tickBoxes+`('`+id+`')`)
				if len(boxes) < 4 {
					t.Errorf("map %s shows %d tick labels: %v", id, len(boxes), boxes)
				}
				for i, a := range boxes {
					for _, b := range boxes[i+1:] {
						if a.overlaps(b) {
							t.Errorf("map %s: the tick labels %q and %q overlap (%+v, %+v)", id, a.Text, b.Text, a, b)
						}
					}
				}
			}
			tb.axeCheck(axe, "the default map on a phone "+tc.name)
			saveShot(t, tb, "map-ready-"+strings.ToLower(tc.name)+".png")
		})
	}

	t.Run("SignsBesidesColour", func(t *testing.T) {
		tb := openMap(t, env, "")
		checkReady(t, waitReady(tb))
		seen := map[string]bool{}
		for _, id := range []string{"a", "b", "diff"} {
			m := eval[marks](tb, markCounts+`('`+id+`')`)
			for _, l := range m.Labels {
				if sign, _, _ := strings.Cut(l, " "); len([]rune(sign)) != 1 {
					t.Errorf("map %s: the legend's entry %q has no sign before its words", id, l)
				}
			}
			for k, n := range m.Cells {
				var i int
				fmt.Sscan(k, &i)
				sign, _, _ := strings.Cut(m.Labels[i], " ")
				if m.Drawn[sign] < n {
					t.Errorf("map %s: %d cells of %q but %d of its sign %q drawn", id, n, m.Labels[i], m.Drawn[sign], sign)
				}
				seen[sign] = true
			}
		}
		// The default map shows both a collapse and a recovery: the
		// collapse is struck out, whatever its colour.
		if !seen["×"] {
			t.Errorf("no collapsed cell marked × on the default map")
		}
		tb.do("emulate deuteranopia", visionDeficiency(emulation.SetEmulatedVisionDeficiencyTypeDeuteranopia))
		saveShot(t, tb, "map-ready-deuteranopia.png")
		tb.do("emulate achromatopsia", visionDeficiency(emulation.SetEmulatedVisionDeficiencyTypeAchromatopsia))
		saveShot(t, tb, "map-ready-achromatopsia.png")
	})

	t.Run("PatternsOnADenseMap", func(t *testing.T) {
		// 32 × 32 cells, too small for a sign: each category's pattern
		// is laid over its cells, drawn on the canvas.
		tb := openMap(t, env, denseMap)
		checkReady(t, waitReady(tb))
		for _, id := range []string{"a", "b", "diff"} {
			p := eval[patterns](tb, patternCounts+`('`+id+`')`)
			if p.Signs != 0 {
				t.Errorf("map %s draws %d signs on cells too small for them", id, p.Signs)
			}
			if p.Patterned == 0 || p.Drawn < p.Patterned {
				t.Errorf("map %s: %d cells of a patterned category, %d drawn with a pattern", id, p.Patterned, p.Drawn)
			}
			for _, l := range p.Labels {
				t.Logf("map %s's legend: %s", id, l)
			}
		}
		tb.do("emulate deuteranopia", visionDeficiency(emulation.SetEmulatedVisionDeficiencyTypeDeuteranopia))
		saveShot(t, tb, "map-ready-dense-deuteranopia.png")
	})
}

// denseMap is a 32 × 32 map of short, small runs: cheap cells, too small
// on the page for a sign each.
const denseMap = "x=outage_for&x_from=1s&x_to=32s&x_steps=32&y=clients&y_from=25&y_to=800&y_steps=32&duration=40s&outage_at=5s"

// patternCounts counts, in chart id, the categorical cells whose
// category has a pattern, the cells drawn on the canvas with one, and
// the signs drawn.
const patternCounts = `(id => {
	const c = window.backofflabMap.charts()[id];
	const other = c.getOption().series.find(s => s.name === 'other');
	const patterned = other.data.filter(d => d.itemStyle && d.itemStyle.decal).length;
	const S = JSON.parse(document.querySelector('#map-data').textContent);
	const marks = new Set([...S.outcomes, S.serverOnly].map(o => o.mark).filter(m => m));
	for (const m of Object.values(S.diffMarks || {})) for (const v of Object.values(m)) marks.add(v);
	let drawn = 0, signs = 0;
	for (const el of c.getZr().storage.getDisplayList(true)) {
		if (el.type === 'rect' && el.style && el.style.decal) drawn++;
		if (/^(text|tspan)$/.test(el.type) && el.style && marks.has(el.style.text)) signs++;
	}
	return {patterned, drawn, signs, labels: c.getOption().visualMap[1].pieces.map(p => p.label)};
})`

type patterns struct {
	Patterned, Drawn, Signs int
	Labels                  []string
}
