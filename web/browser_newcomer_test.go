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
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

func TestBrowserNewcomer(t *testing.T) {
	t.Parallel() // its own server and Chromium: it runs beside the other long browser tests
	env := &browserEnv{ctx: startBrowser(t)}
	hs, srv, _ := newContentionServer(t, Limits{RunMemory: 64 << 20})
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
