package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/backofflab/backofflab/contention"
	"github.com/backofflab/backofflab/internal/testwait"
)

// smallStudy is a study of a few hundred milliseconds.
const smallStudy = "n=10:30:10&runs=5&seed=2"

// waitIdle waits until the server runs no simulation of a many-run view:
// a left page's study has stopped.
func waitIdle(t *testing.T, s *Server) {
	t.Helper()
	testwait.Eventually(t, "no simulation runs", func() bool { return s.Running() == 0 })
}

// finishedStudies counts the streams whose study ran to its end: it
// watches what the server writes for the stream's "done" line.
type finishedStudies struct{ n atomic.Int64 }

func (f *finishedStudies) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&doneWatch{ResponseWriter: w, f: f}, r)
	})
}

type doneWatch struct {
	http.ResponseWriter
	f *finishedStudies
}

func (w *doneWatch) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(`"type":"done"`)) {
		w.f.n.Add(1)
	}
	return w.ResponseWriter.Write(b)
}

func (w *doneWatch) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// waitEnded waits until every stream and export of s has returned.
func waitEnded(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// studyLine is one line of a study's stream as the page reads it: the
// protocol, not the view's Go type, so that the test reads what the
// page does.
type studyLine struct {
	Type    string            `json:"type"`
	Point   *contention.Point `json:"point"`
	Done    int               `json:"done"`
	Total   int               `json:"total"`
	Message string            `json:"message"`
	Left    float64           `json:"left"`
}

// readStream reads a study's NDJSON stream to its end.
func readStream(t *testing.T, body []byte) []studyLine {
	t.Helper()
	var msgs []studyLine
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		var m studyLine
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		msgs = append(msgs, m)
	}
	return msgs
}

