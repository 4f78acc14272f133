package web

// The page a newcomer meets, in the headless Chromium of
// browser_helpers_test.go: Tab alone reaches every lane's retry controls,
// in document order; the advice's form keeps Get advice on the first
// screen, and its answer comes into view, focused, with no column of its
// table out of view unseen. With BACKOFFLAB_NEWCOMER_SHOTS=dir the
// subtests write what they checked as screenshots there. Run them with:
// go test -count=1 -run TestBrowserNewcomer -v ./web

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

func TestBrowserNewcomer(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other long browser tests
	env := &browserEnv{ctx: startBrowser(t)}
	hs, srv, _ := serveShell(t, Options{Limits: Limits{RunMemory: 64 << 20}})
	env.base = hs.URL
	for _, st := range []struct {
		name string
		fn   func(*testing.T, *browserEnv)
	}{
		{"TabReachesLanes", newcomerTabReachesLanes},
		{"AdviseDesktop", func(t *testing.T, env *browserEnv) {
			newcomerAdvise(t, env, "advise-1280x800", 1280, 800, chromedp.EmulateViewport(1280, 800))
		}},
		{"AdvisePhone", func(t *testing.T, env *browserEnv) {
			newcomerAdvise(t, env, "advise-390x844", phoneW, phoneH, phone(), scheme("dark"))
		}},
		{"FaultLabelContrast", newcomerFaultLabel},
		{"ShareLinkClean", newcomerShareLink},
		{"StillRecovering", newcomerStillRecovering},
		{"CaptionFollowsPicture", newcomerCaption},
		{"PresetChips", newcomerChips},
		{"PictureManyLanes", newcomerPictureLanes},
		{"ContentionConclusion", newcomerContention},
		{"MapMarksItsRun", newcomerMapHere},
	} {
		t.Run(st.name, func(t *testing.T) { st.fn(t, env) })
	}
	waitIdle(t, srv)
}

// newcomerShot writes tb's viewport as name.png into
// BACKOFFLAB_NEWCOMER_SHOTS, when it is set.
func newcomerShot(t *testing.T, tb *tab, name string) {
	t.Helper()
	dir := os.Getenv("BACKOFFLAB_NEWCOMER_SHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	view, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), view, 0o644); err != nil {
		t.Error(err)
	}
}

// inView is JavaScript that tells whether the element sel is shown whole
// in the viewport (to a pixel: layouts round).
func inView(sel string) string {
	return fmt.Sprintf(`(e => e && e.getClientRects().length > 0 && (r => r.top >= -1 && r.left >= -1 && r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1)(e.getBoundingClientRect()))(document.querySelector(%q))`, sel)
}

