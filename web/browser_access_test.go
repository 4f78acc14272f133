package web

// The page on a phone, in dark mode and for a keyboard or a screen reader,
// in the headless Chromium of browser_test.go: the phone's first screen
// shows a chart and the button of the controls' drawer, which opens and
// closes; the dark scheme reaches the page and the charts' canvases, and
// follows the system's live; sliders say their value with its unit; the
// skip links move the focus; a URL's bad pair of values is named. axe-core
// (vendored under testdata/axe-core) checks each view for violations of
// impact serious or critical. Run them with: go test -run BrowserAccess -v ./web

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/backofflab/backofflab/internal/testwait"
)

// axePath is axe-core's script, and axeVersion the version it must be.
const (
	axePath    = "testdata/axe-core/axe.min.js"
	axeVersion = "4.14.1"
)

// The phone of the checks: an iPhone 12 to 15's viewport.
const phoneW, phoneH = 390, 844

func TestBrowserAccess(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other long browser tests
	env := &browserEnv{ctx: startBrowser(t)}
	srv, _, _ := serveShell(t, Options{Limits: Limits{RunMemory: 32 << 20}})
	env.base = srv.URL
	axe := readAxe(t)
	for _, st := range []struct {
		name string
		fn   func(*testing.T, *browserEnv, string)
	}{
		{"PhoneLayout", accessPhoneLayout},
		{"DarkMode", accessDarkMode},
		{"SliderValueText", accessSliderValueText},
		{"SkipLinks", accessSkipLinks},
		{"URLErrorNamed", accessURLError},
		{"Axe", accessAxe},
	} {
		t.Run(st.name, func(t *testing.T) {
			start := time.Now()
			st.fn(t, env, axe)
			t.Logf("%s took %v", st.name, time.Since(start).Round(time.Millisecond))
		})
	}
}

// readAxe returns axe-core's script. Without it the accessibility checks
// would check nothing, so the test is skipped, visibly, unless CI=true,
// where it fails.
func readAxe(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(axePath)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("axe-core not found at %s (CI=true: the accessibility checks must run): %v", axePath, err)
		}
		t.Skip("axe-core not found at " + axePath + ": accessibility checks skipped (see testdata/axe-core/README.md)")
	}
	return string(b)
}

// phone is the emulation of a phone's viewport, touch included.
func phone() chromedp.Action[chromedp.Void] {
	return chromedp.EmulateViewport(phoneW, phoneH, chromedp.EmulateMobile, chromedp.EmulateTouch)
}

// scheme emulates the system's colour scheme, light or dark, as
// prefers-color-scheme reports it.
func scheme(s string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: s}}})
		return err
	})
}

// waitFinished waits until the page's run is over, its verdicts judged
// and its last rows drawn.
func (tb *tab) waitFinished() {
	tb.t.Helper()
	tb.waitDone()
	tb.waitTrue("both verdicts have a tone", `[...document.querySelectorAll('[data-verdict]')].filter(e => !e.closest('[hidden]')).every(e => /\b(good|bad)\b/.test(e.className))`)
	eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
}

// box is an element's place in the viewport, and whether it is displayed.
type box struct {
	Top, Bottom, Left, Right float64
	Shown                    bool // displayed and visible
}

func (b box) inViewport(w, h float64) bool {
	return b.Shown && b.Top >= 0 && b.Left >= 0 && b.Bottom <= h+0.5 && b.Right <= w+0.5 && b.Bottom > b.Top
}

// boxOf returns the box of the element sel finds.
func (tb *tab) boxOf(sel string) box {
	tb.t.Helper()
	return tb.boxesOf(sel)[0]
}

