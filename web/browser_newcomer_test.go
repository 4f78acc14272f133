package web

// The page a newcomer meets, in the headless Chromium of
// browser_helpers_test.go: Tab alone reaches every lane's retry controls,
// in document order. Run them with:
// go test -count=1 -run TestBrowserNewcomer -v ./web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"
)

func TestBrowserNewcomer(t *testing.T) {
	t.Parallel() // its own server and Chromium: it runs beside the other long browser tests
	env := &browserEnv{ctx: startBrowser(t)}
	srv, _ := newTestServer(t, Limits{RunMemory: 64 << 20})
	env.base = srv.URL
	for _, st := range []struct {
		name string
		fn   func(*testing.T, *browserEnv)
	}{
		{"TabReachesLanes", newcomerTabReachesLanes},
	} {
		t.Run(st.name, func(t *testing.T) { st.fn(t, env) })
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
