package web

// The links between the views, in the headless Chromium of
// browser_test.go: from a run that is not the landing view's, every link
// the playground, the phase map, the seed bands, the contention study and
// the advice show is followed, and each must answer 200 and, for a page, load
// without a console error, an uncaught exception or an error message.
// Run it with: go test -run TestBrowserLinks -v ./web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// linksStart is the run the crawl starts from: three lanes, lane c's
// strategy and its minimum delay and lane b's growth changed, short and small,
// so that what its links run (its seeds, its exports) is quick.
const linksStart = "lanes=3&c.strategy=fixed&c.min_delay=250ms&b.factor=3&clients=300&duration=30s&outage_at=5s&outage_for=5s"

// pageLink is an <a href> of a page.
type pageLink struct {
	Href string `json:"href"` // resolved by the browser: absolute
	ID   string `json:"id"`
	// Preset is a preset's name (data-preset).
	Preset string `json:"preset"`
	Text   string `json:"text"`
}

// linkVisit is a URL to visit and where it was found.
type linkVisit struct {
	url  string
	from string // the page and the link, for the subtest's name
	// expand follows the page's links whatever the view: a start page.
	expand bool
}

// linksMapAxes are the axes the crawl's second start, the map of
// linksStart, sweeps: a whole map shows its exports' links. Its axis is
// not the outage's length, which its link to the advice then carries: a
// map over outage_for leaves the advice its default 15 s outage, which
// the crawl's 30 s run has no time to recover from (the advice's page
// names recover_within, and the run's length to change).
const linksMapAxes = "&x=clients&x_from=100&x_to=300&x_steps=2"

// viewReady says, for each view's path, when its page has done what it
// does on load (the playground's session ticks, a whole map has run, the
// band is in, the study is done), what changes while it gets there (the
// wait fails only when that stops changing: pollProgress), and what its
// page says went wrong.
var viewReady = map[string]struct{ ready, progress, failure string }{
	"/": {
		`document.querySelector('#status').textContent === 'connected' && window.backofflab && window.backofflab.rows().length > 0`,
		`window.backofflab ? window.backofflab.rows().length : null`,
		`''`,
	},
	"/map": {
		`window.backofflabMap && (s => s === null ? !document.querySelector('#map-headless-csv') : s.finished || !!s.error)(window.backofflabMap.state())`,
		mapProgress,
		`(s => s && s.error || '')(window.backofflabMap.state())`,
	},
	"/bands": {
		`window.backofflabBands && (!!window.backofflabBands.result() || document.querySelector('#bands-status').classList.contains('bad'))`,
		`document.querySelector('#bands-progress').value`,
		`document.querySelector('#bands-status').classList.contains('bad') ? document.querySelector('#bands-status').textContent : ''`,
	},
	"/contention": {
		`window.backofflabContention && (s => s.finished || !!s.error)(window.backofflabContention.state())`,
		`window.backofflabContention ? window.backofflabContention.state().done : null`,
		`window.backofflabContention.state().error`,
	},
	"/advise": {
		`window.backofflabAdvise && (s => s.finished || !!s.error)(window.backofflabAdvise.state())`,
		adviceProgress,
		`window.backofflabAdvise.state().error`,
	},
}

// TestBrowserLinks follows the links of the four views from a run that is
// not the landing view's. Every link of the first page of each view is
// visited: a GET that must answer 200 and, for a page, the page in a tab of
// its own, which must reach its ready state without a console error (a
// failed request of its own, a stream's 503, is one) or an error message
// on the page. The pages they lead to are visited too but their links not
// followed, so the crawl ends: 19 presets lead to 19 playgrounds. A second
// start, the map of the same run with its axes chosen, has the links of a
// whole map (its headless exports).
//
// The crawl goes breadth first, a depth at a time: the visits of one depth
// are parallel subtests (linksAtOnce at most, each its own tab), and once
// they are all done their links are followed in the order a one-by-one
// crawl would follow them, so the views expanded are the same.
func TestBrowserLinks(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other long browser tests
	ctx := startBrowser(t)
	srv, _, _ := serveShell(t, Options{Limits: Limits{RunMemory: 32 << 20}})
	base := srv.URL
	expanded := map[string]bool{} // the views whose links are followed
	visited := map[string]bool{}
	depth := []linkVisit{
		{base + "/?" + linksStart, "start", true},
		// The axes are chosen in the map's form, not by a link.
		{base + "/map?" + linksStart + linksMapAxes, "start map", true},
	}
	var gate linksGate
	for d := 0; len(depth) > 0; d++ {
		var visits []linkVisit
		for _, v := range depth {
			if !visited[v.url] {
				visited[v.url] = true
				visits = append(visits, v)
			}
		}
		found := make([]linksFound, len(visits))
		t.Run(fmt.Sprintf("depth%d", d), func(t *testing.T) {
			for i, v := range visits {
				t.Run(v.from, func(t *testing.T) {
					t.Parallel() // a tab of its own: its page and its session are its own
					found[i] = visitLink(t, ctx, &gate, v.url)
				})
			}
		})
		depth = nil
		for i, v := range visits {
			f := found[i]
			if !f.page {
				continue
			}
			// The page's own URL, as it rewrote it, is the page just visited.
			visited[f.location] = true
			if expanded[f.path] && !v.expand {
				continue
			}
			expanded[f.path] = true
			for _, l := range f.links {
				target, ok := inSite(base, l.Href)
				if !ok {
					continue
				}
				what := l.ID
				if what == "" {
					what = l.Preset
				}
				if what == "" {
					what = strings.Join(strings.Fields(l.Text), " ")
				}
				depth = append(depth, linkVisit{target, fmt.Sprintf("%s %s", viewName(f.path), what), false})
			}
		}
	}
	for _, view := range []string{"/", "/map", "/bands", "/contention", "/advise"} {
		if !expanded[view] {
			t.Errorf("no link led to %s: its links were not followed", view)
		}
	}
	t.Logf("%d URLs visited", len(visited))
}

