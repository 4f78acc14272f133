package web

// The phase map in the headless Chromium of browser_test.go: a small map
// fills in with its progress bar reaching its total; a cell's click opens
// its run in the playground; leaving the page stops the work on the
// server; axe-core finds no serious or critical violation on the finished
// map. Run them with: go test -run BrowserMap -v ./web
//
// BACKOFFLAB_MAPS=dir makes the README's maps (TestBrowserMapPictures).

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/testwait"
)

// mapEnv is a browser and a server the test constructs itself, so that it
// can read Server.Running().
type mapEnv struct {
	ctx  context.Context
	base string
	srv  *Server
}

func newMapEnv(t *testing.T, lim Limits) *mapEnv {
	t.Helper()
	env := &mapEnv{ctx: startBrowser(t)}
	hs, s, _ := serveShell(t, Options{Limits: lim})
	env.base, env.srv = hs.URL, s
	return env
}

// openMap opens the map of query in a new tab and waits for its script.
func openMap(t *testing.T, env *mapEnv, query string, emulate ...chromedp.Action[chromedp.Void]) *tab {
	t.Helper()
	tb := openTab(t, env.ctx)
	if len(emulate) == 0 {
		emulate = append(emulate, chromedp.EmulateViewport(1280, 900))
	}
	tb.do("emulate the viewport", emulate...)
	tb.do("navigate to the map", chromedp.Navigate(env.base+"/map?"+query))
	tb.waitTrue("the map's script is up", `!!window.backofflabMap`)
	return tb
}

// mapProgress is what changes as a map's cells arrive, for pollProgress.
const mapProgress = `(s => s ? [s.cells, s.finished, s.error] : null)(window.backofflabMap.state())`

// waitMapDone waits, while its cells arrive, until the map in tb is done;
// it fails at once if the map stops with an error.
func waitMapDone(tb *tab) {
	tb.t.Helper()
	if msg := pollProgress[string](tb, "the map is done",
		`(s => s && (s.finished ? 'done' : s.error && 'error: ' + s.error))(window.backofflabMap.state())`, mapProgress); msg != "done" {
		tb.t.Fatalf("the map stopped: %s", msg)
	}
}

// waitRunning waits until the server's count of running simulations is n
// (or, with atMost, at most n).
func waitRunning(t *testing.T, srv *Server, what string, ok func(int64) bool) {
	t.Helper()
	testwait.Eventually(t, what, func() bool { return ok(srv.Running()) })
}

// smallMap is a 4 × 3 map of short runs of the landing view.
const smallMap = "x=outage_for&x_from=2s&x_to=30s&x_steps=4&y=clients&y_from=300&y_to=1500&y_steps=3&duration=50s&outage_at=10s"

// longMap is a map whose cells each take seconds: the work that leaving
// the page must stop.
const longMap = "x=outage_for&x_from=10s&x_to=40s&x_steps=8&y=clients&y_from=5000&y_to=20000&y_steps=8&duration=1h&a.strategy=fixed"

