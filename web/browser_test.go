package web

// The playground in a real browser: headless
// Chromium drives the page that NewServer serves on loopback. The subtests
// share one browser and one server; each has its own tab (its own session).
// Any console error, uncaught exception or error log entry (a CSP violation
// is one) fails the subtest. Run them with: go test -run Browser -v ./web
//
// BACKOFFLAB_SCREENSHOTS=/some/dir keeps the screenshots of the Screenshots
// subtest there (else they go to a temporary directory).

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"image"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/playground"
	"github.com/backofflab/backofflab/web/scene"
)

// browserEnv is what the subtests share: the browser and one server (one,
// so that it compresses ECharts once and the browser caches it).
type browserEnv struct {
	ctx  context.Context // the browser's
	base string          // the server's URL
}

// TestBrowser and TestBrowserRuns hold the playground's subtests in two
// halves of about the same length, each with its own server and browser,
// so that make test runs them beside each other and the other long
// browser tests.
func TestBrowser(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other long browser tests
	runBrowserSubtests(t, []browserSubtest{
		{"PageLoadsAndTicks", browserPageLoads},
		{"Presets", browserPresets},
		{"ControlChangesRunAndURL", browserControlChangesRun},
		{"URLRestoresControls", browserURLRestoresControls},
		{"StopResumeServer", browserStopResume},
		{"BadValueShowsMessage", browserBadValue},
		{"Screenshots", browserScreenshots},
	})
}

// TestBrowserRuns is TestBrowser's second half.
func TestBrowserRuns(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other long browser tests
	runBrowserSubtests(t, []browserSubtest{
		{"Exports", browserExports},
		{"RealLane", browserRealLane},
		{"HaltedLaneVerdict", browserHaltedLane},
		{"LogScale", browserLogScale},
		{"ServerModel", browserServerModel},
		{"FaultWindows", browserFaultWindows},
		{"LandingVerdicts", browserLandingVerdicts},
		{"LimiterSwitch", browserLimiterSwitch},
		{"Tiers", browserTiers},
		{"Rerun", browserRerun},
		{"Tooltips", browserTooltips},
		{"OwnAxes", browserOwnAxes},
		{"Annotations", browserAnnotations},
		{"LiveVerdicts", browserLiveVerdicts},
		{"PresetSpeed", browserPresetSpeed},
		{"HonestLink", browserHonestLink},
	})
}

// browserSubtest is a subtest of TestBrowser or TestBrowserRuns.
type browserSubtest struct {
	name string
	fn   func(*testing.T, *browserEnv)
}