// boxesOf returns the boxes of the elements sels find, measured at one
// moment: the page reflows as a run plays (a lane's verdict wraps onto
// another line, and the charts below the heads move), so boxes measured
// one call apart may come from two layouts.
func (tb *tab) boxesOf(sels ...string) []box {
	tb.t.Helper()
	list, _ := json.Marshal(sels)
	return eval[[]box](tb, fmt.Sprintf(`%s.map(sel => {
		const el = document.querySelector(sel);
		if (!el) throw new Error('no element ' + sel);
		const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
		return {Top: r.top, Bottom: r.bottom, Left: r.left, Right: r.right,
			Shown: r.width > 0 && r.height > 0 && cs.visibility === 'visible' && !el.closest('[hidden]')};
	})`, list))
}

// key presses key (a kb constant) as a keyboard does.
func (tb *tab) key(k string) {
	tb.t.Helper()
	tb.do("press "+strconv.Quote(k), chromedp.KeyEvent(k))
}

// focused describes the focused element: its id, or its tag and text.
func (tb *tab) focused() string {
	tb.t.Helper()
	return eval[string](tb, `(e => e.id || (e.tagName.toLowerCase() + ':' + e.textContent.trim()))(document.activeElement)`)
}

// accessPhoneLayout: on a phone, the first screen (no scrolling) shows the
// lanes' first charts side by side and the drawer's button; the drawer
// is closed (out of the tab order), opens on a tap with the focus in it,
// shows its controls whole (e's digits in think_scaled's factor box), and
// Escape closes it, the focus back on its button.
func accessPhoneLayout(t *testing.T, env *browserEnv, _ string) {
	tb := openPage(t, env, "b.strategy=think_scaled&speed=20", phone())
	vw, vh := float64(phoneW), float64(phoneH)
	tb.waitTrue("lane a's throughput chart draws", `(c => c && c.getModel().getSeriesByIndex(0).getData().count() > 0)(window.backofflab.charts()['throughput.a'])`)
	boxes := tb.boxesOf(`.chart[data-chart="throughput"][data-lane="a"]`, `.chart[data-chart="throughput"][data-lane="b"]`)
	a, b := boxes[0], boxes[1]
	t.Logf("first screen: throughput a %+v, b %+v", a, b)
	if !a.inViewport(vw, vh) || !b.inViewport(vw, vh) {
		t.Errorf("the lanes' throughput charts are not on the first screen: a %+v, b %+v", a, b)
	}
	if math.Abs(a.Top-b.Top) > 1 || !(b.Left >= a.Right) {
		t.Errorf("lanes a and b are not side by side: a %+v, b %+v", a, b)
	}
	if w := a.Right - a.Left; w < 150 {
		t.Errorf("lane a's chart is %.0f px wide", w)
	}
	open := tb.boxOf("#drawer-open")
	if !open.inViewport(vw, vh) {
		t.Errorf("the drawer's button is not on the first screen: %+v", open)
	}
	if sw := eval[float64](tb, `document.documentElement.scrollWidth`); sw > vw {
		t.Errorf("horizontal overflow: the page is %v px wide", sw)
	}
	if tb.boxOf(".presets").Shown || !tb.boxOf("#preset-select").inViewport(vw, vh) {
		t.Errorf("a phone shows the preset chips, or no preset menu on its first screen")
	}
	if d := tb.boxOf("#controls-drawer"); d.Shown {
		t.Errorf("the drawer is open before its button is pressed: %+v", d)
	}
	if exp := eval[string](tb, `document.querySelector('#drawer-open').getAttribute('aria-expanded')`); exp != "false" {
		t.Errorf("the closed drawer's button has aria-expanded=%q", exp)
	}

	// A tap lands where the button was when chromedp measured it; on a busy
	// machine a late layout change (a chart's resize) can move it away in
	// between, so a tap that opened nothing is tried again, and said so.
	for try := 1; ; try++ {
		tb.do("tap the drawer's button", chromedp.Click(chromedp.ID("drawer-open")))
		opened := testwait.Within(3*time.Second, func() bool {
			return eval[bool](tb, `'open' in document.querySelector('#controls-drawer').dataset`)
		})
		if opened {
			break
		}
		if try == 3 {
			t.Fatalf("three taps on the drawer's button at %+v did not open the drawer", tb.boxOf("#drawer-open"))
		}
		t.Logf("tap %d on the drawer's button at %+v opened nothing; tapping again", try, tb.boxOf("#drawer-open"))
	}
	tb.waitTrue("the drawer is open, in view", fmt.Sprintf(`(r => getComputedStyle(document.querySelector('#controls-drawer')).visibility === 'visible' &&
		r.top >= 0 && Math.abs(r.bottom - %g) < 1)(document.querySelector('#controls-drawer').getBoundingClientRect())`, vh))
	if f := tb.focused(); f != "drawer-close" {
		t.Errorf("the focus is on %q after the drawer opened, want its Close button", f)
	}
	if exp := eval[string](tb, `document.querySelector('#drawer-open').getAttribute('aria-expanded')`); exp != "true" {
		t.Errorf("the open drawer's button has aria-expanded=%q", exp)
	}
	if s := tb.boxOf(`[data-param="a.strategy"]`); !s.inViewport(vw, vh) {
		t.Errorf("lane a's strategy menu is not in view in the open drawer: %+v", s)
	}
	if px := eval[float64](tb, `parseFloat(getComputedStyle(document.querySelector('[data-lane-panel="a"] .help')).fontSize)`); px < 13 {
		t.Errorf("help text is %v px, want at least 13", px)
	}
	// think_scaled's factor is e: its box shows every digit.
	eval[chromedp.Void](tb, `document.querySelector('[data-param="b.factor"]').scrollIntoView({block: 'center'})`)
	fit := eval[struct {
		Value       string  `json:"value"`
		ScrollWidth float64 `json:"scrollWidth"`
		ClientWidth float64 `json:"clientWidth"`
	}](tb, `(e => ({value: e.value, scrollWidth: e.scrollWidth, clientWidth: e.clientWidth}))(document.querySelector('[data-param="b.factor"]'))`)
	t.Logf("b.factor box: %q, %v px of text in %v px", fit.Value, fit.ScrollWidth, fit.ClientWidth)
	if !strings.HasPrefix(fit.Value, "2.71828") || fit.ScrollWidth > fit.ClientWidth {
		t.Errorf("b.factor's box cuts its value %q: %v px of text in %v px", fit.Value, fit.ScrollWidth, fit.ClientWidth)
	}
	if sw := eval[float64](tb, `document.documentElement.scrollWidth`); sw > vw {
		t.Errorf("horizontal overflow with the drawer open: the page is %v px wide", sw)
	}

	tb.key(kb.Escape)
	tb.waitTrue("the drawer is closed", `getComputedStyle(document.querySelector('#controls-drawer')).visibility === 'hidden'`)
	if f := tb.focused(); f != "drawer-open" {
		t.Errorf("the focus is on %q after the drawer closed, want its button", f)
	}
	// The button, in view above the open drawer, closes it too.
	// The drawer slides up: what is above it is judged once it is in place.
	tb.do("tap the drawer's button", chromedp.Click(chromedp.ID("drawer-open")))
	tb.waitTrue("the drawer is open, in place", fmt.Sprintf(`(r => getComputedStyle(document.querySelector('#controls-drawer')).visibility === 'visible' &&
		r.top >= 0 && Math.abs(r.bottom - %g) < 1)(document.querySelector('#controls-drawer').getBoundingClientRect())`, vh))
	if !tb.boxOf(`.chart[data-chart="throughput"][data-lane="a"]`).inViewport(vw, vh-eval[float64](tb, `document.querySelector('#controls-drawer').getBoundingClientRect().height`)) {
		t.Errorf("lane a's throughput chart is not in view above the open drawer: %+v, the drawer %+v",
			tb.boxOf(`.chart[data-chart="throughput"][data-lane="a"]`), tb.boxOf("#controls-drawer"))
	}
	tb.do("tap the drawer's button again", chromedp.Click(chromedp.ID("drawer-open")))
	tb.waitTrue("the drawer is closed", `getComputedStyle(document.querySelector('#controls-drawer')).visibility === 'hidden' && document.querySelector('#drawer-open').getAttribute('aria-expanded') === 'false'`)
}

