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
// (docs/advise-1280x800-light.png and docs/advise-390x844-dark.png are
// made so, with dir the absolute path of docs: the test runs in web/).
// Run it with: go test -count=1 -run TestBrowserAdvise -v ./web

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/advise"
)

// adviseEnv is a server and a browser for the advice's subtests.
type adviseEnv struct {
	*browserEnv
	srv *Server
	axe string
}

func TestBrowserAdvise(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other long browser tests
	env := &adviseEnv{browserEnv: &browserEnv{ctx: startBrowser(t)}, axe: readAxe(t)}
	hs, s, _ := serveShell(t, Options{Limits: Limits{RunMemory: 32 << 20}})
	env.base, env.srv = hs.URL, s
	t.Run("Desktop", func(t *testing.T) { adviseDesktop(t, env) })
	t.Run("DarkPhone", func(t *testing.T) { adviseDarkPhone(t, env) })
	t.Run("NothingMeets", func(t *testing.T) { adviseNothingMeets(t, env) })
	t.Run("BadValue", func(t *testing.T) { adviseBadValue(t, env) })
	t.Run("Cancel", func(t *testing.T) { adviseCancel(t, env) })
	waitIdle(t, s)
}

// smallAdvice is a search of two seeds a setting on the landing view's
// system, with the goals on the outage alone (recovery and attempts per
// request), which a setting of backofflab and of gRPC meets there: with
// the users' goals too, none does and a protection is suggested, which
// adviseNothingMeets shows. A second or two of both cores.
const smallAdvice = "seeds=2&p99=0s&success=0"

// adviceProgress is what changes as a search goes on, for pollProgress.
const adviceProgress = `(s => [s.done, s.phase, s.finished, s.error])(window.backofflabAdvise.state())`

// waitAdvice waits while the search in tb goes on until its advice is
// drawn, and fails at once if it stops with an error.
func waitAdvice(tb *tab) {
	tb.t.Helper()
	msg := pollProgress[string](tb, "the advice is drawn",
		`(s => s.error ? 'error: ' + s.error : s.finished && !document.querySelector('#adv-result').hidden && 'done')(window.backofflabAdvise.state())`,
		adviceProgress)
	if msg != "done" {
		tb.t.Fatalf("the search stopped: %s", msg)
	}
}

// adviceShown is what the page shows of its advice, beside the advice
// it drew it from.
type adviceShown struct {
	Headline, HeadlineWant string
	Snippet, SnippetWant   string
	Met                    bool
	Recommended            string // its words
	Measured               string // the table's text
	Pareto                 []struct {
		Name   string
		Points int
	}
	ParetoWant int
	Canvas     bool
	Cells      int
	CellsWant  int
	Signs      int
	Chosen     int
	Playground string
	PlaygroundQuery,
	TodayLane, RecommendedLane string
	Command string
	Phases  []string
	Lines   int
	Search  string
	// The fresh check: its card shown, its sentence beside the advice's,
	// its table's rows (the advice and the runner-up) beside the view's.
	FreshShown               bool
	FreshWords, FreshWant    string
	FreshRows, FreshRowsWant int
	FreshText                string
}

const adviceShownJS = `(() => {
	const A = window.backofflabAdvise, a = A.advice(), v = A.view(), s = A.state();
	const $ = q => document.querySelector(q);
	const cells = v.map ? v.map.rows.reduce((n, r) => n + r.length, 0) : 0;
	return {
		headline: $('#adv-headline').textContent, headlineWant: a.headline,
		snippet: $('#adv-snippet').textContent, snippetWant: a.snippet,
		met: a.met, recommended: a.recommended ? a.recommended.words : '',
		measured: $('#adv-measured').textContent,
		pareto: A.pareto(), paretoWant: v.pareto.length, canvas: !!$('#adv-pareto canvas'),
		cells: document.querySelectorAll('#adv-map td').length, cellsWant: cells,
		signs: [...document.querySelectorAll('#adv-map td')].filter(td => td.textContent.trim() !== '').length,
		chosen: document.querySelectorAll('#adv-map td.chosen').length,
		playground: $('#adv-playground').getAttribute('href'), playgroundQuery: a.playground_query,
		todayLane: a.today.lane_query, recommendedLane: a.recommended ? a.recommended.lane_query : '',
		command: $('#adv-flags').textContent,
		phases: s.phases, lines: s.lines, search: location.search.slice(1),
		freshShown: !$('#adv-fresh-card').hidden, freshWords: $('#adv-fresh-words').textContent,
		freshWant: a.fresh_check ? a.fresh_check.words : '',
		freshRows: document.querySelectorAll('#adv-fresh tbody tr').length, freshRowsWant: v.fresh ? v.fresh.table.rows.length : 0,
		freshText: $('#adv-fresh').textContent,
	};
})()`