// newcomerAdvise opens /advise on a w×h screen: Get advice is on the
// first screen; pressed, its answer comes into view once it arrives,
// its headline focused; the per-seed table shows every column, or says
// which ones are out of view, beside a box that scrolls across.
func newcomerAdvise(t *testing.T, env *browserEnv, name string, w, h int, emulate ...chromedp.Action[chromedp.Void]) {
	tb := openTab(t, env.ctx)
	tb.do("emulate", emulate...)
	tb.do("open /advise", chromedp.Navigate(env.base+"/advise"))
	tb.waitTrue("the advice's script is up", `!!window.backofflabAdvise`)
	if !eval[bool](tb, inView("#adv-submit")) {
		r := eval[map[string]float64](tb, `document.querySelector('#adv-submit').getBoundingClientRect().toJSON()`)
		t.Errorf("at %d×%d Get advice is not on the first screen: its box %v", w, h, r)
	}
	newcomerShot(t, tb, name+"-form")
	tb.setBox("seeds", "2")
	tb.do("press Get advice", chromedp.Click(chromedp.ID("adv-submit")))
	if !pollLeft(tb, `location.search.includes('seeds=2') && !!window.backofflabAdvise`) {
		t.Fatalf("submitting the form did not open the request's page")
	}
	waitAdvice(tb)
	if !pollLeft(tb, inView("#adv-headline")+` && document.activeElement === document.querySelector('#adv-headline')`) {
		st := eval[map[string]any](tb, `({top: document.querySelector('#adv-headline').getBoundingClientRect().top, scrollY, innerHeight, focused: document.activeElement.tagName + '#' + document.activeElement.id})`)
		t.Errorf("at %d×%d the advice's headline is not in view with the focus once drawn: %v", w, h, st)
	}
	newcomerShot(t, tb, name+"-answer")
	// The per-seed table: whole, or a box that scrolls across with a
	// line that names the columns out of view.
	tbl := eval[struct {
		Scroll, Client float64
		Out            []string
		Hint           string
		HintShown      bool
	}](tb, `(() => {
		const d = document.querySelector('#adv-measured .adv-scroll'), box = d.getBoundingClientRect();
		const out = [...d.querySelectorAll('thead th')].filter(c => (r => r.right > box.right + 1 || r.left < box.left - 1)(c.getBoundingClientRect())).map(c => c.textContent.trim());
		const hint = document.querySelector('#adv-measured .adv-scroll-hint');
		return {scroll: d.scrollWidth, client: d.clientWidth, out, hint: hint ? hint.textContent : '', hintShown: !!hint && hint.getClientRects().length > 0};
	})()`)
	if len(tbl.Out) > 0 {
		if !tbl.HintShown {
			t.Errorf("at %d×%d the per-seed table cuts off %q (%v of %v px shown) and nothing says so", w, h, tbl.Out, tbl.Client, tbl.Scroll)
		}
		for _, c := range tbl.Out {
			if !strings.Contains(tbl.Hint, c) {
				t.Errorf("at %d×%d the table's line %q does not name its column %q out of view", w, h, tbl.Hint, c)
			}
		}
	}
}

// focusKey describes the focused element for a walk of the tab order:
// its data-param, or its id, or its tag and first words.
// Inside the controls' form the key starts with "form:", so that the
// playback bar's buttons are not taken for the form's controls.
const focusKey = `(e => (document.querySelector('#controls').contains(e) ? 'form:' : '') + (` + controlKey + `))(document.activeElement)`

// controlKey names the control e in JavaScript.
const controlKey = `e.dataset.param || (e.dataset.sliderFor && 'slider:' + e.dataset.sliderFor) || e.id || (e.tagName.toLowerCase() + ':' + e.textContent.trim().slice(0, 40))`

// newcomerTabReachesLanes presses Tab from the top of the playground and
// checks that the focus reaches lane a's and lane b's min_delay boxes,
// and that it meets the controls in the order the document has them.
func newcomerTabReachesLanes(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=1")
	// The order the document has its focusable controls in (what Tab
	// should follow): every shown, enabled input, select and summary of
	// the controls' form.
	order := eval[[]string](tb, `[...document.querySelectorAll('#controls input:not([type=hidden]), #controls select, #controls summary, #controls button')]
		.filter(e => !e.disabled && e.getClientRects().length > 0)
		.map(e => 'form:' + (`+controlKey+`))`)
	want := map[string]bool{"form:a.min_delay": false, "form:b.min_delay": false}
	var seen []string
	for i := 0; i < 200 && (!want["form:a.min_delay"] || !want["form:b.min_delay"]); i++ {
		tb.key(kb.Tab)
		f := eval[string](tb, focusKey)
		if len(seen) > 0 && f == seen[0] {
			break // round the page and back: Tab never reaches the rest
		}
		seen = append(seen, f)
		if _, ok := want[f]; ok {
			want[f] = true
		}
	}
	for name, reached := range want {
		if !reached {
			t.Errorf("Tab never reaches %s; the focus went through %d stops: %s", name, len(seen), strings.Join(seen, " → "))
		}
	}
	// Tab follows the document: the controls it met come in the form's order.
	at := map[string]int{}
	for i, k := range order {
		if _, dup := at[k]; !dup {
			at[k] = i
		}
	}
	last, lastName := -1, ""
	for _, f := range seen {
		i, ok := at[f]
		if !ok {
			continue
		}
		if i < last {
			t.Errorf("Tab reaches %s (the form's control %d) after %s (control %d): not the document's order", f, i, lastName, last)
		}
		last, lastName = i, f
	}
	if t.Failed() {
		t.Log(fmt.Sprintf("the form's order: %s", strings.Join(order, ", ")))
	}
}

