package adviseview

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/advise"
	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/web/internal/webtest"
	"github.com/backofflab/backofflab/web/kit"
)

func TestMain(m *testing.M) { webtest.Main(m) }

var get = webtest.Get

// adviseServer serves the view (Mount) on a kit of its own, with its
// live context in the test's hands.
func adviseServer(t *testing.T, lim kit.Limits) (*httptest.Server, *kit.Kit, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	k := kit.New(ctx, nil, lim, budget.NewPool(1<<30))
	mux := http.NewServeMux()
	Mount(mux, k)
	srv := webtest.Serve(t, mux, cancel, k.Wait)
	return srv, k, cancel
}

// TestDecodeAdvise: a request's bad value is refused naming the
// parameter, the value and what is allowed, whichever row it is (the
// advice's own, the scenario's, the server's bounds, the query's
// syntax); a good one reads back as its canonical query.
func TestDecodeAdvise(t *testing.T) {
	lim := kit.Limits{MaxClients: 5000}.WithDefaults()
	for _, tc := range []struct {
		name, query string
		want        []string // each error's text, in part
	}{
		{"defaults", "", nil},
		{"seeds too many", "seeds=500", []string{`seeds: "500" is not allowed (allowed: a whole number from 1 to 20)`}},
		{"seeds not a number", "seeds=five", []string{`seeds: "five"`}},
		{"library unknown", "library=retrofit", []string{`library: "retrofit" is not allowed`}},
		{"recover_within not a duration", "recover_within=soon", []string{`recover_within: "soon" is not allowed`}},
		{"attempts below one", "attempts_per_request=0.5", []string{`attempts_per_request: "0.5" is not allowed (allowed: a number from 1 to 1000)`}},
		{"clients past the server's bound", "clients=9000", []string{`clients: "9000" is not allowed (allowed: a whole number from 1 to 5000 on this server)`}},
		{"clients at the server's bound", "clients=5000", nil},
		{"no outage", "outage=none", []string{`outage: "none" is not allowed`}},
		{"a lane the advice fills", "b.factor=3", []string{`b.factor: "3" is not allowed (allowed: lane a only`}},
		{"think not a duration", "think=10", []string{`think: "10" is not allowed`}},
		{"a name given twice", "clients=10&clients=20", []string{`clients: "10,20" is not allowed (allowed: give it once)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _, errs := decodeAdvise(tc.query, lim)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if len(tc.want) == 0 {
				if len(errs) > 0 {
					t.Fatalf("errors %q, want none", got)
				}
				again, _, errs := decodeAdvise(req.Query().Encode(), lim)
				if len(errs) > 0 || again.Query().Encode() != req.Query().Encode() {
					t.Errorf("the canonical query %q reads back as %q (%v)", req.Query().Encode(), again.Query().Encode(), errs)
				}
				return
			}
			all := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("errors %q lack %q", all, w)
				}
			}
		})
	}
}

// TestAdvisePage: the page's form has one control per row the advice
// reads, each labelled in words with its name; a bad URL's value is
// named beside its control and runs nothing; the switches hide what
// their value does not read.
func TestAdvisePage(t *testing.T) {
	srv, _, _ := adviseServer(t, kit.Limits{})
	t.Run("form", func(t *testing.T) {
		resp, body := get(t, srv.URL+"/advise", nil)
		page := string(body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %.300s", resp.Status, page)
		}
		names := []string{}
		for _, g := range formGroups {
			names = append(names, g.names...)
		}
		for _, p := range advise.Table {
			names = append(names, p.Name)
		}
		for _, n := range names {
			if c := strings.Count(page, `data-param="`+n+`"`); c != 1 {
				t.Errorf("%d controls of %s, want 1", c, n)
			}
			if !strings.Contains(page, `<code class="name">`+n+`</code>`) {
				t.Errorf("%s's label does not name it as code", n)
			}
		}
		// The landing view's system: a queue server, so the curve's rows
		// are hidden.
		if !strings.Contains(page, `data-ctl="server_limit" hidden`) || strings.Contains(page, `data-ctl="workers" hidden`) {
			t.Errorf("the queue model's page hides the wrong rows")
		}
		if strings.Contains(page, `value="none"`) {
			t.Errorf("the outage menu offers none: the advice is of an outage")
		}
		if !strings.Contains(page, `"run":false`) {
			t.Errorf("a bare /advise runs a search")
		}
	})
	t.Run("bad value", func(t *testing.T) {
		_, body := get(t, srv.URL+"/advise?seeds=500", nil)
		page := string(body)
		want := `data-error-for="seeds" role="alert">seeds: &#34;500&#34; is not allowed (allowed: a whole number from 1 to 20)`
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
		if !strings.Contains(page, `"run":false`) || !strings.Contains(page, "not run: fix the values above") {
			t.Errorf("a bad URL's page runs")
		}
	})
	t.Run("bad value no control shows", func(t *testing.T) {
		_, body := get(t, srv.URL+"/advise?b.factor=3", nil)
		page := string(body)
		if !strings.Contains(page, `b.factor: &#34;3&#34; is not allowed (allowed: lane a only`) {
			t.Errorf("the page does not name b.factor under the form")
		}
		if strings.Contains(page, `name="b.factor"`) {
			t.Errorf("the form carries the bad b.factor: submitting it would fail again")
		}
	})
	t.Run("curve", func(t *testing.T) {
		_, body := get(t, srv.URL+"/advise?server_model=curve&duration=3m&tick=200ms", nil)
		page := string(body)
		if !strings.Contains(page, `data-ctl="workers" hidden`) || strings.Contains(page, `data-ctl="server_limit" hidden`) {
			t.Errorf("the curve's page hides the wrong rows")
		}
		// A value no control shows travels as a hidden field.
		if !strings.Contains(page, `type="hidden" name="tick" value="200ms"`) || !strings.Contains(page, `<code data-carried="tick">tick=200ms</code>`) {
			t.Errorf("the run's tick is not carried by the form, and listed")
		}
		if !strings.Contains(page, `name="duration" data-param="duration" value="3m0s"`) {
			t.Errorf("the run's length is not in its box")
		}
		if !strings.Contains(page, `"run":true`) {
			t.Errorf("a good URL's page does not run")
		}
	})
}

// TestEveryOwnRowHasALabel: each of the advice's own parameters has its
// words on the page.
func TestEveryOwnRowHasALabel(t *testing.T) {
	for _, p := range advise.Table {
		if _, ok := ownLabels[p.Name]; !ok {
			t.Errorf("advise.Table's %s has no label in ownLabels", p.Name)
		}
	}
}

// TestEveryCellHasASign: every outcome of the small map has a sign and a
// pattern besides its colour.
func TestEveryCellHasASign(t *testing.T) {
	for _, o := range []string{advise.CellMeets, advise.CellRecovers, advise.CellFails} {
		i := slices.IndexFunc(cellMarks, func(c cellMark) bool { return c.Outcome == o })
		if i < 0 || cellMarks[i].Sign == "" || cellMarks[i].Pattern == "" || cellMarks[i].Label == "" {
			t.Errorf("the map's outcome %s has no sign, pattern or words", o)
		}
	}
}

// streamLine is one NDJSON line of /advise/stream as the page reads it.
type streamLine struct {
	Type    string          `json:"type"`
	Phase   string          `json:"phase"`
	Done    int             `json:"done"`
	Total   int             `json:"total"`
	Left    float64         `json:"left"`
	Status  string          `json:"status"`
	Message string          `json:"message"`
	Advice  json.RawMessage `json:"advice"`
	Text    string          `json:"text"`
	View    *resultView     `json:"view"`
}

// smallRequest is a search of a tenth of a second: a small system, one
// seed, and a library of one knob (Linkerd's max_attempts). The stream's
// phases, progress and advice are the same whatever the search's size;
// the advice's own tests search the whole grids.
const smallRequest = "clients=100&seeds=1&library=linkerd"

// TestAdviseStream: the stream starts with the search's size, says its
// progress by phase, counting up to its total, and ends with the advice
// as advise.WriteJSON writes it, the same as a search of the same request
// on its own gives, and its text as the headless export's.
func TestAdviseStream(t *testing.T) {
	srv, k, _ := adviseServer(t, kit.Limits{})
	res, next, _ := webtest.OpenStream[streamLine](t, context.Background(), srv.URL+"/advise/stream?"+smallRequest)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/x-ndjson; charset=utf-8" {
		t.Fatalf("%s %s", res.Status, res.Header.Get("Content-Type"))
	}
	var lines []streamLine
	for l, ok := next(); ok; l, ok = next() {
		lines = append(lines, l)
	}
	if len(lines) < 3 || lines[0].Type != "start" || lines[0].Total == 0 {
		t.Fatalf("lines %+v: want a start with the search's runs, progress, the advice", lines)
	}
	last := lines[len(lines)-1]
	if last.Type != "advice" || !strings.HasPrefix(last.Status, "done: ") || last.View == nil || last.Text == "" {
		t.Fatalf("last line %+v, want the advice with its figures and text", last)
	}
	done, phases := 0, []string{}
	for _, l := range lines[1 : len(lines)-1] {
		if l.Type != "progress" || l.Done < done || l.Done > l.Total || l.Phase == "" {
			t.Errorf("progress line %+v after %d done", l, done)
		}
		done = l.Done
		if len(phases) == 0 || phases[len(phases)-1] != l.Phase {
			phases = append(phases, l.Phase)
		}
	}
	if len(phases) == 0 || phases[0] != advise.PhaseSearch {
		t.Errorf("phases %q, want %q first", phases, advise.PhaseSearch)
	}
	// The same request, searched again apart: the same advice.
	req, _, errs := decodeAdvise(smallRequest, k.Limits)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	a, err := advise.Run(context.Background(), req, advise.Options{Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	advise.WriteJSON(&want, a)
	json.Compact(&got, want.Bytes())
	if !bytes.Equal(got.Bytes(), last.Advice) {
		t.Errorf("the stream's advice\n%s\nis not the search's\n%s", last.Advice, got.Bytes())
	}
	var text bytes.Buffer
	advise.WriteText(&text, a)
	if last.Text != text.String() {
		t.Errorf("the stream's text is not advise.WriteText's")
	}
	t.Run("export", func(t *testing.T) {
		resp, body := get(t, srv.URL+"/advise.txt?"+smallRequest, nil)
		if resp.StatusCode != http.StatusOK || string(body) != text.String() || !strings.Contains(resp.Header.Get("Content-Disposition"), "backofflab-advice.txt") {
			t.Errorf("GET /advise.txt: %s %q, %d bytes; want the advice's text", resp.Status, resp.Header.Get("Content-Disposition"), len(body))
		}
		resp, body = get(t, srv.URL+"/advise.json?"+smallRequest, nil)
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want.Bytes()) {
			t.Errorf("GET /advise.json: %s, %d bytes; want advise.WriteJSON's %d", resp.Status, len(body), want.Len())
		}
	})
}

// TestAdviseStreamRefused: a bad request is refused before the stream,
// 400, with each error under its parameter's name; so is a search whose
// estimate is past the budget of a view, with its estimate.
func TestAdviseStreamRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lim   kit.Limits
		query string
		param string
		want  string
	}{
		{"bad seeds", kit.Limits{}, "seeds=500", "seeds", `seeds: "500" is not allowed (allowed: a whole number from 1 to 20)`},
		{"too dear", kit.Limits{ViewCPU: time.Millisecond}, smallRequest, "seeds", "this search would take about"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _, _ := adviseServer(t, tc.lim)
			resp, body := get(t, srv.URL+"/advise/stream?"+tc.query, nil)
			var out struct{ Errors []kit.FieldError }
			if err := json.Unmarshal(body, &out); err != nil || resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("%s %.300s (%v)", resp.Status, body, err)
			}
			if len(out.Errors) != 1 || out.Errors[0].Name != tc.param || !strings.Contains(out.Errors[0].Message, tc.want) {
				t.Errorf("errors %+v, want one of %s saying %q", out.Errors, tc.param, tc.want)
			}
		})
	}
}

// TestAdviseStreamCancel: a page that cancels (its fetch aborted) stops
// the search on the server at once: nothing runs on, and the request
// ends.
func TestAdviseStreamCancel(t *testing.T) {
	srv, k, _ := adviseServer(t, kit.Limits{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, next, _ := webtest.OpenStream[streamLine](t, ctx, srv.URL+"/advise/stream?clients=100&seeds=20")
	for l, ok := next(); ok; l, ok = next() {
		if l.Type == "progress" && l.Done > 0 {
			break
		}
		if l.Type != "start" && l.Type != "progress" {
			t.Fatalf("line %+v before any progress", l)
		}
	}
	cancel()
	testwait.Eventually(t, "no run goes on", func() bool { return k.Running() == 0 && k.InFlight() == 0 })
}