// checkAdviceShown checks that the page drew its advice whole: the
// recommendation, the snippet, the Pareto front with the recommended
// point apart, the small map with a sign on every cell, the link and
// the command.
func checkAdviceShown(t *testing.T, tb *tab) adviceShown {
	t.Helper()
	a := eval[adviceShown](tb, adviceShownJS)
	if a.Headline == "" || a.Headline != a.HeadlineWant {
		t.Errorf("headline %q, want the advice's %q", a.Headline, a.HeadlineWant)
	}
	if !a.Met || a.Recommended == "" {
		t.Errorf("on the landing system the advice meets its goals: met %v, recommended %q", a.Met, a.Recommended)
	}
	if !strings.Contains(a.Measured, a.Recommended) || !strings.Contains(a.Measured, "recommended") || !strings.Contains(a.Measured, "today") {
		t.Errorf("the measured table %q lacks today and the recommended %q", a.Measured, a.Recommended)
	}
	if a.Snippet == "" || a.Snippet != a.SnippetWant {
		t.Errorf("snippet %q, want the advice's %q", a.Snippet, a.SnippetWant)
	}
	points, marked := 0, 0
	for _, s := range a.Pareto {
		points += s.Points
		if s.Name == "recommended" {
			marked = s.Points
		}
	}
	if !a.Canvas || points != a.ParetoWant || a.ParetoWant == 0 || marked != 1 {
		t.Errorf("the Pareto chart: canvas %v, series %+v; want %d points, the recommended one marked", a.Canvas, a.Pareto, a.ParetoWant)
	}
	if a.Cells == 0 || a.Cells != a.CellsWant || a.Signs != a.Cells || a.Chosen != 1 {
		t.Errorf("the small map: %d cells (want %d), %d with a sign, %d outlined (want 1)", a.Cells, a.CellsWant, a.Signs, a.Chosen)
	}
	if a.Playground != "/?"+a.PlaygroundQuery {
		t.Errorf("the playground link %q, want /?%s", a.Playground, a.PlaygroundQuery)
	}
	if !strings.HasPrefix(a.Command, "backofflab run ") {
		t.Errorf("the command %q", a.Command)
	}
	if !a.FreshShown || a.FreshWords == "" || a.FreshWords != a.FreshWant || a.FreshRows != a.FreshRowsWant || a.FreshRows < 1 ||
		!strings.Contains(a.FreshText, a.Recommended) {
		t.Errorf("the fresh check: shown %v, %q (want %q), %d rows (want %d) of %q", a.FreshShown, a.FreshWords, a.FreshWant, a.FreshRows, a.FreshRowsWant, a.FreshText)
	}
	return a
}

