package web

// Browser tests of how the page explains and replays a run: reruns,
// tooltips under the Content-Security-Policy, each lane's own axes, the
// annotations, the countdown, the verdicts' live regions and the speed.
// They run as subtests of TestBrowserRuns (browser_test.go).

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/scene"
)

// replaced marks the page's rows array, and the returned expression says
// whether the page has dropped it since (a hello starts a new run).
func (tb *tab) replaced() string {
	tb.t.Helper()
	eval[chromedp.Void](tb, `window.__rows = window.backofflab.rows()`)
	return `window.backofflab.rows() !== window.__rows`
}

// waitDone waits until the run is over and the page says so.
func (tb *tab) waitDone() {
	tb.t.Helper()
	tb.waitTrue("the run is done", `(s => s && s.done && !s.playing)(window.backofflab.state()) && document.querySelector('#play').textContent === 'Run again'`)
}

// browserRerun: a change to a finished run reruns it from t = 0 with the
// new value, and so do + lane and Reset; a reset or + lane of a paused run
// plays the new one.
func browserRerun(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=max&duration=20s&outage_at=5s&outage_for=3s")
	tb.waitDone()

	fresh := tb.replaced()
	tb.setBox("clients", "500")
	tb.waitQuery("clients", "500")
	tb.waitTrue("the page dropped the finished run's rows", fresh)
	tb.waitDone()
	if rows := tb.rows(); *rows[0][0] > 0.5 || *rows[len(rows)-1][0] != 20 {
		t.Errorf("the rerun's rows go from %v to %v s, want 0.1 to 20", *rows[0][0], *rows[len(rows)-1][0])
	}

	fresh = tb.replaced()
	tb.do("click + lane", chromedp.Click(chromedp.ID("lane-add")))
	tb.waitTrue("three lanes run again", fresh+fmt.Sprintf(` && window.backofflab.rows().length > 0 && window.backofflab.rows()[0].length === %d && new URLSearchParams(location.search).get('lanes') === '3'`, 1+3*len(scenario.Columns)))
	tb.waitDone()

	fresh = tb.replaced()
	tb.do("click Run again", chromedp.Click(chromedp.ID("play")))
	tb.waitTrue("Run again ran it again", fresh)
	tb.waitDone()

	// A paused run: Reset and + lane play the new run.
	tb2 := openPage(t, env, "speed=20&duration=600s&outage=none")
	tb2.pause()
	for _, b := range []string{"reset", "lane-add"} {
		fresh := tb2.replaced()
		tb2.do("click "+b, chromedp.Click(chromedp.ID(b)))
		tb2.waitTrue(b+" plays the new run", fresh+` && window.backofflab.state().playing && window.backofflab.rows().length > 20 && document.querySelector('#play').textContent === 'Pause'`)
	}
}

