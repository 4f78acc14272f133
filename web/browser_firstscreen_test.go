package web

// The playground's first screen, in the headless Chromium of
// browser_test.go: at 1280×800, without scrolling, each lane's verdict
// headline, its live picture's place, its throughput chart and the
// mission's controls (per lane the strategy and its backoff, shared the
// clients, the server's capacity and the outage's length) are in view,
// and the rest waits in closed sections. The words a reader sees are
// plain: no vocabulary name outside a code element, the source named
// once by its author and year; the explanation tells each lane's outcome
// from the first second; the preset chip follows the state; the outage
// is never called a pause. Run it with:
// go test -count=1 -run BrowserFirstScreen -v ./web

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/web/internal/webtest"
)

// The first screen of the checks: a laptop's window.
const firstW, firstH = 1280, 800

func TestBrowserFirstScreen(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other long browser tests
	env := &browserEnv{ctx: startBrowser(t)}
	srv, _, _ := serveShell(t, Options{Limits: Limits{RunMemory: 32 << 20}})
	env.base = srv.URL
	for _, st := range []struct {
		name string
		fn   func(*testing.T, *browserEnv)
	}{
		{"InView", firstScreenInView},
		{"PlainWords", firstScreenPlainWords},
		{"PresetFollowsState", firstScreenPreset},
		{"Moments", firstScreenMoments},
	} {
		t.Run(st.name, func(t *testing.T) { st.fn(t, env) })
	}
}

// firstScreenSelectors are the elements the landing view's first screen
// must show whole, lane by lane and shared. Each lane's live picture is
// drawn in its .lane-picture-slot (a place the layout keeps for it above
// the lane's throughput chart): the slot is what is checked, so that the
// picture has its room on the first screen whatever draws in it.
func firstScreenSelectors(lanes map[string][]string, shared []string) []string {
	var sels []string
	for _, l := range slices.Sorted(maps.Keys(lanes)) {
		sels = append(sels,
			fmt.Sprintf(`[data-verdict=%q]`, l),
			fmt.Sprintf(`.lane-picture-slot[data-lane-picture=%q]`, l),
			fmt.Sprintf(`.chart[data-chart="throughput"][data-lane=%q]`, l),
			fmt.Sprintf(`[data-param="%s.strategy"]`, l))
		for _, p := range lanes[l] {
			sels = append(sels, fmt.Sprintf(`[data-param="%s.%s"]`, l, p), fmt.Sprintf(`[data-slider-for="%s.%s"]`, l, p))
		}
	}
	for _, p := range shared {
		sels = append(sels, fmt.Sprintf(`[data-param=%q]`, p), fmt.Sprintf(`[data-slider-for=%q]`, p))
	}
	return sels
}

// firstScreenCount counts the controls a reader sees in the first
// viewport (inputs, menus, buttons that are displayed, not in a hidden
// element or a closed section), and those of the whole page.
const firstScreenCount = `(() => {
	const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility === 'visible' && !e.closest('[hidden]') && e.checkVisibility({contentVisibilityAuto: true}); };
	const all = [...document.querySelectorAll('input:not([type=hidden]), select, textarea, button')].filter(shown);
	const first = all.filter(e => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth; });
	return [first.length, all.length];
})()`

// firstScreenInView: the landing view at 1280×800, unscrolled, shows each
// lane's verdict headline, picture slot, throughput chart and mission
// controls whole, at 0 s and once its run is over (a verdict's words may
// reflow the heads); every other section of controls is closed.
func firstScreenInView(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=1", chromedp.EmulateViewport(firstW, firstH))
	check := func(when string) {
		t.Helper()
		if y := eval[float64](tb, `window.scrollY`); y != 0 {
			t.Fatalf("%s: the page is scrolled to %v", when, y)
		}
		// The landing view: lane a fixed (it reads min_delay), lane b
		// exponential, on the worker queue (its capacity is workers).
		sels := firstScreenSelectors(map[string][]string{
			"a": {"min_delay"},
			"b": {"min_delay", "factor", "jitter", "max_delay"},
		}, []string{"clients", "workers", "outage_for"})
		for i, b := range tb.boxesOf(sels...) {
			if !b.inViewport(firstW, firstH) {
				t.Errorf("%s: %s is not whole on the first screen: %+v", when, sels[i], b)
			}
		}
		for _, l := range []string{"a", "b"} {
			if h := eval[string](tb, fmt.Sprintf(`document.querySelector('[data-verdict=%q]').textContent`, l)); h == "" || strings.HasPrefix(h, "baseline") {
				t.Errorf("%s: lane %s's headline %q", when, l, h)
			}
		}
		n := eval[[]int](tb, firstScreenCount)
		t.Logf("%s: %d controls in the first viewport, %d shown on the page", when, n[0], n[1])
	}
	check("at 0 s")
	open := eval[[]string](tb, `[...document.querySelectorAll('#controls details')].filter(d => d.open && !d.closest('[hidden]')).map(d => d.dataset.group || d.dataset.lanePanel || d.dataset.laneMore)`)
	if want := []string{"a", "b", "mission"}; strings.Join(open, " ") != strings.Join(want, " ") {
		t.Errorf("open sections of controls %q, want the lanes' and the mission's only %q", open, want)
	}

	eval[chromedp.Void](tb, `(s => { s.value = 'max'; s.dispatchEvent(new Event('change', {bubbles: true})); })(document.querySelector('#speed'))`)
	tb.waitFinished()
	check("at the end")
	heads := eval[[]string](tb, `['a', 'b'].map(l => document.querySelector('[data-verdict-mark="' + l + '"]').textContent + ' ' + document.querySelector('[data-verdict="' + l + '"]').textContent)`)
	if heads[0] != "✕ Never recovered — a retry storm" || !regexp.MustCompile(`^✓ Recovered \d+ s after the outage$`).MatchString(heads[1]) {
		t.Errorf("the verdicts' marks and headlines %q, want a's storm and b's recovery", heads)
	}
	details := eval[string](tb, `document.querySelector('[data-verdict-details="b"]').textContent`)
	if !strings.HasPrefix(details, "Before the outage, the server answered ") {
		t.Errorf("lane b's details %q", details)
	}
}

