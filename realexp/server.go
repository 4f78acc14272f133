// Package realexp reruns 001's experiment over real HTTP: a server that
// answers by the vocabulary's server model (scenario.ServerModels: 001's
// curve by default, any latency of the concurrency, or a pool of workers
// with real waiting) and a population of clients that retry with the same
// strategies package as the simulator.
//
// Both run in-process with a context and any listener, and keep no global
// state, so a program may start several on ephemeral loopback ports.
package realexp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/backofflab/backofflab/internal/reqcheck"
	"github.com/backofflab/backofflab/scenario"
)

// ServerConfig is the server's parameters, under the vocabulary's names.
type ServerConfig struct {
	// Scenario holds the server's parameters: the vocabulary's ScopeServer
	// rows, with the per-lane ones (cancel_on_timeout) read from its lane a.
	// The server reads nothing else of it, so that a new server parameter
	// reaches the real server as it reaches the simulated one.
	Scenario scenario.Params

	// ReportEvery is the interval of Run's report lines; 0 means 1 s.
	ReportEvery time.Duration
	// ErrorLog receives the HTTP server's errors; nil means the log package's.
	ErrorLog *log.Logger
}

// DefaultServerConfig returns 001's server: 100 ms up to 30 concurrent
// requests, then ×1.05 per 15 more, capped at 1 h; a 4096-deep backlog.
func DefaultServerConfig() ServerConfig {
	p := scenario.Defaults()
	p.ServerModel = scenario.ServerModels[0].Name // 001's curve, whatever the simulator's default
	c := ServerConfigOf(&p, 0)
	c.ReportEvery = time.Second
	return c
}

// ServerConfigOf returns the server that p describes, with lane's
// cancel_on_timeout: the server of that lane. Its ReportEvery and ErrorLog
// are left to the caller.
func ServerConfigOf(p *scenario.Params, lane int) ServerConfig {
	s := p.Clone()
	s.Lanes = []scenario.Lane{p.Lanes[lane]}
	return ServerConfig{Scenario: s}
}

// Latency returns the server's latency as a function of its concurrency,
// or nil for a model of another shape (the worker queue), whose latency
// depends on more than the concurrency: Stats.Latency gives it.
func (c ServerConfig) Latency() scenario.Latency { return scenario.LatencyOf(&c.Scenario) }

// params returns c's values as a Params of one lane, for the table to check.
func (c ServerConfig) params() scenario.Params { return c.Scenario }

// Validate checks every value against the vocabulary's ranges, each
// parameter named as the server command's flag is. Its errors are
// *scenario.ParamError, joined.
func (c ServerConfig) Validate() error {
	if len(c.Scenario.Lanes) != 1 {
		return errors.Join(&scenario.ParamError{Name: "lanes", Value: fmt.Sprint(len(c.Scenario.Lanes)),
			Allow: "1: the server's cancel_on_timeout is its one lane's"}, checkReport("report", c.ReportEvery, true))
	}
	return errors.Join(
		c.params().ValidateLane(0, scenario.ScopeServer),
		checkReport("report", c.ReportEvery, true),
	)
}