// runBrowserSubtests starts a browser and a server and runs subtests on
// them, one after the other.
func runBrowserSubtests(t *testing.T, subtests []browserSubtest) {
	t.Helper()
	start := time.Now()
	env := &browserEnv{ctx: startBrowser(t)}
	t.Logf("browser up in %v", time.Since(start).Round(time.Millisecond))
	// A small run budget, so that a storm lane stops within a second.
	srv, _, _ := serveShell(t, Options{Limits: Limits{RunMemory: 32 << 20}})
	env.base = srv.URL
	for _, st := range subtests {
		t.Run(st.name, func(t *testing.T) {
			start := time.Now()
			st.fn(t, env)
			t.Logf("%s took %v", st.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// openPage opens a tab (1280×800 unless emulate says otherwise) on the
// playground with query and waits until its socket is connected and ticks
// arrive.
func openPage(t *testing.T, env *browserEnv, query string, emulate ...chromedp.Action[chromedp.Void]) *tab {
	t.Helper()
	tb := openTab(t, env.ctx)
	if len(emulate) == 0 {
		emulate = append(emulate, chromedp.EmulateViewport(1280, 800))
	}
	tb.do("emulate the viewport", emulate...)
	tb.navigate(env.base + "/?" + query)
	tb.waitTrue("#status says connected", `document.querySelector('#status').textContent === 'connected'`)
	tb.waitTrue("ticks arrive", `window.backofflab.rows().length > 0`)
	return tb
}

// rowCount returns how many tick rows the page holds.
func (tb *tab) rowCount() int {
	tb.t.Helper()
	return eval[int](tb, `window.backofflab.rows().length`)
}

// waitRowsT waits until the page has a row at virtual time ≥ sec.
func (tb *tab) waitRowsT(sec float64) {
	tb.t.Helper()
	tb.waitTrue(fmt.Sprintf("a row at t ≥ %g s", sec),
		fmt.Sprintf(`(r => r.length > 0 && r[r.length - 1][0] >= %g)(window.backofflab.rows())`, sec))
}

// waitQuery waits until the settings in effect hold name=value (the
// server answered the change with params): the settings' canonical query
// has it, or leaves it out as the default. The page's URL holds the run,
// its values at t = 0 and its live changes; a change made while it plays
// is one of those.
func (tb *tab) waitQuery(name, value string) {
	tb.t.Helper()
	// A run with a real lane plays in real time: its speed's default is 1.
	isDefault := fmt.Sprint(value == defaultOf(name))
	if name == scene.SpeedParam {
		isDefault = fmt.Sprintf(`([...q.values()].includes('real') ? '1' : %q) === %q`, scene.DefaultSpeed, value)
	}
	tb.waitTrue(fmt.Sprintf("the settings have %s=%s", name, value),
		fmt.Sprintf(`(q => q.has(%q) ? q.get(%q) === %q : %s)(new URLSearchParams(window.backofflab.settings()))`,
			name, name, value, isDefault))
}

// defaultOf returns the value of the parameter name that a canonical query
// leaves out: its default (a lane's of its default strategy).
func defaultOf(name string) string {
	switch {
	case name == scene.SpeedParam:
		return scene.DefaultSpeed
	case strings.HasSuffix(name, ".source"):
		return scene.SourceSim
	}
	row, lane, ok := scenario.Lookup(name)
	if !ok {
		return ""
	}
	def := scenario.Defaults()
	def.Lanes = nil
	for i := range scenario.MaxLanes {
		def.Lanes = append(def.Lanes, scenario.DefaultLane(i))
	}
	return row.Value(&def, max(lane, 0))
}

// pause pauses the run and waits until the rows queued before the pause
// have arrived: they may follow the state message that says paused, which
// gives the last one's time.
func (tb *tab) pause() {
	tb.t.Helper()
	tb.do("click #play", chromedp.Click(chromedp.ID("play")))
	tb.waitTrue("the run is paused and its rows are in", `(s => s.playing === false && document.querySelector('#play').textContent === 'Play' &&
		(r => s.last_row_t < 0 ? r.length === 0 : r.length > 0 && r[r.length - 1][0] === s.last_row_t)(window.backofflab.rows()))(window.backofflab.state())`)
}

// selectValue sets a <select> as a user does: the value, then change.
func (tb *tab) selectValue(sel, value string) {
	tb.t.Helper()
	eval[chromedp.Void](tb, fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (!el) throw new Error('no select ' + %q);
		if (![...el.options].some(o => o.value === %q)) throw new Error(%q + ' has no option ' + %q);
		el.value = %q;
		el.dispatchEvent(new Event('change', {bubbles: true}));
	})()`, sel, sel, value, sel, value, value))
}

func mean(rows [][]*float64, c int, from, to float64) (float64, int) {
	var sum float64
	var n int
	for _, r := range rows {
		if t := *r[0]; t > from && t <= to && r[c] != nil {
			sum += *r[c]
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return sum / float64(n), n
}

// 1. The page loads with no console error, connects, and its charts grow.
func browserPageLoads(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=20&duration=10m")

	cols := eval[[]string](tb, `JSON.parse(document.getElementById('page-data').textContent).columns`)
	if !slices.Equal(cols, scenario.Columns) {
		t.Fatalf("page columns %v, want scenario.Columns %v", cols, scenario.Columns)
	}
	if cls := eval[string](tb, `document.querySelector('#status').className`); !strings.Contains(cls, "ok") {
		t.Errorf("#status class %q, want ok", cls)
	}
	n := tb.rowCount()
	poll[bool](tb, "the rows grow", fmt.Sprintf(`window.backofflab.rows().length >= %d`, n+50))
	rows := tb.rows()
	for i, r := range rows {
		if len(r) != 1+2*len(scenario.Columns) {
			t.Fatalf("row %d has %d values, want t and 2 lanes × %d", i, len(r), len(scenario.Columns))
		}
		if i > 0 && !(*r[0] > *rows[i-1][0]) {
			t.Fatalf("row %d: t %v after %v", i, *r[0], *rows[i-1][0])
		}
	}
	// Every chart of both lanes draws: the time charts' first series has
	// points, the delay-by-retry chart its bands, the requests chart its
	// bins.
	counts := poll[map[string]int](tb, "every chart's series has data", `(() => {
		const out = {};
		for (const [key, c] of Object.entries(window.backofflab.charts())) {
			const s = c.getModel().getSeriesByIndex(key.startsWith('delay.') ? 2 : 0);
			out[key] = s ? s.getData().count() : 0;
		}
		return Object.keys(out).length === 12 && Object.values(out).every(v => v > 0) && out;
	})()`)
	t.Logf("points per chart: %v", counts)
	// The clock and the verdicts follow the ticks.
	poll[string](tb, "the clock runs", `(s => /^t = [1-9][0-9.]* s \/ 600 s/.test(s) && s)(document.querySelector('#clock').textContent)`)
	poll[bool](tb, "both verdicts show a summary", `[...document.querySelectorAll('[data-verdict]')].filter(e => !e.closest('[hidden]')).every(e => /^(Before the [a-z ]+, t|T)he server answered /.test(document.querySelector('[data-verdict-details="' + e.dataset.verdict + '"]').textContent))`)
}

// 2. A control changes the running simulation, not a new one, and the URL.
func browserControlChangesRun(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=20&duration=10m&outage=none&clients=1000")
	tb.waitRowsT(15)
	okA, okB := col(t, 0, "ok"), col(t, 1, "ok")
	slider0 := eval[string](tb, `document.querySelector('[data-slider-for="clients"]').value`)

	rows := tb.rows()
	before := *rows[len(rows)-1][0]
	tb.setBox("clients", "3000")
	tb.waitQuery("clients", "3000")
	// The server follows params with a state message: the virtual time at
	// which the engine took the new value.
	changed := poll[float64](tb, "the state after the change", fmt.Sprintf(`(s => s.t >= %g && s.t)(window.backofflab.state())`, before))
	if slider := eval[string](tb, `document.querySelector('[data-slider-for="clients"]').value`); slider == slider0 {
		t.Errorf("the clients slider stayed at %s after the box went to 3000", slider)
	}
	tb.waitRowsT(changed + 21)
	rows = tb.rows()
	if *rows[0][0] > 1 {
		t.Fatalf("the run restarted (first row at t = %v): a clients change must apply live", *rows[0][0])
	}
	for _, c := range []int{okA, okB} {
		before, nb := mean(rows, c, 3, changed-0.5)
		after, na := mean(rows, c, changed+1, changed+21)
		ratio := after / before
		t.Logf("column %d: ok %.1f/s over %d rows before (1000 clients), %.1f/s over %d rows after (3000): ×%.2f", c, before, nb, after, na, ratio)
		if !(ratio > 2.4 && ratio < 3.6) {
			t.Errorf("column %d: ok rate ×%.2f after 1000 → 3000 clients, want about ×3", c, ratio)
		}
	}

	// A range slider moves its box and the URL too.
	want := eval[string](tb, `(() => {
		const s = document.querySelector('[data-slider-for="clients"]');
		s.value = String(Math.round(Number(s.max) / 4));
		s.dispatchEvent(new Event('input', {bubbles: true}));
		s.dispatchEvent(new Event('change', {bubbles: true}));
		return document.querySelector('[data-param="clients"]').value;
	})()`)
	if want == "3000" || want == "" {
		t.Fatalf("moving the clients slider left the box at %q", want)
	}
	tb.waitQuery("clients", want)
}

// 3. Opening a page's URL in a new tab restores every control.
func browserURLRestoresControls(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=20&duration=10m")
	tb.setBox("clients", "2500")
	tb.waitQuery("clients", "2500")
	tb.selectValue(`[data-param="b.strategy"]`, "grpc")
	tb.waitQuery("b.strategy", "grpc")
	tb.selectValue(`[data-param="a.strategy"]`, "exponential")
	tb.waitQuery("a.strategy", "exponential")
	tb.setBox("a.factor", "3.5")
	tb.waitQuery("a.factor", "3.5")
	tb.setBox("a.min_delay", "0.25") // seconds in the box, a Go duration in the URL
	tb.waitQuery("a.min_delay", "250ms")
	eval[chromedp.Void](tb, `(() => {
		const el = document.querySelector('[data-param="b.cancel_on_timeout"]');
		el.checked = !el.checked;
		el.dispatchEvent(new Event('change', {bubbles: true}));
	})()`)
	tb.waitQuery("b.cancel_on_timeout", "true")
	tb.selectValue(`[data-param="outage"]`, "crash")
	tb.waitQuery("outage", "crash")
	tb.selectValue("#speed", "50")
	tb.waitQuery("speed", "50")

	href := eval[string](tb, `location.href`)
	settings := eval[string](tb, `window.backofflab.settings()`)
	want := tb.controls()
	t.Logf("%d controls; URL %s", len(want), href)

	tb2 := openTab(t, env.ctx)
	tb2.do("emulate the viewport", chromedp.EmulateViewport(1280, 800))
	tb2.navigate(href)
	tb2.waitTrue("the second tab connects", `document.querySelector('#status').textContent === 'connected'`)
	tb2.waitTrue("the second tab gets ticks", `window.backofflab.rows().length > 0`)
	if got := eval[string](tb2, `location.href`); got != href {
		t.Errorf("the second tab's URL became\n%s\nwant\n%s", got, href)
	}
	// The link replays the run: its changes, made while the first tab
	// played, move the second tab's controls at their virtual times.
	tb2.waitTrue("the replay reaches the first tab's settings", fmt.Sprintf(`window.backofflab.settings() === %q`, settings))
	got := tb2.controls()
	for name, w := range want {
		if g, ok := got[name]; !ok || g != w {
			t.Errorf("control %s: %q in the new tab, %q in the first", name, g, w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("control %s only in the new tab", name)
		}
	}
	for name, v := range map[string]string{"clients": "2500", "a.strategy": "exponential", "b.strategy": "grpc",
		"a.factor": "3.5", "a.min_delay": "0.25", "b.cancel_on_timeout": "true", "outage": "crash", "speed": "50"} {
		if got[name] != v {
			t.Errorf("new tab: %s shows %q, want %q", name, got[name], v)
		}
	}
	if s := eval[string](tb2, `window.backofflab.state().speed`); s != "50" {
		t.Errorf("new tab's session runs at speed %q, want 50", s)
	}
}

// 4. The stop/resume button stops the server (timeouts, no ok) and resumes
// it; what the page then shows is the engine's own run of the same window:
// the same run with the outage started and ended at the times the page's
// state gives, row for row.
func browserStopResume(t *testing.T, env *browserEnv) {
	// At speed 5 the page reads 50 rows a second: it would have to stall
	// for 20 s before the session coalesced any (outbox.go), which would
	// make its rows differ from the engine's.
	const query = "outage=none&speed=5&duration=10m&a.strategy=full_jitter&b.strategy=think_scaled&backlog=0"
	tb := openPage(t, env, query)
	okA, toA := col(t, 0, "ok"), col(t, 0, "timeouts")
	tb.waitRowsT(2)
	tb.waitTrue("the button offers to stop", `document.querySelector('#outage').textContent === 'Stop server'`)

	tb.do("click Stop server", chromedp.Click(chromedp.ID("outage")))
	tb.waitTrue("the button offers to resume", `document.querySelector('#outage').textContent === 'Resume server' && document.querySelector('#outage').dataset.down === 'true'`)
	// An array, truthy even when it holds 0.
	stopped := poll[[]float64](tb, "the state says down", `(s => s.down && s.outages.length === 1 && s.outages[0][1] === -1 && [s.outages[0][0]])(window.backofflab.state())`)[0]
	tb.waitTrue("lane a's timeouts rise and ok falls to 0", fmt.Sprintf(`(rows => {
		const after = rows.filter(r => r[0] > %g);
		return after.some(r => r[%d] > 0) && after.length > 0 && after[after.length - 1][%d] === 0;
	})(window.backofflab.rows())`, stopped, toA, okA))

	tb.do("click Resume server", chromedp.Click(chromedp.ID("outage")))
	tb.waitTrue("the button offers to stop again", `document.querySelector('#outage').textContent === 'Stop server' && document.querySelector('#outage').dataset.down === 'false'`)
	resumed := poll[[]float64](tb, "the state says up", `(s => !s.down && s.outages.length === 1 && s.outages[0][1] >= 0 && [s.outages[0][1]])(window.backofflab.state())`)[0]
	if stopped2 := eval[float64](tb, `window.backofflab.state().outages[0][0]`); stopped2 != stopped {
		t.Fatalf("the outage's start moved from %v to %v", stopped, stopped2)
	}
	tb.waitRowsT(resumed + 10)
	rows := tb.rows()

	// The engine's own run: the page's parameters, the outage from
	// stopped to resumed, ticked to the page's last row.
	want := replayOutage(t, query, stopped, resumed, *rows[len(rows)-1][0])
	if len(rows) != len(want) {
		t.Fatalf("the page holds %d rows up to t = %v, the engine's run %d", len(rows), *rows[len(rows)-1][0], len(want))
	}
	for i, r := range rows {
		for j, v := range r {
			w := want[i][j]
			if v == nil && math.IsNaN(w) || v != nil && *v == w {
				continue
			}
			got := "null"
			if v != nil {
				got = strconv.FormatFloat(*v, 'g', -1, 64)
			}
			t.Fatalf("row %d (t = %v), column %d: the page shows %s, the engine's run %v", i, want[i][0], j, got, w)
		}
	}
	// What the outage did, as the page and the engine agree it did.
	var peak, clear float64
	for _, r := range want {
		if r[0] <= stopped {
			continue
		}
		peak = max(peak, r[toA])
		if r[toA] != 0 {
			clear = r[0]
		}
	}
	t.Logf("stopped at %.1f s, resumed at %.1f s; lane a's timeouts peaked at %v/s and stopped at %.1f s (%.1f s after the resume); %d rows as the engine's",
		stopped, resumed, peak, clear, clear-resumed, len(rows))
	if peak == 0 {
		t.Errorf("no timeouts during the outage")
	}
}

// replayOutage runs query's parameters in the engine, with the server
// stopped at stopped and resumed at resumed (seconds, as the page's state
// gives them), to until, with a page's run memory (the RunMemory the
// browser tests give their server), and returns its rows as a session sends
// them (playground.TickRow).
func replayOutage(t *testing.T, query string, stopped, resumed, until float64) [][]float64 {
	t.Helper()
	q, errs := kit.ParseQuery(query)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	st, errs := scene.DecodeScenario(q, Limits{}.WithDefaults())
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	eng, err := simengine.NewWithBudget(st.Params, budget.NewAccount(nil, 32<<20))
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]float64
	emit := func(tk scenario.Tick) { rows = append(rows, playground.TickRow(tk, nil, eng)) }
	at := func(sec float64) time.Duration { return time.Duration(math.Round(sec * 1e9)) }
	eng.AdvanceTo(at(stopped), emit)
	eng.Outage(true)
	eng.AdvanceTo(at(resumed), emit)
	eng.Outage(false)
	eng.AdvanceTo(at(until), emit)
	if got := eng.Outages(); len(got) != 1 || got[0][0] != at(stopped) || got[0][1] != at(resumed) {
		t.Fatalf("the engine's outage %v, want [%v %v]", got, at(stopped), at(resumed))
	}
	return rows
}

// 5. A bad value shows its message beside its control; the run goes on.
func browserBadValue(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=20&duration=10m&a.strategy=exponential")
	tb.setBox("a.factor", "abc")
	msg := poll[string](tb, "a.factor's error slot shows the message", `(s => s.includes('a.factor') && s.includes('"abc"') && s)(document.querySelector('[data-error-for="a.factor"]').textContent)`)
	t.Logf("a.factor: %s", msg)
	if !strings.Contains(msg, "a number from 1 to 10") {
		t.Errorf("the message %q lacks the allowed range", msg)
	}
	if box := eval[string](tb, `document.querySelector('[data-param="a.factor"]').value`); box != "abc" {
		t.Errorf("the box shows %q, want the bad value abc beside its message", box)
	}
	if !eval[bool](tb, `document.querySelector('[data-param="a.factor"]').getAttribute('aria-invalid') === 'true' && !!document.querySelector('.ctl.bad [data-param="a.factor"]')`) {
		t.Errorf("a.factor is not marked invalid")
	}
	if q := eval[string](tb, `new URLSearchParams(window.backofflab.settings()).get('a.factor') || '2'`); q != "2" {
		t.Errorf("the URL's a.factor became %q, want the last good value 2", q)
	}
	n := tb.rowCount()
	poll[bool](tb, "the run goes on", fmt.Sprintf(`window.backofflab.rows().length >= %d && document.querySelector('#status').textContent === 'connected'`, n+50))
	if rows := tb.rows(); *rows[0][0] > 1 {
		t.Errorf("the run restarted after the bad value")
	}

	// A bad value in the URL shows its message as the page loads.
	tb.do("navigate to clients=0", chromedp.Navigate(env.base+"/?speed=20&duration=10m&clients=0"))
	onLoad := eval[string](tb, `document.querySelector('[data-error-for="clients"]').textContent`)
	t.Logf("clients on load: %s", onLoad)
	for _, want := range []string{"clients", `"0"`, "a whole number from 1 to"} {
		if !strings.Contains(onLoad, want) {
			t.Errorf("clients' error slot on load: %q, want it to hold %q", onLoad, want)
		}
	}
	if box := eval[string](tb, `document.querySelector('[data-param="clients"]').value`); box != "0" {
		t.Errorf("the clients box shows %q, want the bad value 0", box)
	}
	tb.waitTrue("the page with a bad value connects", `document.querySelector('#status').textContent === 'connected'`)
	poll[bool](tb, "it runs with the other values", `window.backofflab.rows().length > 50`)
	if still := eval[string](tb, `document.querySelector('[data-error-for="clients"]').textContent`); !strings.Contains(still, `"0"`) {
		t.Errorf("after connecting, clients' error slot became %q", still)
	}
}

// download runs trigger and returns the file the browser saved, and the
// name the page suggested. The browser's download events are every tab's,
// those of the tests beside this one too: the download is the first that
// one of tb's frames began.
func (tb *tab) download(dir string, trigger chromedp.Action[chromedp.Void]) ([]byte, string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, actionTimeout)
	defer cancel()
	frames, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) (map[cdp.FrameID]bool, error) {
		r, err := cdp.Call(ctx, t, cdppage.GetFrameTree, cdp.Empty{})
		if err != nil {
			return nil, err
		}
		ids := map[cdp.FrameID]bool{}
		var add func(*cdppage.FrameTree)
		add = func(ft *cdppage.FrameTree) {
			ids[ft.Frame.ID] = true
			for _, c := range ft.ChildFrames {
				add(c)
			}
		}
		add(r.FrameTree)
		return ids, nil
	})
	if err != nil {
		tb.t.Fatalf("the tab's frames: %v", err)
	}
	begins := chromedp.BrowserEvents(ctx, browser.DownloadWillBegin) // subscribed from here on
	progress := chromedp.BrowserEvents(ctx, browser.DownloadProgress)
	if err := chromedp.Do(ctx, trigger); err != nil {
		tb.t.Fatalf("download trigger: %v", err)
	}
	var begin browser.EventDownloadWillBegin
	for ev, err := range begins {
		if err != nil {
			tb.t.Fatalf("no download began: %v", err)
		}
		if frames[ev.FrameID] {
			begin = ev
			break
		}
	}
	for ev, err := range progress {
		if err != nil {
			tb.t.Fatalf("download %s did not complete: %v", begin.SuggestedFilename, err)
		}
		if ev.GUID != begin.GUID {
			continue
		}
		if ev.State == browser.DownloadProgressStateCanceled {
			tb.t.Fatalf("download %s canceled", begin.SuggestedFilename)
		}
		if ev.State == browser.DownloadProgressStateCompleted {
			break
		}
	}
	// allowAndName saves the file under its GUID.
	b, err := os.ReadFile(filepath.Join(dir, begin.GUID))
	if err != nil {
		tb.t.Fatalf("reading the download: %v", err)
	}
	return b, begin.SuggestedFilename
}

// 6. The CSV export holds exactly the page's rows; a chart's PNG export
// (its ECharts toolbox button) is a PNG of the chart's size.
func browserExports(t *testing.T, env *browserEnv) {
	dir := t.TempDir()
	tb := openPage(t, env, "speed=20&duration=10m")
	allowDownloads(t, tb, dir)
	tb.waitRowsT(40) // past the default outage (20 s to 35 s): empty percentiles
	tb.pause()
	rows := tb.rows()
	lanes := eval[[]string](tb, `[...document.querySelectorAll('[data-lane-col]')].filter(e => !e.hidden).map(e => e.dataset.laneCol)`)
	if len(lanes) != 2 {
		t.Fatalf("lanes shown: %v, want a and b", lanes)
	}

	// CSV
	body, name := tb.download(dir, chromedp.Click(chromedp.ID("export-csv")))
	if name != "backofflab.csv" {
		t.Errorf("CSV named %q", name)
	}
	if n := tb.rowCount(); n != len(rows) {
		t.Fatalf("the paused page went from %d to %d rows", len(rows), n)
	}
	header, _, _ := strings.Cut(string(body), "\n")
	if want := "t,lane," + strings.Join(scenario.Columns, ","); header != want {
		t.Fatalf("CSV header %q, want %q", header, want)
	}
	if header+"\n" != simengine.CSVHeader() {
		t.Errorf("CSV header differs from simengine.CSVHeader")
	}
	recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not parse: %v", err)
	}
	recs = recs[1:]
	if len(recs) != len(lanes)*len(rows) {
		t.Fatalf("CSV has %d rows, want %d lanes × %d page rows", len(recs), len(lanes), len(rows))
	}
	nc := len(scenario.Columns)
	empty := 0
	for i, rec := range recs {
		r, l := rows[i/len(lanes)], i%len(lanes)
		if len(rec) != 2+nc {
			t.Fatalf("CSV row %d has %d cells", i+2, len(rec))
		}
		if rec[1] != lanes[l] {
			t.Fatalf("CSV row %d: lane %q, want %q", i+2, rec[1], lanes[l])
		}
		want := append([]*float64{r[0]}, r[1+l*nc:1+(l+1)*nc]...)
		cells := append([]string{rec[0]}, rec[2:]...)
		for j, cell := range cells {
			name := "t"
			if j > 0 {
				name = scenario.Columns[j-1]
			}
			if want[j] == nil {
				if cell != "" {
					t.Fatalf("CSV row %d %s: %q, the page has no value", i+2, name, cell)
				}
				empty++
				continue
			}
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil || v != *want[j] {
				t.Fatalf("CSV row %d %s: %q, the page has %v", i+2, name, cell, *want[j])
			}
		}
	}
	t.Logf("CSV: %d bytes, %d rows = %d lanes × %d page rows, %d empty percentile cells", len(body), len(recs), len(lanes), len(rows), empty)
	if empty == 0 {
		t.Errorf("no empty percentile cell although the run went through an outage")
	}

	// PNG: click the toolbox's PNG icon of lane a's throughput chart.
	// ECharts draws the icon on its canvas; its zrender element carries
	// the feature's title. The image is twice the chart's size, with a
	// caption under it that names the lane, its strategy and parameters.
	type target struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
		W float64 `json:"w"`
		H float64 `json:"h"`
	}
	eval[chromedp.Void](tb, `document.querySelector('.chart[data-chart="throughput"][data-lane="a"]').scrollIntoView({block: 'center'})`)
	at := poll[target](tb, "the PNG icon is on the canvas", `(() => {
		const c = window.backofflab.charts()['throughput.a'];
		const el = c.getZr().storage.getDisplayList().find(e => e.__title === 'PNG');
		if (!el) return null;
		const r = el.getBoundingRect().clone();
		r.applyTransform(el.getComputedTransform());
		const box = c.getDom().getBoundingClientRect();
		return {x: box.left + r.x + r.width / 2, y: box.top + r.y + r.height / 2, w: c.getWidth(), h: c.getHeight()};
	})()`)
	png, name := tb.download(dir, chromedp.Steps(
		chromedp.MouseEvent(chromedp.MouseMoved, at.X, at.Y),
		chromedp.MouseClickXY(at.X, at.Y),
	))
	if name != "backofflab-a-fixed-throughput.png" {
		t.Errorf("PNG named %q", name)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("the PNG export starts with %q", png[:min(len(png), 8)])
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(png))
	if err != nil || format != "png" {
		t.Fatalf("the PNG export does not decode: %v (%s)", err, format)
	}
	// 50 px of caption under the chart, and twice the pixels.
	wantW, wantH := 2*at.W, 2*(at.H+50)
	t.Logf("PNG: %d bytes, %d×%d; the chart is %g×%g", len(png), cfg.Width, cfg.Height, at.W, at.H)
	if math.Abs(float64(cfg.Width)-wantW) > 2 || math.Abs(float64(cfg.Height)-wantH) > 2 || cfg.Width < 400 || cfg.Height < 300 {
		t.Errorf("PNG is %d×%d, want twice the chart and its caption, %g×%g", cfg.Width, cfg.Height, wantW, wantH)
	}
	if d := os.Getenv("BACKOFFLAB_SCREENSHOTS"); d != "" {
		if err := os.WriteFile(filepath.Join(d, name), png, 0o644); err != nil {
			t.Error(err)
		}
	}
	caption := eval[string](tb, `window.backofflab.caption(0)`)
	t.Logf("caption: %s", caption)
	for _, w := range []string{"lane a: fixed interval (fixed)", "a.min_delay=100ms", "clients=1000", "server_model=queue", "outage_for=15s", "seed=1", "duration=10m0s"} {
		if !strings.Contains(caption, w) {
			t.Errorf("the caption %q lacks %q", caption, w)
		}
	}
}

// 7. Screenshots of the landing run, finished, on a desktop and a phone, in
// the light and the dark scheme: no horizontal overflow, no chart over
// another. The run is the landing view's, seeded, so the same command
// writes the same pictures: docs/playground-*.png are the four viewport
// ones, made with BACKOFFLAB_SCREENSHOTS=docs.
func browserScreenshots(t *testing.T, env *browserEnv) {
	dir := os.Getenv("BACKOFFLAB_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	type view struct {
		w, h   int64
		mobile bool
		scheme string
	}
	var views []view
	for _, sch := range []string{"light", "dark"} {
		views = append(views, view{1280, 800, false, sch}, view{390, 844, true, sch})
	}
	for _, vp := range views {
		name := fmt.Sprintf("%dx%d-%s", vp.w, vp.h, vp.scheme)
		t.Run(name, func(t *testing.T) {
			opts := []chromedp.EmulateViewportOption{}
			if vp.mobile {
				opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
			}
			// The default scenario, 2 minutes in which the server stops at
			// 20 s for 15 s, played at full speed to its end.
			tb := openPage(t, env, "speed=max", chromedp.EmulateViewport(vp.w, vp.h, opts...), scheme(vp.scheme))
			tb.waitTrue("the run is done", `(s => s && s.done && !s.playing)(window.backofflab.state()) && /done/.test(document.querySelector('#clock').textContent)`)
			tb.waitRowsT(120)
			// Let the page draw the last rows (it draws on animation frames).
			eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
			tb.waitTrue("the outage is shaded on lane a's throughput chart", `(() => {
				const o = window.backofflab.charts()['throughput.a'].getOption();
				const ma = o.series[0].markArea;
				return !!ma && ma.data.length > 0;
			})()`)

			type chartBox struct {
				Key           string  `json:"key"`
				Left          float64 `json:"left"`
				Top           float64 `json:"top"`
				Right         float64 `json:"right"`
				Bottom        float64 `json:"bottom"`
				Width         float64 `json:"width"`
				Height        float64 `json:"height"`
				EchartsWidth  float64 `json:"echartsWidth"`
				EchartsHeight float64 `json:"echartsHeight"`
			}
			type layout struct {
				ScrollWidth float64    `json:"scrollWidth"`
				InnerWidth  float64    `json:"innerWidth"`
				Charts      []chartBox `json:"charts"`
			}
			l := eval[layout](tb, `(() => {
				const charts = [];
				for (const el of document.querySelectorAll('.chart')) {
					if (el.closest('[hidden]')) continue;
					const r = el.getBoundingClientRect();
					const c = echarts.getInstanceByDom(el);
					charts.push({key: el.dataset.chart + '.' + el.dataset.lane, left: r.left, top: r.top, right: r.right, bottom: r.bottom,
						width: el.clientWidth, height: el.clientHeight, echartsWidth: c ? c.getWidth() : 0, echartsHeight: c ? c.getHeight() : 0});
				}
				return {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, charts};
			})()`)
			t.Logf("scrollWidth %v, innerWidth %v, %d charts shown", l.ScrollWidth, l.InnerWidth, len(l.Charts))
			if l.ScrollWidth > l.InnerWidth {
				t.Errorf("horizontal overflow: the page is %v px wide in a %v px window", l.ScrollWidth, l.InnerWidth)
			}
			if len(l.Charts) != 12 {
				t.Errorf("%d charts shown, want 2 lanes × 6", len(l.Charts))
			}
			for i, a := range l.Charts {
				if a.Width < 150 || a.Height < 150 {
					t.Errorf("chart %s is %v×%v", a.Key, a.Width, a.Height)
				}
				if math.Abs(a.EchartsWidth-a.Width) > 2 || math.Abs(a.EchartsHeight-a.Height) > 2 {
					t.Errorf("chart %s: ECharts draws %v×%v in a %v×%v box", a.Key, a.EchartsWidth, a.EchartsHeight, a.Width, a.Height)
				}
				for _, b := range l.Charts[i+1:] {
					w := min(a.Right, b.Right) - max(a.Left, b.Left)
					h := min(a.Bottom, b.Bottom) - max(a.Top, b.Top)
					if w > 0.5 && h > 0.5 {
						t.Errorf("charts %s and %s overlap by %.1f×%.1f px", a.Key, b.Key, w, h)
					}
				}
			}

			view, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			shots := map[string][]byte{
				"playground-" + name + ".png":      view,
				"playground-" + name + "-full.png": tb.screenshot(),
			}
			if vp.mobile { // and the controls' drawer, open
				tb.do("open the drawer", chromedp.Click(chromedp.ID("drawer-open")))
				tb.waitTrue("the drawer is open, in view", `(r => r.top >= 0 && Math.abs(r.bottom - innerHeight) < 1)(document.querySelector('#controls-drawer').getBoundingClientRect())`)
				drawer, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatalf("screenshot: %v", err)
				}
				shots["playground-"+name+"-drawer.png"] = drawer
			}
			for file, b := range shots {
				cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s: %v", file, err)
				}
				p := filepath.Join(dir, file)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s (%d×%d)", p, cfg.Width, cfg.Height)
			}
		})
	}
}

// 8. A real lane (a real HTTP server and 200 real clients on loopback, in
// real time) streams into lane b's charts, and the stop/resume button
// pauses and resumes its server: lane b's timeouts rise, then fall.
func browserRealLane(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "server_model=curve&b.source=real&clients=200&think=1s&timeout=500ms&speed=1&duration=60s&outage=none")
	okB, toB := col(t, 1, "ok"), col(t, 1, "timeouts")
	head := poll[string](tb, "lane b's head says real HTTP and its address",
		`(s => /real HTTP on 127\.0\.0\.1:[0-9]+/.test(s) && s)(document.querySelector('[data-lane-source="b"]').textContent)`)
	t.Logf("lane b's head: %q", head)
	if k := eval[string](tb, `document.querySelector('[data-param="a.source"]').value + ' ' + document.querySelector('[data-param="b.source"]').value`); k != "sim real" {
		t.Errorf("source menus a, b: %q, want sim and real", k)
	}
	if !eval[bool](tb, `['a', 'b'].every(L => { const el = document.querySelector('[data-param="' + L + '.source"]'); return !el.closest('[hidden]') && el.offsetParent !== null; })`) {
		t.Errorf("the source menus of lanes a and b are not shown")
	}
	if note := eval[string](tb, `document.querySelector('#note').textContent`); !strings.Contains(note, "lane b is real") {
		t.Errorf("#note says %q", note)
	}
	tb.waitTrue("lane b has ok > 0", fmt.Sprintf(`(r => r.length > 0 && r[r.length - 1][%d] > 0)(window.backofflab.rows())`, okB))
	poll[bool](tb, "lane b's throughput chart draws", `(c => c && c.getModel().getSeriesByIndex(0).getData().count() > 0)(window.backofflab.charts()['throughput.b'])`)

	tb.do("click Stop server", chromedp.Click(chromedp.ID("outage")))
	tb.waitTrue("the button offers to resume", `document.querySelector('#outage').dataset.down === 'true'`)
	stopped := poll[float64](tb, "the state says down", `(s => s.down && s.outages.length === 1 && s.outages[0][0] + 1e-9)(window.backofflab.state())`)
	tb.waitTrue("lane b's timeouts rise and its ok falls to 0", fmt.Sprintf(`(rows => {
		const a = rows.filter(r => r[0] > %g);
		return a.length > 1 && a.some(r => r[%d] > 0) && a[a.length - 1][%d] === 0;
	})(window.backofflab.rows())`, stopped+0.6, toB, okB))

	tb.do("click Resume server", chromedp.Click(chromedp.ID("outage")))
	tb.waitTrue("the button offers to stop again", `document.querySelector('#outage').dataset.down === 'false'`)
	resumed := poll[float64](tb, "the state says up", `(s => !s.down && s.outages.length === 1 && s.outages[0][1] >= 0 && s.outages[0][1] + 1e-9)(window.backofflab.state())`)
	tb.waitTrue("lane b's timeouts fall to 0 and its ok comes back", fmt.Sprintf(`(rows => {
		const a = rows.filter(r => r[0] > %g);
		return a.length > 1 && a[a.length - 1][%d] === 0 && a[a.length - 1][%d] > 0;
	})(window.backofflab.rows())`, resumed+0.6, toB, okB))
	rows := tb.rows()
	peak := 0.0
	for _, r := range rows {
		if *r[0] > stopped && *r[0] <= resumed+0.5 {
			peak = max(peak, *r[toB])
		}
	}
	t.Logf("stopped at %.1f s, resumed at %.1f s; lane b's timeouts peaked at %v/s; %d rows", stopped, resumed, peak, len(rows))

	// Back to a simulated lane b, from its menu: the run restarts, the URL
	// and the lane's head drop the real lane.
	tb.selectValue(`[data-param="b.source"]`, "sim")
	tb.waitTrue("the URL has no b.source", `!new URLSearchParams(window.backofflab.settings()).has('b.source') && new URLSearchParams(window.backofflab.settings()).get('clients') === '200'`)
	tb.waitTrue("lane b's head and the note drop the real lane", `document.querySelector('[data-lane-source="b"]').textContent === '' && document.querySelector('#note').textContent === ''`)
	if k := eval[string](tb, `document.querySelector('[data-param="b.source"]').value`); k != "sim" {
		t.Errorf("b.source menu shows %q after the change", k)
	}

	// And real again, from a simulation at 20×: the page asks for 1×.
	tb.selectValue("#speed", "20")
	tb.waitQuery("speed", "20")
	tb.selectValue(`[data-param="b.source"]`, "real")
	tb.waitQuery("b.source", "real")
	tb.waitQuery("speed", "1")
	poll[string](tb, "lane b's head shows the new real server",
		`(s => /real HTTP on 127\.0\.0\.1:[0-9]+/.test(s) && s)(document.querySelector('[data-lane-source="b"]').textContent)`)
	tb.waitTrue("lane b has ok > 0 again", fmt.Sprintf(`(r => r.length > 0 && r[r.length - 1][%d] > 0)(window.backofflab.rows())`, okB))
}

// A lane whose storm outgrows the run's memory budget says so in its
// verdict, in words, and its charts get no more values; the other lane's
// verdict is its own. The storm is on 001's curve, whose server keeps every
// abandoned request (a worker queue's waiting room is the bounded backlog).
func browserHaltedLane(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "server_model=curve&lanes=2&clients=20000&think=1ms&timeout=1ms&a.strategy=fixed&a.min_delay=1ms"+
		"&b.strategy=exponential&b.min_delay=1s&max_server_delay=24h&outage=none&duration=10m&speed=max")
	// Filling a run's memory budget takes the engine seconds of CPU, many
	// more under -race on a busy machine: this wait is longer than others.
	got := pollFor[string](tb, "lane a's verdict says it stopped",
		`(t => t.includes('stopped at') ? t : '')(document.querySelector('[data-verdict-details="a"]').textContent)`, 3*pollTimeout)
	if !strings.Contains(got, "queued requests") || !strings.Contains(got, "the memory budget of a run (32 MiB; 16 MiB a lane)") {
		t.Errorf("lane a's verdict: %q", got)
	}
	if cls := eval[string](tb, `document.querySelector('[data-verdict="a"]').className`); !strings.Contains(cls, "bad") {
		t.Errorf("lane a's verdict has class %q, want bad", cls)
	}
	if h := eval[string](tb, `document.querySelector('[data-verdict="a"]').textContent`); h != "Never recovered — the run was stopped" {
		t.Errorf("lane a's headline: %q", h)
	}
	if b := eval[string](tb, `document.querySelector('[data-verdict="b"]').textContent + document.querySelector('[data-verdict-details="b"]').textContent`); strings.Contains(b, "stopped at") {
		t.Errorf("lane b's verdict: %q", b)
	}
	tb.waitTrue("lane a's last row has no values, lane b's has", fmt.Sprintf(
		`(r => r.length > 0 && r[r.length - 1][%d] === null && r[r.length - 1][%d] !== null)(window.backofflab.rows())`,
		col(t, 0, "ok"), col(t, 1, "ok")))
}

// browserLogScale: the charts whose spec offers a log scale have the
// toolbox button, which switches every y axis of the chart on every lane.
func browserLogScale(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "lanes=2&duration=600s")
	types := func() string {
		return eval[string](tb, `(() => {
			const cs = window.backofflab.charts();
			return ['server.a', 'server.b', 'delay.a', 'delay.b'].map(k => cs[k].getOption().yAxis.map(a => a.type).join('/')).join(' ') +
				' ' + Object.entries(cs).filter(([, c]) => c.getOption().toolbox[0].feature.myLog).map(([k]) => k).sort().join(',');
		})()`)
	}
	// Every chart offers it: each has values that span decades.
	const offers = "backoff.a,backoff.b,delay.a,delay.b,latency.a,latency.b,requests.a,requests.b,server.a,server.b,throughput.a,throughput.b"
	if got, want := types(), "value/value value/value value value "+offers; got != want {
		t.Fatalf("before: %q, want %q", got, want)
	}
	eval[chromedp.Void](tb, `(cs => { cs['server.a'].getOption().toolbox[0].feature.myLog.onclick(); cs['delay.b'].getOption().toolbox[0].feature.myLog.onclick(); })(window.backofflab.charts())`)
	poll[bool](tb, "both lanes' server and delay charts go log", `(cs => ['server.a', 'server.b'].every(k => cs[k].getOption().yAxis.every(a => a.type === 'log')) && ['delay.a', 'delay.b'].every(k => cs[k].getOption().yAxis[0].type === 'log'))(window.backofflab.charts())`)
	if got := types(); got != "log/log log/log log log "+offers {
		t.Errorf("after: %q", got)
	}
}

// 11. Choosing another server model shows its parameters and hides the
// other model's, and the run follows: the linear model's latency is
// server_delay + server_slope × the concurrency shown, where 001's curve's
// was a flat 100 ms below its limit.
func browserServerModel(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "server_model=curve&outage=none&speed=20")
	visible := func(name string) bool {
		return eval[bool](tb, fmt.Sprintf(`!document.querySelector('[data-ctl=%q]').hidden`, name))
	}
	if visible("server_slope") || !visible("server_limit") {
		t.Errorf("curve: server_slope shown %v, server_limit shown %v", visible("server_slope"), visible("server_limit"))
	}
	tb.selectValue(`[data-param="server_model"]`, "linear")
	tb.waitQuery("server_model", "linear")
	if !visible("server_slope") || visible("server_limit") || visible("server_factor") || visible("server_k") {
		t.Errorf("linear: server_slope shown %v, server_limit %v, server_factor %v, server_k %v",
			visible("server_slope"), visible("server_limit"), visible("server_factor"), visible("server_k"))
	}
	conc, lat := col(t, 0, "concurrency"), col(t, 0, "server_latency")
	tb.waitTrue("a row shows the linear latency", fmt.Sprintf(
		`window.backofflab.rows().some(r => r[%d] > 0 && Math.abs(r[%d] - (0.1 + 0.001 * r[%d])) < 1e-9)`, conc, lat, conc))
	for _, r := range tb.rows() {
		if r[conc] == nil || r[lat] == nil {
			continue
		}
		if want := 0.1 + 0.001*(*r[conc]); math.Abs(*r[lat]-want) > 1e-9 && *r[lat] != 0.1 {
			t.Fatalf("a row with concurrency %v shows latency %v, neither the curve's 0.1 nor linear's %v", *r[conc], *r[lat], want)
		}
	}
}

// 12. Every fault window is shaded on every time chart with its name in words
// (an outage, for any kind that stops the server) and its kind's colour: the
// scheduled outage, and the faults of the faults list.
func browserFaultWindows(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "outage=pause&outage_at=2s&outage_for=2s&faults=load_spike:5s:5s:2,error_burst:12s:3s:0.5&duration=20s&speed=max")
	tb.waitTrue("the run is done", `window.backofflab.state().done === true`)
	for _, id := range []string{"throughput.a", "server.b", "latency.a"} {
		got := poll[string](tb, id+" shades three windows", fmt.Sprintf(`(c => {
			const d = c.getOption().series[0].markArea.data;
			return d.length === 3 ? JSON.stringify(d.map(([a, b]) => [a.name, a.xAxis, b.xAxis, a.itemStyle.color])) : '';
		})(window.backofflab.charts()[%q])`, id))
		// A window that stops the server is an outage, whatever its kind;
		// the others are named in words.
		want := fmt.Sprintf(`[["outage",2,4,%q],["load spike",5,10,%q],["error burst",12,15,%q]]`, scene.OutageColor, scene.EffectColor, scene.EffectColor)
		if got != want {
			t.Errorf("%s shades %s, want %s", id, got, want)
		}
	}
}

// 13. The landing view (no query but the speed), played to its end, tells
// its story in the verdicts: lane a (fixed) collapsed, lane b (exponential)
// recovered.
func browserLandingVerdicts(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=max")
	tb.waitTrue("the run is done", `(s => s && s.done && !s.playing)(window.backofflab.state()) && /done/.test(document.querySelector('#clock').textContent)`)
	type verdict struct {
		Class string `json:"class"`
		Text  string `json:"text"`
	}
	read := func(lane string) verdict {
		return eval[verdict](tb, fmt.Sprintf(`(e => ({class: e.className, text: e.textContent}))(document.querySelector('[data-verdict=%q]'))`, lane))
	}
	// The last summary may follow the done state by a message.
	poll[bool](tb, "both verdicts have a tone", `['a', 'b'].every(L => /\b(good|bad)\b/.test(document.querySelector('[data-verdict="' + L + '"]').className))`)
	a, b := read("a"), read("b")
	t.Logf("lane a: %q (%s); lane b: %q (%s)", a.Text, a.Class, b.Text, b.Class)
	if !strings.Contains(a.Class, scenario.ToneBad) || a.Text != "Never recovered — a retry storm" {
		t.Errorf("lane a's verdict %q, class %q: want a retry storm, tone %s", a.Text, a.Class, scenario.ToneBad)
	}
	if !strings.Contains(b.Class, scenario.ToneGood) || b.Text != "Recovered 22 s after the outage" {
		t.Errorf("lane b's verdict %q, class %q: want recovered, tone %s", b.Text, b.Class, scenario.ToneGood)
	}
	if got := eval[string](tb, `['server_model', 'a.strategy', 'b.strategy'].map(n => document.querySelector('[data-param="' + n + '"]').value).join(' ')`); got != "queue fixed exponential" {
		t.Errorf("the landing view's server model and strategies: %q, want queue fixed exponential", got)
	}
}

// 14. Turning a lane's limiter on shows its parameters on that lane alone;
// turning it off hides them again.
func browserLimiterSwitch(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "a.strategy=fixed&b.strategy=exponential&speed=20")
	visible := func(name string) bool {
		return eval[bool](tb, fmt.Sprintf(`!document.querySelector('[data-ctl=%q]').hidden`, name))
	}
	if visible("a.budget_percent") || visible("b.budget_percent") || !visible("a.retry_budget") {
		t.Fatalf("off: a.budget_percent %v, b.budget_percent %v, a.retry_budget %v", visible("a.budget_percent"), visible("b.budget_percent"), visible("a.retry_budget"))
	}
	tb.selectValue(`[data-param="a.retry_budget"]`, "on")
	tb.waitQuery("a.retry_budget", "on")
	if !visible("a.budget_percent") || !visible("a.budget_ttl") || visible("b.budget_percent") || visible("a.sre_k") {
		t.Errorf("a on: a.budget_percent %v, a.budget_ttl %v, b.budget_percent %v, a.sre_k %v",
			visible("a.budget_percent"), visible("a.budget_ttl"), visible("b.budget_percent"), visible("a.sre_k"))
	}
	// The lane's heading names the limiter while it is on, as the
	// server words it.
	head := `document.querySelector('[data-lane-strategy="a"]').textContent`
	poll[bool](tb, "lane a's heading names its retry budget", head+` === 'fixed interval, retry budget'`)
	tb.selectValue(`[data-param="a.retry_budget"]`, "off")
	tb.waitQuery("a.retry_budget", "off")
	if visible("a.budget_percent") {
		t.Errorf("a.budget_percent still shown with its budget off")
	}
	poll[bool](tb, "lane a's heading drops the budget once it is off", head+` === 'fixed interval'`)
}

// 15. Layered retries: a lane's tiers set in the URL draw its tiers'
// chart (each tier's offered load, the clients' attempts first), which a
// lane without tiers leaves out; its verdict says what a request costs
// at the server. Setting the other lane's tiers in its box restarts the
// run (the number of tiers changed) and shows its chart too.
func browserTiers(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "lanes=2&speed=20&duration=10m&a.max_attempts=3&a.tiers=fixed:3:1s,fixed:3:500ms")
	if v := eval[string](tb, `document.querySelector('[data-param="a.tiers"]').value`); v != "fixed:3:1s,fixed:3:500ms" {
		t.Errorf("a.tiers box shows %q", v)
	}
	drawn := `(L => {
		const el = document.querySelector('.chart[data-chart="tiers"][data-lane="' + L + '"]');
		const c = window.backofflab.charts()['tiers.' + L];
		if (!el || el.closest('[hidden]') || !c || el.clientHeight < 150) return false;
		const m = c.getModel();
		const n = k => m.getSeriesByIndex(k).getData().count();
		return n(0) > 0 && n(1) > 0 && n(2) > 0;
	})`
	poll[bool](tb, "lane a's tiers' chart draws every tier", drawn+`('a')`)
	if eval[bool](tb, `!!window.backofflab.charts()['tiers.b'] || !document.querySelector('.chart[data-chart="tiers"][data-lane="b"]').hidden`) {
		t.Errorf("lane b, without tiers, shows a tiers' chart")
	}
	// During the pause (20 s to 35 s) every attempt times out and each
	// tier makes its three: tier 3 sends about three times what tier 2
	// does, which sends more than the clients.
	tb.waitRowsT(36)
	rows := tb.rows()
	att, t2, t3 := col(t, 0, "attempts"), col(t, 0, "t2_attempts"), col(t, 0, "t3_attempts")
	a, _ := mean(rows, att, 22, 35)
	m2, _ := mean(rows, t2, 22, 35)
	m3, _ := mean(rows, t3, 22, 35)
	t.Logf("during the pause: clients %.1f/s, tier 2 %.1f/s, tier 3 %.1f/s", a, m2, m3)
	if !(a > 50 && m2 > 1.5*a && m3 > 2.5*m2) {
		t.Errorf("offered load by tier %.1f, %.1f, %.1f: want clients > 50/s, tier 2 over 1.5 times that, tier 3 over 2.5 times tier 2's", a, m2, m3)
	}
	poll[string](tb, "lane a's verdict counts its tiers", `(s => s.includes('Its 3 layers of retries sent ') && s)(document.querySelector('[data-verdict-details="a"]').textContent)`)

	tb.setBox("b.tiers", "exponential:2:1s")
	tb.waitQuery("b.tiers", "exponential:2:1s")
	poll[bool](tb, "lane b's tiers' chart draws after the restart", `(L => {
		const el = document.querySelector('.chart[data-chart="tiers"][data-lane="' + L + '"]');
		const c = window.backofflab.charts()['tiers.' + L];
		return !!el && !el.hidden && !!c && el.clientHeight >= 150 && c.getModel().getSeriesByIndex(1).getData().count() > 0;
	})('b')`)
	// A bad value stays in its box with its message, naming the tier.
	tb.setBox("b.tiers", "exponential:20:1s")
	msg := poll[string](tb, "the message beside b.tiers", `(s => s.length > 0 && s)(document.querySelector('[data-error-for="b.tiers"]').textContent)`)
	if !strings.Contains(msg, `tier 2 ("exponential:20:1s"): attempts "20" is not a whole number from 1 to 10`) {
		t.Errorf("b.tiers message %q", msg)
	}
}