// linksAtOnce bounds the crawl's visits at once: with the one GET of an
// export at a time (linksGate.get), the server's runs, maps, studies and
// exports stay within its caps (kit.DefaultLimits: 4 many-run views, 2 exports)
// whatever -parallel allows.
const linksAtOnce = 3

// linksGate bounds the crawl's visits at once and its GETs one at a time:
// a link's GET may be an export, which runs until its whole body is sent.
type linksGate struct {
	once  sync.Once
	slots chan struct{}
	get   sync.Mutex
}

func (g *linksGate) enter() {
	g.once.Do(func() { g.slots = make(chan struct{}, linksAtOnce) })
	g.slots <- struct{}{}
}

func (g *linksGate) leave() { <-g.slots }

// linksFound is what a visit found: whether the URL is a page, and if so
// its view's path, its URL as the page left it (its fragment cut) and its
// links.
type linksFound struct {
	page     bool
	path     string
	location string
	links    []pageLink
}

// visitLink visits u: its GET, and for a page the page in a tab.
func visitLink(t *testing.T, ctx context.Context, gate *linksGate, u string) linksFound {
	t.Helper()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the link: %s", u)
		}
	})
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	gate.enter()
	defer gate.leave()
	gate.get.Lock()
	html := linkStatus(t, u)
	gate.get.Unlock()
	if !html {
		return linksFound{}
	}
	links, location := visitPage(t, ctx, u, pu.Path)
	location, _, _ = strings.Cut(location, "#")
	return linksFound{page: true, path: pu.Path, location: location, links: links}
}

// viewName names a view's path for a subtest.
func viewName(path string) string {
	if path == "/" {
		return "playground"
	}
	return strings.TrimPrefix(path, "/")
}

// inSite returns href without its fragment when it points into the site
// at base (a fragment alone points into the same page, visited already).
func inSite(base, href string) (string, bool) {
	if !strings.HasPrefix(href, base+"/") {
		return "", false
	}
	if i := strings.IndexByte(href, '#'); i >= 0 {
		href = href[:i]
	}
	return href, true
}

// linkStatus GETs u as a link opened from the page does and fails t unless
// it answers 200 with a whole body; it reports whether u is a page.
func linkStatus(t *testing.T, u string) bool {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A link followed from one of the site's own pages.
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := (&http.Transport{DisableKeepAlives: true}).RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %s, its body cut: %v", u, resp.Status, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %.300s", u, resp.Status, body)
	}
	return strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html")
}

// visitPage opens u (a page of the view at path) in a new tab, waits until
// it is ready, fails t for any error message it shows, and returns its
// links and its URL as the page left it. The tab's console errors fail t
// when it ends (openTab).
func visitPage(t *testing.T, ctx context.Context, u, path string) ([]pageLink, string) {
	t.Helper()
	rd, ok := viewReady[path]
	if !ok {
		t.Fatalf("a page of %s, which no view serves", path)
	}
	tb := openTab(t, ctx)
	tb.do("emulate the viewport", chromedp.EmulateViewport(1280, 800))
	tb.do("navigate to "+u, chromedp.Navigate(u))
	pollProgress[bool](tb, viewName(path)+" is ready", "!!("+rd.ready+")", rd.progress)
	if msg := eval[string](tb, rd.failure); msg != "" {
		t.Errorf("the page says it failed: %s", msg)
	}
	if msgs := eval[[]string](tb, `[...document.querySelectorAll('.err, .errors')].map(e => e.textContent.trim()).filter(Boolean)`); len(msgs) > 0 {
		t.Errorf("the page shows errors: %q", msgs)
	}
	links := eval[[]pageLink](tb, `[...document.querySelectorAll('a[href]')].map(a => ({href: a.href, id: a.id, preset: a.dataset.preset || '', text: a.textContent}))`)
	return links, eval[string](tb, `location.href`)
}