// vocabularyRE matches the names a reader would have to know the
// vocabulary to read: the parameters', choices' and strategies' names
// that are not English words (snake_case), a lane's parameters
// (a.min_delay), and 001, the source's number among the project's
// documents.
func vocabularyRE() *regexp.Regexp {
	names := []string{`[a-d]\.[a-z_]+`}
	for _, n := range webtest.VocabularyNames() {
		names = append(names, regexp.QuoteMeta(n))
	}
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
}

// firstScreenPlainWords: with every verdict's details and the explanation
// open, a finished run's visible text names the vocabulary only in code
// elements and never says 001; the source is named once, by its author
// and year, with its link. The explanation tells each lane's outcome from
// the first second, and only the charts the run shows; the countdown
// calls the outage an outage.
func firstScreenPlainWords(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=1")
	tb.waitTrue("the first verdicts", `document.querySelector('[data-verdict="a"]').textContent.startsWith('Running normally')`)
	early := eval[[]string](tb, `[...document.querySelectorAll('#explain-body li')].map(li => li.textContent)`)
	if len(early) != 2 || !strings.HasPrefix(early[0], "Lane a, fixed interval: Running normally until the outage.") || !strings.HasPrefix(early[1], "Lane b, exponential backoff: Running normally") {
		t.Errorf("the explanation in the first seconds: %q", early)
	}
	if clock := eval[string](tb, `document.querySelector('#clock').textContent`); !strings.Contains(clock, "· outage in ") {
		t.Errorf("the clock %q does not count down to the outage", clock)
	}

	tb2 := openPage(t, env, "speed=max")
	tb2.waitFinished()
	eval[chromedp.Void](tb2, `document.querySelectorAll('#explain, .verdict-more').forEach(d => d.open = true)`)
	lanes := eval[[]string](tb2, `[...document.querySelectorAll('#explain-body li')].map(li => li.textContent)`)
	if len(lanes) != 2 || !strings.Contains(lanes[0], "Never recovered — a retry storm.") || !strings.Contains(lanes[1], ": Recovered ") {
		t.Errorf("the explanation at the end does not say each lane's outcome: %q", lanes)
	}
	if body := eval[string](tb2, `document.querySelector('#explain-body').textContent`); strings.Contains(body, "offered load by tier") {
		t.Errorf("the explanation tells the tiers' chart, which the run does not show")
	}
	// Every text node a reader sees, outside code elements.
	texts := eval[[]string](tb2, `(() => {
		const out = [];
		const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let n = walker.nextNode(); n; n = walker.nextNode()) {
			const e = n.parentElement;
			if (!e || e.closest('code, script, style, [hidden]') || !e.checkVisibility({contentVisibilityAuto: true}) || !n.data.trim()) continue;
			out.push(n.data.trim());
		}
		for (const o of document.querySelectorAll('option')) if (o.closest('select').checkVisibility()) out.push(o.textContent);
		return out;
	})()`)
	re := vocabularyRE()
	for _, s := range texts {
		if m := re.FindString(s); m != "" {
			t.Errorf("%q outside a code element: %q", m, s)
		}
	}
	t.Logf("%d visible texts checked", len(texts))
	src := eval[[]string](tb2, `[...document.querySelectorAll('a[href="https://github.com/smira/exponential-backoff"]')].map(a => a.parentElement.textContent)`)
	if len(src) != 1 || !strings.Contains(src[0], "Andrey Smirnov's 2014 post") {
		t.Errorf("the source's link and its author and year: %q", src)
	}
}