// browserTooltips: a chart's tooltip names each line with its colour, its
// label and vocabulary name, and its value with its unit, under the
// page's Content-Security-Policy, which stays as strict as it is.
func browserTooltips(t *testing.T, env *browserEnv) {
	res, err := http.Get(env.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	const strict = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
		"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
	if got := res.Header.Get("Content-Security-Policy"); got != strict {
		t.Fatalf("Content-Security-Policy %q, want it unchanged: %q", got, strict)
	}

	tb := openPage(t, env, "speed=max")
	tb.waitDone()
	type tip struct {
		Text     string   `json:"text"`
		Swatches []string `json:"swatches"`
	}
	// The pointer at t seconds, halfway up the chart, as a mouse would be.
	show := func(chart string, at float64) tip {
		t.Helper()
		return poll[tip](tb, "the tooltip of "+chart, fmt.Sprintf(`(() => {
			const c = window.backofflab.charts()[%q];
			c.dispatchAction({type: 'showTip', x: c.convertToPixel({xAxisIndex: 0}, %g), y: c.getHeight() / 2});
			const box = c.getDom().querySelector('[data-tip]');
			if (!box || box.closest('[style*="display: none"]')) return null;
			const sw = [...box.querySelectorAll('[data-swatch]')].map(e => getComputedStyle(e).backgroundColor + ' ' + getComputedStyle(e).width);
			return {text: box.textContent, swatches: sw};
		})()`, chart, at))
	}
	th := show("throughput.a", 10)
	t.Logf("throughput.a at 10 s: %q, swatches %v", th.Text, th.Swatches)
	for _, w := range []string{"lane a · t = 10 s · 1 s average", "attempts sent attempts: ", "succeeded ok: ", "/s"} {
		if !strings.Contains(th.Text, w) {
			t.Errorf("throughput tooltip %q lacks %q", th.Text, w)
		}
	}
	if len(th.Swatches) != 4 {
		t.Errorf("throughput tooltip swatches %v, want 4", th.Swatches)
	}
	for _, s := range th.Swatches {
		if !strings.HasPrefix(s, "rgb(") || !strings.HasSuffix(s, " 9px") {
			t.Errorf("swatch %q: want a coloured 9 px dot", s)
		}
	}
	sv := show("server.a", 50)
	t.Logf("server.a at 50 s: %q", sv.Text)
	if !strings.Contains(sv.Text, "server latency server_latency: 13.") || !strings.Contains(sv.Text, " s") {
		t.Errorf("server tooltip %q lacks the latency in seconds", sv.Text)
	}
}

// browserOwnAxes: on 001's run a storm's concurrency (tens of thousands)
// does not flatten the recovering lane's (under 900): each lane has its own
// y axis, unless the chart's toolbox shares one.
func browserOwnAxes(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "server_model=curve&b.strategy=think_scaled&speed=max")
	tb.waitDone()
	maxes := func() [2]float64 {
		return poll[[2]float64](tb, "both server charts have a y maximum", `(cs => {
			const m = ['server.a', 'server.b'].map(k => cs[k].getOption().yAxis[0].max);
			return m.every(v => v > 0) && m;
		})(window.backofflab.charts())`)
	}
	m := maxes()
	t.Logf("concurrency axes: lane a up to %v, lane b up to %v", m[0], m[1])
	if !(m[1] < 2000) || !(m[0] > 40000) {
		t.Errorf("concurrency axes: lane a %v, lane b %v; want lane b's under 2000 and lane a's over 40 000", m[0], m[1])
	}
	eval[chromedp.Void](tb, `window.backofflab.charts()['server.b'].getOption().toolbox[0].feature.myShare.onclick()`)
	tb.waitTrue("one axis for both lanes", `(cs => cs['server.a'].getOption().yAxis[0].max === cs['server.b'].getOption().yAxis[0].max && cs['server.b'].getOption().yAxis[0].max > 40000)(window.backofflab.charts())`)
}

