package playground

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// This file tests honest runs: a run changed while it plays (a value set
// on the fly, the server stopped and resumed by hand) is one run, whose
// link replays it tick for tick.

// syncPage waits until p has read everything the session sent before now:
// a speed message's answer comes after it.
func syncPage(t *testing.T, p *page, speed string) map[string]json.RawMessage {
	t.Helper()
	p.send(inMsg{Type: "speed", Speed: speed})
	return p.await("params", nil)
}

// awaitDone waits for the state that says the run reached its end.
func awaitDone(t *testing.T, p *page) {
	t.Helper()
	p.await("state", func(m map[string]json.RawMessage) bool { return field[bool](t, m, "done") })
}

// pageRows returns p's rows as the page posts them: numbers, NaN for null.
func pageRows(p *page) [][]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([][]float64, len(p.rows))
	for i, r := range p.rows {
		out[i] = make([]float64, len(r))
		for j, v := range r {
			if f, ok := v.(float64); ok {
				out[i][j] = f
			} else {
				out[i][j] = math.NaN()
			}
		}
	}
	return out
}

func lastVerdicts(t *testing.T, p *page) []scenario.Verdict {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.summary == nil {
		t.Fatal("no summary")
	}
	return field[[]scenario.Verdict](t, p.summary, "verdicts")
}

func getOK(t *testing.T, u string) []byte {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %s (%v)", u, res.Status, b, err)
	}
	return b
}

// TestHonestRunReplays drives a live session over a real WebSocket: it
// sets b.factor on the fly, stops and resumes the server by hand, and
// plays to the end. The run's link (the last params' query) holds the
// three changes; its headless CSV is byte for byte the page's export of
// the live rows, with the changes in their column; and a new session of
// the link shows the same rows and the same verdicts.
func TestHonestRunReplays(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	live := dialPage(t, srv, "clients=400&duration=40s&outage_at=5s&outage_for=5s&speed=20")
	hello := live.await("hello", nil)
	row := func(sec float64) func(map[string]json.RawMessage) bool { // a tick message past sec
		return func(map[string]json.RawMessage) bool { return live.rowCount() >= int(sec*10) }
	}
	live.await("tick", row(12))
	q := mustQuery(t, field[string](t, hello, "settings"))
	q.Set("b.factor", "1.1")
	live.send(inMsg{Type: "set", Query: q.Encode()})
	live.await("params", nil)
	live.await("tick", row(20))
	live.send(inMsg{Type: "outage", On: true})
	live.await("tick", row(23))
	live.send(inMsg{Type: "outage", On: false})
	awaitDone(t, live)
	link := field[string](t, syncPage(t, live, "20"), "query")

	sc, errs := scene.Decode(mustQuery(t, link), kit.DefaultLimits)
	if len(errs) > 0 {
		t.Fatalf("the link %q: %v", link, errs)
	}
	cs := sc.Params.Changes
	if len(cs) != 3 || len(cs[0].Set) != 1 || cs[0].Set[0].Name != "b.factor" || cs[1].Outage != scenario.ChangeStop || cs[2].Outage != scenario.ChangeResume {
		t.Fatalf("the link %q holds changes %q, want b.factor, stop, resume", link, scenario.ChangesText(cs))
	}
	if !strings.Contains(link, "changes=@") || strings.Contains(link, "%40") {
		t.Errorf("the link %q does not write its changes readably", link)
	}

	_, pageCSV := post(t, srv.URL+"/export.csv?"+link, pageBody(t, nil, pageRows(live)))
	headless := getOK(t, srv.URL+"/export.csv?"+link)
	if !bytes.Equal(pageCSV, headless) {
		t.Errorf("the page's CSV (%d bytes) differs from its link's (%d bytes):\n%s", len(pageCSV), len(headless), firstDiff(pageCSV, headless))
	}
	if !bytes.Contains(headless, []byte(",changes\n")) || !bytes.Contains(headless, []byte(",b,")) ||
		!bytes.Contains(headless, []byte(" b.factor=1.1\n")) || !bytes.Contains(headless, []byte(" stop\n")) {
		t.Errorf("the CSV does not carry the changes in its last column:\n%s", headless[:min(len(headless), 300)])
	}
	if bytes.Contains(headless, []byte("\n#")) || headless[0] == '#' {
		t.Error("the CSV has a comment line")
	}
	// The JSON: the page's export (its rows and summaries) and its link's,
	// which runs lane after lane, each lane with the changes it saw; the
	// params carry the changes.
	live.mu.Lock()
	sums := field[[]scenario.Summary](t, live.summary, "lanes")
	live.mu.Unlock()
	_, pageJSON := post(t, srv.URL+"/export.json?"+link, pageBody(t, sums, pageRows(live)))
	headlessJSON := getOK(t, srv.URL+"/export.json?"+link)
	if !bytes.Equal(pageJSON, headlessJSON) {
		t.Errorf("the page's JSON (%d bytes) differs from its link's (%d bytes)", len(pageJSON), len(headlessJSON))
	}
	var rec struct{ Params map[string]any }
	if err := json.Unmarshal(headlessJSON, &rec); err != nil || rec.Params["changes"] != scenario.ChangesText(cs) {
		t.Errorf("the JSON's params hold changes %q (%v), want %q", rec.Params["changes"], err, scenario.ChangesText(cs))
	}

	replay := dialPage(t, srv, link)
	replay.await("hello", nil)
	replay.send(inMsg{Type: "speed", Speed: "max"})
	awaitDone(t, replay)
	syncPage(t, replay, "max")
	if a, b := pageBody(t, nil, pageRows(live)), pageBody(t, nil, pageRows(replay)); !bytes.Equal(a, b) {
		t.Errorf("the replay's rows differ from the live run's:\n%s", firstDiff(a, b))
	}
	lv, rv := lastVerdicts(t, live), lastVerdicts(t, replay)
	if lj, rj := mustJSONText(t, lv), mustJSONText(t, rv); lj != rj {
		t.Errorf("verdicts differ:\nlive   %s\nreplay %s", lj, rj)
	}
	if !strings.Contains(lv[1].Headline, "b.factor changed to 1.1 at ") || !strings.Contains(lv[0].Headline, "the server stopped by hand at ") ||
		strings.Contains(lv[0].Headline, "b.factor") {
		t.Errorf("the verdicts do not name the changes of their lanes: %q", lv)
	}
}

