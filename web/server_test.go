package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/static"
	"github.com/backofflab/backofflab/web/internal/webtest"
)

// TestMain closes the browser tests' shared Chromium after the last test,
// before goleak looks for what outlived them.
func TestMain(m *testing.M) { webtest.Main(m, chromium.stop) }

// serveShell serves NewServer(opts) on loopback until the test ends, and
// returns the Server too, whose Running a test watches, and the cancel of
// its live context. When the test ends the server's context ends and the
// test waits for what it had in flight.
func serveShell(t *testing.T, opts Options) (*httptest.Server, *Server, context.CancelFunc) {
	t.Helper()
	return serveShellWrapped(t, opts, func(h http.Handler) http.Handler { return h })
}

// serveShellWrapped is serveShell with the server's handler wrapped by
// wrap.
func serveShellWrapped(t *testing.T, opts Options, wrap func(http.Handler) http.Handler) (*httptest.Server, *Server, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := NewServer(ctx, opts)
	return webtest.Serve(t, wrap(s), cancel, s.Wait), s, cancel
}

var (
	col       = webtest.Col
	get       = webtest.Get
	withQuery = webtest.WithQuery
)

// asset returns the bytes of a served asset: the shared ones' from
// package static, a view's own from its package's folder.
func asset(t *testing.T, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(static.FS, name)
	if err != nil {
		b, err = os.ReadFile("playground/" + name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestHealthz(t *testing.T) {
	srv, _, _ := serveShell(t, Options{})
	resp, body := get(t, srv.URL+"/healthz", nil)
	if resp.StatusCode != 200 || string(body) != "ok\n" {
		t.Fatalf("healthz: %d %q", resp.StatusCode, body)
	}
}

func TestSecurityHeaders(t *testing.T) {
	srv, _, _ := serveShell(t, Options{})
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
	srv, _, _ := serveShell(t, Options{})
	for _, name := range []string{"app.js", "common.js", "style.css", "vendor/echarts/echarts.min.js"} {
		want := asset(t, name)
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