// firstScreenPreset: the chip of the preset whose run the page shows is
// current (aria-current), and only while the run is the preset's: a
// slider moved off it leaves it; moved back, the run still holds both
// changes (its link replays them), so no chip is current until Reset runs
// the preset's values from t = 0 again.
func firstScreenPreset(t *testing.T, env *browserEnv) {
	// At 1×, the run lasts its 120 s: a change made once it has ended
	// is no live change, and at 20× a busy machine can take the run's 6 s
	// of wall time to make the two.
	tb := openPage(t, env, "speed=1")
	tb.navigate(env.base + "/?" + eval[string](tb, `document.querySelector('a[data-preset="landing"]').dataset.presetQuery`) + "&speed=1")
	tb.waitTrue("ticks arrive", `window.backofflab.rows().length > 0`)
	current := func() []string {
		return eval[[]string](tb, `[...document.querySelectorAll('a[data-preset][aria-current]')].map(a => a.dataset.preset)`)
	}
	if c := current(); len(c) != 1 || c[0] != "landing" {
		t.Fatalf("current chips %q, want landing's", c)
	}
	tb.setBox("b.factor", "3")
	tb.waitQuery("b.factor", "3")
	tb.waitTrue("no chip is current", `document.querySelectorAll('a[data-preset][aria-current]').length === 0 && document.querySelector('#preset-select').value === ''`)
	tb.setBox("b.factor", "2")
	tb.waitQuery("b.factor", "2")
	tb.waitTrue("the link holds both changes", `/changes=.*b\.factor=3.*b\.factor=2/.test(decodeURIComponent(location.search))`)
	if c := current(); len(c) != 0 {
		t.Errorf("current chips %q for a run that changed twice, want none", c)
	}
	tb.do("reset", chromedp.Click(chromedp.ID("reset")))
	tb.waitTrue("landing's chip is current again", `(c => c.length === 1 && c[0].dataset.preset === 'landing')(document.querySelectorAll('a[data-preset][aria-current]'))`)
	raw, _ := json.Marshal(current())
	t.Logf("current chips after the way back: %s", raw)
}

// firstScreenMoments takes the landing view's first screen at three
// moments of its run, on a desktop in light mode and on a phone in dark
// mode: in its first second, in the storm (10 s after the outage, lane a
// storming while lane b recovers) and at its end. With
// BACKOFFLAB_SCREENSHOTS=dir it writes them there as
// playground-<w>x<h>-<scheme>-<moment>.png (docs/playground.md shows
// them); else in a temporary directory. At each moment each lane's
// verdict headline is in view.
func firstScreenMoments(t *testing.T, env *browserEnv) {
	dir := os.Getenv("BACKOFFLAB_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		w, h   int64
		phone  bool
		scheme string
	}{{firstW, firstH, false, "light"}, {phoneW, phoneH, true, "dark"}} {
		for _, m := range []struct {
			name, query string
			reach       func(tb *tab)
		}{
			{"start", "speed=1", func(tb *tab) { tb.waitRowsT(1) }},
			// At the landing view's 4×, the 45 s take 11 s of waiting, and
			// the run's end is 19 s after them: the pause, asked for from
			// the page's side, stops it near 45 s however far the server
			// is ahead of a busy machine's page (at 20×, 4 s after them,
			// it had come at 106 s on one).
			{"storm", "speed=4", func(tb *tab) {
				// Paused by the page itself as soon as a row reaches 45
				// s: a watcher in the page looks every few milliseconds,
				// where a look from the test goes through the browser's
				// protocol, which a busy machine slows while the run goes
				// on toward its end.
				eval[chromedp.Void](tb, `(() => { const w = setInterval(() => { const r = window.backofflab.rows(); if (r.length > 0 && r[r.length - 1][0] >= 45) { clearInterval(w); document.querySelector('#play').click(); } }, 5); })()`)
				tb.waitTrue("the run is paused", `window.backofflab.state().playing === false && document.querySelector('#play').textContent === 'Play'`)
				last := eval[float64](tb, `(r => r[r.length - 1][0])(window.backofflab.rows())`)
				if last >= 100 {
					tb.t.Errorf("the storm's moment paused at t = %.1f s, not near 45 s", last)
				}
				tb.t.Logf("paused at t = %.1f s", last)
			}},
			{"end", "speed=max", func(tb *tab) { tb.waitFinished() }},
		} {
			name := fmt.Sprintf("playground-%dx%d-%s-%s.png", v.w, v.h, v.scheme, m.name)
			t.Run(name, func(t *testing.T) {
				vp := chromedp.EmulateViewport(v.w, v.h)
				if v.phone {
					vp = phone()
				}
				tb := openPage(t, env, m.query, vp, scheme(v.scheme))
				m.reach(tb)
				eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
				for i, b := range tb.boxesOf(`[data-verdict="a"]`, `[data-verdict="b"]`) {
					if !b.inViewport(float64(v.w), float64(v.h)) {
						t.Errorf("lane %c's headline is not on the first screen: %+v", 'a'+i, b)
					}
				}
				shot, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatalf("screenshot: %v", err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), shot, 0o644); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