// adviseDesktop fills in the form, submits it, sees the search's
// progress and its advice, opens the playground link and checks its two
// lanes: a today, b recommended.
func adviseDesktop(t *testing.T, env *adviseEnv) {
	tb := openAdvise(t, env, "")
	if s := eval[string](tb, `document.querySelector('#adv-status').textContent`); !strings.Contains(s, "press Get advice") {
		t.Errorf("a bare /advise's status %q", s)
	}
	// The queue model's rows show, the curve's are hidden; the switch
	// follows the menu.
	tb.setBox("server_model", "curve")
	if !eval[bool](tb, `document.querySelector('[data-ctl="workers"]').hidden && !document.querySelector('[data-ctl="server_limit"]').hidden`) {
		t.Errorf("server_model=curve does not show the curve's rows alone")
	}
	tb.setBox("server_model", "queue")
	tb.setBox("seeds", "2")
	tb.setBox("outage_for", "15s")
	tb.setBox("recover_within", "10s")
	tb.setBox("p99", "0s")
	tb.setBox("success", "0")
	tb.do("submit", chromedp.Click(chromedp.ID("adv-submit")))
	// The form's GET navigates: a poll in between may meet no page.
	if !pollLeft(tb, `location.search.includes('seeds=2') && !!window.backofflabAdvise`) {
		t.Fatalf("submitting the form did not open the request's page")
	}
	waitAdvice(tb)
	a := checkAdviceShown(t, tb)
	if a.Lines == 0 || len(a.Phases) == 0 || a.Phases[0] != "searching the library's settings" {
		t.Errorf("progress seen: %d lines, phases %q", a.Lines, a.Phases)
	}
	if a.Search != "seeds=2" && !strings.Contains(a.Search, "seeds=2") {
		t.Errorf("the URL %q is not the request's", a.Search)
	}
	if s := eval[string](tb, `document.querySelector('#adv-status').textContent`); !strings.HasPrefix(s, "done: ") {
		t.Errorf("status %q, want done: …", s)
	}
	// Copy puts the configuration on the clipboard, or selects it where
	// the page may not write there; either way it says which.
	tb.do("copy the configuration", chromedp.Click(chromedp.ID("adv-copy-snippet")))
	tb.waitTrue("the copy is told", `/^configuration (copied|selected)/.test(document.querySelector('#adv-copied').textContent)`)
	tb.axeCheck(env.axe, "advice, desktop")
	adviseShot(t, tb, "advise-1280x800-light")

	// The playground link: lane a today, lane b recommended.
	tb.do("open the playground link", chromedp.Click(chromedp.ID("adv-playground")))
	if !pollLeft(tb, `!!window.backofflab && location.pathname === '/'`) {
		t.Fatalf("the playground link did not open the playground")
	}
	// The playground's settings as its link writes them, every lane's
	// strategy included.
	settings, err := url.ParseQuery(eval[string](tb, `window.backofflab.settings()`))
	if err != nil {
		t.Fatal(err)
	}
	ctl := tb.controls()
	for _, lane := range []string{"a", "b"} {
		if settings.Get(lane+".strategy") == "" {
			settings.Set(lane+".strategy", ctl[lane+".strategy"])
		}
	}
	// Lane a is today's settings, the library's row with the values the
	// advice measured; lane b the recommended's.
	today, _ := advise.TodayLane(advise.OwnLibrary)
	for lane, lq := range map[string]string{"a": a.TodayLane, "b": a.RecommendedLane} {
		if got := settings.Get(lane + ".strategy"); got != today.Strategy {
			t.Errorf("the playground's lane %s runs %q, want the library's %q", lane, got, today.Strategy)
		}
		q, err := url.ParseQuery(lq)
		if err != nil {
			t.Fatalf("lane query %q: %v", lq, err)
		}
		if lane == "b" && len(q) == 0 {
			t.Errorf("the recommended lane has no values of its own")
		}
		for name, vs := range q {
			_, base, _ := strings.Cut(name, ".")
			if got := settings.Get(lane + "." + base); got != vs[0] {
				t.Errorf("the playground's %s.%s shows %q, want %q (%s)", lane, base, got, vs[0], lq)
			}
		}
	}
}

