package web

// The playground's charts compared honestly and read on a phone, in the
// headless Chromium of browser_test.go. Run them with:
// go test -run BrowserCharts -v ./web
//
// BACKOFFLAB_SCREENSHOTS=/some/dir keeps the screenshots of the Shots
// subtest there (else they go to a temporary directory).

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/internal/testwait"
)

func TestBrowserCharts(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other long browser tests
	env := &browserEnv{ctx: startBrowser(t)}
	srv, _, _ := serveShell(t, Options{Limits: Limits{RunMemory: 32 << 20}})
	env.base = srv.URL
	for _, st := range []struct {
		name string
		fn   func(*testing.T, *browserEnv)
	}{
		{"PhoneReads", chartsPhoneReads},
		{"SharedAxes", chartsSharedAxes},
		{"LegendTip", chartsLegendTip},
		{"Shots", chartsShots},
		{"Requests", chartsRequests},
		{"BandsPhone", chartsBandsPhone},
	} {
		t.Run(st.name, func(t *testing.T) { st.fn(t, env) })
	}
}

// chartsRequests: once a run ends, each lane's requests chart draws the
// server's last requests message as it is: a bar of every request that
// ended per bin, summing to the lane's summary's succeeded and gave up,
// the successes in front summing to its succeeded; the patience and the
// percentiles marked where they fall between the bins' edges; and the
// sentence, with the share that succeeded within the patience, on the
// chart and in its label for a screen reader.
func chartsRequests(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=max&patience=10s", chromedp.EmulateViewport(1280, 800))
	tb.waitFinished()
	type lane struct {
		Ended, OK, Succeeded, GaveUp int64
		Sentence, Label, Drawn       string
		Marks                        []string
		Within                       float64
	}
	// The message's last edge holds every latency: the bars' positions
	// run from 0 to the number of edges.
	tb.waitTrue("the requests message of the finished run", `(() => {
		const r = window.backofflab.requests(), s = window.backofflab.summaries();
		return r && s && r.lanes.every((l, i) => l.ended.reduce((a, b) => a + b, 0) === s[i].succeeded + s[i].gave_up);
	})()`)
	lanes := eval[[]lane](tb, `(() => {
		const r = window.backofflab.requests(), s = window.backofflab.summaries();
		return r.lanes.map((l, i) => {
			const c = window.backofflab.charts()['requests.' + 'ab'[i]], o = c.getOption();
			const series = id => o.series.find(x => x.id === id);
			const total = id => series(id).data.reduce((a, d) => a + (d[1] || 0), 0);
			const sentence = o.graphic[0].elements.find(e => e.id === 'sentence');
			return {Ended: total('ended'), OK: total('ok'), Succeeded: s[i].succeeded, GaveUp: s[i].gave_up,
				Sentence: l.sentence, Label: c.getDom().getAttribute('aria-label'), Drawn: sentence ? sentence.style.text : '',
				Marks: series('ok').markLine.data.map(m => m.name), Within: s[i].succeeded_within};
		});
	})()`)
	if len(lanes) != 2 {
		t.Fatalf("%d lanes, want 2", len(lanes))
	}
	// Each chart's CSV (its toolbox's CSV button) holds its bins as they
	// are: a row per bin, edge to edge, summing to the bars.
	for i, l := range lanes {
		rows, err := csv.NewReader(strings.NewReader(eval[string](tb, fmt.Sprintf(`window.backofflab.requestsCSV(%d)`, i)))).ReadAll()
		if err != nil {
			t.Fatalf("lane %d's CSV: %v", i, err)
		}
		if strings.Join(rows[0], ",") != "lane,strategy,from_s,to_s,ended,succeeded" {
			t.Fatalf("lane %d's CSV header %v", i, rows[0])
		}
		var ended, ok int64
		prev := "0"
		for _, r := range rows[1:] {
			if r[0] != "ab"[i:i+1] || r[2] != prev {
				t.Errorf("lane %d's CSV row %v: want lane %c from %s", i, r, "ab"[i], prev)
			}
			prev = r[3]
			e, _ := strconv.ParseInt(r[4], 10, 64)
			o, _ := strconv.ParseInt(r[5], 10, 64)
			ended, ok = ended+e, ok+o
		}
		if ended != l.Ended || ok != l.OK {
			t.Errorf("lane %d's CSV holds %d ended and %d succeeded, the bars %d and %d", i, ended, ok, l.Ended, l.OK)
		}
	}
	for i, l := range lanes {
		if l.Ended != l.Succeeded+l.GaveUp || l.Ended == 0 {
			t.Errorf("lane %d: the bars hold %d requests, want the %d that succeeded and %d given up", i, l.Ended, l.Succeeded, l.GaveUp)
		}
		if l.OK != l.Succeeded {
			t.Errorf("lane %d: the successes' bars hold %d, want %d", i, l.OK, l.Succeeded)
		}
		if !strings.Contains(l.Sentence, "succeeded within the patience of 10 s") || !strings.Contains(l.Label, l.Sentence) ||
			strings.ReplaceAll(l.Drawn, "\n", " ") != l.Sentence {
			t.Errorf("lane %d: sentence %q, drawn %q, label %q: want the sentence on the chart and in its label", i, l.Sentence, l.Drawn, l.Label)
		}
		if !slices.Equal(l.Marks, []string{"patience", "p99.9", "p99", "p50"}) {
			t.Errorf("lane %d: marks %v, want the patience, p99.9, p99 and p50", i, l.Marks)
		}
	}
}