// Stats is a snapshot of the server.
type Stats struct {
	// Concurrency is the requests inside, the abandoned ones included
	// unless CancelOnTimeout withdrew them; for the worker queue, those in
	// service and those waiting for a worker.
	Concurrency int `json:"concurrency"`
	// Backlog is the requests waiting for the server to resume; for the
	// worker queue, also those waiting for a worker, which share its room.
	Backlog int `json:"backlog"`
	// Queued is the requests inside that wait for a worker (the worker
	// queue's; 0 for a latency of the concurrency, which serves every
	// request inside at once), as the simulator's queued column has it.
	Queued int `json:"queued"`
	// LastDelay is the delay the server last computed (001's "last delay");
	// for the worker queue, what a request arriving now would take.
	LastDelay        time.Duration `json:"-"`
	LastDelaySeconds float64       `json:"last_delay_seconds"`
	// Latency is the model's latency now, as the simulator's server_latency
	// column has it: the delay at the current concurrency, or the worker
	// queue's expected wait and service. Unlike LastDelay it does not lag
	// behind the concurrency.
	Latency time.Duration `json:"-"`
	Paused  bool          `json:"paused"`
	// Accepted counts every request that reached the handler.
	Accepted int64 `json:"accepted"`
	// Completed counts the requests answered after their delay, whether
	// their client was still there or not.
	Completed int64 `json:"completed"`
	// Abandoned counts the requests whose client left first: answered for
	// nobody, or withdrawn at once with CancelOnTimeout.
	Abandoned int64 `json:"abandoned"`
	// Dropped counts the requests turned away with the backlog full (a
	// connect the kernel would have dropped): while paused, or, for the
	// worker queue, with every worker busy.
	Dropped int64 `json:"dropped"`
	// Shed counts the requests answered at once with an error because
	// they found shed_above requests inside, on arrival or entering from
	// the backlog at a resume.
	Shed int64 `json:"shed"`
	// Expired counts the worker queue's requests answered with an error
	// when a worker reached them, for they had waited for one longer than
	// their queue timeout (queue_timeout, or codel's).
	Expired int64 `json:"expired"`
}

// Server is 001's server. Its zero value is not usable: call NewServer.
type Server struct {
	cfg ServerConfig

	mu     sync.Mutex
	core   model
	timer  *time.Timer // wakes the oldest request when it is due
	armed  time.Time   // when timer fires; zero when stopped
	closed bool
	quit   chan struct{} // closed by Close: every waiting handler returns

	// beat, for a model whose work stops with the process (the worker
	// queue), fires every beatEvery while a request is in service, so that
	// a later call sees from the time of the last one, seen, that the
	// process was stopped (SIGSTOP): nil for the others.
	beat    *time.Timer
	beating bool
	seen    time.Time // the last time the server ran (a gap while nothing is in service stops nothing)

	abandoned atomic.Int64

	// trace, nil but in tests, is told under mu of what the server did and
	// when by its own clock, so that a test of real time checks the times
	// the server worked with rather than when its own goroutine, which a
	// busy machine delays, saw the answers.
	trace func(traceEvent)
}

// traceEvent is one thing the server did, as trace is told of it.
type traceEvent struct {
	what string   // "arrive", "pause", "resume" or "stall"
	r    *request // the request that arrived
	at   time.Time
	to   time.Time // a stall's end
}

// traced tells trace, if set, of ev. s.mu is held.
func (s *Server) traced(ev traceEvent) {
	if s.trace != nil {
		s.trace(ev)
	}
}

// NewServer returns a server for cfg, which must be valid (see Validate):
// NewServer panics otherwise.
func NewServer(cfg ServerConfig) *Server {
	if err := cfg.Validate(); err != nil {
		panic("realexp: invalid server config: " + err.Error())
	}
	if cfg.ReportEvery == 0 {
		cfg.ReportEvery = time.Second
	}
	s := &Server{cfg: cfg, quit: make(chan struct{})}
	if lat := cfg.Latency(); lat != nil {
		s.core = &core{lat: lat, backlog: cfg.Scenario.Backlog, door: door{cfg.Scenario.ShedAbove}}
	} else {
		s.core = newQueueCore(&cfg.Scenario)
		s.seen = time.Now()
		s.beat = time.AfterFunc(time.Hour, s.heartbeat)
		s.beat.Stop()
	}
	s.timer = time.AfterFunc(time.Hour, s.fire)
	s.timer.Stop()
	return s
}

// A process stopped by SIGSTOP cannot see the stop begin, only, once it
// runs again, that it did not run: a worker queue's server wakes every
// beatEvery while a request is in service, and the first call that finds
// no wake-up for stoppedAfter tells its model that the process was stopped
// since the last one. Its workers then give each request in service the
// service time it had left when the process stopped, as a pause does,
// rather than count the stop as work. A process starved of CPU that long
// did no work either.
const (
	beatEvery    = 10 * time.Millisecond
	stoppedAfter = 200 * time.Millisecond
)

