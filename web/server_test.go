package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"backofflab/scenario"
	"backofflab/simengine"
	"backofflab/static"
	"backofflab/web/kit"
)

func TestMain(m *testing.M) {
	// The tests' long maps are estimated from their corners' CPU time,
	// which the race detector multiplies several times: the default budget
	// of a view would refuse them there. The budget's own tests set theirs.
	kit.DefaultLimits.AnalysisCPU = 1000 * time.Hour
	goleak.VerifyTestMain(m)
}

// newTestServer serves NewServer on loopback until the test ends.
func newTestServer(t *testing.T, lim Limits) (*httptest.Server, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv := httptest.NewServer(NewServer(ctx, Options{Limits: lim}))
	t.Cleanup(func() {
		cancel()
		srv.Close()
	})
	return srv, cancel
}

// withQuery returns query with the values of change set over its own: a
// query that gives a name twice is refused (kit.ParseQuery).
func withQuery(t *testing.T, query, change string) string {
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

func get(t *testing.T, u string, hdr http.Header) (*http.Response, []byte) {
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

func TestHealthz(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	resp, body := get(t, srv.URL+"/healthz", nil)
	if resp.StatusCode != 200 || string(body) != "ok\n" {
		t.Fatalf("healthz: %d %q", resp.StatusCode, body)
	}
}

func TestSecurityHeaders(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	for _, path := range []string{"/", "/healthz", "/static/app.js", "/export.csv?duration=1s"} {
		resp, _ := get(t, srv.URL+path, nil)
		got := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self'", "connect-src 'self'", "default-src 'self'"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: CSP %q lacks %q", path, got, want)
			}
		}
		if strings.Contains(got, "unsafe-inline") {
			t.Errorf("%s: CSP allows inline code: %q", path, got)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", path)
		}
	}
}

func TestStaticCompressed(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	for _, name := range []string{"app.js", "common.js", "style.css", "vendor/echarts/echarts.min.js"} {
		want, err := fs.ReadFile(static.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			resp, plain := get(t, srv.URL+"/static/"+name, nil)
			if resp.StatusCode != 200 || !bytes.Equal(plain, want) {
				t.Fatalf("plain: status %d, %d bytes, want %d", resp.StatusCode, len(plain), len(want))
			}
			resp, gz := get(t, srv.URL+"/static/"+name, http.Header{"Accept-Encoding": {"gzip, br"}})
			if resp.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("no gzip: %v", resp.Header)
			}
			zr, err := gzip.NewReader(bytes.NewReader(gz))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(zr)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("gzip body differs (err %v)", err)
			}
			if len(want) > 10_000 && len(gz) > len(want)/2 {
				t.Errorf("gzip %d bytes of %d: not compressed", len(gz), len(want))
			}
		})
	}
	if resp, _ := get(t, srv.URL+"/static/nope.js", nil); resp.StatusCode != 404 {
		t.Errorf("missing asset: %d", resp.StatusCode)
	}
	if resp, body := get(t, srv.URL+"/static/../static/static.go", nil); resp.StatusCode == 200 || strings.Contains(string(body), "package static") {
		t.Errorf("path escape: %d %.40q", resp.StatusCode, body)
	}
}

// TestExportMatchesRun checks that the headless exports write what
// `backofflab run -format csv|json` writes for the same parameters: both
// call simengine's writers on the parsed query.
func TestExportMatchesRun(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	query := "clients=300&duration=20s&outage_at=5s&outage_for=5s&a.strategy=fixed&b.strategy=full_jitter&speed=10"
	q, _ := url.ParseQuery(query)
	q.Del("speed")
	p, err := scenario.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"csv", "json"} {
		t.Run(format, func(t *testing.T) {
			var want bytes.Buffer
			write := simengine.WriteCSV
			if format == "json" {
				write = simengine.WriteJSON
			}
			if err := write(context.Background(), &want, p, nil); err != nil {
				t.Fatal(err)
			}
			resp, got := get(t, srv.URL+"/export."+format+"?"+query, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, got)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("export differs from run -format %s:\n%.300s\nwant\n%.300s", format, got, want.Bytes())
			}
			if !strings.Contains(resp.Header.Get("Content-Disposition"), "backofflab."+format) {
				t.Errorf("Content-Disposition %q", resp.Header.Get("Content-Disposition"))
			}
		})
	}
}

func TestExportRejectsBadValues(t *testing.T) {
	srv, _ := newTestServer(t, Limits{MaxSessions: 1, MaxClients: 500, MaxDuration: kit.DefaultLimits.MaxDuration})
	for _, tc := range []struct{ query, want string }{
		{"clients=0", `clients: "0"`},
		{"a.factor=abc", `a.factor: "abc"`},
		{"clients=501", "1 to 500 on this server"},
		{"speed=fast", `speed: "fast"`},
		{"bogus=1", "bogus"},
	} {
		resp, body := get(t, srv.URL+"/export.csv?"+tc.query, nil)
		if resp.StatusCode != 400 || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %d %q, want 400 with %q", tc.query, resp.StatusCode, body, tc.want)
		}
	}
}

func TestDecodeLenientKeepsGoodValues(t *testing.T) {
	q, _ := url.ParseQuery("clients=500&a.factor=abc&b.strategy=grpc&think=-1s&speed=2")
	st, errs := decodeLenient(q, kit.DefaultLimits)
	if st.p.Clients != 500 || st.p.Lanes[1].Strategy != "grpc" || st.speed != "2" {
		t.Errorf("good values lost: clients %d, b %s, speed %s", st.p.Clients, st.p.Lanes[1].Strategy, st.speed)
	}
	if st.p.Think != scenario.Defaults().Think {
		t.Errorf("bad think kept: %v", st.p.Think)
	}
	names := map[string]bool{}
	for _, e := range errs {
		names[e.Name] = true
	}
	if !names["a.factor"] || !names["think"] || len(errs) != 2 {
		t.Errorf("errors %v, want a.factor and think", errs)
	}
}
