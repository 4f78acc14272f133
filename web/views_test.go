package web

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// viewPackages returns the import paths of the packages under web/ that
// declare a Mount function: a view, which routes.go must mount.
func viewPackages(t *testing.T) []string {
	t.Helper()
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "testdata" {
			continue
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), d.Name(), func(fi os.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			for _, f := range p.Files {
				for _, decl := range f.Decls {
					if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "Mount" {
						out = append(out, "github.com/backofflab/backofflab/web/"+filepath.ToSlash(d.Name()))
					}
				}
			}
		}
	}
	return out
}

// mountPackage is the import path of the package whose function mounts
// a view.
func mountPackage(v view) string {
	name := runtime.FuncForPC(reflect.ValueOf(v.mount).Pointer()).Name()
	return name[:strings.LastIndexByte(name, '.')]
}

// TestEveryViewARoute: every view package (a package under web/ with a
// Mount function) is mounted by routes.go's views, and every mounted
// view's page answers 200 with an HTML page on a live server.
func TestEveryViewARoute(t *testing.T) {
	mounted := map[string]bool{}
	for _, v := range views {
		mounted[mountPackage(v)] = true
	}
	for _, pkg := range viewPackages(t) {
		if !mounted[pkg] {
			t.Errorf("package %s declares Mount, but routes.go's views do not mount it", pkg)
		}
	}
	srv, _, _ := serveShell(t, Options{})
	for _, v := range views {
		t.Run(v.page, func(t *testing.T) {
			resp, body := get(t, srv.URL+v.page, nil)
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("GET %s (mounted by %s): %s %s: %.200s", v.page, mountPackage(v), resp.Status, resp.Header.Get("Content-Type"), body)
			}
		})
	}
}

// TestStreamsAgree: the many-run views' streams are one kind of answer
// (kit.Stream): the same headers, and a last line of their own once the
// work is done. Each view had its own copy of the stream, and the copies
// disagreed on the media type.
func TestStreamsAgree(t *testing.T) {
	srv, _, _ := serveShell(t, Options{})
	const scen = "clients=100&duration=2s&outage=none"
	for _, tc := range []struct{ path, query, last string }{
		{"/map/cells", scen + "&x=clients&x_from=100&x_to=200&x_steps=2", `"type":"done"`},
		{"/bands/run", scen + "&seeds=2", `"type":"result"`},
		{"/contention/stream", "n=10&runs=2", `"type":"done"`},
		{"/advise/stream", "clients=100&seeds=1", `"type":"advice"`},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, body := get(t, srv.URL+tc.path+"?"+tc.query, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: %.300s", resp.Status, body)
			}
			for k, want := range map[string]string{"Content-Type": "application/x-ndjson; charset=utf-8",
				"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"} {
				if got := resp.Header.Get(k); got != want {
					t.Errorf("%s %q, want %q", k, got, want)
				}
			}
			if !strings.Contains(string(body), tc.last) {
				t.Errorf("no last line %s: %.300s", tc.last, body)
			}
		})
	}
}
