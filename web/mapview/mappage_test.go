package mapview

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/sweep"
	"github.com/backofflab/backofflab/web/internal/webtest"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

func TestMain(m *testing.M) { webtest.Main(m) }

var (
	get       = webtest.Get
	withQuery = webtest.WithQuery
)

// mapTestServer serves the view (Mount) on a kit of its own on loopback
// and returns the kit, so that a test reads its Running(); the kit's
// context ends with the test.
func mapTestServer(t *testing.T, lim kit.Limits) (*httptest.Server, *kit.Kit, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := kit.New(ctx, nil, lim, nil)
	mux := http.NewServeMux()
	Mount(mux, s)
	return webtest.Serve(t, mux, cancel, s.Wait), s, cancel
}

// mapStream is a test's reading of GET /map/cells.
type mapStream struct {
	resp *http.Response
	sc   *bufio.Scanner
}

func openMapStream(t *testing.T, ctx context.Context, base, query string) *mapStream {
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
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	return &mapStream{resp: resp, sc: sc}
}

// streamMsg is a line of the stream, with its point's cells.
type streamMsg struct {
	Type    string
	Total   int
	Points  int
	Message string
	X, Y    int
	Cells   []mapCell
	Lanes   []pointLane
}

func (s *mapStream) next(t *testing.T) (streamMsg, bool) {
	t.Helper()
	if !s.sc.Scan() {
		return streamMsg{}, false
	}
	var m streamMsg
	if err := json.Unmarshal(s.sc.Bytes(), &m); err != nil {
		t.Fatalf("a line of the stream does not parse: %v: %s", err, s.sc.Bytes())
	}
	return m, true
}

const testMap = "x=outage_for&x_from=2s&x_to=30s&x_steps=3&y=clients&y_from=300&y_to=1200&y_steps=2&seeds=2&duration=40s&outage_at=10s"

// TestMapCellsArriveOnceEqualSweepRun: every cell of a small map arrives
// once, within its point, and equals what sweep.Run gives for it; each
// point's summary of its lanes is its seeds'.
func TestMapCellsArriveOnceEqualSweepRun(t *testing.T) {
	hs, _, _ := mapTestServer(t, kit.Limits{})
	q, _ := url.ParseQuery(testMap)
	spec, err := sweep.ParseSpec(q, sweep.CLILimits)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]sweep.Cell, spec.Cells())
	if err := sweep.Run(context.Background(), spec, sweep.Options{Parallel: 2}, func(c sweep.Cell) { want[c.Index] = c }); err != nil {
		t.Fatal(err)
	}

	s := openMapStream(t, context.Background(), hs.URL, testMap)
	m, _ := s.next(t)
	if m.Type != "start" || m.Total != 12 || m.Points != 6 {
		t.Fatalf("first message %+v, want start of 12 cells in 6 points", m)
	}
	seen := make([]int, spec.Cells())
	points := map[[2]int]bool{}
	var last streamMsg
	for {
		m, ok := s.next(t)
		if !ok {
			break
		}
		last = m
		if m.Type != "point" {
			continue
		}
		if points[[2]int{m.X, m.Y}] {
			t.Errorf("point %d,%d sent twice", m.X, m.Y)
		}
		points[[2]int{m.X, m.Y}] = true
		if len(m.Cells) != spec.Seeds {
			t.Errorf("point %d,%d has %d cells, want %d seeds", m.X, m.Y, len(m.Cells), spec.Seeds)
		}
		recovered := make([]int, len(m.Lanes))
		serviceBack := make([]int, len(m.Lanes))
		for _, c := range m.Cells {
			seen[c.Index]++
			w := want[c.Index]
			if w.X != m.X || w.Y != m.Y {
				t.Errorf("cell %d in point %d,%d, but it is at %d,%d", c.Index, m.X, m.Y, w.X, w.Y)
			}
			if c.Seed != w.Seed || c.Query != w.Query().Encode() {
				t.Errorf("cell %d: seed %d query %s, sweep.Run's %d %s", c.Index, c.Seed, c.Query, w.Seed, w.Query().Encode())
			}
			for i, l := range w.Lanes {
				if c.Outcomes[i] != l.Outcome || !reflect.DeepEqual(c.Summaries[i], l.Summary) {
					t.Errorf("cell %d lane %s: %s %+v, sweep.Run's %s %+v", c.Index, l.Lane, c.Outcomes[i], c.Summaries[i], l.Outcome, l.Summary)
				}
				if l.Outcome == sweep.OutcomeRecovered {
					recovered[i]++
					if l.Summary.ServiceRecoveredAfter != nil {
						serviceBack[i]++
					}
				}
			}
		}
		for i, l := range m.Lanes {
			if l.Counts[sweep.OutcomeRecovered] != recovered[i] {
				t.Errorf("point %d,%d lane %d: %d recovered, its cells say %d", m.X, m.Y, i, l.Counts[sweep.OutcomeRecovered], recovered[i])
			}
			if (l.Recovery != nil) != (serviceBack[i] > 0) {
				t.Errorf("point %d,%d lane %d: recovery %v with %d seeds' service back", m.X, m.Y, i, l.Recovery, serviceBack[i])
			}
		}
	}
	if last.Type != "done" {
		t.Errorf("last message %+v, want done", last)
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("cell %d arrived %d times", i, n)
		}
	}
	if len(points) != 6 {
		t.Errorf("%d points, want 6", len(points))
	}
}