// accessDarkMode: with the system in dark mode the page is dark and so are
// its charts (their option and a pixel of their canvas, read back from the
// page); when the system turns light the charts follow without a reload.
func accessDarkMode(t *testing.T, env *browserEnv, _ string) {
	tb := openTab(t, env.ctx)
	tb.do("emulate a dark desktop", chromedp.EmulateViewport(1280, 800), scheme("dark"))
	tb.navigate(env.base + "/?speed=max")
	tb.waitFinished()

	type look struct {
		Body      string `json:"body"`      // the page's background
		Text      string `json:"text"`      // its text colour
		Card      string `json:"card"`      // --card, the charts' background
		ChartBG   string `json:"chartBG"`   // the throughput chart's option
		ChartText string `json:"chartText"` // its title's colour
		AxisText  string `json:"axisText"`  // its x axis labels' colour
		Pixel     []int  `json:"pixel"`     // a pixel of its canvas, in the corner
	}
	read := func() look {
		return eval[look](tb, `(() => {
			const c = window.backofflab.charts()['throughput.a'];
			const o = c.getOption();
			const canvas = c.getDom().querySelector('canvas');
			const px = canvas.getContext('2d').getImageData(3, canvas.height - 3, 1, 1).data;
			return {body: getComputedStyle(document.body).backgroundColor || '', text: getComputedStyle(document.body).color,
				card: getComputedStyle(document.documentElement).getPropertyValue('--card').trim(),
				chartBG: o.backgroundColor, chartText: o.title[0].textStyle.color, axisText: o.xAxis[0].axisLabel.color,
				pixel: [px[0], px[1], px[2]]};
		})()`)
	}
	dark := read()
	t.Logf("dark: %+v", dark)
	bodyBG := eval[string](tb, `getComputedStyle(document.documentElement).backgroundColor`)
	if l := luminance(t, bodyBG); l > 0.05 {
		t.Errorf("the page's background %s is not dark (luminance %.3f)", bodyBG, l)
	}
	if l := luminance(t, dark.Text); l < 0.6 {
		t.Errorf("the page's text %s is not light (luminance %.3f)", dark.Text, l)
	}
	if dark.ChartBG != dark.Card || luminance(t, dark.Card) > 0.05 {
		t.Errorf("the chart's background %s, want the dark --card %s", dark.ChartBG, dark.Card)
	}
	if luminance(t, dark.ChartText) < 0.6 || luminance(t, dark.AxisText) < 0.3 {
		t.Errorf("the chart's title %s or axis labels %s are not light", dark.ChartText, dark.AxisText)
	}
	if l := luminance(t, fmt.Sprintf("rgb(%d, %d, %d)", dark.Pixel[0], dark.Pixel[1], dark.Pixel[2])); l > 0.05 {
		t.Errorf("the chart's canvas is not dark: a corner pixel is %v (luminance %.3f)", dark.Pixel, l)
	}

	tb.do("the system turns light", scheme("light"))
	tb.waitTrue("the chart turns light", `window.backofflab.charts()['throughput.a'].getOption().backgroundColor === '#fff'`)
	eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
	light := read()
	t.Logf("light: %+v", light)
	if luminance(t, light.ChartText) > 0.1 || luminance(t, fmt.Sprintf("rgb(%d, %d, %d)", light.Pixel[0], light.Pixel[1], light.Pixel[2])) < 0.9 {
		t.Errorf("after the switch the chart's title is %s and its canvas %v: want dark text on white", light.ChartText, light.Pixel)
	}
	// A chart made after the switch (a lane added) starts light too.
	tb.do("add a lane", chromedp.Click(chromedp.ID("lane-add")))
	tb.waitTrue("lane c's chart is light", `(c => c && c.getOption().backgroundColor === '#fff' && c.getOption().title[0].textStyle.color === '#1d2330')(window.backofflab.charts()['throughput.c'])`)
}