// TestContentionStream: the stream starts with the number of points, sends
// each point once with its count, then done; its points are package
// contention's for the same study, as the CLI computes them.
func TestContentionStream(t *testing.T) {
	srv, s, _ := serveShell(t, Options{})
	resp, body := get(t, srv.URL+"/contention/stream?"+smallStudy, nil)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/x-ndjson") {
		t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	msgs := readStream(t, body)
	q, _ := url.ParseQuery(smallStudy)
	spec, err := contention.Parse(q, contention.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := contention.Run(context.Background(), spec, contention.Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != len(want)+2 || msgs[0].Type != "start" || msgs[0].Total != len(want) || msgs[len(msgs)-1].Type != "done" {
		t.Fatalf("%d messages: %+v", len(msgs), msgs)
	}
	got := map[[2]any]contention.Point{}
	for i, m := range msgs[1 : len(msgs)-1] {
		if m.Type != "point" || m.Done != i+1 || m.Total != len(want) || m.Point == nil {
			t.Fatalf("message %d: %+v", i+1, m)
		}
		got[[2]any{m.Point.Strategy, m.Point.Clients}] = *m.Point
	}
	for _, p := range want {
		if g := got[[2]any{p.Strategy, p.Clients}]; !reflect.DeepEqual(g, p) {
			t.Errorf("%s N=%d: streamed %+v, want %+v", p.Strategy, p.Clients, g, p)
		}
	}
	waitIdle(t, s)
}

// TestContentionBadInput: every path names the bad parameter, its value
// and its range: the stream and the exports with a 400, the page beside
// its form, running nothing.
func TestContentionBadInput(t *testing.T) {
	srv, _, _ := serveShell(t, Options{})
	for _, c := range []struct{ q, says string }{
		{"n=191", `n: "191" is not allowed (allowed: a list of N, each a number or from:to:step, every N a whole number from 1 to 190`},
		{"n=0", `n: "0"`},
		{"seeds=101", `seeds: "101" is not allowed (allowed: a whole number from 1 to 100)`},
		{"runs=101", `runs: "101" is not allowed (allowed: a whole number from 1 to 100)`}, // the old name of seeds
		{"strategies=none", `strategies: "none"`},
		{"n=1:96:1", `at most 95`},
		{"speed=max", `speed: "max" is not allowed (allowed: not a parameter of the study`},
	} {
		for _, path := range []string{"/contention/stream", "/contention.csv", "/contention.json", "/contention"} {
			t.Run(path+"?"+c.q, func(t *testing.T) {
				resp, body := get(t, srv.URL+path+"?"+c.q, nil)
				text := string(body)
				if path == "/contention" {
					text = strings.ReplaceAll(text, "&#34;", `"`)
				}
				want := 400
				if path == "/contention" {
					want = 200
				}
				if resp.StatusCode != want || !strings.Contains(text, c.says) {
					t.Fatalf("%d, %q; want %d saying %q", resp.StatusCode, body, want, c.says)
				}
				if path == "/contention" && strings.Contains(text, `"query":"n=`) {
					t.Fatal("a bad page would still run a study")
				}
			})
		}
	}
}

// TestContentionLeavingCancels: a page that leaves mid-study stops it
// (Running back to 0, the stream ended without its done line) and frees
// the view's slot; with one slot, a second study meanwhile is told the
// server is busy.
func TestContentionLeavingCancels(t *testing.T) {
	var finished finishedStudies
	srv, s, _ := serveShellWrapped(t, Options{Limits: Limits{MaxViews: 1, ViewCores: 2}}, finished.wrap)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/contention/stream", nil) // the blog's whole study
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for n := 0; n < 2 && sc.Scan(); n++ { // start, and a first point
	}
	busy, body := get(t, srv.URL+"/contention/stream?"+smallStudy, nil)
	if busy.StatusCode != 503 || !strings.Contains(string(body), "server busy") {
		t.Fatalf("a second study while the first runs: %d %q", busy.StatusCode, body)
	}
	cancel() // the page leaves
	waitIdle(t, s)
	waitEnded(t, s)
	if finished.n.Load() != 0 {
		t.Fatal("the study ran to its end after the page left")
	}
	testwait.Eventually(t, "the slot is free after the page left", func() bool {
		ok, body := get(t, srv.URL+"/contention/stream?"+smallStudy, nil)
		if ok.StatusCode != 200 {
			return false
		}
		if msgs := readStream(t, body); msgs[len(msgs)-1].Type != "done" {
			t.Fatalf("the next study: %+v", msgs)
		}
		return true
	})
	waitIdle(t, s)
}

// TestContentionShutdownCuts: the server's shutdown cuts a study under
// way: the stream ends without its done, whole, with a line saying why,
// as a map's and a band's do, and nothing runs on.
func TestContentionShutdownCuts(t *testing.T) {
	srv, s, stop := serveShell(t, Options{})
	resp, err := http.Get(srv.URL + "/contention/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Scan()
	stop()
	last := ""
	for sc.Scan() {
		last = sc.Text()
	}
	if strings.Contains(last, `"type":"done"`) {
		t.Fatal("the study ran to its end after the shutdown")
	}
	if err := sc.Err(); err != nil {
		t.Errorf("the stream was cut: %v", err)
	}
	if !strings.Contains(last, `"type":"error"`) || !strings.Contains(last, "shutting down") {
		t.Errorf("last line %s, want an error saying the server is shutting down", last)
	}
	waitIdle(t, s)
	if err := s.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestContentionExports: the CSV and JSON are the contention command's
// writers on the same study; another site's page may not start one.
func TestContentionExports(t *testing.T) {
	srv, _, _ := serveShell(t, Options{})
	q, _ := url.ParseQuery(smallStudy)
	spec, _ := contention.Parse(q, contention.Limits{})
	points, err := contention.Run(context.Background(), spec, contention.Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"csv", "json"} {
		var want bytes.Buffer
		if err := contention.Write(&want, format, spec, points); err != nil {
			t.Fatal(err)
		}
		resp, body := get(t, srv.URL+"/contention."+format+"?"+smallStudy, nil)
		if resp.StatusCode != 200 || !bytes.Equal(body, want.Bytes()) {
			t.Errorf("%s: %d\n%s\nwant\n%s", format, resp.StatusCode, body, want.Bytes())
		}
		if cd := resp.Header.Get("Content-Disposition"); !strings.Contains(cd, "backofflab-contention."+format) {
			t.Errorf("%s: Content-Disposition %q", format, cd)
		}
		resp, _ = get(t, srv.URL+"/contention."+format+"?"+smallStudy, http.Header{"Sec-Fetch-Site": {"cross-site"}})
		if resp.StatusCode != 403 {
			t.Errorf("%s from another site: %d, want 403", format, resp.StatusCode)
		}
	}
}

// TestContentionPage: the page's controls are the study's table, its lines
// are package contention's with their labels, and its links reproduce the
// study.
func TestContentionPage(t *testing.T) {
	srv, _, _ := serveShell(t, Options{})
	resp, body := get(t, srv.URL+"/contention?"+smallStudy, nil)
	page := string(body)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	for _, p := range contention.Params() {
		if p.Name != "strategies" && !strings.Contains(page, `name="`+p.Name+`"`) {
			t.Errorf("no control for %s", p.Name)
		}
	}
	for _, l := range contention.Lines() {
		if !strings.Contains(page, `data-strategy="`+l.Strategy+`"`) || !strings.Contains(page, l.Label()) {
			t.Errorf("no line %s (%s)", l.Strategy, l.Label())
		}
	}
	if !strings.Contains(page, `<a id="cn-back" href="/">`) {
		t.Error("no link back to the playground")
	}
	q, _ := url.ParseQuery(smallStudy)
	spec, _ := contention.Parse(q, contention.Limits{})
	query := spec.Values().Encode()
	for _, link := range []string{"/contention?" + query, "/contention.csv?" + query, "/contention.json?" + query} {
		if !strings.Contains(page, `href="`+strings.ReplaceAll(link, "&", "&amp;")+`"`) {
			t.Errorf("no link %s", link)
		}
	}
}

// TestContentionMemoryBudget: a study draws its memory from the server's
// budget; one that does not fit in a run's budget is told the server is
// busy, and runs nothing.
func TestContentionMemoryBudget(t *testing.T) {
	srv, s, _ := serveShell(t, Options{Limits: Limits{RunMemory: 64 << 10}})
	resp, body := get(t, srv.URL+"/contention/stream", nil) // the blog's study: about 250 KiB
	if resp.StatusCode != 503 || !strings.Contains(string(body), "server busy: this run does not fit in") {
		t.Fatalf("%d %q; want 503, server busy", resp.StatusCode, body)
	}
	if resp, body := get(t, srv.URL+"/contention/stream?"+smallStudy, nil); resp.StatusCode != 200 {
		t.Fatalf("a small study: %d %q", resp.StatusCode, body)
	}
	waitIdle(t, s)
}
