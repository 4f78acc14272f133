package realexp

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

func clientConfig(addr string, clients int, think, timeout time.Duration, strategy string) ClientConfig {
	cfg := DefaultClientConfig()
	cfg.Addr, cfg.Clients, cfg.Think, cfg.Timeout = addr, clients, think, timeout
	cfg.Strategy, _ = strategies.Defaults(strategy)
	return cfg
}

func sum(ws []Window) Counts {
	var s Counts
	for _, w := range ws {
		s.Requests += w.Requests
		s.OK += w.OK
		s.Errors += w.Errors
		s.Timeouts += w.Timeouts
		s.Attempts += w.Attempts
		s.Retries += w.Retries
		s.GaveUp += w.GaveUp
	}
	return s
}

// TestClientWindows: report windows follow each other with no gap and no
// overlap, their events add up to the totals, and each rate is its count
// over the window's measured length. The run lasts until 200 successes in
// 5 windows, however slowly a busy machine runs it; the timeout, far past
// any delay of a 5 ms answer, is not one a busy machine reaches.
func TestClientWindows(t *testing.T) {
	_, addr := startServer(t, serverConfig(scenario.Curve{Base: 5 * ms, Limit: 1000, Factor: 2, K: 1, Max: time.Hour}), nil)
	cfg := clientConfig(addr, 50, 20*ms, testwait.Bound, strategies.NameFixed)
	cfg.Report = 100 * ms
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Bound)
	defer cancel()
	var ws []Window
	var ok int64
	total, err := RunClients(ctx, cfg, func(w Window) {
		ws = append(ws, w)
		if ok += w.OK; ok >= 200 && len(ws) >= 5 {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) < 5 || !ws[len(ws)-1].Final {
		t.Fatalf("%d windows, last %+v", len(ws), ws[len(ws)-1])
	}
	for i, w := range ws {
		prev := time.Duration(0)
		if i > 0 {
			prev = ws[i-1].End
		}
		if w.Start != prev || w.End < w.Start {
			t.Fatalf("window %d is [%v, %v), previous ended at %v", i, w.Start, w.End, prev)
		}
		if want := float64(w.OK) / w.Elapsed().Seconds(); w.Elapsed() > 0 && w.Rate(w.OK) != want {
			t.Errorf("window %d: rate %v, want %v", i, w.Rate(w.OK), want)
		}
	}
	s := sum(ws)
	total.InBackoff, total.InFlight = 0, 0
	if s != total {
		t.Fatalf("windows add up to %+v, totals %+v", s, total)
	}
	if total.OK < 200 || total.Timeouts != 0 || total.Errors != 0 {
		t.Errorf("totals %+v: want ≥ 200 ok, no failure", total)
	}
}

// TestClientNoLeakOnTimeouts: thousands of timed-out attempts leave no
// goroutine behind, and while they run the goroutines stay bounded by the
// number of clients, not of timeouts.
func TestClientNoLeakOnTimeouts(t *testing.T) {
	scfg := DefaultServerConfig()
	scfg.Scenario.Lanes[0].CancelOnTimeout = true // the server lets go of each abandoned request too
	s, addr := startServer(t, scfg, nil)
	s.Pause() // nothing is ever answered
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Paused }) {
		t.Fatal("not paused")
	}
	before := runtime.NumGoroutine()
	const clients = 40
	cfg := clientConfig(addr, clients, 5*ms, 20*ms, strategies.NameFixed)
	cfg.Strategy.MinDelay = 5 * ms
	cfg.Report = 100 * ms
	// The run lasts until 300 timeouts, however slowly a busy machine
	// runs it.
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Bound)
	defer cancel()
	peak := 0
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			peak = max(peak, runtime.NumGoroutine())
			time.Sleep(20 * ms) // samples the peak over the run, not a wait
		}
	})
	var timeouts int64
	total, err := RunClients(ctx, cfg, func(w Window) {
		if timeouts += w.Timeouts; timeouts >= 300 {
			cancel()
		}
	})
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if total.Timeouts < 300 || total.OK != 0 {
		t.Fatalf("totals %+v: want ≥ 300 timeouts, no ok", total)
	}
	// Per client: its goroutine, its connection's two, the server's two,
	// and a little room for connections closing while new ones dial.
	if limit := before + 6*clients + 50; peak > limit {
		t.Errorf("peak %d goroutines for %d clients (%d before): want ≤ %d", peak, clients, before, limit)
	}
	if !testwait.Within(testwait.Bound, func() bool { return runtime.NumGoroutine() <= before+5 }) {
		t.Errorf("%d goroutines after the run, %d before", runtime.NumGoroutine(), before)
	}
	t.Logf("%d timeouts; goroutines: %d before, peak %d", total.Timeouts, before, peak)
}