// newcomerFaultLabel: the word on a fault's shading ("outage") has a
// contrast of 4.5:1 or more on the chart's card under the shading, in
// the light and in the dark scheme.
func newcomerFaultLabel(t *testing.T, env *browserEnv) {
	for _, sch := range []string{"light", "dark"} {
		t.Run(sch, func(t *testing.T) {
			tb := openPage(t, env, "speed=20", chromedp.EmulateViewport(1280, 800), scheme(sch))
			type shade struct {
				Card, Label string
				Areas       [][]any // colour, opacity, name
			}
			s := poll[shade](tb, "the outage is shaded", `(() => {
				const o = window.backofflab.charts()['throughput.a'].getOption(), ma = o.series[0].markArea;
				if (!ma || !ma.data || !ma.data.length) return null;
				return {card: o.backgroundColor, label: ma.label.color || '',
					areas: ma.data.map(d => [d[0].itemStyle.color, d[0].itemStyle.opacity == null ? 1 : d[0].itemStyle.opacity, d[0].name])};
			})()`)
			card := cssColour(t, s.Card)
			for _, a := range s.Areas {
				c := cssColour(t, a[0].(string))
				under := c.over(card, c.a*a[1].(float64))
				if r := contrastRatio(cssColour(t, s.Label), under); r < 4.5 {
					t.Errorf("%s: the label %q of %q, %s on %s under %s, has a contrast of %.2f:1, want 4.5:1", sch, a[2], s.Label, s.Label, s.Card, a[0], r)
				}
			}
		})
	}
}

// rgba is a CSS colour, its channels 0–255 and its alpha 0–1.
type rgba struct{ r, g, b, a float64 }

// cssColour reads #rrggbb, #rgb, rgb(…) or rgba(…).
func cssColour(t *testing.T, css string) rgba {
	t.Helper()
	c := rgba{a: 1}
	s := strings.ReplaceAll(css, " ", "")
	var err error
	switch {
	case strings.HasPrefix(s, "#") && len(s) == 7:
		var r, g, b int
		_, err = fmt.Sscanf(s, "#%02x%02x%02x", &r, &g, &b)
		c.r, c.g, c.b = float64(r), float64(g), float64(b)
	case strings.HasPrefix(s, "#") && len(s) == 4:
		var r, g, b int
		_, err = fmt.Sscanf(s, "#%1x%1x%1x", &r, &g, &b)
		c.r, c.g, c.b = float64(r*17), float64(g*17), float64(b*17)
	case strings.HasPrefix(s, "rgba("):
		_, err = fmt.Sscanf(s, "rgba(%g,%g,%g,%g)", &c.r, &c.g, &c.b, &c.a)
	case strings.HasPrefix(s, "rgb("):
		_, err = fmt.Sscanf(s, "rgb(%g,%g,%g)", &c.r, &c.g, &c.b)
	default:
		err = fmt.Errorf("not a colour this test reads")
	}
	if err != nil {
		t.Fatalf("colour %q: %v", css, err)
	}
	return c
}

// over is c with alpha a laid over the opaque bg.
func (c rgba) over(bg rgba, a float64) rgba {
	mix := func(x, y float64) float64 { return x*a + y*(1-a) }
	return rgba{mix(c.r, bg.r), mix(c.g, bg.g), mix(c.b, bg.b), 1}
}

