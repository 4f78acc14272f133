package web

// The contention study's page in the headless Chromium of
// browser_helpers_test.go: a small study draws both charts with one line
// per strategy, named by package contention's labels, each with a point per
// N; the progress reaches its total; the log scale and the image exports
// run; axe-core finds no serious or critical violation, light and dark,
// desktop and phone, and with a bad URL, which is named; leaving the page
// mid-study stops it on the server.
// Run it with: go test -run BrowserContention -v ./web

import (
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/contention"
)

func TestBrowserContention(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other browser tests
	ctx := startBrowser(t)
	srv, s, _ := serveShell(t, Options{})
	axe := readAxe(t)
	const study = "n=10:30:10&runs=5"
	for _, v := range []struct {
		name        string
		dark, phone bool
	}{
		{name: "desktop"},
		{name: "dark phone", dark: true, phone: true},
	} {
		t.Run(v.name, func(t *testing.T) {
			tb := openTab(t, ctx)
			vp, sch := chromedp.EmulateViewport(1280, 800), "light"
			if v.phone {
				vp = phone()
			}
			if v.dark {
				sch = "dark"
			}
			tb.do("emulate", vp, scheme(sch))
			tb.do("navigate", chromedp.Navigate(srv.URL+"/contention?"+study))
			tb.waitTrue("the study is done", `window.backofflabContention && window.backofflabContention.state().finished`)
			st := eval[struct {
				Done, Total int
				Error       string
			}](tb, `(() => { const s = window.backofflabContention.state(); return {Done: s.done, Total: s.total, Error: s.error}; })()`)
			if st.Done != 15 || st.Total != 15 || st.Error != "" {
				t.Fatalf("state %+v, want 15 of 15 points", st)
			}
			if p := eval[float64](tb, `document.querySelector('#cn-progress').value`); p != 15 {
				t.Errorf("progress %v, want 15", p)
			}
			lines := contention.Lines()
			for _, id := range []string{"cn-calls", "cn-time"} {
				series := eval[[]struct {
					Name   string
					Points int
				}](tb, `window.backofflabContention.series('`+id+`')`)
				if len(series) != len(lines) {
					t.Fatalf("%s: %d lines, want %d", id, len(series), len(lines))
				}
				for i, sr := range series {
					if sr.Name != lines[i].Label() || sr.Points != 3 {
						t.Errorf("%s line %d: %q with %d points, want %q with 3", id, i, sr.Name, sr.Points, lines[i].Label())
					}
				}
				if !eval[bool](tb, `!!document.querySelector('#`+id+` canvas')`) {
					t.Errorf("%s: no canvas", id)
				}
			}
			// The log scale redraws the time chart on a log axis.
			eval[chromedp.Void](tb, `(b => { b.checked = true; b.dispatchEvent(new Event('change')); })(document.querySelector('[data-log="cn-time"]'))`)
			if a := eval[string](tb, `window.backofflabContention.axis('cn-time')`); a != "log" {
				t.Errorf("time axis %q after ticking log scale, want log", a)
			}
			// The image exports draw their chart again with its caption;
			// an error would fail the test through the console.
			for _, f := range []string{"png", "svg"} {
				eval[chromedp.Void](tb, `document.querySelector('[data-export="cn-time"][data-format="`+f+`"]').click()`)
			}
			if v.phone {
				if w := eval[float64](tb, `document.documentElement.scrollWidth`); w > phoneW {
					t.Errorf("the page is %v px wide on a %d px phone", w, phoneW)
				}
			}
			if os.Getenv("CONTENTION_SHOT") != "" {
				os.WriteFile(os.Getenv("CONTENTION_SHOT")+"-"+strings.ReplaceAll(v.name, " ", "-")+".png", tb.screenshot(), 0o644)
			}
			tb.axeCheck(axe, "contention, "+v.name)
		})
	}
	// Leaving the page mid-study stops it on the server: its stream ends
	// without its done line, and nothing runs on. The study is the
	// dearest allowed, on one core: half a minute, were it not stopped.
	t.Run("leaving cancels", func(t *testing.T) {
		var finished finishedStudies
		srv, s, _ := serveShellWrapped(t, Options{Limits: Limits{ViewCores: 1}}, finished.wrap)
		tb := openTab(t, ctx)
		tb.do("navigate", chromedp.Navigate(srv.URL+"/contention?n=172:190:1"))
		tb.waitTrue("a first point arrives", `window.backofflabContention && window.backofflabContention.state().done > 0`)
		tb.do("leave", chromedp.Navigate("about:blank"))
		waitIdle(t, s)
		waitEnded(t, s)
		if n := finished.n.Load(); n != 0 {
			t.Fatalf("the study ran to its end after the page left")
		}
	})
	// A bad URL: the page names the value and runs nothing.
	t.Run("bad value", func(t *testing.T) {
		tb := openTab(t, ctx)
		tb.do("navigate", chromedp.Navigate(srv.URL+"/contention?runs=500"))
		tb.waitTrue("the script is up", `!!window.backofflabContention`)
		msg := eval[string](tb, `document.querySelector('#cn-error').textContent`)
		if !strings.Contains(msg, `runs: "500" is not allowed (allowed: a whole number from 1 to 100)`) {
			t.Errorf("error shown: %q", msg)
		}
		if d := eval[int](tb, `window.backofflabContention.state().done`); d != 0 {
			t.Errorf("%d points ran for a bad URL", d)
		}
		tb.axeCheck(axe, "contention, bad value")
	})
	waitIdle(t, s)
}
