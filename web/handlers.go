package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/coder/websocket"

	"backofflab/scenario"
	"backofflab/simengine"
	"backofflab/static"
)

// handlePlayground renders the page for the state its URL holds. Bad values
// do not fail the page: each is shown beside its control.
func handlePlayground(log *slog.Logger, lim Limits, presets *presets) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, qerrs := parseQuery(r.URL.RawQuery)
		st, errs := decodeLenient(raw, lim)
		in := pageInput{St: st, Query: st.encode(), Raw: raw, Errors: withQueryErrors(qerrs, errs),
			Presets: presets.list(), Limits: lim}
		writePage(w, r, log, "playground", playground(in))
	})
}

// writePage renders page (named what, for the log) and answers r with it,
// gzipped for a client that takes it, never cached: every page of the
// playground is its URL's state. A page that fails to render is a 500.
func writePage(w http.ResponseWriter, r *http.Request, log *slog.Logger, what string, page templ.Component) {
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

// handleSocket runs one live session per WebSocket. Accept keeps its
// same-origin check: another site's page cannot drive this server.
func handleSocket(ctx context.Context, log *slog.Logger, lim Limits, live *sessions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			log.Info("websocket refused", "err", err)
			return
		}
		defer conn.CloseNow()
		if !live.acquire() {
			wctx, cancel := context.WithTimeout(ctx, writeTimeout)
			defer cancel()
			conn.Write(wctx, websocket.MessageText, mustJSON(errorMsg{Type: "error",
				Message: "server busy: too many live sessions, try again in a minute"}))
			conn.Close(websocket.StatusTryAgainLater, "server busy")
			return
		}
		defer live.release()
		busy := func(msg string) {
			wctx, cancel := context.WithTimeout(ctx, writeTimeout)
			defer cancel()
			conn.Write(wctx, websocket.MessageText, mustJSON(errorMsg{Type: "error", Message: msg}))
			conn.Close(websocket.StatusTryAgainLater, "server busy")
		}
		mem, err := live.newRun()
		if err != nil {
			busy(err.Error())
			return
		}
		defer mem.Close()
		q, qerrs := parseQuery(r.URL.RawQuery)
		st, errs := decodeLenient(q, lim)
		s, err := newSession(conn, log, lim, live.real, mem, st, withQueryErrors(qerrs, errs))
		if err != nil { // decodeLenient validated st: only memory can refuse it
			busy(busyMessage(err))
			return
		}
		start := time.Now()
		if err := s.serve(ctx); err != nil {
			log.Info("session ended", "err", err, "after", time.Since(start))
		}
	})
}

// handleExport runs the URL's state headless and writes it as format does
// on the command line (backofflab run -format csv|json), as the run goes.
// At most lim.MaxExports run at once, each within a run's memory budget;
// one whose client leaves stops within a slice of events.
func handleExport(lim Limits, live *sessions, format string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st, ok := startExport(w, r, lim, live, decodeExport)
		if !ok {
			return
		}
		defer func() { <-live.exports }()
		mem, err := live.newRun()
		if err != nil {
			w.Header().Set("Retry-After", "60")
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		defer mem.Close()
		// The run's initial state must fit before the 200 goes out.
		if _, err := simengine.NewWithBudget(st.p, mem); err != nil {
			w.Header().Set("Retry-After", "60")
			http.Error(w, busyMessage(err), http.StatusServiceUnavailable)
			return
		}
		mem.Close()
		write := simengine.WriteCSV
		if format == "json" {
			write = simengine.WriteJSON
		}
		exportHeaders(w, format, "backofflab")
		if err := write(r.Context(), w, st.p, mem); err != nil && !errors.Is(err, context.Canceled) {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
}

// exportTypes are the media types of the exports' formats.
var exportTypes = map[string]string{"csv": "text/csv; charset=utf-8", "json": "application/json"}

// exportHeaders sets the headers of every generated export (a run's, a
// page's, a map's, a study's) of format, csv or json, saved as
// name.format. None may be stored: the same URL runs the work again, and
// a page's export is what that page held.
func exportHeaders(w http.ResponseWriter, format, name string) {
	h := w.Header()
	h.Set("Content-Type", exportTypes[format])
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", `attachment; filename="`+name+"."+format+`"`)
}

// startExport decodes r's query with dec and takes one of the
// live.exports slots, which the caller gives back: a page's export and a
// headless one share the cap. On a bad query or no free slot it answers
// the request and returns false.
func startExport(w http.ResponseWriter, r *http.Request, lim Limits, live *sessions,
	dec func(url.Values, Limits) (state, []*scenario.ParamError)) (state, bool) {
	q, errs := parseQuery(r.URL.RawQuery)
	var st state
	if len(errs) == 0 {
		st, errs = dec(q, lim)
	}
	if len(errs) > 0 {
		http.Error(w, errorText(errs), http.StatusBadRequest)
		return state{}, false
	}
	select {
	case live.exports <- struct{}{}:
		return st, true
	default:
		w.Header().Set("Retry-After", "10")
		http.Error(w, fmt.Sprintf("server busy: %d exports are running, as many as run at once; try again when one ends", cap(live.exports)),
			http.StatusServiceUnavailable)
		return state{}, false
	}
}

func handleHealthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
}

// handleStatic serves the embedded assets, gzipped for clients that take it:
// ECharts alone is 1 MB, a third of that compressed.
func handleStatic() http.Handler {
	var cache sync.Map // path → *asset
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/static/")
		v, ok := cache.Load(name)
		if !ok {
			a, err := loadAsset(name)
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

func loadAsset(name string) (*asset, error) {
	b, err := fs.ReadFile(static.FS, name)
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
