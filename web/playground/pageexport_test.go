package playground

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// pageBody is what the page posts for rows and sums: the summaries, then
// one row per JSON value, as the tick messages write them.
func pageBody(t *testing.T, sums []scenario.Summary, rows [][]float64) []byte {
	t.Helper()
	var b bytes.Buffer
	js, err := json.Marshal(sums)
	if err != nil {
		t.Fatal(err)
	}
	b.Write(js)
	var line []byte
	for _, row := range rows {
		line = append(line[:0], "\n["...)
		for j, v := range row {
			if j > 0 {
				line = append(line, ',')
			}
			line = scenario.AppendNumber(line, v)
		}
		b.Write(append(line, ']'))
	}
	return b.Bytes()
}

func mustQuery(t *testing.T, q string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func post(t *testing.T, u string, body []byte) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Post(u, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out bytes.Buffer
	out.ReadFrom(res.Body)
	return res, out.Bytes()
}

// TestPageExportMatchesRun posts a fresh run's rows as the page holds them
// and gets back exactly what the CLI writes for that run: the page's export
// and the headless one share the engine's formatter, not a copy of it.
func TestPageExportMatchesRun(t *testing.T) {
	const query = "duration=60s&outage_at=20s&outage_for=10s&seed=7"
	srv, _ := newTestServer(t, Limits{})
	sc, errs := scene.Decode(mustQuery(t, query), kit.DefaultLimits)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var rows [][]float64
	sums, err := simengine.Run(context.Background(), sc.Params, func(tk scenario.Tick) {
		rows = append(rows, TickRow(tk, nil, nil))
	})
	if err != nil {
		t.Fatal(err)
	}
	body := pageBody(t, sums, rows)
	for _, format := range []string{"csv", "json"} {
		var want bytes.Buffer
		write := simengine.WriteCSV
		if format == "json" {
			write = simengine.WriteJSON
		}
		if err := write(context.Background(), &want, sc.Params, nil); err != nil {
			t.Fatal(err)
		}
		res, got := post(t, srv.URL+"/export."+format+"?"+query, body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s: %s", format, res.Status, got)
		}
		if cd := res.Header.Get("Content-Disposition"); !strings.Contains(cd, "backofflab."+format) {
			t.Errorf("%s: Content-Disposition %q", format, cd)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: the page's export (%d bytes) differs from the run's (%d bytes)", format, len(got), len(want.Bytes()))
		}
	}
}

// TestPageExportRejects answers a malformed body with a message, not a
// short file.
func TestPageExportRejects(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	for _, tc := range []struct{ query, body, want string }{
		{"clients=0", "null", "clients"},
		{"lanes=2", "null\n[1,2,3]", "row 1 has 3 values"},
		{"lanes=1", "{", "summaries"},
		{"lanes=1", "null\n[1," + strings.Repeat("0,", 11) + "x]", "row 1 does not parse"},
	} {
		for _, format := range []string{"csv", "json"} {
			res, got := post(t, srv.URL+"/export."+format+"?"+tc.query, []byte(tc.body))
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(got), tc.want) {
				t.Errorf("%s %s %q: %s %q, want 400 with %q", format, tc.query, tc.body, res.Status, got, tc.want)
			}
		}
	}
	// No rows: the header alone.
	res, got := post(t, srv.URL+"/export.csv?lanes=1", []byte("null"))
	if res.StatusCode != http.StatusOK || string(got) != simengine.CSVHeader() {
		t.Errorf("no rows: %s %q", res.Status, got)
	}
}

// TestLaneTickOfRow holds laneTick to LaneTick.Values, its inverse.
func TestLaneTickOfRow(t *testing.T) {
	lts := []scenario.LaneTick{
		{T: 1.5, OK: 1, Errors: 2, Timeouts: 3, Attempts: 4, Retries: 5, GaveUp: 6, Concurrency: 7,
			ServerLatency: 8, Backlog: 9, InBackoff: 10, P50: 11, P99: 12, Alive: 13},
		{T: 1.5, P50: math.NaN(), P99: math.NaN()},
		{T: 1.5, Halted: true},
	}
	for _, lt := range lts {
		row := TickRow(scenario.Tick{T: lt.T, Lanes: []scenario.LaneTick{lt}}, nil, nil)
		got := laneTick(row, 0)
		if a, b := got.AppendJSON(nil), lt.AppendJSON(nil); !bytes.Equal(a, b) || got.Halted != lt.Halted {
			t.Errorf("laneTick(Values(%s)) = %s", b, a)
		}
	}
}

// endless is a body that starts with head and then repeats fill for ever,
// counting the bytes read from it.
type endless struct {
	head, fill string
	read       int64
}

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		var src string
		if at := e.read + int64(n); at < int64(len(e.head)) {
			src = e.head[at:]
		} else {
			k := (at - int64(len(e.head))) % int64(len(e.fill))
			src = e.fill[k:]
		}
		n += copy(p[n:], src)
	}
	e.read += int64(n)
	return n, nil
}

// TestPageExportBoundsItsValues: a row, or the summaries, longer than its
// bound is refused as soon as the bound is passed, naming it: the handler
// reads little more than the bound from a body that never ends, where it
// held the whole of a 60 MB row before it said no.
func TestPageExportBoundsItsValues(t *testing.T) {
	k := kit.New(t.Context(), nil, Limits{}, nil)
	mux := http.NewServeMux()
	Mount(mux, k)
	const query = "lanes=4"
	for _, tc := range []struct {
		name, head, fill string
		bound            int64
		want             string
	}{
		{"a row", "null\n[", "0,", maxRowBytes(4), fmt.Sprintf("row 1: longer than %d bytes", maxRowBytes(4))},
		{"a later row", "null\n" + tickRowsText(4, 3) + "[", "12345.678,", maxRowBytes(4), fmt.Sprintf("row 4: longer than %d bytes", maxRowBytes(4))},
		{"spaces between rows", "null\n", " ", maxRowBytes(4), "row 1: longer than"},
		{"the summaries", "[", `{"baseline_ok":1},`, maxSummariesBytes, fmt.Sprintf("the summaries: longer than %d bytes", maxSummariesBytes)},
	} {
		for _, format := range []string{"csv", "json"} {
			t.Run(tc.name+" "+format, func(t *testing.T) {
				body := &endless{head: tc.head, fill: tc.fill}
				req := httptest.NewRequest("POST", "/export."+format+"?"+query, body)
				rec := httptest.NewRecorder()
				mux.ServeHTTP(rec, req)
				if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), tc.want) {
					t.Errorf("%d %q, want 400 saying %q", rec.Code, rec.Body.String(), tc.want)
				}
				// The bound past the value's start, and what the decoder
				// reads ahead of it at once.
				if most := int64(len(tc.head)) + tc.bound + 4096; body.read > most {
					t.Errorf("read %d bytes of the body, want at most %d (the value's bound is %d)", body.read, most, tc.bound)
				}
			})
		}
	}
}

// tickRowsText returns n tick rows of a run of lanes lanes as the page posts
// them, one a line.
func tickRowsText(lanes, n int) string {
	var b strings.Builder
	for range n {
		b.WriteString("[0")
		for range lanes * len(scenario.Columns) {
			b.WriteString(",1")
		}
		b.WriteString("]\n")
	}
	return b.String()
}