// contrastRatio is WCAG's contrast of two opaque colours.
func contrastRatio(x, y rgba) float64 {
	lin := func(c float64) float64 {
		v := c / 255
		if v <= 0.03928 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	l := func(c rgba) float64 { return 0.2126*lin(c.r) + 0.7152*lin(c.g) + 0.0722*lin(c.b) }
	a, b := l(x)+0.05, l(y)+0.05
	return max(a, b) / min(a, b)
}

// newcomerShareLink: a value changed while the run plays, and the server
// stopped by hand, go into the page's link at whole milliseconds.
func newcomerShareLink(t *testing.T, env *browserEnv) {
	// At 2× a run of 10 min lasts 5 min: the change and the stop come
	// while it plays however slow the machine (at 20× the 2 min run had
	// ended on a busy one before the stop was clicked). Its outage comes
	// at 9 min, after them: a click on the server's button during the
	// outage resumes the server instead of stopping it (a busy machine's
	// page, lagging the run, clicked it there).
	tb := openPage(t, env, "speed=2&duration=10m&outage_at=9m")
	tb.waitTrue("the run is past 3 s", `window.backofflab.rows().length > 30`)
	tb.setBox("b.factor", "3")
	tb.waitQuery("b.factor", "3")
	tb.do("stop the server", chromedp.Click(chromedp.ID("outage")))
	changes := poll[string](tb, "the link holds two changes", `(c => c && c.split('@').length === 3 && c)(new URLSearchParams(location.search).get('changes'))`)
	re := regexp.MustCompile(`^@(\d+(\.\d{1,3})?s|(\d+m)?\d+(\.\d{1,3})?s) [^@]+ @(\d+(\.\d{1,3})?s|(\d+m)?\d+(\.\d{1,3})?s) stop$`)
	if !re.MatchString(changes) {
		t.Errorf("the link's changes %q: want each at a whole millisecond", changes)
	}
}

// newcomerStillRecovering: the landing run cut at 50 s ends while lane b
// drains its backlog: its verdict says it is still recovering, lane a's
// that it never recovered.
func newcomerStillRecovering(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "duration=50s&speed=max")
	tb.waitDone()
	got := eval[map[string]string](tb, `Object.fromEntries([...document.querySelectorAll('[data-verdict]')].map(e => [e.dataset.verdict, e.textContent.trim()]))`)
	for lane, want := range map[string]string{"a": "Never recovered — a retry storm", "b": "Still recovering when the run ended"} {
		if got[lane] != want {
			t.Errorf("lane %s's verdict %q, want %q", lane, got[lane], want)
		}
	}
}

// newcomerCaption: at 50× the sentence under each lane's picture is the
// picture's own, of the same tick: sampled in the frame after the
// picture's, at ten moments of the run, it is what picSentence says of
// the rows the picture was drawn from.
func newcomerCaption(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=50")
	for k := range 10 {
		tb.waitTrue(fmt.Sprintf("the run reaches %d rows", 80*(k+1)), fmt.Sprintf(`window.backofflab.rows().length >= %d`, 80*(k+1)))
		type sample struct{ Shown, Drawn []string }
		s := evalAwait[sample](tb, `new Promise(r => requestAnimationFrame(() => r({
			shown: ['a', 'b'].map(l => document.querySelector('[data-picture-text="' + l + '"]').textContent),
			drawn: [0, 1].map(i => window.backofflab.picSentence(i)),
		})))`)
		if len(s.Drawn) != 2 || len(s.Shown) != 2 {
			t.Fatalf("sampled %q", s)
		}
		for i := range s.Drawn {
			if s.Shown[i] != s.Drawn[i] {
				t.Errorf("past row %d lane %c's sentence lags its picture:\nshown %q\ndrawn %q", 80*(k+1), 'a'+i, s.Shown[i], s.Drawn[i])
			}
		}
	}
}

// chipsSeen is JavaScript that returns the preset chips that are in sight
// (not clipped by their row) and those that are not.
const chipsSeen = `(() => {
	const nav = document.querySelector('nav.presets'), row = nav.getBoundingClientRect();
	const seen = [], unseen = [];
	for (const a of nav.querySelectorAll('a[data-preset]')) {
		const r = a.getBoundingClientRect();
		(r.height > 0 && r.top >= row.top - 1 && r.bottom <= row.bottom + 1 && r.bottom <= innerHeight + 1 ? seen : unseen).push(a.dataset.preset);
	}
	const more = document.querySelector('#presets-more');
	return {seen, unseen, more: more && more.getClientRects().length > 0 ? more.textContent : ''};
})()`