// TestMapPoint: a point's lane says what its seeds add up to: the
// outcome of most (a tie to the worse), the median recovery of those that
// recovered, the highest peak.
func TestMapPoint(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cell := func(i int, outcome string, rec *float64, peak int) sweep.Cell {
		c := sweep.Cell{CellKey: sweep.CellKey{Index: i}}
		l := sweep.LaneResult{Lane: "a", Outcome: outcome}
		l.Summary.ServiceRecoveredAfter, l.Summary.PeakConcurrency = rec, peak
		l.Summary.Collapsed = outcome == sweep.OutcomeCollapsed
		c.Lanes = []sweep.LaneResult{l}
		return c
	}
	for _, tc := range []struct {
		name    string
		cells   []sweep.Cell
		outcome string
		rec     *float64
		peak    int
	}{
		{"one seed", []sweep.Cell{cell(0, sweep.OutcomeRecovered, f(3), 40)}, sweep.OutcomeRecovered, f(3), 40},
		{"most recover", []sweep.Cell{cell(0, sweep.OutcomeRecovered, f(3), 40), cell(1, sweep.OutcomeCollapsed, nil, 900),
			cell(2, sweep.OutcomeRecovered, f(5), 50)}, sweep.OutcomeRecovered, f(4), 900},
		{"a tie goes to the worse", []sweep.Cell{cell(0, sweep.OutcomeRecovered, f(3), 40), cell(1, sweep.OutcomeCollapsed, nil, 900)},
			sweep.OutcomeCollapsed, f(3), 900},
		{"only the server recovers", []sweep.Cell{cell(0, sweep.OutcomeRecovered, nil, 70)}, sweep.OutcomeRecovered, nil, 70},
		{"none recovers", []sweep.Cell{cell(0, sweep.OutcomeCollapsed, nil, 9), cell(1, sweep.OutcomeCollapsed, nil, 8)},
			sweep.OutcomeCollapsed, nil, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newMapPoint(0, 0, tc.cells).Lanes[0]
			if l.Outcome != tc.outcome || l.Peak != tc.peak || !reflect.DeepEqual(l.Recovery, tc.rec) {
				t.Errorf("got %s, recovery %v, peak %d; want %s, %v, %d", l.Outcome, ptrStr(l.Recovery), l.Peak, tc.outcome, ptrStr(tc.rec), tc.peak)
			}
			if len(tc.cells) > 1 && !strings.HasPrefix(l.Verdict, "of ") {
				t.Errorf("verdict %q, want the seeds' counts", l.Verdict)
			}
		})
	}
}

func ptrStr(f *float64) any {
	if f == nil {
		return "nil"
	}
	return *f
}

// slowMap is a map whose cells take seconds each: a storm of 20 000
// clients for an hour, which a cancel must cut.
const slowMap = "x=outage_for&x_from=10s&x_to=40s&x_steps=8&y=clients&y_from=10000&y_to=20000&y_steps=8&duration=1h&a.strategy=fixed&b.strategy=fixed"

// waitServerRunning waits until ok(s.Running()).
func waitServerRunning(t *testing.T, s *kit.Kit, what string, ok func(int64) bool) {
	t.Helper()
	testwait.Eventually(t, what, func() bool { return ok(s.Running()) })
}