// luminance is the relative luminance (WCAG) of a CSS colour given as
// #rrggbb or rgb(r, g, b).
func luminance(t *testing.T, css string) float64 {
	t.Helper()
	var r, g, b int
	var err error
	if strings.HasPrefix(css, "#") && len(css) == 7 {
		_, err = fmt.Sscanf(css, "#%02x%02x%02x", &r, &g, &b)
	} else {
		_, err = fmt.Sscanf(strings.ReplaceAll(css, " ", ""), "rgb(%d,%d,%d)", &r, &g, &b)
	}
	if err != nil {
		t.Fatalf("colour %q: %v", css, err)
	}
	lin := func(c int) float64 {
		v := float64(c) / 255
		if v <= 0.03928 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// accessSliderValueText: a slider says its box's value with the unit in
// words, on load, as it moves, and after the server's answer.
func accessSliderValueText(t *testing.T, env *browserEnv, _ string) {
	tb := openPage(t, env, "a.strategy=fixed&a.min_delay=100ms&clients=1000&speed=20")
	vt := func(name string) string {
		return eval[string](tb, fmt.Sprintf(`document.querySelector('[data-slider-for=%q]').getAttribute('aria-valuetext')`, name))
	}
	for name, want := range map[string]string{"a.min_delay": "0.1 seconds", "clients": "1000 clients", "b.jitter": "0.1"} {
		if got := vt(name); got != want {
			t.Errorf("%s's slider says %q on load, want %q", name, got, want)
		}
	}
	// Moving the slider: it says the box's new value at once.
	moved := eval[string](tb, `(() => {
		const s = document.querySelector('[data-slider-for="a.min_delay"]');
		s.value = String(Number(s.value) + 150);
		s.dispatchEvent(new Event('input', {bubbles: true}));
		return document.querySelector('[data-param="a.min_delay"]').value;
	})()`)
	if got, want := vt("a.min_delay"), moved+" seconds"; got != want || moved == "0.1" {
		t.Errorf("a.min_delay's slider moved to box %q says %q, want %q", moved, got, want)
	}
	// A value typed in the box: the slider says it once the server answers.
	// (The move's answer first: it would reset a box that has no focus.)
	tb.waitTrue("the URL has the moved a.min_delay", `new URLSearchParams(location.search).get('a.min_delay') !== '100ms'`)
	tb.setBox("clients", "1")
	tb.waitQuery("clients", "1")
	tb.waitTrue("the clients slider says 1 client", `document.querySelector('[data-slider-for="clients"]').getAttribute('aria-valuetext') === '1 client'`)
}

// accessSkipLinks: the first Tab reaches the skip link to the charts, which
// moves the focus to them; the next ones skip to a lane's controls, in the
// drawer on a phone, which opens for it.
func accessSkipLinks(t *testing.T, env *browserEnv, _ string) {
	tb := openPage(t, env, "speed=20")
	links := eval[[]string](tb, `[...document.querySelectorAll('[data-skip]')].filter(a => !a.hidden).map(a => a.textContent.trim())`)
	want := []string{"Skip to the charts", "Skip to lane a's controls", "Skip to lane b's controls"}
	if strings.Join(links, "|") != strings.Join(want, "|") {
		t.Errorf("skip links %q, want %q", links, want)
	}
	tb.key(kb.Tab)
	if f := tb.focused(); f != "a:Skip to the charts" {
		t.Fatalf("the first Tab reaches %q, want the skip link to the charts", f)
	}
	if !tb.boxOf(".skip a:focus").inViewport(1280, 800) {
		t.Errorf("the focused skip link is not in view")
	}
	tb.key(kb.Enter)
	tb.waitTrue("the charts have the focus", `document.activeElement.id === 'charts'`)
	if !tb.boxOf(".lane-head").inViewport(1280, 800) {
		t.Errorf("the charts are not in view after the skip")
	}
	// From the start again, three Tabs: lane b's skip link.
	tb.navigate(eval[string](tb, `location.href`))
	tb.key(kb.Tab)
	tb.key(kb.Tab)
	tb.key(kb.Tab)
	if f := tb.focused(); f != "a:Skip to lane b's controls" {
		t.Fatalf("the third Tab reaches %q, want lane b's skip link", f)
	}
	tb.key(kb.Enter)
	tb.waitTrue("lane b's controls have the focus", `document.activeElement.id === 'lane-b-controls'`)
	if location := eval[string](tb, `location.hash`); location != "" {
		t.Errorf("the skip left %q in the address bar, which holds the state", location)
	}
	// The next Tabs go on inside lane b's panel, open.
	tb.key(kb.Tab)
	tb.key(kb.Tab)
	if f := tb.focused(); f != "p-b.strategy" {
		t.Errorf("two Tabs after the skip reach %q, want lane b's title then its strategy", f)
	}

	// On a phone, lane a's skip link opens the drawer for its target.
	tb2 := openPage(t, env, "speed=20", phone())
	tb2.key(kb.Tab)
	tb2.key(kb.Tab)
	if f := tb2.focused(); f != "a:Skip to lane a's controls" {
		t.Fatalf("phone: the second Tab reaches %q", f)
	}
	tb2.key(kb.Enter)
	tb2.waitTrue("the drawer opens with lane a's controls focused", `document.activeElement.id === 'lane-a-controls' && getComputedStyle(document.querySelector('#controls-drawer')).visibility === 'visible'`)
	tb2.waitTrue("the open drawer shows lane a's title", fmt.Sprintf(`(r => r.top >= 0 && r.bottom <= %d)(document.querySelector('#lane-a-title').getBoundingClientRect())`, phoneH))
}

// accessURLError: a URL whose lane b's min_delay exceeds its strategy's
// max_delay shows the error under b.min_delay, naming the parameter, the
// value and the allowed range, and keeps lane b's strategy; the same
// mistake made live shows it under the delay changed.
func accessURLError(t *testing.T, env *browserEnv, _ string) {
	tb := openPage(t, env, "b.strategy=grpc&b.min_delay=1h&speed=20")
	msg := eval[string](tb, `document.querySelector('[data-error-for="b.min_delay"]').textContent`)
	t.Logf("b.min_delay: %s", msg)
	if want := `b.min_delay: "1h0m0s" is not allowed (allowed: a duration from 1ms to b.max_delay (2m0s))`; msg != want {
		t.Errorf("b.min_delay's message %q, want %q", msg, want)
	}
	if got := eval[string](tb, `document.querySelector('[data-param="b.strategy"]').value + ' ' + document.querySelector('[data-param="b.min_delay"]').value + ' ' + new URLSearchParams(location.search).get('b.strategy')`); got != "grpc 1h grpc" {
		t.Errorf("lane b's strategy, min_delay box and URL: %q, want grpc, the bad 1h, grpc", got)
	}
	if got := eval[string](tb, `document.querySelector('[data-param="b.min_delay"]').getAttribute('aria-invalid') + ' ' + document.querySelector('[data-lane-strategy="b"]').textContent + ' (' + document.querySelector('code[data-lane-strategy-name="b"]').textContent + ')'`); got != "true gRPC connection backoff (grpc)" {
		t.Errorf("b.min_delay's aria-invalid and lane b's head: %q, want true and grpc's label", got)
	}
	if m := eval[string](tb, `document.querySelector('[data-error-for="b.max_delay"]').textContent + document.querySelector('#errors').textContent`); m != "" {
		t.Errorf("messages elsewhere: %q", m)
	}
	if !tb.boxOf(`[data-error-for="b.min_delay"]`).Shown {
		t.Errorf("b.min_delay's message is not shown")
	}

	// Live: lane a (exponential, max_delay 15 min) gets a min_delay of an hour.
	tb2 := openPage(t, env, "a.strategy=exponential&speed=20")
	tb2.setBox("a.min_delay", "3600")
	got := poll[string](tb2, "a.min_delay's slot names it", `(s => s.startsWith('a.min_delay: ') && s)(document.querySelector('[data-error-for="a.min_delay"]').textContent)`)
	if want := `a.min_delay: "1h0m0s" is not allowed (allowed: a duration from 1ms to a.max_delay (15m0s))`; got != want {
		t.Errorf("a.min_delay's message %q, want %q", got, want)
	}
}

// axeViolation is one rule that axe-core finds broken, with its first
// nodes.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// axeCheck runs axe-core on tb's page as it stands and fails t for every
// violation of impact serious or critical; it logs the others.
func (tb *tab) axeCheck(src, view string) {
	tb.t.Helper()
	if !eval[bool](tb, `typeof window.axe === 'object'`) {
		eval[chromedp.Void](tb, src)
	}
	if v := eval[string](tb, `window.axe.version`); v != axeVersion {
		tb.t.Fatalf("axe-core %s, want %s (%s)", v, axeVersion, axePath)
	}
	ctx, cancel := context.WithTimeout(tb.ctx, 2*actionTimeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]byte](`axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
		id: v.id, impact: v.impact, help: v.help,
		nodes: v.nodes.slice(0, 4).map(n => n.target.join(' ') + ': ' + (n.failureSummary || '').replace(/\s+/g, ' ')),
	})))`, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("axe on %s: %v", view, err)
	}
	var vs []axeViolation
	if err := json.Unmarshal(raw, &vs); err != nil {
		tb.t.Fatalf("axe on %s: %v", view, err)
	}
	serious := 0
	for _, v := range vs {
		line := fmt.Sprintf("axe on %s: %s (%s): %s; %s", view, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, " | "))
		if v.Impact == "serious" || v.Impact == "critical" {
			serious++
			tb.t.Error(line)
		} else {
			tb.t.Log(line)
		}
	}
	tb.t.Logf("axe on %s: %d violations, %d serious or critical", view, len(vs), serious)
}

