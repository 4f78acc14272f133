package web

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// browserHonestLink: a slider moved while the run plays is part of the
// run. The page's link holds it, at its virtual time; the link opened in
// a fresh browser context (no cache, no storage) replays the run, with the
// same verdicts and, byte for byte, the same exported CSV, whose last
// column holds the change; the change is marked on every chart of its
// lane. The second link gives the settings from t = 0, without the change.
func browserHonestLink(t *testing.T, env *browserEnv) {
	// At 2× the run reaches its end 30 s after it starts: the slider
	// moves while it plays however far the server is ahead of a busy
	// machine's page (at 10× the run had ended on one, so the change
	// started a new run instead of joining this one).
	const query = "speed=2&duration=60s&clients=400&outage_at=5s&outage_for=5s"
	tb := openPage(t, env, query)
	dir := t.TempDir()
	allowDownloads(t, tb, dir)
	tb.waitRowsT(12)
	// Move lane b's factor slider to its position nearest 1.1, as a hand does.
	factor := eval[string](tb, `(() => {
		const s = document.querySelector('[data-slider-for="b.factor"]');
		const page = window.backofflab.page, texts = page.scales[page.sliders['b.factor']];
		let best = 0;
		texts.forEach((v, i) => { if (Math.abs(Number(v) - 1.1) < Math.abs(Number(texts[best]) - 1.1)) best = i; });
		s.value = String(best);
		s.dispatchEvent(new Event('input', {bubbles: true}));
		s.dispatchEvent(new Event('change', {bubbles: true}));
		return texts[best];
	})()`)
	tb.waitQuery("b.factor", factor)
	// The change is the run's, at its virtual time: the rest of the run,
	// and the replay, whose link carries the speed, play at full speed,
	// the same run, finished in a moment instead of seconds of drawing.
	tb.selectValue("#speed", "max")
	tb.waitQuery("speed", "max")
	tb.waitTrue("the run is done", `window.backofflab.state().done`)
	link := eval[string](tb, `location.href`)
	t.Logf("b.factor moved to %s; the run's link (%d characters): %s", factor, len(link), link)
	if !strings.Contains(link, "changes=@") || !strings.Contains(link, "+b.factor="+factor) {
		t.Fatalf("the page's URL %s does not hold the change", link)
	}
	// Every time chart of lane b marks the change; lane a's none.
	marked := eval[[]string](tb, `Object.entries(window.backofflab.charts()).filter(([id, c]) => {
		const ml = c.getOption().series[0].markLine;
		return ml && ml.data.some(d => /b\.factor=/.test(d.name || ''));
	}).map(([id]) => id).sort()`)
	timeCharts := eval[[]string](tb, `Object.keys(window.backofflab.charts()).filter(id => id.endsWith('.b') && window.backofflab.SPEC[id.split('.')[0]].x === 'time').sort()`)
	t.Logf("charts marking the change: %v", marked)
	for _, id := range timeCharts {
		if !strings.Contains(strings.Join(marked, " "), id) {
			t.Errorf("chart %s does not mark the change", id)
		}
	}
	if strings.Contains(strings.Join(marked, " "), ".a") {
		t.Errorf("lane a's charts mark lane b's change: %v", marked)
	}
	shot(t, tb, "honest-link-marks.png")

	copied := copyVia(tb, "copy-link")
	if copied != link {
		t.Errorf("Copy link gave %s, want the page's URL %s", copied, link)
	}
	fromZero := copyVia(tb, "copy-settings")
	if strings.Contains(fromZero, "changes=") || !strings.Contains(fromZero, "b.factor="+factor) {
		t.Errorf("the link to the settings from t = 0 is %s: want b.factor=%s and no changes", fromZero, factor)
	}
	verdicts := tb.verdicts()
	if !strings.Contains(verdicts[1], "b.factor changed to "+factor+" at ") || strings.Contains(verdicts[0], "b.factor") {
		t.Errorf("the verdicts do not name the change of lane b: %q", verdicts)
	}
	csv, _ := tb.download(dir, chromedp.Click(chromedp.ID("export-csv")))

	// The link in a fresh browser context.
	fresh := openTab(t, env.ctx, chromedp.WithNewBrowserContext())
	fresh.do("emulate the viewport", chromedp.EmulateViewport(1280, 800))
	fresh.navigate(copied)
	allowDownloads(t, fresh, dir)
	fresh.waitTrue("the replay is done", `document.querySelector('#status').textContent === 'connected' && !!window.backofflab.state() && window.backofflab.state().done`)
	if got := fresh.verdicts(); strings.Join(got, "\n") != strings.Join(verdicts, "\n") {
		t.Errorf("the replay's verdicts\n%q\nthe live run's\n%q", got, verdicts)
	}
	csv2, _ := fresh.download(dir, chromedp.Click(chromedp.ID("export-csv")))
	if string(csv2) != string(csv) {
		t.Errorf("the replay's CSV (%d bytes) differs from the live run's (%d bytes)", len(csv2), len(csv))
	}
	header, _, _ := strings.Cut(string(csv), "\n")
	if !strings.HasSuffix(header, ",changes") || !strings.Contains(string(csv), " b.factor="+factor+"\n") {
		t.Errorf("the CSV does not carry the change: header %q", header)
	}
	t.Logf("verdicts: %q; CSV %d bytes, identical", verdicts, len(csv))
}

// copyVia clicks the copy button id and returns the text it put on the
// clipboard, which the page's clipboard is replaced to keep.
func copyVia(tb *tab, id string) string {
	tb.t.Helper()
	eval[chromedp.Void](tb, `Object.defineProperty(navigator, 'clipboard', {configurable: true,
		value: {writeText: text => { window.copiedText = text; return Promise.resolve(); }}}); window.copiedText = ''`)
	tb.do("click #"+id, chromedp.Click(chromedp.ID(id)))
	return poll[string](tb, "the copied text", `window.copiedText`)
}

// verdicts returns each shown lane's verdict as the page says it.
func (tb *tab) verdicts() []string {
	tb.t.Helper()
	return eval[[]string](tb, `[...document.querySelectorAll('[data-verdict]')].filter(e => !e.closest('[hidden]')).map(e => e.textContent)`)
}

// shot saves a screenshot of tb's page to BACKOFFLAB_SHOTS, when it names
// a directory.
func shot(t *testing.T, tb *tab, name string) {
	t.Helper()
	dir := os.Getenv("BACKOFFLAB_SHOTS")
	if dir == "" {
		return
	}
	if err := os.WriteFile(dir+"/"+name, tb.screenshot(), 0o644); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	fmt.Fprintln(os.Stderr, "screenshot:", dir+"/"+name)
}
