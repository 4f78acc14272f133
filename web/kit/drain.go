package kit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// inflight counts the requests that end when the server's live context
// does (sessions and exports), so that Server.Wait can tell when they have:
// http.Server.Shutdown stops tracking a connection once it is hijacked, as
// every WebSocket's is.
type inflight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0; a new one when it leaves 0
}

func (f *inflight) add() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		f.idle = make(chan struct{})
	}
	f.n++
}

func (f *inflight) done() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 {
		close(f.idle)
	}
}

func (f *inflight) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// wait returns when no request is in flight, or with an error naming how
// many are when ctx ends first.
func (f *inflight) wait(ctx context.Context) error {
	f.mu.Lock()
	idle, n := f.idle, f.n
	f.mu.Unlock()
	if n == 0 {
		return nil
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%d sessions or exports still open: %w", f.count(), ctx.Err())
	}
}

// track counts h's requests in f. Once live has ended it refuses new ones
// with 503: the server is shutting down, and what it would start would be
// cut at once.
func (f *inflight) track(live context.Context, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.add()
		defer f.done()
		if live.Err() != nil {
			shuttingDown(w)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func shuttingDown(w http.ResponseWriter) {
	w.Header().Del("Content-Disposition")
	w.Header().Set("Retry-After", "60")
	http.Error(w, "backofflab: the server is shutting down; try again when it is back\n", http.StatusServiceUnavailable)
}

// ShutdownMessage is the last line of a stream the server's shutdown cut
// (a map's, a band's, a study's): the page shows it.
const ShutdownMessage = "the server is shutting down; try again in a minute"

// ErrShutdown is the cause of an export's context when the server's live
// context ended it.
var ErrShutdown = errors.New("the server is shutting down")

// endWithServer ends an export when the server shuts down, not only when
// its client leaves: an hour-long run must not hold the shutdown up.
//
// How it ends tells the client the export is cut, never that it is whole:
// a response not begun yet (a JSON export writes nothing until its run is
// over) becomes a 503; a response under way (CSV streams its rows) is sent
// as far as it got and its connection closed without the chunked body's
// final chunk, which HTTP clients report as an unexpected EOF. A CSV
// cannot carry a note that it is cut, and a body ended cleanly would pass
// for a whole export.
func endWithServer(live context.Context, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancelCause(r.Context())
		defer cancel(nil)
		stop := context.AfterFunc(live, func() { cancel(ErrShutdown) })
		defer stop()
		ww := &writeWatch{ResponseWriter: w}
		h.ServeHTTP(ww, r.WithContext(ctx))
		// An export that ended just as the server began to shut down is
		// reported cut too: a client retries it; the other way round, it
		// would keep a cut one.
		if context.Cause(ctx) != ErrShutdown {
			return
		}
		if !ww.wrote {
			shuttingDown(w)
			return
		}
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler) // net/http closes the connection, silently
	})
}

// writeWatch records whether a response has begun.
type writeWatch struct {
	http.ResponseWriter
	wrote bool
}

func (w *writeWatch) WriteHeader(code int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *writeWatch) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *writeWatch) Unwrap() http.ResponseWriter { return w.ResponseWriter }
