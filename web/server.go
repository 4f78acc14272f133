// Package web serves the playground: the page, its live simulations over
// WebSocket (a lane of which may run the real experiment instead: a real
// HTTP server and clients on loopback, see real.go), the headless exports
// and the embedded assets.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"

	"backofflab/budget"
	"backofflab/internal/parallel"
)

// Options configure NewServer.
type Options struct {
	// Logger receives one line per session and per failure; nil discards.
	Logger *slog.Logger
	// Limits caps what one page may ask for; a zero field means
	// DefaultLimits' value.
	Limits Limits
	// Memory is the server-wide memory budget every page and export draws
	// on; nil means a new pool of Limits.MaxMemory.
	Memory *budget.Pool
	// Hosts are the host names the server answers to besides loopback
	// ones (localhost, 127.0.0.0/8, ::1): its -addr's host and its public
	// names. A request naming another host in its Host header is refused,
	// as DNS rebinding would make it; a port is ignored.
	Hosts []string
}

// Server is the playground's handler, as NewServer returns it.
type Server struct {
	h        http.Handler
	inflight *inflight
	analyses *analyses
}

// ServeHTTP serves the playground.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.h.ServeHTTP(w, r) }

// Wait returns when every WebSocket session and export has ended, or with
// an error when ctx ends first. Once the context given to NewServer is
// done, sessions close with going away and exports are cut (new ones are
// refused), so a shutdown calls Wait after http.Server.Shutdown, which
// does not wait for the sessions: their connections are hijacked.
func (s *Server) Wait(ctx context.Context) error { return s.inflight.wait(ctx) }

// NewServer returns the playground's handler. Its live sessions end with a
// going-away close, and its exports are cut, when ctx is done, so that a
// server shutting down tells its pages why and is not held up by an
// hour-long export; Server.Wait tells when they have.
func NewServer(ctx context.Context, opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lim := opts.Limits.withDefaults()
	pool := opts.Memory
	if pool == nil {
		pool = budget.NewPool(lim.MaxMemory)
	}
	mux := http.NewServeMux()
	live := &sessions{max: int64(lim.MaxSessions), real: &realSlots{max: max(lim.MaxRealSessions, 0)},
		pool: pool, exports: make(chan struct{}, lim.MaxExports), lim: lim, inflight: &inflight{},
		analyses: newAnalyses(lim.MaxAnalyses, lim.AnalysisCores, lim.AnalysisCPU)}
	addRoutes(mux, ctx, log, lim, live, newPresets(lim))
	return &Server{h: secure(guardHost(mux, opts.Hosts)), inflight: live.inflight, analyses: live.analyses}
}

// sessions counts the live WebSocket sessions against their cap, those
// with a real lane against theirs and the running exports against theirs,
// and holds the memory pool every run draws on; inflight counts the
// sessions and exports until they have ended.
type sessions struct {
	n, max   int64
	real     *realSlots
	pool     *budget.Pool
	exports  chan struct{} // one token per running export
	analyses *analyses     // the many-run views' slots and cores
	lim      Limits
	inflight *inflight
}

// newRun returns a run's memory budget, or a "server busy" error when the
// pool has too little left to start one: an eighth of a run's budget.
func (s *sessions) newRun() (*budget.Run, error) {
	if free := s.pool.Free(); free < s.lim.RunMemory/8 {
		return nil, fmt.Errorf("server busy: its memory budget is taken (%s of %s in use by other pages and exports); try again in a minute",
			budget.Bytes(s.pool.Used()), budget.Bytes(s.pool.Max()))
	}
	return budget.NewRun(s.pool, s.lim.RunMemory), nil
}

// busyMessage says why a run could not start for want of memory.
func busyMessage(err error) string {
	var ex *budget.ExceededError
	if errors.As(err, &ex) {
		return "server busy: this run does not fit in " + ex.Error() + "; try fewer clients or lanes, or again in a minute"
	}
	var over *parallel.BudgetError
	if errors.As(err, &over) {
		return fmt.Sprintf("stopped: this view has held the server's cores for %s, as long as one map, band or study may (its runs took more than estimated); make it smaller: fewer steps or seeds, fewer clients, a shorter run", say(over.Used))
	}
	return err.Error()
}

func (s *sessions) acquire() bool {
	if atomic.AddInt64(&s.n, 1) > s.max {
		atomic.AddInt64(&s.n, -1)
		return false
	}
	return true
}

func (s *sessions) release() { atomic.AddInt64(&s.n, -1) }

// csp allows only the page's own scripts, styles and socket: no inline
// script, no other origin.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// secure adds the security headers every response carries.
func secure(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", csp)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}
