package realexp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// ClientConfig is a client population's parameters, under the vocabulary's
// names.
type ClientConfig struct {
	// Addr is the server's host:port, or a base URL such as
	// http://127.0.0.1:8070; the clients GET /api there.
	Addr     string
	Clients  int               // clients
	Think    time.Duration     // think: mean think time (001's -lambda)
	Timeout  time.Duration     // timeout: per attempt, unless the strategy sets its own
	Strategy strategies.Params // strategy, its parameters, max_attempts, deadline and the limiters
	Seed     uint64            // seed: each client draws from its own PCG stream of it
	// Report is RunClients' window; 0 means 5 s.
	Report time.Duration
	// MaxConns caps the connections the population holds open at once,
	// connects in progress included: a descriptor budget, as a host out of
	// file descriptors has one. Past it an attempt that needs a new
	// connection waits for one to close or to come free, within its
	// timeout, and times out if none does. 0 means no cap.
	MaxConns int
}

// DefaultClientConfig returns 001's client: 1000 clients thinking 10 s on
// average, a 2 s timeout, retrying every 100 ms (fixed, lane a's default).
func DefaultClientConfig() ClientConfig {
	p := scenario.Defaults()
	c := ClientConfigOf(&p, 0)
	c.Addr, c.Report = "127.0.0.1:8070", 5*time.Second
	return c
}

// ClientConfigOf returns the client population that p describes, retrying
// as lane's strategy says: the clients of that lane. Its Addr, Report and
// MaxConns are left to the caller.
func ClientConfigOf(p *scenario.Params, lane int) ClientConfig {
	return ClientConfig{Clients: p.Clients, Think: p.Think, Timeout: p.Timeout,
		Strategy: p.Lanes[lane].Params, Seed: p.Seed}
}

// params is ClientConfigOf's inverse: c's values in a Params of one lane,
// the parameters that c lacks at their defaults, for the table to check.
func (c ClientConfig) params() scenario.Params {
	p := scenario.Defaults()
	p.Clients, p.Think, p.Timeout, p.Seed = c.Clients, c.Think, c.Timeout, c.Seed
	p.Lanes = []scenario.Lane{{Params: c.Strategy}}
	return p
}