// chartsShots takes screenshots of the landing run mid-storm and at its
// end, on a desktop in the light scheme and on a phone in the dark one,
// and checks at both moments that no two texts a chart drew overlap.
func chartsShots(t *testing.T, env *browserEnv) {
	dir := os.Getenv("BACKOFFLAB_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		name   string
		scheme string
		vp     chromedp.Action[chromedp.Void]
	}{
		{"1280x800-light", "light", chromedp.EmulateViewport(1280, 800)},
		{"390x844-dark", "dark", phone()},
	} {
		t.Run(v.name, func(t *testing.T) {
			// The storm at 20× (50 s in 2.5 s of waiting), then the
			// rest at full speed: the end is the same run, finished.
			tb := openPage(t, env, "speed=20", v.vp, scheme(v.scheme))
			tb.waitRowsT(50)
			eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
			shot := func(file string) {
				b, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatalf("screenshot: %v", err)
				}
				p := filepath.Join(dir, file)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s", p)
			}
			texts := func() {
				for _, key := range eval[[]string](tb, `Object.keys(window.backofflab.charts()).filter(k => !window.backofflab.charts()[k].getDom().closest('[hidden]'))`) {
					checkTexts(t, tb, key, fmt.Sprintf(`window.backofflab.charts()[%q]`, key))
				}
			}
			shot(fmt.Sprintf("charts-%s-storm.png", v.name))
			texts()
			tb.selectValue("#speed", "max")
			tb.waitQuery("speed", "max")
			tb.waitFinished()
			shot(fmt.Sprintf("charts-%s-end.png", v.name))
			texts()
			p := filepath.Join(dir, fmt.Sprintf("charts-%s-end-full.png", v.name))
			if err := os.WriteFile(p, tb.screenshot(), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", p)
		})
	}
}