// TestMapCancel: a map's work stops when its page leaves (the request
// cancelled), when the page changes the map (the old request cancelled,
// a new one started), and when the server shuts down, whose stream ends
// with a line saying so: Server.Running() drops to 0, and goleak
// (TestMain) finds nothing left.
func TestMapCancel(t *testing.T) {
	t.Run("leave", func(t *testing.T) {
		hs, s, _ := mapTestServer(t, kit.Limits{RunMemory: 64 << 20})
		ctx, cancel := context.WithCancel(context.Background())
		st := openMapStream(t, ctx, hs.URL, slowMap)
		st.next(t) // start
		waitServerRunning(t, s, "the map runs", func(n int64) bool { return n > 0 })
		cancel()
		waitServerRunning(t, s, "after the page left", func(n int64) bool { return n == 0 })
	})
	t.Run("change", func(t *testing.T) {
		hs, s, _ := mapTestServer(t, kit.Limits{RunMemory: 64 << 20, ViewCores: 2})
		ctx1, cancel1 := context.WithCancel(context.Background())
		st1 := openMapStream(t, ctx1, hs.URL, slowMap)
		st1.next(t)
		waitServerRunning(t, s, "the first map runs", func(n int64) bool { return n > 0 })
		cancel1()
		ctx2, cancel2 := context.WithCancel(context.Background())
		defer cancel2()
		changed := strings.Replace(slowMap, "x_steps=8", "x_steps=3", 1)
		st2 := openMapStream(t, ctx2, hs.URL, changed)
		if m, _ := st2.next(t); m.Total != 24 {
			t.Fatalf("the changed map starts %+v, want 24 cells", m)
		}
		waitServerRunning(t, s, "the changed map runs", func(n int64) bool { return n > 0 })
		cancel2()
		waitServerRunning(t, s, "after the second left", func(n int64) bool { return n == 0 })
	})
	t.Run("shutdown", func(t *testing.T) {
		hs, s, shutdown := mapTestServer(t, kit.Limits{RunMemory: 64 << 20})
		st := openMapStream(t, context.Background(), hs.URL, slowMap)
		st.next(t)
		waitServerRunning(t, s, "the map runs", func(n int64) bool { return n > 0 })
		shutdown()
		waitServerRunning(t, s, "after the server's context ended", func(n int64) bool { return n == 0 })
		// The stream ends whole, its last line saying why, as the bands'
		// does: the page tells a shutdown from a broken connection.
		var last streamMsg
		for m, ok := st.next(t); ok; m, ok = st.next(t) {
			last = m
		}
		if err := st.sc.Err(); err != nil {
			t.Errorf("the stream was cut: %v", err)
		}
		if last.Type != "error" || !strings.Contains(last.Message, "shutting down") {
			t.Errorf("last line %+v, want an error saying the server is shutting down", last)
		}
	})
}

// TestMapBadInput: a bad map is refused before any work, 400, each error
// naming its parameter and value; a map past the server's cap of maps is
// told the server is busy, 503.
func TestMapBadInput(t *testing.T) {
	hs, _, _ := mapTestServer(t, kit.Limits{MaxViews: 1, MaxClients: 5000})
	good := "x=outage_for&x_from=2s&x_to=30s&x_steps=3&duration=30s"
	for _, tc := range []struct {
		name, query, param, words string
	}{
		{"no such axis", strings.Replace(good, "x=outage_for", "x=nope", 1), "x", "numeric parameter"},
		{"steps past the web's cap", strings.Replace(good, "x_steps=3", "x_steps=65", 1), "x_steps", "2 to 64"},
		{"seeds past the web's cap", good + "&seeds=11", "seeds", "1 to 10"},
		{"cells past the web's cap", strings.Replace(good, "x_steps=3", "x_steps=64", 1) + "&y=clients&y_from=100&y_to=1000&y_steps=64&seeds=2", "cells", "at most 4096"},
		{"a value out of its range", strings.Replace(good, "x_to=30s", "x_to=-1s", 1), "x_to", "outage_for"},
		{"clients past this server", good + "&clients=6000", "clients", "1 to 5000"},
		{"an axis of clients past this server", "x=clients&x_from=100&x_to=9000&x_steps=3&duration=30s", "x_to", "5000"},
		{"duration past this server", withQuery(t, good, "duration=2h"), "duration", "1h0m0s"},
		{"a real lane", good + "&b.source=real", "b.source", "sim"},
		{"no x", "x_from=1s&x_to=2s", "x", "every sweep needs"},
		{"a scenario error", good + "&think=banana", "think", "banana"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := get(t, hs.URL+"/map/cells?"+tc.query, nil)
			if resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("%s: %.300s", resp.Status, body)
			}
			var me struct{ Errors []kit.FieldError }
			if err := json.Unmarshal(body, &me); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			found := false
			for _, e := range me.Errors {
				if e.Name == tc.param && strings.Contains(e.Message, tc.words) {
					found = true
				}
			}
			if !found {
				t.Errorf("no error names %s with %q: %s", tc.param, tc.words, body)
			}
			// The page shows the same error beside its control, or under
			// the form for a parameter the form has no control of.
			resp, page := get(t, hs.URL+"/map?"+tc.query, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("the page: %s", resp.Status)
			}
			where := regexp.MustCompile(`data-error-for="` + regexp.QuoteMeta(tc.param) + `" role="alert">([^<]*)<`).FindSubmatch(page)
			if where == nil {
				where = regexp.MustCompile(`id="map-errors"[^>]*>((?:<p>[^<]*</p>)*)</div>`).FindSubmatch(page)
			}
			if where == nil || !bytes.Contains(where[1], []byte(html.EscapeString(tc.words))) {
				t.Errorf("the page does not say %q beside %s", tc.words, tc.param)
			}
		})
	}
	t.Run("busy", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st := openMapStream(t, ctx, hs.URL, "x=outage_for&x_from=10s&x_to=40s&x_steps=8&clients=5000&duration=1h&a.strategy=fixed&b.strategy=fixed")
		st.next(t)
		resp, body := get(t, hs.URL+"/map/cells?"+good, nil)
		if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "server busy: 1 maps") {
			t.Errorf("a second map with one allowed: %s: %s", resp.Status, body)
		}
	})
}