func TestBrowserMap(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other browser tests
	env := newMapEnv(t, Limits{RunMemory: 32 << 20})
	axe := readAxe(t)

	t.Run("FillsIn", func(t *testing.T) {
		tb := openMap(t, env, smallMap)
		// The map's whole finished state, awaited as one: the stream's
		// done, the progress bar and status it sets, and the maps, which
		// redraw at the frame after the last cell. Each is read from the
		// page as it stands, so nothing is read before the page set it.
		type final struct {
			Finished   bool
			Error      string
			Value, Max float64
			Status     string
			Cells      int
			Points     int
			Drawn      []int
			Search     string
		}
		const state = `(() => {
			const m = window.backofflabMap, s = m.state(), b = document.querySelector('#map-progress');
			const charts = m.charts();
			return {finished: !!(s && s.finished), error: s ? s.error : '', value: b.value, max: b.max,
				status: document.querySelector('#map-status').textContent,
				cells: s ? s.cells : 0, points: Object.keys(m.points()).length,
				drawn: ['a', 'b', 'diff'].map(id => charts[id] ? charts[id].getOption().series.filter(s => s.name !== 'this scenario').reduce((n, s) => n + s.data.length, 0) : 0),
				search: location.search.slice(1)};
		})()`
		done := func(p final) bool {
			return p.Finished && p.Value == 12 && p.Max == 12 && p.Cells == 12 && p.Points == 12 &&
				strings.HasPrefix(p.Status, "done: 12 cells in") && slices.Equal(p.Drawn, []int{12, 12, 12})
		}
		// Wait while cells arrive; a map that stops, or ends otherwise,
		// fails with where it stood.
		p := pollProgress[final](tb, "the map is done and drawn",
			`(p => (p.finished && p.drawn.every(n => n === 12) && p.status.startsWith('done:')) || p.error ? p : null)(`+state+`)`,
			mapProgress)
		if !done(p) {
			t.Errorf("the finished map: %+v; want 12 of 12 cells and points, done: 12 cells in …, every map drawing 12", p)
		}
		if !strings.Contains(p.Search, "x_steps=4") {
			t.Errorf("the URL %q is not the map's canonical query", p.Search)
		}
		tb.axeCheck(axe, "the finished map")
		if d := os.Getenv("BACKOFFLAB_MAP_SHOTS"); d != "" {
			os.WriteFile(filepath.Join(d, "map-desktop.png"), tb.screenshot(), 0o644)
		}
	})

	t.Run("PhoneDark", func(t *testing.T) {
		tb := openMap(t, env, smallMap, phone(), scheme("dark"))
		waitMapDone(tb)
		eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
		type layout struct {
			ScrollWidth, InnerWidth, ChartWidth float64
			Background                          string
		}
		l := eval[layout](tb, `(() => {
			const c = document.querySelector('[data-map="a"]');
			return {scrollWidth: document.documentElement.scrollWidth, innerWidth: innerWidth,
				chartWidth: c.getBoundingClientRect().width,
				background: window.backofflabMap.charts().a.getOption().backgroundColor};
		})()`)
		if l.ScrollWidth > l.InnerWidth+0.5 {
			t.Errorf("the page is %g px wide in a %g px window", l.ScrollWidth, l.InnerWidth)
		}
		if l.ChartWidth < 300 {
			t.Errorf("a map is %g px wide on a phone", l.ChartWidth)
		}
		if l.Background != "#1b1f27" { // --card in the dark scheme
			t.Errorf("the map's background is %q in the dark scheme", l.Background)
		}
		tb.axeCheck(axe, "the finished map on a phone, dark")
		if d := os.Getenv("BACKOFFLAB_MAP_SHOTS"); d != "" {
			os.WriteFile(filepath.Join(d, "map-phone-dark.png"), tb.screenshot(), 0o644)
		}
	})

	t.Run("CellClickOpensRun", func(t *testing.T) {
		tb := openMap(t, env, smallMap)
		waitMapDone(tb)
		// The cell at x = 2 (outage_for's third value), y = 1 (clients' second).
		type at struct{ X, Y float64 }
		want := eval[string](tb, `window.backofflabMap.points()['2,1'].cells[0].query`)
		// A click that lands while the map is still being laid out (a
		// loaded machine draws late) hits no cell: the test clicks again
		// while the page stays the map's, as a person would.
		for try := 1; ; try++ {
			pos := eval[at](tb, `(() => {
				const c = window.backofflabMap.charts().a;
				c.getDom().scrollIntoView({block: 'center'});
				const [x, y] = c.convertToPixel({seriesIndex: 0}, [2, 1]);
				const box = c.getDom().getBoundingClientRect();
				return {x: box.left + x, y: box.top + y};
			})()`)
			tb.do("click the cell", chromedp.MouseClickXY(pos.X, pos.Y))
			if left := pollLeft(tb, `location.pathname !== '/map'`); left || try == 3 {
				break
			}
			t.Logf("click %d on the cell opened nothing; clicking again", try)
		}
		tb.waitTrue("the playground opens", `location.pathname === '/' && !!window.backofflab`)
		got := eval[string](tb, `location.search.slice(1)`)
		gq, _ := url.ParseQuery(got)
		wq, _ := url.ParseQuery(want)
		// A canonical link leaves out what is the default: absent is it.
		value := func(q url.Values, name string) string {
			if q.Has(name) {
				return q.Get(name)
			}
			return defaultOf(name)
		}
		for _, name := range []string{"outage_for", "clients", "seed", "duration", "outage_at"} {
			if value(gq, name) != value(wq, name) {
				t.Errorf("the playground's %s = %q, the cell's %q", name, value(gq, name), value(wq, name))
			}
		}
		x := eval[string](tb, `(() => { const p = new URLSearchParams(location.search); return p.get('outage_for') + ' ' + p.get('clients'); })()`)
		t.Logf("the cell opened the playground at %s (outage_for clients)", x)
		// Back to the map: it shows the finished map again.
		tb.do("go back", chromedp.NavigateBack())
		tb.waitTrue("the map is back, finished", `!!window.backofflabMap && (s => s && s.finished && s.cells === 12)(window.backofflabMap.state())`)
	})

	t.Run("LeavingStopsWork", func(t *testing.T) {
		tb := openMap(t, env, longMap)
		waitRunning(t, env.srv, "the map runs", func(n int64) bool { return n > 0 })
		tb.do("leave the page", chromedp.Navigate("about:blank"))
		waitRunning(t, env.srv, "after leaving", func(n int64) bool { return n == 0 })
	})

	t.Run("StopButtonStopsWork", func(t *testing.T) {
		tb := openMap(t, env, longMap)
		waitRunning(t, env.srv, "the map runs", func(n int64) bool { return n > 0 })
		tb.do("click Stop", chromedp.Click(chromedp.ID("map-stop")))
		waitRunning(t, env.srv, "after Stop", func(n int64) bool { return n == 0 })
		tb.waitTrue("the status says stopped", `/^stopped at/.test(document.querySelector('#map-status').textContent)`)
	})

	t.Run("FormChangeRestarts", func(t *testing.T) {
		tb := openMap(t, env, longMap)
		waitRunning(t, env.srv, "the map runs", func(n int64) bool { return n > 0 })
		tb.setBox("x_steps", "3")
		tb.waitTrue("the new map's URL", `new URLSearchParams(location.search).get('x_steps') === '3'`)
		tb.waitTrue("the new map's script is up", `!!window.backofflabMap && window.backofflabMap.state() && window.backofflabMap.state().total === 24`)
		tb.do("leave the page", chromedp.Navigate("about:blank"))
		waitRunning(t, env.srv, "after leaving", func(n int64) bool { return n == 0 })
	})

	t.Run("BadValueNamed", func(t *testing.T) {
		tb := openMap(t, env, strings.Replace(smallMap, "x_steps=4", "x_steps=65", 1))
		msg := eval[string](tb, `document.querySelector('[data-error-for="x_steps"]').textContent`)
		if !strings.Contains(msg, "x_steps") || !strings.Contains(msg, "65") || !strings.Contains(msg, "64") {
			t.Errorf("the error beside x_steps says %q", msg)
		}
		if s := eval[string](tb, `JSON.stringify(window.backofflabMap.state())`); s != "null" {
			t.Errorf("a bad map started: %s", s)
		}
	})
}

