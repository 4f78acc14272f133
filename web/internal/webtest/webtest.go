// Package webtest holds the helpers that the tests of several of the
// server's packages share (the shell's and each view's): a request that
// keeps what the server sent, a query changed by another, and a
// column of a session's tick rows. Only tests
// import it.
package webtest

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"backofflab/scenario"
)

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
