// Package webtest holds the helpers that the tests of several of the
// server's packages share (the shell's and each view's): their TestMain,
// a loopback server that the test waits for, a request that keeps what
// the server sent, a query changed by another, and a column of a
// session's tick rows. Only tests import it.
package webtest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/web/kit"
)

// Main is the TestMain of a package whose tests serve views: it runs
// them, then each of after (what the package's tests share, such as a
// browser, closed once the last test is done), then goleak's check that
// no goroutine outlives them. The tests' long maps and bands are
// estimated from their pilots' CPU time, which the race detector
// multiplies several times, so the default budget of a view would refuse
// them there: it is lifted, and the budget's own tests set theirs.
func Main(m *testing.M, after ...func()) {
	kit.DefaultLimits.ViewCPU = 1000 * time.Hour
	goleak.VerifyTestMain(runThen{m, after})
}

// runThen is a testing.M whose Run runs the tests, then after.
type runThen struct {
	m     *testing.M
	after []func()
}

func (r runThen) Run() int {
	code := r.m.Run()
	for _, f := range r.after {
		f()
	}
	return code
}

// Serve serves h on loopback until the test ends; then cancel ends the
// server's context, and the test waits for what wait says is in flight
// (a Server's or a Kit's Wait) to end, failing it after 30 s.
func Serve(t testing.TB, h http.Handler, cancel context.CancelFunc, wait func(context.Context) error) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		cancel()
		hs.Close()
		ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
		defer stop()
		if err := wait(ctx); err != nil {
			t.Errorf("server wait: %v", err)
		}
	})
	return hs
}

// Get requests u with the headers hdr and returns the response with its
// whole body, failing t on any error of the transport. It asks for
// nothing the headers do not: a gzipped answer stays gzipped.
func Get(t testing.TB, u string, hdr http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	// A bare transport: http.DefaultClient would ask for gzip and undo it.
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// WithQuery returns query with the values of change set over its own: a
// query that gives a name twice is refused (kit.ParseQuery).
func WithQuery(t testing.TB, query, change string) string {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	c, err := url.ParseQuery(change)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c {
		q[k] = v
	}
	return q.Encode()
}

// Col is the index in a tick row of lane's (0 = a) column name: a row is
// [t, lane a's Columns…, lane b's Columns…].
func Col(t testing.TB, lane int, name string) int {
	t.Helper()
	i := slices.Index(scenario.Columns, name)
	if i < 0 {
		t.Fatalf("no column %q in %v", name, scenario.Columns)
	}
	return 1 + lane*len(scenario.Columns) + i
}

// VocabularyNames are the names a reader would have to know the
// vocabulary to read: every parameter's, strategy's and choice's name
// that is not an English word (its snake_case ones), and 001, the
// source's number among the project's documents. The tests that a page
// names them only in code read this one list.
func VocabularyNames() []string {
	names := []string{"001"}
	add := func(n string) {
		if strings.Contains(n, "_") && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, p := range scenario.Table {
		add(p.Name)
		for _, c := range p.Choices {
			add(c)
		}
	}
	for _, n := range strategies.Names() {
		add(n)
	}
	return names
}

// OpenStream starts GET url under ctx and returns its response, a reader
// of its NDJSON lines, each decoded as an L (false once the body ends),
// and the body's reader for what follows the lines read. The body closes
// when the test ends.
func OpenStream[L any](t *testing.T, ctx context.Context, url string) (*http.Response, func() (L, bool), *bufio.Reader) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	br := bufio.NewReader(res.Body)
	return res, func() (L, bool) {
		var l L
		line, err := br.ReadBytes('\n')
		if err != nil {
			return l, false
		}
		if err := json.Unmarshal(line, &l); err != nil {
			t.Fatalf("bad line %.200q: %v", line, err)
		}
		return l, true
	}, br
}