// mapPictures are the README's maps: each a map of 120 s runs (the
// scenario's default duration) and the charts of it that the README shows.
var mapPictures = []struct {
	name, query string
	charts      []string
}{
	// 001's curve server: where either policy holds, by the outage's
	// length and the clients.
	{"map-curve", "server_model=curve&x=outage_for&x_from=1s&x_to=60s&x_steps=32&y=clients&y_from=50&y_to=1000&y_steps=32",
		[]string{"a", "b", "diff"}},
	// The worker queue (the default server): the same map.
	{"map-queue", "x=outage_for&x_from=1s&x_to=60s&x_steps=32&y=clients&y_from=100&y_to=3000&y_steps=32",
		[]string{"a", "b", "diff"}},
	// The landing view: lane b's minimum delay and growth.
	{"map-landing", "x=b.min_delay&x_from=10ms&x_to=10s&x_scale=log&x_steps=32&y=b.factor&y_from=1&y_to=4&y_steps=32",
		[]string{"b", "diff"}},
}

// TestBrowserMapPictures makes the README's maps: with BACKOFFLAB_MAPS=dir
// it opens each of mapPictures in Chromium, waits until it is done and
// saves the PNG the page's export gives of each chart as dir/name-chart.png
// (docs/map-*.png are made with BACKOFFLAB_MAPS=docs, from ./web:
// BACKOFFLAB_MAPS=../docs). Without it the test is skipped.
func TestBrowserMapPictures(t *testing.T) {
	dir := os.Getenv("BACKOFFLAB_MAPS")
	if dir == "" {
		t.Skip("BACKOFFLAB_MAPS=dir makes the README's maps there")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env := newMapEnv(t, Limits{})
	for _, m := range mapPictures {
		t.Run(m.name, func(t *testing.T) {
			tmp := t.TempDir()
			tb := openMap(t, env, m.query)
			allowDownloads(t, tb, tmp)
			pollFor[bool](tb, "the map is done", `(s => s && s.finished)(window.backofflabMap.state())`, 30*time.Minute)
			eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
			t.Logf("%s: %s", m.name, eval[string](tb, `document.querySelector('#map-status').textContent`))
			for _, id := range m.charts {
				png, name := tb.download(tmp, chromedp.Click(`[data-export="`+id+`"][data-format="png"]`))
				if want := "backofflab-map-" + id + ".png"; name != want {
					t.Errorf("the export is named %q, want %q", name, want)
				}
				if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
					t.Fatalf("the %s export is not a PNG", id)
				}
				out := filepath.Join(dir, m.name+"-"+id+".png")
				if err := os.WriteFile(out, png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %d bytes; caption: %s", out, len(png), eval[string](tb, `window.backofflabMap.caption('`+id+`')`))
			}
		})
	}
}

// TestBrowserMapBusy: a map past the server's cap of maps is told so on
// the page, under the form and in its status, and does not run.
func TestBrowserMapBusy(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other browser tests
	env := newMapEnv(t, Limits{RunMemory: 32 << 20, MaxViews: 1})
	first := openMap(t, env, longMap)
	waitRunning(t, env.srv, "the first map runs", func(n int64) bool { return n > 0 })
	second := openMap(t, env, smallMap)
	second.waitTrue("the busy message shows", `/server busy: 1 maps/.test(document.querySelector('#map-errors').textContent)`)
	if s := eval[string](second, `document.querySelector('#map-status').textContent`); !strings.Contains(s, "stopped at 0 / 12 cells: server busy") {
		t.Errorf("the second map's status says %q", s)
	}
	// Chromium logs the 503 as a failed resource: the answer this test
	// asks for, not a fault of the page.
	second.expectConsole("status of 503 (Service Unavailable)")
	first.do("leave the first map", chromedp.Navigate("about:blank"))
	waitRunning(t, env.srv, "after the first map left", func(n int64) bool { return n == 0 })
}

// expectConsole takes the console errors that contain substr off tb's
// list, and fails the test if there was none.
func (tb *tab) expectConsole(substr string) {
	tb.t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	kept := tb.errs[:0]
	found := false
	for _, e := range tb.errs {
		if strings.Contains(e, substr) {
			found = true
			continue
		}
		kept = append(kept, e)
	}
	tb.errs = kept
	if !found {
		tb.t.Errorf("no console error says %q", substr)
	}
}
