package web

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testwait"
)

// waitServerRunning waits until ok(Server.Running()).
func waitServerRunning(t *testing.T, s *Server, what string, ok func(int64) bool) {
	t.Helper()
	testwait.Eventually(t, what, func() bool { return ok(s.Running()) })
}

// startMap opens GET /map/cells?query on base, which runs until ctx ends
// or the test does, and returns the type of its first line.
func startMap(t *testing.T, ctx context.Context, base, query string) string {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/map/cells?"+query, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET /map/cells: %s: %s", resp.Status, b)
	}
	line, err := bufio.NewReader(resp.Body).ReadBytes('\n')
	if err != nil {
		t.Fatalf("the map's first line: %v", err)
	}
	var m struct{ Type string }
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("the map's first line does not parse: %v: %s", err, line)
	}
	return m.Type
}

// heavyMap is a map of the worst cells a page may ask for: four lanes of
// 20 000 clients retrying every millisecond for an hour against the curve
// server. Each cell holds a core for seconds; alone, the map would hold
// the server's cores for hours.
const heavyMap = "server_model=curve&lanes=4&a.strategy=fixed&b.strategy=fixed&c.strategy=fixed&d.strategy=fixed" +
	"&clients=20000&duration=1h&timeout=1ms&think=1ms&a.min_delay=1ms&b.min_delay=1ms&c.min_delay=1ms&d.min_delay=1ms" +
	"&tick=10ms&max_server_delay=24h&backlog=1000000" +
	"&x=clients&x_from=19000&x_to=20000&x_steps=64&y=server_limit&y_from=100&y_to=1000&y_steps=64"

// readNDJSON reads an NDJSON stream to its end and returns its last
// line's type and message.
func readNDJSON(t *testing.T, body io.Reader) (typ, message string, lines int) {
	t.Helper()
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct{ Type, Message string }
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("a line of the stream does not parse: %v: %s", err, sc.Bytes())
		}
		typ, message = m.Type, m.Message
		lines++
	}
	return typ, message, lines
}

// TestLightViewFinishesBesideHeavyMaps: with two maps of the worst cells
// running, a contention study and a small map, each a light request,
// still run to their end: the cores go to each view in turn, not to
// whichever job asked first. Handed out one job at a time, the heavy
// maps' cells held both cores for seconds each, and the study's
// thousands of short runs each waited for one: it did not finish in
// minutes.
func TestLightViewFinishesBesideHeavyMaps(t *testing.T) {
	hs, s, _ := serveShell(t, Options{Limits: Limits{ViewCores: 2, ViewCPU: math.MaxInt64}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 2 {
		if typ := startMap(t, ctx, hs.URL, heavyMap); typ != "start" {
			t.Fatalf("a heavy map began with a line of type %q", typ)
		}
	}
	waitServerRunning(t, s, "both heavy maps run", func(n int64) bool { return n == 2 })
	for _, light := range []string{
		"/contention/stream?n=10:60:10&runs=40",
		"/map/cells?x=clients&x_from=200&x_to=400&x_steps=2&duration=30s",
	} {
		t.Run(light, func(t *testing.T) {
			// Bounded so that a regression fails rather than hangs; alone,
			// each takes well under a second.
			lctx, lcancel := context.WithTimeout(ctx, 2*time.Minute)
			defer lcancel()
			req, _ := http.NewRequestWithContext(lctx, "GET", hs.URL+light, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("%s: %s", resp.Status, b)
			}
			if typ, msg, n := readNDJSON(t, resp.Body); typ != "done" {
				t.Fatalf("the light view ended with %q %q after %d lines, want done", typ, msg, n)
			}
		})
	}
	cancel()
	waitServerRunning(t, s, "after the heavy maps' pages left", func(n int64) bool { return n == 0 })
}

// TestTooDearRefusedUpFront: a map or a band whose estimated cost is past
// the budget of a view is refused before it runs, with the estimate and
// the budget in words; the server runs nothing for it afterwards. The
// budget is two minutes, far below the hours these views would take, and
// far above what their pilot runs hold the cores for even under -race on
// a loaded machine: with ten seconds, the pilots of a map or a band run
// beside other packages' tests used it up, and the view was stopped, 503,
// rather than refused.
func TestTooDearRefusedUpFront(t *testing.T) {
	hs, s, _ := serveShell(t, Options{Limits: Limits{ViewCPU: 2 * time.Minute}})
	for _, tc := range []struct {
		name, path, param string
	}{
		{"map", "/map/cells?" + heavyMap, `"name":"cells"`},
		{"map export", "/map.csv?" + heavyMap, "cells:"},
		{"band", "/bands/run?" + strings.Replace(strings.Split(heavyMap, "&x=")[0], "&tick=10ms", "&tick=1s", 1) + "&seeds=60", "seeds:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Get(hs.URL + tc.path)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("%s: %s, want 400", resp.Status, b)
			}
			for _, want := range []string{tc.param, "would take about", "past the 120 s one map, band or study may take", "make it smaller"} {
				if !strings.Contains(string(b), want) {
					t.Errorf("%s\ndoes not say %q", b, want)
				}
			}
			waitServerRunning(t, s, "after the refusal", func(n int64) bool { return n == 0 })
		})
	}
}
