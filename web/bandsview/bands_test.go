package bandsview

import (
	"bytes"
	"context"
	"html"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/bands"
	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/internal/webtest"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

func TestMain(m *testing.M) { webtest.Main(m) }

var get = webtest.Get

// bandsServer serves the view (Mount) on a kit of its own for a bands
// test, with its pool and its live context in the test's hands.
func bandsServer(t *testing.T, lim kit.Limits) (*httptest.Server, *kit.Kit, *budget.Pool, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pool := budget.NewPool(1 << 30)
	s := kit.New(ctx, nil, lim, pool)
	mux := http.NewServeMux()
	Mount(mux, s)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		cancel()
		srv.Close()
	})
	return srv, s, pool, cancel
}

// streamLine is one NDJSON line of /bands/run.
type streamLine struct {
	Type     string `json:"type"`
	Done     *int   `json:"done"`
	Total    int    `json:"total"`
	CSVBytes int    `json:"csv_bytes"`
	Message  string `json:"message"`
	// The result's words (seedsMsg).
	Captions, Averaged map[string]string
	Collapsed          []string
}

// TestBandsStream: a small band streams its progress, 0 to K, then the
// result, byte for byte what the bands package's writers (the CLI's)
// write for the same scenario and seeds.
func TestBandsStream(t *testing.T) {
	srv, s, pool, _ := bandsServer(t, kit.Limits{})
	const query = "duration=10s&clients=200&outage_at=2s&outage_for=3s&lanes=3&c.strategy=decorrelated&seed=11"
	res, next, body := webtest.OpenStream[streamLine](t, context.Background(), srv.URL+"/bands/run?"+query+"&seeds=4")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/x-ndjson") {
		t.Fatalf("status %d, type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var progress []int
	var result streamLine
	for l, ok := next(); ok; l, ok = next() {
		switch l.Type {
		case "progress":
			if l.Total != 4 || l.Done == nil {
				t.Fatalf("progress %+v", l)
			}
			progress = append(progress, *l.Done)
		case "result":
			result = l
		default:
			t.Fatalf("line %+v", l)
		}
		if result.Type != "" {
			break
		}
	}
	gotJSON, err := body.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	gotCSV, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	if len(progress) < 2 || progress[0] != 0 || progress[len(progress)-1] != 4 {
		t.Errorf("progress %v, want 0 … 4", progress)
	}
	for i := 1; i < len(progress); i++ {
		if progress[i] <= progress[i-1] {
			t.Errorf("progress %v goes back", progress)
		}
	}
	q, _ := url.ParseQuery(query)
	p, err := scenario.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	r, err := bands.Run(context.Background(), p, 4, bands.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var js, csv bytes.Buffer
	r.WriteJSON(&js)
	r.WriteCSV(&csv)
	if gotJSON != js.String() {
		t.Errorf("the stream's JSON (%d bytes) is not the writer's (%d bytes)", len(gotJSON), js.Len())
	}
	if string(gotCSV) != csv.String() || result.CSVBytes != csv.Len() {
		t.Errorf("the stream's CSV (%d bytes, said %d) is not the writer's (%d bytes)", len(gotCSV), result.CSVBytes, csv.Len())
	}
	// The result's words are the band's, for every chart and lane: the
	// page keeps no sentence of its own.
	for i, l := range r.Lanes {
		if i >= len(result.Collapsed) || result.Collapsed[i] != r.Collapsed(i) {
			t.Errorf("collapsed %q, want lane %s's %q", result.Collapsed, l.Name, r.Collapsed(i))
		}
		for _, k := range bandsSpecs {
			key := k.ID + "." + l.Name
			if got, want := result.Captions[key], r.Caption(i, k.Title, false); got != want {
				t.Errorf("caption %s %q, want %q", key, got, want)
			}
			if got, want := result.Averaged[key], r.Caption(i, k.Title, true); k.Smooth && got != want {
				t.Errorf("averaged caption %s %q, want %q", key, got, want)
			}
		}
	}
	testwait.Eventually(t, "no simulation runs", func() bool { return s.Running() == 0 })
	testwait.Eventually(t, "the pool is given back", func() bool { return pool.Used() == 0 })
}

// TestBandsBadQuery: each bad value is answered 400 on the stream, and
// shown on the page (which runs nothing), naming its parameter.
func TestBandsBadQuery(t *testing.T) {
	srv, _, _, _ := bandsServer(t, kit.Limits{MaxBandCells: 20_000})
	for _, tc := range []struct{ query, want string }{
		{"seeds=0", `seeds: "0" is not allowed (allowed: a whole number from 1 to 100)`},
		{"seeds=101", `seeds: "101" is not allowed (allowed: a whole number from 1 to 100)`},
		{"seeds=many", `seeds: "many" is not allowed`},
		// (6 seeds + 3) × 2 lanes × 1200 ticks = 21 600 > 20 000.
		{"seeds=6", `seeds: "6" is not allowed (allowed: a whole number from 1 to 5 for this run ((seeds + 3) × lanes × ticks ≤ 20000; it has 2 lanes of 1200 ticks))`},
		{"seeds=2&clients=0", `clients: "0" is not allowed`},
		{"seeds=2&b.source=real", `b.source: "real" is not allowed (allowed: sim`},
		{"seeds=2&lanes=9", `lanes: "9"`},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res, body := get(t, srv.URL+"/bands/run?"+tc.query, nil)
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), tc.want) {
				t.Errorf("stream: %d %q, want 400 with %q", res.StatusCode, body, tc.want)
			}
			res, body = get(t, srv.URL+"/bands?"+tc.query, nil)
			page := string(body)
			if res.StatusCode != 200 || !strings.Contains(page, html.EscapeString(tc.want)) || strings.Contains(page, `"run":"/bands/run`) {
				t.Errorf("page: %d, want it to show %q and run nothing", res.StatusCode, tc.want)
			}
		})
	}
}