// browserAnnotations: the landing view's charts mark the moments that
// decide it (its retries landing, the backlog flooding in, the service and
// the server back), the panel says what each lane went through, and a
// scheduled outage is shaded and counted down before it begins.
func browserAnnotations(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "")
	if q := eval[string](tb, `window.backofflab.state().speed`); q != scene.DefaultSpeed {
		t.Errorf("the landing URL's speed %q, want %s", q, scene.DefaultSpeed)
	}
	// The countdown is read from a run paused before its outage, not
	// caught while it plays: at the default speed the outage comes 5 s
	// in, at 1× 20 s in, which leaves the pause time to land on a loaded
	// machine.
	tb = openPage(t, env, "speed=1")
	tb.pause()
	if at := eval[float64](tb, `window.backofflab.state().t`); at >= 20 {
		t.Fatalf("paused at t = %v s, after the outage's start: the countdown cannot show", at)
	}
	clock := poll[string](tb, "the clock counts down to the outage", `(s => /outage in [0-9.]+ s/.test(s) && s)(document.querySelector('#clock').textContent)`)
	shade := poll[string](tb, "the outage ahead is shaded", `(c => {
		const d = c.getOption().series[0].markArea.data;
		return d.length === 1 && /^outage in [0-9.]+ s$/.test(d[0][0].name) && d[0][0].xAxis === 20 && d[0][1].xAxis === 35 && d[0][0].name;
	})(window.backofflab.charts()['throughput.a'])`)
	t.Logf("before the outage: clock %q, shading %q", clock, shade)

	tb = openPage(t, env, "speed=max")
	tb.waitDone()
	labels := func(chart string) string {
		return eval[string](tb, fmt.Sprintf(`window.backofflab.charts()[%q].getOption().series[0].markLine.data.map(d => d.name).join(' | ')`, chart))
	}
	tb.waitTrue("lane b's server back is marked", `window.backofflab.charts()['server.b'].getOption().series[0].markLine.data.some(d => d.name === 'server back')`)
	for chart, want := range map[string][]string{
		"server.a":     {"resume: 3 774 flood in", "healthy: ≤ 30 inside"},
		"server.b":     {"resume: 3 266 flood in", "server back"},
		"backoff.a":    {"retries land: 2.0 s into the outage"},
		"throughput.b": {"service back", "workers serve 300/s", "90 % of baseline"},
	} {
		got := labels(chart)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s marks %q, want %q", chart, got, w)
			}
		}
	}
	if got := labels("throughput.a"); strings.Contains(got, "service back") {
		t.Errorf("lane a collapsed, yet its throughput chart marks %q", got)
	}
	panel := eval[string](tb, `document.querySelector('#explain-gist').textContent + ' | ' + document.querySelector('#explain-body').textContent`)
	for _, w := range []string{"faster than the workers serve (300/s)", "Lane a, fixed interval: Never recovered — a retry storm.", "Its retries landed 2.0 s into the outage",
		"Lane b, exponential backoff: Recovered 22 s after the outage.", "Its server was back 25.1 s after the resume", "comes from Andrey Smirnov's 2014 post"} {
		if !strings.Contains(panel, w) {
			t.Errorf("the panel lacks %q: %s", w, panel)
		}
	}
	if href := eval[string](tb, `document.querySelector('#explain-body a').href`); href != "https://github.com/smira/exponential-backoff" {
		t.Errorf("the source's link %q", href)
	}
}

// browserLiveVerdicts: a verdict's live region is written when the verdict
// changes, not at every frame: redraws of a finished run leave it alone.
func browserLiveVerdicts(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=max&duration=60s")
	tb.waitDone()
	// A run this short may end with a lane still recovering: its verdict
	// is in, in the warning's tone.
	tb.waitTrue("both verdicts are in", `document.querySelector('[data-verdict]') && [...document.querySelectorAll('[data-verdict]')].filter(e => !e.closest('[hidden]')).every(e => /\b(good|bad|warn)\b/.test(e.className))`)
	eval[chromedp.Void](tb, `(() => {
		window.__mutations = 0;
		const o = new MutationObserver(ms => (window.__mutations += ms.length));
		for (const e of document.querySelectorAll('[data-verdict]')) o.observe(e, {childList: true, characterData: true, subtree: true, attributes: true});
		const f = window.backofflab.charts()['throughput.a'].getOption().toolbox[0].feature.myLog.onclick;
		window.__toggles = 0;
		const g = () => { f(); window.__toggles++; };
		g(); setTimeout(g, 200); setTimeout(g, 400); setTimeout(g, 600);
	})()`)
	tb.waitTrue("the scale was toggled four times", `window.__toggles === 4`)
	// The charts redraw on animation frames: the verdicts, had they moved,
	// would have by the second.
	eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
	if n := eval[int](tb, `window.__mutations`); n != 0 {
		t.Errorf("%d mutations of the verdicts' live regions while the verdicts stood still", n)
	}
}

// browserPresetSpeed: the presets keep the speed in use.
func browserPresetSpeed(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=20")
	tb.waitTrue("every preset link plays at 20×", `[...document.querySelectorAll('a[data-preset]')].every(a => new URLSearchParams(a.search).get('speed') === '20')`)
	tb.selectValue("#speed", "50")
	tb.waitQuery("speed", "50")
	tb.waitTrue("every preset link follows to 50×", `[...document.querySelectorAll('a[data-preset]')].every(a => new URLSearchParams(a.search).get('speed') === '50')`)
}
