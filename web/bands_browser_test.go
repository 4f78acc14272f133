package web

// Browser tests of the seed bands view (package bandsview), in the
// headless Chromium of browser_test.go. Run them with:
// go test -run TestBrowserBands -v ./web

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/bands"
	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/web/scene"
)

func TestBrowserBands(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other browser tests
	env := &browserEnv{ctx: startBrowser(t)}
	srv, _, _ := serveShell(t, Options{Limits: Limits{RunMemory: 32 << 20}})
	env.base = srv.URL
	for _, st := range []struct {
		name string
		fn   func(*testing.T, *browserEnv)
	}{
		{"FillsTheCharts", bandsFillsTheCharts},
		{"Exports", bandsExports},
		{"PlaygroundLink", bandsPlaygroundLink},
		{"LeavingStops", bandsLeavingStops},
		{"Axe", bandsAxe},
	} {
		t.Run(st.name, func(t *testing.T) {
			start := time.Now()
			st.fn(t, env)
			t.Logf("%s took %v", st.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// bandsSmall is a short run with an outage: five seeds take a moment.
const bandsSmall = "duration=30s&clients=300&outage_at=5s&outage_for=5s&seeds=5"

// openBands opens the bands view of query and waits for its band.
func openBands(t *testing.T, env *browserEnv, query string, emulate ...chromedp.Action[chromedp.Void]) *tab {
	t.Helper()
	tb := openTab(t, env.ctx)
	if len(emulate) == 0 {
		emulate = append(emulate, chromedp.EmulateViewport(1280, 800))
	}
	tb.do("emulate the viewport", emulate...)
	tb.do("open /bands", chromedp.Navigate(env.base+"/bands?"+query))
	tb.waitTrue("the band is in", `window.backofflabBands && window.backofflabBands.result()`)
	return tb
}

// bandsFillsTheCharts: /bands?…&seeds=5 runs five seeds, says per lane
// how many collapsed and lists each seed, and fills every chart with a
// median line and a band of as many points as ticks, whose band is the
// p95 − p5 of the server's JSON.
func bandsFillsTheCharts(t *testing.T, env *browserEnv) {
	tb := openBands(t, env, bandsSmall)
	if got := eval[string](tb, `document.querySelector('#bands-status').textContent`); got[:len("done: 5 seeds")] != "done: 5 seeds" {
		t.Errorf("status %q", got)
	}
	if got := eval[float64](tb, `document.querySelector('#bands-progress').value`); got != 5 {
		t.Errorf("progress %v, want 5", got)
	}
	for _, L := range []string{"a", "b"} {
		said := eval[string](tb, fmt.Sprintf(`document.querySelector('[data-collapsed=%q]').textContent`, L))
		var n int
		if _, err := fmt.Sscanf(said, "%d of 5 seeds collapsed", &n); err != nil {
			t.Errorf("lane %s says %q, want N of 5 seeds collapsed", L, said)
		}
		if want := eval[int](tb, fmt.Sprintf(`window.backofflabBands.result().lanes.find(l => l.name === %q).collapsed`, L)); n != want {
			t.Errorf("lane %s says %d collapsed, the band %d", L, n, want)
		}
		// What users saw of the requests across the seeds, in the
		// server's words (bands.Result.Requests, tested by hand there).
		if got := eval[string](tb, fmt.Sprintf(`document.querySelector('[data-requests=%q]').textContent`, L)); !strings.HasPrefix(got, "request p99 ") ||
			!strings.Contains(got, "% succeeded within the patience of ") {
			t.Errorf("lane %s says %q of its requests, want the request p99 and the share within the patience across the seeds", L, got)
		}
		if got := eval[int](tb, fmt.Sprintf(`document.querySelectorAll('[data-outcomes=%q] li').length`, L)); got != 5 {
			t.Errorf("lane %s lists %d seeds, want 5", L, got)
		}
		for _, id := range []string{"throughput", "server", "backoff", "latency"} {
			// The concurrency's band: its series, the band's points and
			// whether it is shaded.
			got := eval[struct {
				Series int     `json:"series"`
				Points int     `json:"points"`
				Shaded bool    `json:"shaded"`
				Width  float64 `json:"width"`
			}](tb, fmt.Sprintf(`(() => {
				const c = window.backofflabBands.chart(%q + '.' + %q);
				if (!c) return {series: 0, points: 0, shaded: false, width: -1};
				const o = c.getOption();
				const b = o.series.find(s => s.id.endsWith('.band'));
				const w = b.data.reduce((m, v) => Math.max(m, v == null ? 0 : v), 0);
				return {series: o.series.length, points: b.data.length, shaded: !!b.areaStyle, width: w};
			})()`, id, L))
			spec := chartByID(t, id)
			if got.Series != 3*len(spec.Series) || got.Points != 300 || !got.Shaded {
				t.Errorf("lane %s %s chart: %+v, want %d series, a shaded band of 300 points", L, id, got, 3*len(spec.Series))
			}
		}
	}
	// Some band has width: five seeds differ.
	if w := eval[float64](tb, `(() => {
		const o = window.backofflabBands.chart('server.b').getOption();
		return o.series.find(s => s.id === 'concurrency.band').data.reduce((m, v) => Math.max(m, v || 0), 0);
	})()`); w <= 0 {
		t.Errorf("lane b's concurrency band is %v wide at most, want above 0", w)
	}
	if tb.t.Failed() || os.Getenv("BANDS_SHOT") == "" {
		return
	}
	os.WriteFile(os.Getenv("BANDS_SHOT"), tb.screenshot(), 0o644)
}

func chartByID(t *testing.T, id string) scene.ChartSpec {
	t.Helper()
	for _, k := range scene.ChartSpecs {
		if k.ID == id {
			return k
		}
	}
	t.Fatalf("no chart %q", id)
	return scene.ChartSpec{}
}

// bandsPlaygroundLink: the playground's seeds control and its link open
// the bands view of the run on the page, with the seeds asked for; the
// header's links to the phase map and the bands carry the run too.
func bandsPlaygroundLink(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=max&duration=30s&clients=300")
	if got := eval[string](tb, `document.querySelector('#seeds').value`); got != "20" {
		t.Errorf("seeds control %q, want 20", got)
	}
	eval[chromedp.Void](tb, `(() => {
		const el = document.querySelector('#seeds');
		el.value = '4';
		el.dispatchEvent(new Event('input', {bubbles: true}));
	})()`)
	tb.waitTrue("the link asks for 4 seeds", `new URL(document.querySelector('#run-seeds').href).searchParams.get('seeds') === '4'`)
	href := eval[string](tb, `document.querySelector('#run-seeds').href`)
	if got := eval[string](tb, `new URL(document.querySelector('#run-seeds').href).searchParams.get('clients')`); got != "300" {
		t.Errorf("the link %s: clients %q, want the page's 300", href, got)
	}
	// The header's links to the other views carry the run on the page too.
	for _, id := range []string{"view-map", "view-bands", "view-advise"} {
		if got := eval[string](tb, `new URL(document.querySelector('#`+id+`').href).searchParams.get('clients')`); got != "300" {
			t.Errorf("#%s: clients %q, want the page's 300", id, got)
		}
	}
	tb.do("click Run seeds", chromedp.Click(chromedp.ID("run-seeds")))
	tb.waitTrue("the band of 4 seeds is in", `window.backofflabBands && window.backofflabBands.result() && window.backofflabBands.result().seeds === 4`)
}

// bandsAxe: axe-core finds no serious or critical violation on the
// finished view, light and dark, desktop and phone, nor on a bad query.
func bandsAxe(t *testing.T, env *browserEnv) {
	axe := readAxe(t)
	for _, v := range []struct {
		name  string
		query string
		dark  bool
		phone bool
		bad   bool
	}{
		{name: "finished", query: bandsSmall},
		{name: "dark phone", query: bandsSmall, dark: true, phone: true},
		{name: "bad seeds", query: "seeds=500", bad: true},
	} {
		t.Run(v.name, func(t *testing.T) {
			vp := chromedp.EmulateViewport(1280, 800)
			if v.phone {
				vp = phone()
			}
			sch := "light"
			if v.dark {
				sch = "dark"
			}
			var tb *tab
			if v.bad {
				tb = openTab(t, env.ctx)
				tb.do("emulate", vp, scheme(sch))
				tb.do("open /bands", chromedp.Navigate(env.base+"/bands?"+v.query))
				tb.waitTrue("the error names seeds", `document.querySelector('#bands-errors').textContent.includes('seeds: "500" is not allowed')`)
			} else {
				tb = openBands(t, env, v.query, vp, scheme(sch))
			}
			if shot := os.Getenv("BANDS_SHOT"); shot != "" && v.phone {
				os.WriteFile(strings.TrimSuffix(shot, ".png")+"-phone.png", tb.screenshot(), 0o644)
			}
			tb.axeCheck(axe, "bands, "+v.name)
		})
	}
}

// bandsExports: the CSV and JSON buttons download the band as the
// server's writers wrote it (bands.CSVHeader, one row per tick per lane),
// and a chart's toolbox icons save it as PNG and SVG.
func bandsExports(t *testing.T, env *browserEnv) {
	dir := t.TempDir()
	tb := openBands(t, env, bandsSmall)
	allowDownloads(t, tb, dir)
	body, name := tb.download(dir, chromedp.Click(chromedp.ID("bands-csv")))
	if name != "backofflab-bands.csv" || !strings.HasPrefix(string(body), bands.CSVHeader()) {
		t.Errorf("CSV %q starts %.80q", name, body)
	}
	if n := strings.Count(string(body), "\n"); n != 1+300*2 {
		t.Errorf("CSV has %d lines, want 1 + 300 ticks × 2 lanes", n)
	}
	body, name = tb.download(dir, chromedp.Click(chromedp.ID("bands-json")))
	var doc struct {
		Seeds int `json:"seeds"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || name != "backofflab-bands.json" || doc.Seeds != 5 {
		t.Errorf("JSON %q: %v, seeds %d", name, err, doc.Seeds)
	}
	for _, f := range []struct{ title, ext, magic string }{{"PNG", "png", "\x89PNG"}, {"SVG", "svg", "<svg"}} {
		eval[chromedp.Void](tb, `document.querySelector('.chart[data-chart="server"][data-lane="b"]').scrollIntoView({block: 'center'})`)
		at := poll[struct{ X, Y float64 }](tb, "the "+f.title+" icon is on the canvas", fmt.Sprintf(`(() => {
			const c = window.backofflabBands.chart('server.b');
			const el = c.getZr().storage.getDisplayList().find(e => e.__title === %q);
			if (!el) return null;
			const r = el.getBoundingRect().clone();
			r.applyTransform(el.getComputedTransform());
			const box = c.getDom().getBoundingClientRect();
			return {X: box.left + r.x + r.width / 2, Y: box.top + r.y + r.height / 2};
		})()`, f.title))
		img, name := tb.download(dir, chromedp.Steps(
			chromedp.MouseEvent(chromedp.MouseMoved, at.X, at.Y),
			chromedp.MouseClickXY(at.X, at.Y),
		))
		if name != "backofflab-bands-server-b."+f.ext || !strings.HasPrefix(string(img), f.magic) {
			t.Errorf("%s export %q starts %.20q", f.title, name, img)
		}
		if f.ext == "svg" && !strings.Contains(string(img), "5 seeds") {
			t.Errorf("the SVG's caption does not say how many seeds")
		}
	}
}

// longBand is a band that runs for many seconds: 60 seeds of ten minutes
// of a storm.
const longBand = "duration=10m&clients=5000&seeds=60"

// bandsLeavingStops: a page that leaves while its seeds run stops them:
// the server's simulations go back to 0 and its memory is given back.
func bandsLeavingStops(t *testing.T, env *browserEnv) {
	pool := budget.NewPool(1 << 30)
	srv, s, _ := serveShell(t, Options{Memory: pool})
	tb := openTab(t, env.ctx)
	tb.do("open a long band", chromedp.Navigate(srv.URL+"/bands?"+longBand))
	tb.waitTrue("the page shows the progress", `document.querySelector('#bands-status').textContent.includes('of 60 seeds done')`)
	testwait.Eventually(t, "seeds run", func() bool { return s.Running() > 0 })
	tb.do("leave the page", chromedp.Navigate("about:blank"))
	testwait.Eventually(t, "no simulation runs", func() bool { return s.Running() == 0 })
	testwait.Eventually(t, "the pool is given back", func() bool { return pool.Used() == 0 })
}