// now returns the time, first telling the model of a stop of the process
// since the server last ran. s.mu is held.
func (s *Server) now() time.Time {
	now := time.Now()
	if s.beat != nil {
		if now.Sub(s.seen) > stoppedAfter {
			s.core.stall(s.seen, now)
			s.traced(traceEvent{what: "stall", at: s.seen, to: now})
		}
		s.seen = maxTime(s.seen, now)
	}
	return now
}

// heartbeat notes that the server runs, and wakes again in beatEvery while
// a request is in service.
func (s *Server) heartbeat() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.beating = false
	if !s.closed {
		s.replan(s.now())
	}
}

// fire completes the requests that are due and sets the next wake-up.
func (s *Server) fire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.armed = time.Time{}
	if s.closed {
		return
	}
	now := s.now()
	s.core.advance(now)
	s.replan(now)
}

// replan arms the timer for the oldest request's completion, and the
// heartbeat while one is due. s.mu is held.
func (s *Server) replan(now time.Time) {
	at, ok := s.core.next()
	if s.beat != nil && ok && !s.beating && !s.closed {
		s.beat.Reset(beatEvery)
		s.beating = true
	}
	switch {
	case !ok || s.closed:
		if !s.armed.IsZero() {
			s.timer.Stop()
			s.armed = time.Time{}
		}
	case !at.Equal(s.armed):
		s.timer.Reset(max(at.Sub(now), 0))
		s.armed = at
	}
}

// Handler serves GET /api (answered "OK" after the delay, or 503 Service
// Unavailable at once when the server sheds the request or it waited past
// its queue timeout, as it answers when shutting down; the connection of
// a client that leaves first is closed at once) and, to loopback
// callers only, POST /control/pause, POST /control/resume and
// GET /control/stats (JSON Stats).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api", s.serveAPI)
	mux.HandleFunc("POST /control/pause", s.loopback(func(w http.ResponseWriter, r *http.Request) {
		s.Pause()
		s.serveStats(w, r)
	}))
	mux.HandleFunc("POST /control/resume", s.loopback(func(w http.ResponseWriter, r *http.Request) {
		s.Resume()
		s.serveStats(w, r)
	}))
	mux.HandleFunc("GET /control/stats", s.loopback(s.serveStats))
	return mux
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	req := &request{done: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
		return
	}
	now := s.now()
	s.core.arrive(req, now)
	s.traced(traceEvent{what: "arrive", r: req, at: now})
	wasDropped := req.state == dropped
	s.replan(now)
	s.mu.Unlock()

	// The request's context ends when its client closes the connection. The
	// handler aborts then, so that the server closes its end at once rather
	// than hold it in CLOSE-WAIT until the delay ends; but unless
	// CancelOnTimeout lets the server learn of it (or it was dropped), the
	// request stays inside, counted in the concurrency and ageing, and is
	// answered for nobody when its delay ends, as 001's server did.
	select {
	case <-req.done:
		if r.Context().Err() != nil {
			s.abandoned.Add(1) // answered for nobody
			panic(http.ErrAbortHandler)
		}
		// The model wrote req.state before it closed done, and nothing
		// writes it after.
		switch req.state {
		case shed:
			http.Error(w, fmt.Sprintf("shedding load: %d requests inside (shed_above)", s.cfg.Scenario.ShedAbove),
				http.StatusServiceUnavailable)
			return
		case expired:
			http.Error(w, "waited for a worker longer than its queue timeout (queue_timeout, queue_control)",
				http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "OK")
	case <-r.Context().Done():
		s.mu.Lock()
		switch {
		case s.cfg.Scenario.Lanes[0].CancelOnTimeout || wasDropped:
			if now := s.now(); s.core.withdraw(req, now) {
				s.replan(now)
			}
			if !wasDropped {
				s.abandoned.Add(1)
			}
		case !s.core.leave(req): // it completed as its client left
			s.abandoned.Add(1)
		}
		s.mu.Unlock()
		// Close the connection without a response: nobody is there. (The
		// net/http server recovers this panic without logging it.)
		panic(http.ErrAbortHandler)
	case <-s.quit:
		http.Error(w, "shutting down", http.StatusServiceUnavailable)
	}
}