// newcomerChips: at 1280×800 every preset chip is in sight, or a button
// in sight says how many are not; pressed, it shows every chip.
func newcomerChips(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=1")
	type seen struct {
		Seen, Unseen []string
		More         string
	}
	s := eval[seen](tb, chipsSeen)
	t.Logf("%d chips in sight, %d not; the button: %q", len(s.Seen), len(s.Unseen), s.More)
	if len(s.Unseen) == 0 {
		return
	}
	if want := fmt.Sprintf("%d more presets", len(s.Unseen)); s.More != want {
		t.Fatalf("%d of %d preset chips are out of sight (%s) and the page says %q, want a button %q",
			len(s.Unseen), len(s.Seen)+len(s.Unseen), strings.Join(s.Unseen, ", "), s.More, want)
	}
	if !eval[bool](tb, inView("#presets-more")) {
		t.Errorf("the button %q is not on the first screen", s.More)
	}
	tb.do("show every preset", chromedp.Click(chromedp.ID("presets-more")))
	s = poll[seen](tb, "every chip is in sight", `(s => s.unseen.length === 0 && s)(`+chipsSeen+`)`)
	newcomerShot(t, tb, "presets-open-1280x800")
	if s.More != "Fewer presets" {
		t.Errorf("the open row's button says %q", s.More)
	}
}

// pictureTexts is JavaScript that draws every lane's picture once,
// recording each text it writes: its lane, words and box in the canvas's
// CSS pixels, and the canvas's size.
const pictureTexts = `(() => {
	const rec = [], proto = CanvasRenderingContext2D.prototype, orig = proto.fillText;
	proto.fillText = function (t, x, y) {
		const m = this.measureText(t);
		if (this.canvas.dataset.picture) {
			const r = this.canvas.getBoundingClientRect();
			rec.push({lane: this.canvas.dataset.picture, text: String(t), x, y, w: m.width,
				top: y - m.actualBoundingBoxAscent, bottom: y + m.actualBoundingBoxDescent, cw: r.width, ch: r.height});
		}
		return orig.apply(this, arguments);
	};
	try { window.backofflab.picDrawAll(true); } finally { proto.fillText = orig; }
	return rec;
})()`

// newcomerPictureLanes: with three and four lanes at 1280×800 each lane's
// picture writes every word inside its canvas, none over another, and
// shows its workers.
func newcomerPictureLanes(t *testing.T, env *browserEnv) {
	for _, n := range []int{3, 4} {
		t.Run(fmt.Sprintf("%d lanes", n), func(t *testing.T) {
			// Mid-storm: every part of the picture has something to say.
			tb := openPage(t, env, fmt.Sprintf("lanes=%d&speed=20", n))
			tb.waitTrue("the storm is on", `window.backofflab.rows().length > 450`)
			tb.do("pause", chromedp.Click(chromedp.ID("play")))
			tb.pictureDrawn()
			type text struct {
				Lane, Text                string
				X, W, Top, Bottom, CW, CH float64
			}
			texts := eval[[]text](tb, pictureTexts)
			byLane := map[string][]text{}
			for _, x := range texts {
				byLane[x.Lane] = append(byLane[x.Lane], x)
			}
			if len(byLane) != n {
				t.Fatalf("texts drawn on %d lanes' pictures, want %d", len(byLane), n)
			}
			for lane, ts := range byLane {
				workers := false
				for i, a := range ts {
					workers = workers || strings.Contains(a.Text, "workers busy")
					if a.X < -0.5 || a.X+a.W > a.CW+0.5 || a.Top < -0.5 || a.Bottom > a.CH+0.5 {
						t.Errorf("lane %s: %q at x %.0f–%.0f, y %.0f–%.0f runs out of its %.0f×%.0f canvas", lane, a.Text, a.X, a.X+a.W, a.Top, a.Bottom, a.CW, a.CH)
					}
					for _, b := range ts[i+1:] {
						if min(a.X+a.W, b.X+b.W)-max(a.X, b.X) > 1 && min(a.Bottom, b.Bottom)-max(a.Top, b.Top) > 1 {
							t.Errorf("lane %s: %q and %q are written over each other", lane, a.Text, b.Text)
						}
					}
				}
				if !workers {
					t.Errorf("lane %s's picture does not show its workers", lane)
				}
			}
			newcomerShot(t, tb, fmt.Sprintf("picture-%d-lanes", n))
		})
	}
}