// longBand is a band that runs for many seconds: 60 seeds of ten minutes
// of a storm.
const longBand = "duration=10m&clients=5000&seeds=60"

// TestBandsLeaveCancels: a page that leaves mid-band stops every seed
// (Server.Running back to 0), gives its slot and memory back; while it
// runs, the next band past MaxViews is told the server is busy.
func TestBandsLeaveCancels(t *testing.T) {
	srv, s, pool, _ := bandsServer(t, kit.Limits{MaxViews: 1, ViewCores: 2})
	ctx, leave := context.WithCancel(context.Background())
	_, next, _ := webtest.OpenStream[streamLine](t, ctx, srv.URL+"/bands/run?"+longBand)
	if l, ok := next(); !ok || l.Type != "progress" {
		t.Fatalf("first line %+v", l)
	}
	testwait.Eventually(t, "seeds run", func() bool { return s.Running() > 0 })
	res, body := get(t, srv.URL+"/bands/run?"+longBand, nil)
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "server busy") {
		t.Errorf("a second band: %d %q, want 503 server busy", res.StatusCode, body)
	}
	leave()
	testwait.Eventually(t, "no simulation runs", func() bool { return s.Running() == 0 })
	testwait.Eventually(t, "the pool is given back", func() bool { return pool.Used() == 0 })
	// The slot is free again.
	res, _ = get(t, srv.URL+"/bands/run?duration=5s&clients=100&seeds=2", nil)
	if res.StatusCode != 200 {
		t.Errorf("a band after the first left: %d", res.StatusCode)
	}
}

// TestBandsShutdown: a band under way when the server shuts down ends
// with an error line saying so, and nothing runs on.
func TestBandsShutdown(t *testing.T) {
	srv, s, _, shutdown := bandsServer(t, kit.Limits{})
	_, next, _ := webtest.OpenStream[streamLine](t, context.Background(), srv.URL+"/bands/run?"+longBand)
	next()
	testwait.Eventually(t, "seeds run", func() bool { return s.Running() > 0 })
	shutdown()
	var last streamLine
	for l, ok := next(); ok; l, ok = next() {
		last = l
	}
	if last.Type != "error" || !strings.Contains(last.Message, "shutting down") {
		t.Errorf("last line %+v, want an error saying the server is shutting down", last)
	}
	testwait.Eventually(t, "no simulation runs", func() bool { return s.Running() == 0 })
	if err := s.Wait(context.Background()); err != nil {
		t.Error(err)
	}
}

// TestBandsCrossSite: another site's page cannot make this server run
// a band.
func TestBandsCrossSite(t *testing.T) {
	srv, _, _, _ := bandsServer(t, kit.Limits{})
	res, _ := get(t, srv.URL+"/bands/run?seeds=2&duration=5s", http.Header{"Sec-Fetch-Site": {"cross-site"}})
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("cross-site: %d, want 403", res.StatusCode)
	}
}

// TestHiddenFieldsAreTheQuery: the seeds form's hidden fields are the
// scenario's query as the playground writes it, value for value.
func TestHiddenFieldsAreTheQuery(t *testing.T) {
	for _, tc := range []struct{ name, query string }{
		{"the defaults", ""},
		{"a speed of its own", "speed=1"},
		{"values of the system and of a lane", "clients=300&b.strategy=full_jitter&b.factor=3&speed=16"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := url.ParseQuery(tc.query)
			st, errs := scene.DecodeScenario(q, kit.DefaultLimits)
			if len(errs) > 0 {
				t.Fatalf("decode %q: %v", tc.query, errs)
			}
			want, err := url.ParseQuery(st.Query())
			if err != nil {
				t.Fatalf("the scenario's query %q: %v", st.Query(), err)
			}
			got := url.Values{}
			for _, kv := range newBandsPage(st, 20, nil).Hidden {
				got.Add(kv[0], kv[1])
			}
			if !maps.EqualFunc(got, want, slices.Equal) {
				t.Errorf("hidden fields %v, want %v (of %q)", got, want, st.Query())
			}
		})
	}
}