// chartTexts is a script that returns the texts the playground's chart
// key (or the chart given second) drew on its canvas, as ECharts laid
// them out: each shown text element (ECharts draws a label as one or more
// spans) with its box in the chart's pixels, read from the chart's
// zrender display list; and the box of its toolbox's icons.
const chartTexts = `((key, chart) => {
	const c = chart || window.backofflab.charts()[key];
	const out = new Map();
	for (const el of c.getZr().storage.getDisplayList(true)) {
		if ((el.type !== 'tspan' && el.type !== 'text') || el.invisible || !el.style || !el.style.text) continue;
		if (el.style.opacity === 0) continue;
		const r = el.getBoundingRect().clone();
		r.applyTransform(el.getComputedTransform());
		const owner = el.parent || el;
		const b = out.get(owner);
		if (b) b.text += ' ' + el.style.text, b.x = Math.min(b.x, r.x), b.y = Math.min(b.y, r.y),
			b.r = Math.max(b.r, r.x + r.width), b.b = Math.max(b.b, r.y + r.height);
		else out.set(owner, {text: String(el.style.text), x: r.x, y: r.y, r: r.x + r.width, b: r.y + r.height});
	}
	// The toolbox's icons, as one box (without their titles, hidden until
	// hovered).
	const tm = c.getModel().getComponent('toolbox', 0), tv = tm && c.getViewOfComponentModel(tm);
	if (tv && !tv.group.ignore) {
		const icons = {text: '(toolbox)', x: Infinity, y: Infinity, r: -Infinity, b: -Infinity};
		tv.group.traverse(el => {
			if (el.type !== 'path' || el.ignore || el.invisible) return;
			const r = el.getBoundingRect().clone();
			r.applyTransform(el.getComputedTransform());
			icons.x = Math.min(icons.x, r.x), icons.y = Math.min(icons.y, r.y);
			icons.r = Math.max(icons.r, r.x + r.width), icons.b = Math.max(icons.b, r.y + r.height);
		});
		if (icons.r > icons.x) out.set(tv, icons);
	}
	return [...out.values()];
})`

// checkTexts checks that the texts chart (a script's expression for an
// ECharts instance, key in messages) drew stay inside it and that no two
// touch, and returns them.
func checkTexts(t *testing.T, tb *tab, key, chart string) []string {
	t.Helper()
	texts := eval[[]textBox](tb, fmt.Sprintf(`%s(null, %s)`, chartTexts, chart))
	w, h := eval[float64](tb, chart+`.getWidth()`), eval[float64](tb, chart+`.getHeight()`)
	var names []string
	for i, a := range texts {
		names = append(names, a.Text)
		if a.X < -0.5 || a.Y < -0.5 || a.R > w+0.5 || a.B > h+0.5 {
			t.Errorf("%s: %q at %+v runs out of its %v×%v chart", key, a.Text, a, w, h)
		}
		for _, b := range texts[i+1:] {
			if ow, oh := a.overlap(b); ow > 0 && oh > 0 {
				t.Errorf("%s: %q %+v and %q %+v overlap by %.1f×%.1f px", key, a.Text, a, b.Text, b, ow, oh)
			}
		}
	}
	t.Logf("%s: %d texts: %q", key, len(texts), names)
	return names
}

// textBox is one text a chart drew, and its box in the chart's pixels.
type textBox struct {
	Text       string
	X, Y, R, B float64
}

// overlap is how far texts a and b overlap, each widened by a pixel on
// every side: texts that touch ("30 s60 s") overlap by 2 px.
func (a textBox) overlap(b textBox) (w, h float64) {
	return min(a.R, b.R) - max(a.X, b.X) + 2, min(a.B, b.B) - max(a.Y, b.Y) + 2
}