// TestClientRefused: a server that is not there fails attempts fast, as
// errors, and the strategy decides what follows (none: give up at once).
func TestClientRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := clientConfig(addr, 5, 10*ms, time.Second, strategies.NameNone)
	cfg.Report = 10 * ms
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Bound)
	defer cancel()
	var errs int64
	total, err := RunClients(ctx, cfg, func(w Window) { // until 10 errors
		if errs += w.Errors; errs >= 10 {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if total.Errors == 0 || total.Timeouts != 0 || total.Retries != 0 || total.GaveUp != total.Errors {
		t.Errorf("totals %+v: want errors, each one given up, no retry", total)
	}
}

// TestClientConfigErrors: bad values are named, with the value and what is
// allowed.
func TestClientConfigErrors(t *testing.T) {
	good := DefaultClientConfig()
	for _, tc := range []struct {
		edit  func(*ClientConfig)
		name  string
		value string
		allow string
	}{
		{func(c *ClientConfig) { c.Clients = 0 }, "clients", "0", "from 1 to 1000000"},
		{func(c *ClientConfig) { c.Think = 0 }, "think", "0s", "from 1ms to 1h0m0s"},
		{func(c *ClientConfig) { c.Timeout = -time.Second }, "timeout", "-1s", "from 1ms"},
		{func(c *ClientConfig) { c.Strategy.Strategy = "bogus" }, "strategy", "bogus", "one of none, fixed"},
		{func(c *ClientConfig) { c.Strategy.Jitter = 2 }, "jitter", "2", "from 0 to 1"},
		{func(c *ClientConfig) { c.Strategy.MaxDelay = ms }, "max_delay", "1ms", "at least min_delay"},
		{func(c *ClientConfig) { c.Addr = "nowhere" }, "addr", "nowhere", "host:port"},
		{func(c *ClientConfig) { c.Report = time.Microsecond }, "report", "1µs", "from 10ms"},
	} {
		cfg := good
		tc.edit(&cfg)
		err := cfg.Validate()
		var pe *scenario.ParamError
		if !errors.As(err, &pe) || pe.Name != tc.name || pe.Value != tc.value || !strings.Contains(pe.Allow, tc.allow) {
			t.Errorf("%s: error %v, want %s: %q … %s", tc.name, err, tc.name, tc.value, tc.allow)
		}
		if _, err := RunClients(context.Background(), cfg, nil); err == nil {
			t.Errorf("%s: RunClients accepted it", tc.name)
		}
	}
	if err := good.Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

func TestServerConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		edit  func(*ServerConfig)
		name  string
		allow string
	}{
		{func(c *ServerConfig) { c.Scenario.ServerLimit = 0 }, "server_limit", "from 1 to 1000000"},
		{func(c *ServerConfig) { c.Scenario.ServerFactor = 0.5 }, "server_factor", "from 1 to 10"},
		{func(c *ServerConfig) { c.Scenario.ServerK = 0 }, "server_k", "from 0.1"},
		{func(c *ServerConfig) { c.Scenario.ServerDelay = 0 }, "server_delay", "from 1ms to 1m0s"},
		{func(c *ServerConfig) { c.Scenario.MaxServerDelay = 48 * time.Hour }, "max_server_delay", "to 24h0m0s"},
		{func(c *ServerConfig) { c.Scenario.Backlog = -1 }, "backlog", "from 0"},
	} {
		cfg := DefaultServerConfig()
		tc.edit(&cfg)
		var pe *scenario.ParamError
		if err := cfg.Validate(); !errors.As(err, &pe) || pe.Name != tc.name || !strings.Contains(pe.Allow, tc.allow) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

func TestParseSeconds(t *testing.T) {
	for raw, want := range map[string]time.Duration{"10": 10 * time.Second, "0.5": 500 * ms, "10s": 10 * time.Second, "250ms": 250 * ms} {
		var d time.Duration
		if err := ParseSeconds("lambda", "think", raw, &d); err != nil || d != want {
			t.Errorf("%q: %v, %v; want %v", raw, d, err, want)
		}
	}
	for _, raw := range []string{"0", "-1", "abc", "NaN", "Inf", "7200", "2h"} {
		var d time.Duration
		err := ParseSeconds("lambda", "think", raw, &d)
		var pe *scenario.ParamError
		if !errors.As(err, &pe) || pe.Name != "lambda" || pe.Value != raw || !strings.Contains(pe.Allow, "or as many seconds") {
			t.Errorf("%q: %v", raw, err)
		}
	}
}

// TestClientLatencies: TakeLatencies returns one end-to-end latency per
// success since the previous call, each at least the server's delay.
func TestClientLatencies(t *testing.T) {
	srv, addr := startServer(t, serverConfig(scenario.Curve{Base: 20 * ms, Limit: 1000, Factor: 2, K: 1, Max: time.Hour}), nil)
	// A timeout no busy machine reaches on a 20 ms answer: every success
	// comes from its first attempt.
	p, err := NewPopulation(clientConfig(addr, 20, 10*ms, testwait.Bound, strategies.NameFixed))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()
	var lat []time.Duration
	testwait.Eventually(t, "20 successes, taken in several calls", func() bool {
		lat = append(lat, p.TakeLatencies()...)
		return p.Totals().OK >= 20
	})
	cancel()
	<-done
	lat = append(lat, p.TakeLatencies()...)
	if n := p.Totals().OK; int64(len(lat)) != n || n < 20 {
		t.Fatalf("%d latencies for %d successes, want one each (≥ 20)", len(lat), n)
	}
	for _, d := range lat {
		if d < 20*ms || d > testwait.Bound {
			t.Fatalf("latency %v, want from the 20ms delay to the %v timeout", d, testwait.Bound)
		}
	}
	if got := p.TakeLatencies(); len(got) != 0 {
		t.Errorf("%d latencies after the last take", len(got))
	}
	if pk := srv.TakePeak(); pk < 1 || pk > 20 {
		t.Errorf("server peak %d, want 1 to 20 clients", pk)
	}
}

// silentServer accepts connections on loopback until the test ends and
// never answers: it reads each until its client closes it, then closes it.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns[c] = true
			mu.Unlock()
			wg.Go(func() {
				io.Copy(io.Discard, c)
				c.Close()
				mu.Lock()
				delete(conns, c)
				mu.Unlock()
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// closeHook calls closed once its connection is closed.
type closeHook struct {
	net.Conn
	once   sync.Once
	closed func()
}

func (c *closeHook) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.closed)
	return err
}

// TestPopulationConnCap: with MaxConns 3, 20 clients against a server that
// never answers never hold more than 3 connections at once, connects in
// progress included, as counted around the sockets themselves (from before
// a connect to after its close); the attempts that wait for a connection
// time out; when the run ends, every connection is closed.
func TestPopulationConnCap(t *testing.T) {
	const limit, clients = 3, 20
	addr := silentServer(t)
	cfg := clientConfig(addr, clients, ms, 50*ms, strategies.NameFixed)
	cfg.Strategy.MinDelay = 5 * ms
	cfg.MaxConns = limit
	p, err := NewPopulation(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var open, peak, dials atomic.Int64
	dial := p.dialConn
	p.dialConn = func(ctx context.Context, network, addr string) (net.Conn, error) {
		n := open.Add(1)
		dials.Add(1)
		for pk := peak.Load(); n > pk && !peak.CompareAndSwap(pk, n); pk = peak.Load() {
		}
		c, err := dial(ctx, network, addr)
		if err != nil {
			open.Add(-1)
			return nil, err
		}
		return &closeHook{Conn: c, closed: func() { open.Add(-1) }}, nil
	}
	// The run lasts until 200 timeouts, however slowly a busy machine
	// runs it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- p.Run(ctx) }()
	testwait.Eventually(t, "200 timeouts", func() bool { return p.Totals().Timeouts >= 200 })
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}

	total, cs := p.Totals(), p.Conns()
	if pk := peak.Load(); pk != limit {
		t.Errorf("at most %d connections open at once, want %d (the cap, reached)", pk, limit)
	}
	if cs.Peak != limit || cs.Max != limit || cs.Filled == 0 {
		t.Errorf("Conns %+v: want peak and max %d, filled > 0", cs, limit)
	}
	if n := open.Load(); n != 0 || cs.Open != 0 {
		t.Errorf("after Run: %d connections open (Conns says %d), want 0", n, cs.Open)
	}
	// Each attempt waits 50 ms; 20 clients make ≈ 500 of them in 1.5 s, of
	// which at most 3 at a time have a connection.
	if total.OK != 0 || total.Errors != 0 || total.Timeouts < 200 || total.Attempts > total.Timeouts+clients {
		t.Errorf("totals %+v: want only timeouts, ≥ 200", total)
	}
	// Without the cap every attempt would connect (each timed-out one
	// closes its connection); with it, many wait in vain.
	if d := dials.Load(); d > total.Attempts*4/5 {
		t.Errorf("%d connects for %d attempts: the attempts over the cap did not wait", d, total.Attempts)
	}
	t.Logf("%d attempts, %d connects; %+v", total.Attempts, dials.Load(), cs)
}