// Validate checks every value against the vocabulary's ranges, each
// parameter named as the client command's flag is, and checks Addr and
// Report. Its errors are *scenario.ParamError, joined.
func (c ClientConfig) Validate() error {
	errs := []error{
		c.params().ValidateLane(0, scenario.ScopeClients, scenario.ScopeStrategy, scenario.ScopeLimiter),
		checkReport("report", c.Report, true),
	}
	if _, err := apiURL(c.Addr); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// apiURL returns the URL the clients GET. It checks addr whole, so that a
// typo fails at once rather than as every attempt's error.
func apiURL(addr string) (string, error) {
	base := addr
	if !strings.Contains(addr, "://") {
		if _, _, err := net.SplitHostPort(addr); err != nil {
			base = "" // not host:port
		} else {
			base = "http://" + addr
		}
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" ||
		u.User != nil || u.RawQuery != "" || u.Fragment != "" || !validPort(u.Port(), base != addr) {
		return "", &scenario.ParamError{Name: "addr", Value: addr,
			Allow: "host:port, such as 127.0.0.1:8070, or an http:// or https:// URL, such as http://127.0.0.1:8070"}
	}
	return strings.TrimSuffix(base, "/") + "/api", nil
}

// validPort reports whether port is a TCP port, or empty when allowed.
func validPort(port string, required bool) bool {
	if port == "" {
		return !required
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}

// Counts are a population's counters, named as scenario.Columns names them:
// events (requests … gave_up) and levels (in_backoff, in_flight).
type Counts struct {
	Requests  int64 `json:"requests"`   // requests begun (first attempts)
	OK        int64 `json:"ok"`         // attempts answered 200
	Errors    int64 `json:"errors"`     // attempts that failed fast (refused, reset, not 200)
	Timeouts  int64 `json:"timeouts"`   // attempts abandoned at their timeout
	Attempts  int64 `json:"attempts"`   // attempts sent
	Retries   int64 `json:"retries"`    // attempts after the first of a request
	GaveUp    int64 `json:"gave_up"`    // requests the strategy abandoned
	InBackoff int64 `json:"in_backoff"` // clients waiting to retry
	InFlight  int64 `json:"in_flight"`  // attempts in flight
}

// Sub returns c's events since prev, and c's levels.
func (c Counts) Sub(prev Counts) Counts {
	return Counts{
		Requests: c.Requests - prev.Requests, OK: c.OK - prev.OK, Errors: c.Errors - prev.Errors,
		Timeouts: c.Timeouts - prev.Timeouts, Attempts: c.Attempts - prev.Attempts,
		Retries: c.Retries - prev.Retries, GaveUp: c.GaveUp - prev.GaveUp,
		InBackoff: c.InBackoff, InFlight: c.InFlight,
	}
}

// Window is what happened between two reports: Counts's events counted in
// [Start, End) since the population started, and its levels at End. Windows
// do not overlap and leave no gap: their events add up to the totals.
type Window struct {
	Start, End time.Duration
	Counts
	// Final marks the last window, cut short when the run ended.
	Final bool
}

// Elapsed is the window's actual length.
func (w Window) Elapsed() time.Duration { return w.End - w.Start }

// Rate returns n per second of the window.
func (w Window) Rate(n int64) float64 {
	if w.End <= w.Start {
		return 0
	}
	return float64(n) / w.Elapsed().Seconds()
}

// Line formats w as 001's client line.
func (w Window) Line() string {
	return fmt.Sprintf("OK: %.2f req/sec, errors: %.2f req/sec, timedout: %.2f req/sec",
		w.Rate(w.OK), w.Rate(w.Errors), w.Rate(w.Timeouts))
}

// Population is a set of clients, one goroutine each, that think, then GET
// the server's /api, retrying failed attempts as their strategy says. Its
// clients share one Policy, and tell it of every attempt that ends: its
// limiters' state is the whole population's, as one SDK client's is a
// process's, and their locks keep it whole; each client keeps its own
// State, so what a limiter holds for one request (State.Quota) is its
// client's.
type Population struct {
	cfg       ClientConfig
	url       string
	pol       *strategies.Policy
	tr        *http.Transport
	hc        *http.Client
	start     time.Time
	running   atomic.Bool
	requests  atomic.Int64
	ok        atomic.Int64
	errors    atomic.Int64
	timeouts  atomic.Int64
	attempts  atomic.Int64
	retries   atomic.Int64
	gaveUp    atomic.Int64
	inBackoff atomic.Int64
	inFlight  atomic.Int64

	latMu sync.Mutex
	lat   []time.Duration // success latencies since the last TakeLatencies

	// The connections: dialConn opens them (a net.Dialer's DialContext),
	// slots holds a token per open one (nil without a cap); open, peak and
	// filled are ConnStats'.
	dialConn func(ctx context.Context, network, addr string) (net.Conn, error)
	slots    chan struct{}
	open     atomic.Int64
	peak     atomic.Int64
	filled   atomic.Int64
}

// NewPopulation checks cfg and returns its population, not yet running.
func NewPopulation(cfg ClientConfig) (*Population, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Report == 0 {
		cfg.Report = 5 * time.Second
	}
	if cfg.MaxConns < 0 {
		return nil, &scenario.ParamError{Name: "max_conns", Value: fmt.Sprint(cfg.MaxConns), Allow: "0 (no cap) or more"}
	}
	pol, err := strategies.New(cfg.Strategy)
	if err != nil {
		return nil, err
	}
	u, _ := apiURL(cfg.Addr)
	idle := cfg.Clients // one kept-alive connection per client
	if cfg.MaxConns > 0 {
		idle = min(idle, cfg.MaxConns)
	}
	p := &Population{cfg: cfg, url: u, pol: pol, dialConn: (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext}
	if cfg.MaxConns > 0 {
		p.slots = make(chan struct{}, cfg.MaxConns)
	}
	p.tr = &http.Transport{
		Proxy:               nil, // loopback, never through a proxy
		DialContext:         p.dial,
		MaxIdleConns:        idle,
		MaxIdleConnsPerHost: idle,
		// The transport queues the attempts that need a connection past
		// the cap, and hands them the connections that close or come free;
		// dial's slots make the cap exact (see there).
		MaxConnsPerHost:    cfg.MaxConns,
		IdleConnTimeout:    90 * time.Second,
		DisableCompression: true,
	}
	p.hc = &http.Client{Transport: p.tr}
	return p, nil
}

// ConnStats is a snapshot of a population's connections.
type ConnStats struct {
	// Open is the connections open now, connects in progress included.
	Open int `json:"open"`
	// Peak is the most that were open at once since the start.
	Peak int `json:"peak"`
	// Max is the cap (ClientConfig.MaxConns); 0 when there is none.
	Max int `json:"max"`
	// Filled counts the connects that took the last free place under Max:
	// after each, until a connection closes, an attempt that finds no idle
	// connection waits.
	Filled int64 `json:"filled"`
}

// Conns returns a snapshot of the population's connections.
func (p *Population) Conns() ConnStats {
	return ConnStats{Open: int(p.open.Load()), Peak: int(p.peak.Load()), Max: p.cfg.MaxConns, Filled: p.filled.Load()}
}

// attemptKey keys an attempt's context in its request's context.
type attemptKey struct{}

// dial opens a connection for the transport, for no longer than the
// attempt that asked for it lasts. The transport dials on a context that
// keeps the request's values but not its cancellation, so that another
// attempt may use the connection; but a connect that the server's full
// accept queue leaves unanswered would then go on in SYN-SENT for the
// kernel's two minutes of retries, holding a descriptor, long after its
// attempt timed out. A real client's connect timeout is its attempt's.
//
// With a cap, dial takes one of p.slots for the connection's lifetime. The
// transport alone would let the cap be passed for a moment: it gives a
// waiting attempt leave to dial before it closes the connection that freed
// the place. The slot makes that dial wait for the close.
func (p *Population) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if actx, ok := ctx.Value(attemptKey{}).(context.Context); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(actx, cancel)()
	}
	if p.slots != nil {
		select {
		case p.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	n := p.open.Add(1)
	for {
		pk := p.peak.Load()
		if n <= pk || p.peak.CompareAndSwap(pk, n) {
			break
		}
	}
	if p.slots != nil && n >= int64(p.cfg.MaxConns) {
		p.filled.Add(1)
	}
	c, err := p.dialConn(ctx, network, addr)
	if err != nil {
		p.release()
		return nil, err
	}
	return &countedConn{Conn: c, p: p}, nil
}

// release gives back a connection's place.
func (p *Population) release() {
	p.open.Add(-1)
	if p.slots != nil {
		<-p.slots
	}
}

// countedConn gives back its place in the population when it closes.
type countedConn struct {
	net.Conn
	p    *Population
	once sync.Once
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.p.release)
	return err
}

// Totals returns the counters since the start.
func (p *Population) Totals() Counts {
	return Counts{
		Requests: p.requests.Load(), OK: p.ok.Load(), Errors: p.errors.Load(),
		Timeouts: p.timeouts.Load(), Attempts: p.attempts.Load(), Retries: p.retries.Load(),
		GaveUp: p.gaveUp.Load(), InBackoff: p.inBackoff.Load(), InFlight: p.inFlight.Load(),
	}
}

// maxLatencies bounds the latencies kept between two TakeLatencies: a
// population nobody reads keeps the first ones only.
const maxLatencies = 1 << 20

// TakeLatencies returns the end-to-end latency (from the request's first
// attempt to its success, retries and backoff included) of every request
// that succeeded since the previous call (since the start for the first),
// in no particular order, and starts a new window.
func (p *Population) TakeLatencies() []time.Duration {
	p.latMu.Lock()
	defer p.latMu.Unlock()
	out := p.lat
	p.lat = make([]time.Duration, 0, cap(out))
	return out
}

func (p *Population) recordLatency(d time.Duration) {
	p.latMu.Lock()
	if len(p.lat) < maxLatencies {
		p.lat = append(p.lat, d)
	}
	p.latMu.Unlock()
}

// Run runs the clients until ctx is done, then waits for every one of them
// to stop, closes the idle connections and returns. A population runs once.
func (p *Population) Run(ctx context.Context) error {
	if !p.running.CompareAndSwap(false, true) {
		return errors.New("realexp: Population.Run called twice")
	}
	p.start = time.Now()
	var wg sync.WaitGroup
	for i := range p.cfg.Clients {
		wg.Go(func() { p.client(ctx, i) })
	}
	wg.Wait()
	// Every connection is idle or closed now. CloseIdleConnections also
	// cancels the connects that outlived their attempts, but one may have
	// delivered its connection to the idle pool just before: close them
	// until none is left.
	p.tr.CloseIdleConnections()
	for deadline := time.Now().Add(drainWait); p.open.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		p.tr.CloseIdleConnections()
	}
	return nil
}

// drainWait bounds Run's wait for its connections to close once its
// clients stopped.
const drainWait = 5 * time.Second

// The outcomes of an attempt.
const (
	succeeded = iota
	failed
	timedOut
	stopped // the population is stopping
)

// client is client i's loop: think, then one request with its retries.
func (p *Population) client(ctx context.Context, i int) {
	rng := rand.New(rand.NewPCG(p.cfg.Seed, uint64(i)))
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	sleep := func(d time.Duration) bool {
		timer.Reset(d)
		select {
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-timer.C:
			return true
		}
	}
	var st strategies.State
	for {
		think := time.Duration(rng.ExpFloat64() * float64(p.cfg.Think))
		if !sleep(think) {
			return
		}
		p.requests.Add(1)
		begun := time.Now()
		p.pol.Begin(&st, time.Since(p.start), think)
		if !p.pol.AllowFirst(&st, time.Since(p.start), rng) {
			p.gaveUp.Add(1) // a limit (a breaker) refused the request
			continue
		}
		for {
			p.attempts.Add(1)
			p.inFlight.Add(1)
			o := p.attempt(ctx, p.pol.AttemptTimeout(&st, p.cfg.Timeout))
			p.inFlight.Add(-1)
			switch o {
			case stopped:
				return
			case succeeded:
				p.recordLatency(time.Since(begun))
				p.ok.Add(1)
				p.pol.Record(&st, time.Since(p.start), strategies.Success)
			case timedOut:
				p.timeouts.Add(1)
				p.pol.Record(&st, time.Since(p.start), strategies.Timeout)
			case failed:
				p.errors.Add(1)
				p.pol.Record(&st, time.Since(p.start), strategies.Error)
			}
			if o == succeeded {
				break
			}
			d, again := p.pol.Retry(&st, time.Since(p.start), rng)
			if !again {
				p.gaveUp.Add(1)
				break
			}
			p.inBackoff.Add(1)
			slept := sleep(d)
			p.inBackoff.Add(-1)
			if !slept {
				return
			}
			if !p.pol.AllowSend(&st, time.Since(p.start), rng) {
				p.gaveUp.Add(1) // a limit (a breaker) refused the retry when it was due
				break
			}
			p.retries.Add(1)
		}
	}
}

// attempt makes one GET with its own timeout. When the timeout fires the
// request's context ends the round trip: the transport closes the
// connection, and a connect in progress for it ends too (see dial), so
// nothing is left running for it. Waiting for a connection under the cap
// counts in the timeout.
func (p *Population) attempt(ctx context.Context, timeout time.Duration) int {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(context.WithValue(actx, attemptKey{}, actx), http.MethodGet, p.url, nil)
	if err != nil {
		return failed
	}
	resp, err := p.hc.Do(req)
	if err == nil {
		_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if err == nil && resp.StatusCode != http.StatusOK {
			return failed
		}
	}
	switch {
	case err == nil:
		return succeeded
	case ctx.Err() != nil:
		return stopped
	case errors.Is(actx.Err(), context.DeadlineExceeded):
		return timedOut
	}
	return failed
}

// RunClients runs cfg's population until ctx is done and calls report (if
// not nil) with a Window every cfg.Report, and once more with the last,
// shorter window when it ends: the windows' events add up to the totals,
// which it returns. report runs on RunClients' goroutine; a slow report
// delays the next window, whose length is measured, not assumed.
func RunClients(ctx context.Context, cfg ClientConfig, report func(Window)) (Counts, error) {
	p, err := NewPopulation(cfg)
	if err != nil {
		return Counts{}, err
	}
	start := time.Now()
	done := make(chan struct{})
	go func() {
		p.Run(ctx)
		close(done)
	}()
	t := time.NewTicker(p.cfg.Report)
	defer t.Stop()
	var last Counts
	lastAt := time.Duration(0)
	emit := func(final bool) {
		now, cur := time.Since(start), p.Totals()
		w := Window{Start: lastAt, End: now, Counts: cur.Sub(last), Final: final}
		last, lastAt = cur, now
		if report != nil {
			report(w)
		}
	}
	for {
		select {
		case <-t.C:
			emit(false)
		case <-done:
			emit(true)
			return last, nil
		}
	}
}