// chartsPhoneReads: on a phone in the dark scheme, at the end of the
// landing run (a storm in lane a, an outage and its marks), every chart
// reads: its legend is not paged and names success on screen, no two of
// the texts it drew (axis labels, annotations, legend, title) overlap,
// its legend and toolbox stand out from its background, and a tooltip
// opened at the right edge stays in the viewport.
func chartsPhoneReads(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=max", phone(), scheme("dark"))
	tb.waitFinished()
	keys := eval[[]string](tb, `Object.keys(window.backofflab.charts()).filter(k => !window.backofflab.charts()[k].getDom().closest('[hidden]'))`)
	if len(keys) < 10 {
		t.Fatalf("%d charts shown, want at least 2 lanes × 5: %v", len(keys), keys)
	}
	for _, key := range keys {
		legend := eval[string](tb, fmt.Sprintf(`window.backofflab.charts()[%q].getModel().getComponent('legend', 0).type`, key))
		if legend != "legend.plain" {
			t.Errorf("%s: the legend is %s, want one that wraps (legend.plain), not pages", key, legend)
		}
		names := checkTexts(t, tb, key, fmt.Sprintf(`window.backofflab.charts()[%q]`, key))
		if strings.HasPrefix(key, "throughput.") && !slicesContain(names, "succeeded") {
			t.Errorf("%s: no legend item reads \"succeeded\" on screen; the texts drawn: %q", key, names)
		}
	}

	// The legend, the toolbox and the axes stand out from the dark card:
	// text at 4.5:1 at least, the toolbox's icons and an inactive legend
	// item at 3:1 (WCAG's minimum contrast for text and for controls).
	type look struct{ BG, Legend, Inactive, Icon, Axis string }
	l := eval[look](tb, `(o => ({BG: o.backgroundColor, Legend: o.legend[0].textStyle.color, Inactive: o.legend[0].inactiveColor,
		Icon: o.toolbox[0].iconStyle.borderColor, Axis: o.xAxis[0].axisLabel.color}))(window.backofflab.charts()['throughput.b'].getOption())`)
	bg := luminance(t, l.BG)
	if bg > 0.05 {
		t.Errorf("the chart's background %s is not dark", l.BG)
	}
	for _, c := range []struct {
		what, color string
		min         float64
	}{{"the legend's text", l.Legend, 4.5}, {"the axes' labels", l.Axis, 4.5}, {"the toolbox's icons", l.Icon, 3}, {"an inactive legend item", l.Inactive, 3}} {
		if r := (luminance(t, c.color) + 0.05) / (bg + 0.05); r < c.min {
			t.Errorf("%s, %s on %s, has a contrast of %.2f:1, want %g:1", c.what, c.color, l.BG, r, c.min)
		}
	}

	// A tooltip opened at the right edge of lane b's chart, the page's
	// rightmost, stays in the viewport.
	type point struct{ X, Y float64 }
	at := eval[point](tb, `(c => {
		const d = c.getDom(), r = d.getBoundingClientRect();
		d.scrollIntoView({block: 'center'});
		const r2 = d.getBoundingClientRect();
		const g = c.getModel().getComponent('grid', 0).coordinateSystem.getRect();
		return {X: r2.left + g.x + g.width - 3, Y: r2.top + g.y + g.height / 2};
	})(window.backofflab.charts()['throughput.b'])`)
	tb.do("hover at the right edge of lane b's throughput chart", chromedp.MouseEvent(chromedp.MouseMoved, at.X, at.Y))
	tb.waitTrue("lane b's tooltip shows", `[...document.querySelectorAll('.chart-tip')].some(e => getComputedStyle(e).display !== 'none' && getComputedStyle(e).visibility !== 'hidden' && e.textContent.includes('lane b'))`)
	tip := eval[box](tb, `(e => { const r = e.getBoundingClientRect(); return {Top: r.top, Bottom: r.bottom, Left: r.left, Right: r.right, Shown: true}; })(
		[...document.querySelectorAll('.chart-tip')].find(e => e.textContent.includes('lane b')))`)
	t.Logf("tooltip at %+v", tip)
	if !tip.inViewport(float64(phoneW), float64(phoneH)) {
		t.Errorf("the tooltip at %+v runs out of the %d×%d viewport", tip, phoneW, phoneH)
	}
}

// chartsLegendTip: a legend item's tooltip goes when the pointer leaves
// the item, while the run plays and the charts redraw under the pointer,
// on a desktop and on a phone.
func chartsLegendTip(t *testing.T, env *browserEnv) {
	for _, v := range []struct {
		name  string
		vp    chromedp.Action[chromedp.Void]
		touch bool
	}{{"desktop", chromedp.EmulateViewport(1280, 800), false}, {"phone", phone(), true}} {
		t.Run(v.name, func(t *testing.T) { legendTipLeaves(t, env, v.vp, v.touch) })
	}
}