// adviseDarkPhone: the advice for gRPC's retry policy on a phone in the
// dark scheme: its snippet is gRPC's service config, the page fits the
// screen's width, and axe finds nothing serious.
func adviseDarkPhone(t *testing.T, env *adviseEnv) {
	// A library's own configuration: gRPC's service config.
	tb := openAdvise(t, env, "library=grpc&"+smallAdvice, phone(), scheme("dark"))
	waitAdvice(tb)
	if a := checkAdviceShown(t, tb); !strings.Contains(a.Snippet, `"retryPolicy"`) {
		t.Errorf("gRPC's snippet %q is not a service config's retry policy", a.Snippet)
	}
	if w := eval[float64](tb, `document.documentElement.scrollWidth`); w > phoneW {
		t.Errorf("the page is %v px wide on a %d px phone", w, phoneW)
	}
	tb.axeCheck(env.axe, "advice, dark phone")
	adviseShot(t, tb, "advise-390x844-dark")
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

// adviseShot writes, when BACKOFFLAB_SCREENSHOTS is set, tb's viewport
// with the advice at its top as name.png there.
func adviseShot(t *testing.T, tb *tab, name string) {
	t.Helper()
	dir := os.Getenv("BACKOFFLAB_SCREENSHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	eval[chromedp.Void](tb, `document.querySelector('#adv-result').scrollIntoView()`)
	view, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), view, 0o644); err != nil {
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

// adviseCancel: Cancel stops the search on the server at once, and the
// page says so.
func adviseCancel(t *testing.T, env *adviseEnv) {
	waitIdle(t, env.srv)
	// Twenty seeds a setting: the dearest search the page allows, many
	// seconds of both cores were it not cancelled.
	tb := openAdvise(t, env, "seeds=20")
	tb.waitTrue("the search is under way", `window.backofflabAdvise.state().done > 0`)
	tb.do("cancel", chromedp.Click(chromedp.ID("adv-cancel")))
	tb.waitTrue("the page says it cancelled", `(s => s.cancelled && !s.running)(window.backofflabAdvise.state()) && /cancelled/.test(document.querySelector('#adv-status').textContent)`)
	waitIdle(t, env.srv)
	waitEnded(t, env.srv)
	if st := eval[bool](tb, `window.backofflabAdvise.state().finished`); st {
		t.Errorf("the cancelled search finished")
	}
	if !eval[bool](tb, `document.querySelector('#adv-submit').disabled === false`) {
		t.Errorf("Get advice stays disabled after Cancel")
	}
}

// adviseNothingMeets: on 001's curve server no backoff setting recovers;
// the page says so, how close the best came, and the protection that
// does meet the goals, with its measured result, and links the
// playground to it.
func adviseNothingMeets(t *testing.T, env *adviseEnv) {
	tb := openAdvise(t, env, "server_model=curve&seeds=1")
	waitAdvice(tb)
	type shown struct {
		Met                       bool
		Headline, Closest         string
		ClosestHidden             bool
		Gaps                      []string
		Suggestion, Measured      string
		NoFront, Playground, Link string
	}
	s := eval[shown](tb, `(() => {
		const a = window.backofflabAdvise.advice(), v = window.backofflabAdvise.view(), $ = q => document.querySelector(q);
		return {met: a.met, headline: $('#adv-headline').textContent, closest: $('#adv-closest').textContent,
			closestHidden: $('#adv-closest').hidden, gaps: (a.closest || []).map(g => g.words),
			suggestion: a.suggestion ? a.suggestion.words : '', measured: $('#adv-measured').textContent,
			noFront: v.no_front || '', playground: $('#adv-playground').getAttribute('href'), link: $('#adv-playground').textContent};
	})()`)
	if s.Met || !strings.HasPrefix(s.Headline, "No setting") {
		t.Errorf("met %v, headline %q: want no setting", s.Met, s.Headline)
	}
	if s.ClosestHidden || len(s.Gaps) == 0 || s.Suggestion == "" {
		t.Fatalf("how close and the suggestion: hidden %v, gaps %q, suggestion %q", s.ClosestHidden, s.Gaps, s.Suggestion)
	}
	for _, w := range append(s.Gaps, s.Suggestion) {
		if !strings.Contains(s.Closest, w) {
			t.Errorf("the page's %q lacks %q", s.Closest, w)
		}
	}
	if !strings.Contains(s.Measured, "suggested") {
		t.Errorf("the measured table %q lacks the suggested setting", s.Measured)
	}
	if !strings.Contains(s.Link, "suggested") || !strings.Contains(s.Playground, "cancel_on_timeout") && !strings.Contains(s.Playground, "shed_above") &&
		!strings.Contains(s.Playground, "budget") && !strings.Contains(s.Playground, "throttle") && !strings.Contains(s.Playground, "server_limit") {
		t.Errorf("the playground link %q (%q) is not to the suggestion", s.Playground, s.Link)
	}
	tb.axeCheck(env.axe, "advice, nothing meets")
	adviseShot(t, tb, "advise-nothing-meets")
}
