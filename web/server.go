// Package web is the server's shell: NewServer mounts every view (the
// playground, the phase map, the seed bands, the contention study, each a
// package of its own) with the kit they share, serves the shared assets
// and /healthz, and guards every route by host.
package web

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/web/kit"
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
	addRoutes(mux, k)
	return &Server{h: secure(guardHost(mux, opts.Hosts)), kit: k}
}

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