func legendTipLeaves(t *testing.T, env *browserEnv, vp chromedp.Action[chromedp.Void], touch bool) {
	tb := openPage(t, env, "speed=1", vp)
	tb.waitTrue("lane a's legend is drawn", `(c => c && c.getModel().getComponent('legend', 0))(window.backofflab.charts()['throughput.a'])`)
	type point struct{ X, Y float64 }
	item := eval[point](tb, `(c => {
		const d = c.getDom();
		d.scrollIntoView({block: 'center'});
		const r = d.getBoundingClientRect();
		for (const el of c.getZr().storage.getDisplayList(true)) {
			if (el.style && el.style.text === 'succeeded') {
				const b = el.getBoundingRect().clone();
				b.applyTransform(el.getComputedTransform());
				return {X: r.left + b.x + b.width / 2, Y: r.top + b.y + b.height / 2};
			}
		}
		throw new Error('no legend item "succeeded"');
	})(window.backofflab.charts()['throughput.a'])`)
	legendTip := `[...document.querySelectorAll('.chart-tip')].some(e => getComputedStyle(e).display !== 'none' && getComputedStyle(e).visibility !== 'hidden' && getComputedStyle(e).opacity !== '0' && e.textContent.includes('succeeded: ok'))`
	// Off the item onto a blank corner of its chart, then off the chart.
	corner := eval[point](tb, `(r => ({X: r.right - 3, Y: r.bottom - 3}))(window.backofflab.charts()['throughput.a'].getDom().getBoundingClientRect())`)
	if touch {
		// A finger's tap on the item (it toggles the line) leaves no
		// pointer behind to move away: the tap's tooltip must not stay.
		tb.do("tap lane a's legend item \"succeeded\"", tap(item.X, item.Y))
		if !testwait.Within(5*time.Second, func() bool {
			return eval[bool](tb, `(c => !c.getOption().legend[0].selected.ok)(window.backofflab.charts()['throughput.a'])`)
		}) {
			t.Fatalf("a tap on the legend item did not hide the line")
		}
		if !testwait.Within(5*time.Second, func() bool { return !eval[bool](tb, legendTip) }) {
			t.Errorf("the legend item's tooltip is still shown 5 s after a tap")
		}
		tb.do("tap lane a's legend item \"succeeded\" again", tap(item.X, item.Y))
		return
	}
	for _, to := range []struct {
		what string
		at   point
	}{{"a blank corner of the chart", corner}, {"the page outside the chart", point{5, 5}}} {
		tb.do("hover on lane a's legend item \"succeeded\"", chromedp.MouseEvent(chromedp.MouseMoved, 5, 5),
			chromedp.MouseEvent(chromedp.MouseMoved, item.X, item.Y))
		tb.waitTrue("the legend item's tooltip shows", legendTip)
		tb.do("move the pointer to "+to.what, chromedp.MouseEvent(chromedp.MouseMoved, to.at.X, to.at.Y))
		if !testwait.Within(3*time.Second, func() bool { return !eval[bool](tb, legendTip) }) {
			t.Errorf("the legend item's tooltip is still shown 3 s after the pointer moved to %s", to.what)
		}
	}
}

// tap is a finger's tap at (x, y) in the viewport.
func tap(x, y float64) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := cdp.Call(ctx, t, input.DispatchTouchEvent, input.DispatchTouchEventParams{
			Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: x, Y: y}}}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, t, input.DispatchTouchEvent, input.DispatchTouchEventParams{
			Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}})
		return err
	})
}

