package kit

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
)

// WritePage renders page (named what, for the log) and answers r with it,
// gzipped for a client that takes it, never cached: every page of the
// playground is what its URL holds. A page that fails to render is a 500.
func WritePage(w http.ResponseWriter, r *http.Request, log *slog.Logger, what string, page templ.Component) {
	var buf bytes.Buffer
	if err := page.Render(r.Context(), &buf); err != nil {
		log.Error("render "+what, "err", err)
		http.Error(w, "could not render the page", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Vary", "Accept-Encoding")
	if !acceptsGzip(r) {
		w.Write(buf.Bytes())
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	zw := gzip.NewWriter(w)
	zw.Write(buf.Bytes())
	zw.Close()
}

func acceptsGzip(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept-Encoding"), "gzip")
}

// ExportTypes are the media types of the exports' formats.
var ExportTypes = map[string]string{"csv": "text/csv; charset=utf-8", "json": "application/json", "txt": "text/plain; charset=utf-8"}

// ExportHeaders sets the headers of every generated export (a run's, a
// page's, a map's, a study's, an advice's) of format, csv, json or txt, saved as
// name.format. None may be stored: the same URL runs the work again, and
// a page's export is what that page held.
func ExportHeaders(w http.ResponseWriter, format, name string) {
	h := w.Header()
	h.Set("Content-Type", ExportTypes[format])
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", `attachment; filename="`+name+"."+format+`"`)
}

// CountingWriter counts what reached the client: an export that failed
// before its first byte can still answer with an error; one that failed
// after it must be cut.
type CountingWriter struct {
	W io.Writer
	N int
}

func (c *CountingWriter) Write(b []byte) (int, error) {
	n, err := c.W.Write(b)
	c.N += n
	return n, err
}

// Assets serves the files of fsys under /static/, gzipped for clients
// that take it (ECharts alone is 1 MB, a third of that compressed), each
// compressed once: the server's shared assets (package static) under
// GET /static/, a view's own script under its own name, such as
// GET /static/contention.js, which the mux prefers to the shared prefix.
func Assets(fsys fs.FS) http.Handler {
	var cache sync.Map // path → *asset
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/static/")
		v, ok := cache.Load(name)
		if !ok {
			a, err := loadAsset(fsys, name)
			if err != nil {
				http.NotFound(w, r)
				return
			}
			v, _ = cache.LoadOrStore(name, a)
		}
		a := v.(*asset)
		h := w.Header()
		h.Set("Content-Type", a.ctype)
		h.Set("Cache-Control", "public, max-age=3600")
		h.Set("Vary", "Accept-Encoding")
		body := a.plain
		if acceptsGzip(r) {
			h.Set("Content-Encoding", "gzip")
			body = a.gz
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	})
}

// asset is an embedded file, with its gzip form made once.
type asset struct {
	ctype     string
	plain, gz []byte
}

func loadAsset(fsys fs.FS, name string) (*asset, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	return &asset{ctype: ctype, plain: b, gz: gz.Bytes()}, nil
}