// loopback refuses callers that are not on this machine, and requests that
// a page in a browser on this machine was made to send: another site's
// (which a form or fetch can aim at loopback), or one whose name DNS
// rebinding pointed here (which names its own site in Host).
func (s *Server) loopback(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ap, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil || !ap.Addr().Unmap().IsLoopback() {
			http.Error(w, "control endpoints answer loopback callers only", http.StatusForbidden)
			return
		}
		if why := reqcheck.CrossSite(r); why != "" {
			http.Error(w, "control endpoint refused: "+why, http.StatusForbidden)
			return
		}
		if !reqcheck.Loopback(reqcheck.HostName(r.Host)) {
			http.Error(w, fmt.Sprintf("control endpoints answer requests to a loopback host only (localhost, 127.0.0.1, [::1]), not %q", r.Host),
				http.StatusForbidden)
			return
		}
		h(w, r)
	}
}

func (s *Server) serveStats(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(s.Stats())
}

// Pause freezes the server as SIGSTOP froze 001's: requests inside keep
// ageing but none completes; new ones wait in the backlog, not counted, until
// Resume lets them all in at once. The worker queue's workers stop: each
// request in service keeps the service time it had left.
func (s *Server) Pause() { s.byHand("pause", s.core.pause) }

// Resume ends a pause: every waiting request enters now, abandoned or not
// (the worker queue's join those waiting for a worker).
func (s *Server) Resume() {
	s.byHand("resume", func(now time.Time) {
		s.core.resume(now)
		s.core.advance(now)
	})
}

// byHand makes a change of the server by hand, what (a pause or a
// resume), at the time it is made: under s.mu, traced, and the server's
// next wake-up planned anew.
func (s *Server) byHand(what string, change func(now time.Time)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	change(now)
	s.traced(traceEvent{what: what, at: now})
	s.replan(now)
}

// Stats returns a snapshot of the server.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.core.stats()
	st.Abandoned += s.abandoned.Load()
	return st
}

// TakePeak returns the highest concurrency the server reached since the
// previous call (since NewServer for the first), and starts the next period
// at the current concurrency: a sampler sees the flood of a resume even if
// it is gone by the time it samples.
func (s *Server) TakePeak() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.core.takePeak()
}

// Close releases every waiting handler (they answer 503) and stops the
// server's timer; later requests are answered 503 at once.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	close(s.quit)
	s.timer.Stop()
	if s.beat != nil {
		s.beat.Stop()
	}
	s.armed = time.Time{}
}

// Run serves s on ln until ctx is done, writing a line to report (if not
// nil) every cfg.ReportEvery in 001's format:
//
//	Jun 21 13:31:18.708: concurrency:    0, last delay: 100ms
//
// On ctx's end it closes s, shuts the HTTP server down and returns nil.
func (s *Server) Run(ctx context.Context, ln net.Listener, report io.Writer) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: s.cfg.ErrorLog}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	rctx, stopReport := context.WithCancel(ctx)
	var wg sync.WaitGroup
	if report != nil {
		wg.Go(func() { s.report(rctx, report) })
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	s.Close()
	stopReport()
	wg.Wait()
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if hs.Shutdown(sctx) != nil {
		hs.Close()
	}
	if err == nil {
		err = <-served
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// report prints 001's line every s.cfg.ReportEvery until ctx is done.
func (s *Server) report(ctx context.Context, w io.Writer) {
	t := time.NewTicker(s.cfg.ReportEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// The time of printing, not of the tick: after a SIGSTOP the
			// tick that was due during the stop arrives late.
			fmt.Fprintln(w, ReportLine(time.Now(), s.Stats()))
		}
	}
}

// ReportLine formats st as 001's server line at now; a paused server says
// so and how many requests wait.
func ReportLine(now time.Time, st Stats) string {
	line := fmt.Sprintf("%s: concurrency: %4d, last delay: %v", now.Format(time.StampMilli), st.Concurrency, st.LastDelay)
	if st.Paused {
		line += fmt.Sprintf(" (paused, backlog: %d)", st.Backlog)
	}
	return line
}