// TestMapExports: the map's CSV and JSON are sweep.NewWriter's over
// sweep.Run's cells, byte for byte, whether the server runs the map again
// (GET) or formats the cells the page posts (POST); a post that lacks a
// cell, repeats one or names one outside the map is refused.
func TestMapExports(t *testing.T) {
	hs, _, _ := mapTestServer(t, kit.Limits{})
	q, _ := url.ParseQuery(testMap)
	spec, err := sweep.ParseSpec(q, sweep.CLILimits)
	if err != nil {
		t.Fatal(err)
	}
	var cells []sweep.Cell
	if err := sweep.Run(context.Background(), spec, sweep.Options{Parallel: 2}, func(c sweep.Cell) { cells = append(cells, c) }); err != nil {
		t.Fatal(err)
	}
	var posted []postedCell
	for _, c := range cells {
		pc := postedCell{Index: c.Index}
		for _, l := range c.Lanes {
			pc.Summaries = append(pc.Summaries, l.Summary)
		}
		posted = append(posted, pc)
	}
	post := func(format string, body any) (*http.Response, []byte) {
		t.Helper()
		b, _ := json.Marshal(body)
		resp, err := http.Post(hs.URL+"/map."+format+"?"+testMap, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp, out
	}
	for _, format := range sweep.Formats {
		t.Run(format, func(t *testing.T) {
			var want bytes.Buffer
			w, err := sweep.NewWriter(&want, format, spec, sweep.Shard{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cells {
				w.Add(c)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			resp, got := get(t, hs.URL+"/map."+format+"?"+testMap, nil)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want.Bytes()) {
				t.Errorf("GET: %s, %d bytes, want %d:\n%.400s\nwant\n%.400s", resp.Status, len(got), want.Len(), got, want.Bytes())
			}
			resp, got = post(format, posted)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(got, want.Bytes()) {
				t.Errorf("POST: %s, %d bytes, want %d:\n%.400s", resp.Status, len(got), want.Len(), got)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		body  []postedCell
		words string
	}{
		{"a cell missing", posted[1:], "is missing"},
		{"a cell twice", append(slicesClone(posted), posted[3]), "is in the body twice"},
		{"a cell outside", append(slicesClone(posted[1:]), postedCell{Index: 99, Summaries: posted[0].Summaries}), "cell index 99"},
		{"a lane short", append([]postedCell{{Index: posted[0].Index, Summaries: posted[0].Summaries[:1]}}, posted[1:]...), "1 summaries, the map 2 lanes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, got := post("csv", tc.body)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(got), tc.words) {
				t.Errorf("%s: %s, want 400 saying %q", resp.Status, got, tc.words)
			}
		})
	}
}

func slicesClone[T any](s []T) []T { return append([]T(nil), s...) }

// TestMapView: the form's menus offer the numeric parameters the scenario
// reads (a lane's strategy parameters for the lanes whose strategy uses
// them), each with a range in the parameter's own range; a playground
// link's scenario is carried (its speed is not), and the back link opens
// it in the playground.
func TestMapView(t *testing.T) {
	q, _ := url.ParseQuery("speed=4&a.strategy=fixed&b.strategy=exponential&clients=500&x=b.factor&x_from=1&x_to=3&x_steps=5")
	v := newMapView(q, nil, kit.Limits{}.WithDefaults())
	if !v.Data.Valid {
		t.Fatalf("not a whole map: %v", v.General)
	}
	choices := map[string]bool{}
	for _, c := range v.Axes[0].Name.Choices {
		choices[c.Value] = true
	}
	for name, want := range map[string]bool{"outage_for": true, "clients": true, "b.min_delay": true, "b.factor": true,
		"a.min_delay": true, "a.factor": false, "seed": false, "server_model": false, "workers": true, "server_k": false} {
		if choices[name] != want {
			t.Errorf("the x menu offers %s: %v, want %v", name, choices[name], want)
		}
	}
	if v.Axes[1].Name.Choices[0].Value != "" {
		t.Errorf("y's first choice is %q, want none", v.Axes[1].Name.Choices[0].Value)
	}
	for name, s := range v.Data.Suggest {
		p := url.Values{"x": {name}, "x_from": {s.From}, "x_to": {s.To}, "x_steps": {s.Steps}, "x_scale": {s.Scale}}
		if _, errs := decodeMap(p, kit.Limits{}.WithDefaults()); len(errs) > 0 {
			t.Errorf("the suggested range of %s (%s to %s in %s steps, %s) is refused: %v", name, s.From, s.To, s.Steps, s.Scale, errs[0])
		}
	}
	base, _ := url.ParseQuery(v.Data.Base)
	if base.Get("clients") != "500" || base.Has("speed") || base.Has("x") {
		t.Errorf("the map's scenario is %s", v.Data.Base)
	}
	if v.Back != "/?"+v.Data.Base {
		t.Errorf("back link %q", v.Back)
	}
	if got := strings.Join(v.Data.X.Values, " "); got != "1 1.5 2 2.5 3" {
		t.Errorf("x values %q", got)
	}
	if v.Data.X.Label != "lane b: delay growth" || v.Data.Cells != 5 {
		t.Errorf("x labelled %q, %d cells", v.Data.X.Label, v.Data.Cells)
	}
	for _, part := range v.Scenario {
		if strings.HasPrefix(part, "b.factor=") {
			t.Errorf("the scenario names the axis's own parameter: %v", v.Scenario)
		}
	}
}

// TestMapOfPlaygroundLinks: the playground's "Phase map of this run" link
// carries its whole canonical query, lanes included; the map's page opens
// for it, with or without axes, without an error, and names the number
// of lanes among the scenario's parameters.
func TestMapOfPlaygroundLinks(t *testing.T) {
	hs, _, _ := mapTestServer(t, kit.Limits{})
	lim := kit.Limits{}.WithDefaults()
	for _, tc := range []struct {
		name, query, lanes string
	}{
		{"the landing view", "", "lanes=2"},
		{"lanes alone", "lanes=2", "lanes=2"},
		{"three lanes, a changed strategy", "lanes=3&c.strategy=fixed&c.min_delay=250ms&clients=700", "lanes=3"},
		{"one lane", "lanes=1&a.strategy=exponential", "lanes=1"},
	} {
		for _, axes := range []string{"", "&x=outage_for&x_from=2s&x_to=30s&x_steps=3"} {
			t.Run(tc.name+axes, func(t *testing.T) {
				q, err := url.ParseQuery(tc.query)
				if err != nil {
					t.Fatal(err)
				}
				st, errs := scene.DecodeScenario(q, lim)
				if len(errs) > 0 {
					t.Fatalf("decode: %v", errs)
				}
				// The link as the playground writes it (page.templ's view-map).
				resp, body := get(t, hs.URL+"/map?"+st.Query()+axes, nil)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET /map of the playground's link: %s %.300s", resp.Status, body)
				}
				scen := regexp.MustCompile(`<code id="map-scenario">([^<]*)<`).FindSubmatch(body)
				if scen == nil {
					t.Fatalf("no scenario on the page: %.300s", body)
				}
				if parts := strings.Split(html.UnescapeString(string(scen[1])), " · "); !slices.Contains(parts, tc.lanes) {
					t.Errorf("the scenario %q does not name %s", scen[1], tc.lanes)
				}
				// The form, without axes yet, is no error: the axes are to choose.
				for _, m := range regexp.MustCompile(`data-error-for="([^"]*)" role="alert">([^<]+)<`).FindAllSubmatch(body, -1) {
					t.Errorf("the page shows an error for %q: %s", m[1], m[2])
				}
			})
		}
	}
}