// newcomerContention: a finished study says what it found in one
// sentence, under its progress, at its largest N.
func newcomerContention(t *testing.T, env *browserEnv) {
	tb := openTab(t, env.ctx)
	tb.do("emulate", chromedp.EmulateViewport(1280, 800))
	tb.do("open /contention", chromedp.Navigate(env.base+"/contention?"+smallStudy))
	tb.waitTrue("the study is done", `window.backofflabContention && window.backofflabContention.state().finished`)
	c := eval[string](tb, `(e => e && e.getClientRects().length > 0 ? e.textContent : '')(document.querySelector('#cn-conclusion'))`)
	if !strings.HasPrefix(c, "At 30 clients (means over ") || !strings.Contains(c, "did the least work") || !strings.Contains(c, "finished first") {
		t.Errorf("the study's conclusion %q, want a sentence on its 30 clients", c)
	}
	if !eval[bool](tb, inView("#cn-conclusion")) {
		t.Errorf("the conclusion is not on the first screen")
	}
	newcomerShot(t, tb, "contention-conclusion")
}

// newcomerMapHere: the phase map opened from the playground outlines, on
// every map, the cell of the run it came from, and says which in words.
func newcomerMapHere(t *testing.T, env *browserEnv) {
	tb := openPage(t, env, "speed=1&clients=800")
	href := eval[string](tb, `document.querySelector('#view-map').href`)
	tb.do("open the map", chromedp.Navigate(href))
	pollProgress[bool](tb, "the map is done", `(s => s && s.finished)(window.backofflabMap && window.backofflabMap.state())`,
		`window.backofflabMap && window.backofflabMap.state()`)
	type here struct {
		Words  string
		Rings  map[string][]any // each map's outlined cell, by its id
		Axes   []string         // the maps' axis parameters
		Points int
	}
	h := eval[here](tb, `(() => {
		const rings = {};
		for (const [id, c] of Object.entries(window.backofflabMap.charts())) {
			if (!c) continue;
			const s = c.getOption().series.find(s => s.name === 'this scenario');
			rings[id] = s && s.data.length ? (s.data[0].value || s.data[0]) : null;
		}
		const S = JSON.parse(document.querySelector('#map-data').textContent);
		const e = document.querySelector('#map-here');
		return {words: e && e.getClientRects().length ? e.textContent : '', rings, axes: [S.x.name, S.y.name],
			points: Object.keys(window.backofflabMap.points()).length};
	})()`)
	t.Logf("%s; rings %v on a map of %v", h.Words, h.Rings, h.Axes)
	if !strings.HasPrefix(h.Words, "Outlined on each map: the cell of this map's scenario") {
		t.Errorf("no words say which cell is this run's: %q", h.Words)
	}
	for _, a := range h.Axes {
		if a != "" && !strings.Contains(h.Words, a+" ") {
			t.Errorf("the words %q do not name the axis %s's value", h.Words, a)
		}
	}
	if h.Axes[1] == "clients" && !strings.Contains(h.Words, "clients 800") {
		t.Errorf("the words %q do not say the run's 800 clients", h.Words)
	}
	if len(h.Rings) == 0 {
		t.Fatalf("no map drawn")
	}
	for id, r := range h.Rings {
		if len(r) < 2 {
			t.Errorf("map %s outlines no cell", id)
		}
	}
}
