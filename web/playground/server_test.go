package playground

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/static"
	"github.com/backofflab/backofflab/web/internal/webtest"
	"github.com/backofflab/backofflab/web/kit"
)

func TestMain(m *testing.M) { webtest.Main(m) }

// newTestServer serves the playground (Mount, with the shared assets
// that its page loads) on loopback until the test ends.
func newTestServer(t *testing.T, lim Limits) (*httptest.Server, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv, _ := serveMounted(ctx, lim)
	t.Cleanup(func() {
		cancel()
		srv.Close()
	})
	return srv, cancel
}

// serveMounted serves the playground under ctx's life on a kit of lim,
// which it returns, and the shared assets that its page loads; the
// shell's own tests check its guards and headers.
func serveMounted(ctx context.Context, lim Limits) (*httptest.Server, *kit.Kit) {
	return serveMountedPool(ctx, lim, nil)
}

// serveMountedPool is serveMounted with the memory pool in the test's
// hands.
func serveMountedPool(ctx context.Context, lim Limits, pool *budget.Pool) (*httptest.Server, *kit.Kit) {
	k := kit.New(ctx, nil, lim, pool)
	mux := http.NewServeMux()
	Mount(mux, k)
	mux.Handle("GET /static/", kit.Assets(static.FS))
	return httptest.NewServer(mux), k
}

var (
	col       = webtest.Col
	get       = webtest.Get
	withQuery = webtest.WithQuery
)

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
		{"faults=herd:10s:0s:2", `faults: "herd:10s:0s:2" is not allowed (allowed: fault 1 ("herd:10s:0s:2"): magnitude "2" is not a number from 0 to 1`},
		{"arrival=open&faults=herd:10s:0s:1", `faults: "herd:10s:0s:1" is not allowed (allowed: fault 1 ("herd:10s:0s:1"): for 0s is not a duration from 1ns to 24h0m0s`},
	} {
		resp, body := get(t, srv.URL+"/export.csv?"+tc.query, nil)
		if resp.StatusCode != 400 || !strings.Contains(string(body), tc.want) {
			t.Errorf("%s: %d %q, want 400 with %q", tc.query, resp.StatusCode, body, tc.want)
		}
	}
}