func mustJSONText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  " + la[i] + "\n  " + lb[i]
		}
	}
	return "one is a prefix of the other"
}

// TestChangesRejectedOnEveryPath: a bad change is an error named changes
// that says why, from the page's URL, a headless export's, the socket's
// URL and a set message; the session goes on.
func TestChangesRejectedOnEveryPath(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	for _, tc := range []struct{ changes, want string }{
		{"@5m stop", "out of range"},
		{"@5s b.factr=1.1", `unknown parameter "b.factr"`},
		{"@5s seed=2", "seed cannot change on the fly"},
		{"@5s stop @4s resume", "times must not go back"},
	} {
		t.Run(tc.changes, func(t *testing.T) {
			q := "duration=60s&changes=" + strings.ReplaceAll(tc.changes, " ", "+")
			res, err := http.Get(srv.URL + "/export.csv?" + q)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "changes") || !strings.Contains(string(body), tc.want) {
				t.Errorf("export: %s %q, want 400 saying %q", res.Status, body, tc.want)
			}
			shown := string(getOK(t, srv.URL+"/?"+q))
			if !strings.Contains(shown, "changes: ") || !strings.Contains(shown, html.EscapeString(tc.want)) {
				t.Errorf("the page does not show the error %q", tc.want)
			}
			p := dialPage(t, srv, q+"&speed=max")
			m := p.await("error", nil)
			if field[string](t, m, "param") != "changes" || !strings.Contains(field[string](t, m, "message"), tc.want) {
				t.Errorf("socket URL: %v", m)
			}
			p.send(inMsg{Type: "set", Query: q})
			m = p.await("error", nil)
			if field[string](t, m, "param") != "changes" || !strings.Contains(field[string](t, m, "message"), tc.want) {
				t.Errorf("set: %v", m)
			}
			syncPage(t, p, "10") // the session answers on
		})
	}
}