func slicesContain(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// chartsSharedAxes: lanes share a y axis for the same quantity while
// their peaks are within the row's share ratio of each other, and each
// chart says so when they do not; and on a desktop no two texts a chart
// drew overlap.
func chartsSharedAxes(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=max", chromedp.EmulateViewport(1280, 800))
	tb.waitFinished()
	type axis struct {
		Key   string
		Axis  int
		Peaks []float64
		Maxes []float64
		Notes []string
		Ratio float64
	}
	got := eval[[]axis](tb, `(() => {
		const cs = window.backofflab.charts(), out = [];
		const { TIME_CHARTS, LETTERS, laneCount, SPEC, axisMax } = window.backofflab;
		for (const id of TIME_CHARTS) {
			const ls = Array.from(LETTERS).slice(0, laneCount()).filter(L => cs[id + '.' + L] && !cs[id + '.' + L].getDom().closest('[hidden]'));
			if (ls.length < 2) continue;
			SPEC[id].units.forEach((_, a) => {
				const peaks = ls.map((_, i) => axisMax(i, id, a));
				const opts = ls.map(L => cs[id + '.' + L].getOption());
				out.push({Key: id, Axis: a, Peaks: peaks, Ratio: SPEC[id].share_ratio,
					Maxes: opts.map(o => o.yAxis[a].max),
					Notes: opts.map(o => { const g = o.graphic[0].elements.find(e => e.id === 'scale'); return g.invisible ? '' : g.style.text; })});
			});
		}
		return out;
	})()`)
	// On a desktop too, nothing a chart draws overlaps.
	for _, key := range eval[[]string](tb, `Object.keys(window.backofflab.charts()).filter(k => !window.backofflab.charts()[k].getDom().closest('[hidden]'))`) {
		checkTexts(t, tb, key, fmt.Sprintf(`window.backofflab.charts()[%q]`, key))
	}
	var apart, shared int
	for _, a := range got {
		var pos []float64
		for _, p := range a.Peaks {
			if p > 0 {
				pos = append(pos, p)
			}
		}
		fair := len(pos) < 2 || max(pos[0], pos[1])/min(pos[0], pos[1]) <= a.Ratio
		t.Logf("%s axis %d: peaks %v, axis maxima %v, notes %q", a.Key, a.Axis, a.Peaks, a.Maxes, a.Notes)
		if fair {
			shared++
			if a.Maxes[0] != a.Maxes[1] {
				t.Errorf("%s axis %d: peaks %v within %g× of each other, but the lanes' axes end at %v", a.Key, a.Axis, a.Peaks, a.Ratio, a.Maxes)
			}
			continue
		}
		apart++
		for i, n := range a.Notes {
			if !strings.Contains(n, "× apart") {
				t.Errorf("%s axis %d: peaks %v more than %g× apart, and lane %d's chart says %q", a.Key, a.Axis, a.Peaks, a.Ratio, i, n)
			}
		}
	}
	// The landing run has both: its lanes' rates and counts are alike, its
	// latencies (a storm's few successes against a recovered lane's)
	// a hundred times apart.
	if shared == 0 || apart == 0 {
		t.Errorf("%d axes shared and %d apart, want some of each", shared, apart)
	}
	t.Logf("%d axes shared, %d apart", shared, apart)
}

// chartsBandsPhone: the seed bands draw the same chart rows, and on a
// phone in the dark scheme their legends wrap rather than page, within
// their charts, with no two texts overlapping.
func chartsBandsPhone(t *testing.T, env *browserEnv) {
	tb := openBands(t, env, bandsSmall, phone(), scheme("dark"))
	tb.waitTrue("the charts are drawn", `[...document.querySelectorAll('.chart')].filter(e => !e.closest('[hidden]')).every(e => e.dataset.drawn === 'true')`)
	eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
	keys := eval[[]string](tb, `[...document.querySelectorAll('.chart')].filter(e => !e.closest('[hidden]')).map(e => e.dataset.chart + '.' + e.dataset.lane)`)
	if len(keys) == 0 {
		t.Fatal("no chart shown")
	}
	for _, key := range keys {
		id, lane, _ := strings.Cut(key, ".")
		sel := fmt.Sprintf(`echarts.getInstanceByDom(document.querySelector('.chart[data-chart=%q][data-lane=%q]'))`, id, lane)
		if legend := eval[string](tb, sel+`.getModel().getComponent('legend', 0).type`); legend != "legend.plain" {
			t.Errorf("%s: the legend is %s, want one that wraps (legend.plain), not pages", key, legend)
		}
		checkTexts(t, tb, key, sel)
	}
	dir := os.Getenv("BACKOFFLAB_SCREENSHOTS")
	if dir == "" {
		return
	}
	p := filepath.Join(dir, "bands-390x844-dark-full.png")
	if err := os.WriteFile(p, tb.screenshot(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", p)
}