// accessAxe: axe-core finds no violation of impact serious or critical on
// the landing view, a finished run, the phone layout (drawer closed and
// open) and dark mode, desktop and phone.
func accessAxe(t *testing.T, env *browserEnv, axe string) {
	for _, v := range []struct {
		name   string
		query  string
		dark   bool
		phone  bool
		done   bool // wait until the run is over
		drawer bool // open the phone's drawer
	}{
		{name: "landing view", query: "speed=1"},
		{name: "finished run", query: "speed=max", done: true},
		{name: "phone", query: "speed=max", phone: true, done: true},
		{name: "phone, drawer open", query: "speed=max", phone: true, done: true, drawer: true},
		{name: "dark, finished run", query: "speed=max", dark: true, done: true},
		{name: "dark phone, drawer open", query: "speed=max", dark: true, phone: true, done: true, drawer: true},
		{name: "bad values", query: "clients=0&b.strategy=grpc&b.min_delay=1h&e.foo=1&speed=max", done: true},
	} {
		t.Run(v.name, func(t *testing.T) {
			tb := openTab(t, env.ctx)
			vp := chromedp.EmulateViewport(1280, 800)
			if v.phone {
				vp = phone()
			}
			sch := "light"
			if v.dark {
				sch = "dark"
			}
			tb.do("emulate", vp, scheme(sch))
			tb.navigate(env.base + "/?" + v.query)
			tb.waitTrue("ticks arrive", `window.backofflab.rows().length > 0`)
			if v.done {
				tb.waitFinished()
			}
			if v.drawer {
				tb.do("open the drawer", chromedp.Click(chromedp.ID("drawer-open")))
				tb.waitTrue("the drawer is open", `getComputedStyle(document.querySelector('#controls-drawer')).visibility === 'visible'`)
			}
			tb.axeCheck(axe, v.name)
		})
	}
}
