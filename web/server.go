// Package web serves the playground: the page, its live simulations over
// WebSocket (a lane of which may run the real experiment instead: a real
// HTTP server and clients on loopback, see real.go), the headless exports
// and the embedded assets.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"

	"backofflab/budget"
	"backofflab/web/kit"
)

// Limits are the caps that protect the machine from one page's run
// (kit.Limits: every view reads them). A zero field means
// kit.DefaultLimits' value.
type Limits = kit.Limits

// Options configure NewServer.
type Options struct {
	// Logger receives one line per session and per failure; nil discards.
	Logger *slog.Logger
	// Limits caps what one page may ask for; a zero field means
	// kit.DefaultLimits' value.
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
	h   http.Handler
	kit *kit.Kit
}

// ServeHTTP serves the playground.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.h.ServeHTTP(w, r) }

// Wait returns when every WebSocket session and export has ended, or with
// an error when ctx ends first. Once the context given to NewServer is
// done, sessions close with going away and exports are cut (new ones are
// refused), so a shutdown calls Wait after http.Server.Shutdown, which
// does not wait for the sessions: their connections are hijacked.
func (s *Server) Wait(ctx context.Context) error { return s.kit.Wait(ctx) }

// Running returns how many simulations of the many-run views are in
// progress on the server: the cores of their pool that are held.
func (s *Server) Running() int64 { return s.kit.Running() }

// NewServer returns the playground's handler. Its live sessions end with a
// going-away close, and its exports are cut, when ctx is done, so that a
// server shutting down tells its pages why and is not held up by an
// hour-long export; Server.Wait tells when they have.
func NewServer(ctx context.Context, opts Options) *Server {
	k := kit.New(ctx, opts.Logger, opts.Limits, opts.Memory)
	mux := http.NewServeMux()
	live := &sessions{max: int64(k.Limits.MaxSessions), real: &realSlots{max: max(k.Limits.MaxRealSessions, 0)}, Kit: k}
	addRoutes(mux, k, live, newPresets(k.Limits))
	return &Server{h: secure(guardHost(mux, opts.Hosts)), kit: k}
}

// sessions counts the live WebSocket sessions against their cap and those
// with a real lane against theirs; its Kit holds what every view shares:
// the memory pool every run draws on, the exports' slots, the requests in
// flight.
type sessions struct {
	n, max int64
	real   *realSlots
	*kit.Kit
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
