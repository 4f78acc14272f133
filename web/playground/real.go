package playground

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net"
	"sync"
	"time"

	"golang.org/x/net/netutil"

	"github.com/backofflab/backofflab/realexp"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/scene"
)

// A real lane (<letter>.source=real) runs the real experiment (realexp) inside a
// live session: a realexp.Server on an ephemeral loopback port and a
// realexp.Population of clients against it, in real time. The engine keeps
// simulating every lane, the real one included; the session replaces that
// lane's block of each tick row with what the real clients and server did
// over the same tick window (virtual time is wall time since the run
// started, so speed is 1). The scheduled outage and the page's stop/resume
// button pause and resume the real server when the engine's outage starts
// and ends, and the lane's verdicts come from a scenario.Detector fed with
// the real ticks: the same rules as the simulated lanes.

// The descriptor budget of the real lanes.
//
// A real lane holds at most 2·n + 1 of the process's file descriptors, n
// being realSlots.budget: its server's accepted connections, which
// netutil.LimitListener caps at n; its clients' connections, connects in
// progress included, which realexp.ClientConfig.MaxConns caps at n; and its
// listener. A connection the server has not accepted waits in the kernel's
// accept queue and holds no descriptor of the server's, only its client's,
// one of the clients' n; so does a connect that the full queue leaves
// unanswered (SYN-SENT), which ends with its attempt's timeout. Past their
// n, the server's connects wait in that queue and the clients' connects
// wait for a connection to close, within their attempt's timeout (which
// they count in), as they would on a real host out of descriptors.
//
// Of the open-file limit L (the soft limit, which the first real lane
// raises to the hard one), the playground keeps for itself — its pages'
// WebSockets (at most Limits.MaxSessions), /healthz, exports, assets, the
// runtime's poller — a reserve of
//
//	reserve = max(L/4, min(1024, L/2))
//
// and the S = Limits.MaxRealSessions lanes that may run at once share the
// rest:
//
//	n = min(maxRealConns, (L − reserve − S) / (2·S)), at least 1.
//
// With this playground's machine's L = 20 000 and S = 2: reserve = 5 000,
// n = min(4 096, 14 998/4) = 3 749, and two real lanes at their worst hold
// 2·(2·3 749 + 1) = 14 998 descriptors, leaving the playground 5 002. With
// an unraised L = 1 024: reserve 512, n = 127. n reaches maxRealClients
// (2 000 for S = 2) from L ≈ 10 700 on: below it, a lane's clients cannot
// all keep a connection open at once, and the budget, not the server,
// makes some of them wait.

// maxRealConns caps n whatever L: twice maxRealClients and a little, room
// for every client's connection and as many closing.
const maxRealConns = 4096

// realReserve returns the descriptors the playground keeps for itself out
// of the open-file limit limit.
func realReserve(limit uint64) uint64 { return max(limit/4, min(1024, limit/2)) }

// connBudget returns n, the connections each side of one real lane may
// hold, for the open-file limit limit and sessions real lanes at once.
func connBudget(limit uint64, sessions int) int {
	s := uint64(max(sessions, 1))
	rest := limit - min(limit, realReserve(limit)+s)
	return int(max(1, min(maxRealConns, rest/(2*s))))
}

// realSlots counts the sessions whose scenario has a real lane, against
// Limits.MaxRealSessions, and holds the lanes' descriptor budget.
type realSlots struct {
	mu   sync.Mutex
	n    int
	max  int
	once sync.Once // raises the open-file limit at the first real lane
	// conns is n, the budget of each side of a lane (see connBudget), set
	// by once unless set before (by tests).
	conns int
}

func (r *realSlots) acquire() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n >= r.max {
		return false
	}
	r.n++
	r.once.Do(r.init)
	return true
}

func (r *realSlots) release() {
	r.mu.Lock()
	r.n--
	r.mu.Unlock()
}

// budget returns n, the connections each side of a real lane may hold.
func (r *realSlots) budget() int {
	r.once.Do(r.init)
	return r.conns
}

// init raises the open-file limit and sets the budget from it; where the
// limit cannot be read, the budget is maxRealConns.
func (r *realSlots) init() {
	soft, _, err := realexp.RaiseFileLimit()
	switch {
	case r.conns > 0:
	case err != nil:
		r.conns = maxRealConns
	default:
		r.conns = connBudget(soft, r.max)
	}
}

// busyReal is the message of a real lane refused for want of a slot.
const busyReal = "server busy: too many real experiments running"

// realConfig is what a real lane's server and clients are made of: when it
// changes, the run restarts (real clients and a real server cannot change
// on the fly).
type realConfig struct {
	server realexp.ServerConfig
	client realexp.ClientConfig
}

func newRealConfig(p scenario.Params, lane int) realConfig {
	return realConfig{server: realexp.ServerConfigOf(&p, lane), client: realexp.ClientConfigOf(&p, lane)}
}

// realRun is one run of a real lane: its server, its clients, and what
// the session measured of them so far. Only the session's run goroutine
// uses it.
type realRun struct {
	lane  int
	addr  string // the server's host:port
	tick  time.Duration
	srv   *realexp.Server
	pop   *realexp.Population
	conns int // the connection budget of each side
	// clients is the population's size: those not under way think.
	clients int

	// warned: the page was told that the clients reached their budget;
	// note is that message until takeNote takes it.
	warned bool
	note   string

	// start is the wall time of virtual time 0.
	start time.Time
	// down is what the session last told the server: stopped (paused) or not.
	down    bool
	stopped bool

	stopPop, stopSrv context.CancelFunc
	popDone, srvDone chan struct{}

	// Measurements. ticks counts the ticks measured; the last reading is
	// shared out among the ticks it covers (see measure).
	ticks  int64
	lastAt time.Time
	last   realexp.Counts
	cur    reading
	det    *scenario.Detector
	fed    int // outage transitions fed to det: 2 per outage, start then end
}

// reading is one look at the real experiment, shared out among n ticks.
type reading struct {
	n, given int64
	delta    realexp.Counts // events over the reading's window; levels at its end
	lt       scenario.LaneTick
	peak     int
}

// startReal starts lane's real experiment for p, at the engine's virtual
// time now (0 after a reset), with conns connections at most on each side
// (see realSlots.budget).
func startReal(p scenario.Params, lane int, now time.Duration, log *slog.Logger, conns int) (*realRun, error) {
	cfg := newRealConfig(p, lane)
	cfg.server.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelDebug)
	cfg.client.MaxConns = conns
	if err := cfg.server.Validate(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cfg.client.Addr = ln.Addr().String()
	pop, err := realexp.NewPopulation(cfg.client)
	if err != nil {
		ln.Close()
		return nil, err
	}
	r := &realRun{lane: lane, addr: cfg.client.Addr, tick: p.Tick, conns: conns, clients: cfg.client.Clients,
		srv: realexp.NewServer(cfg.server), pop: pop, det: scenario.NewDetector(p),
		popDone: make(chan struct{}), srvDone: make(chan struct{}), ticks: int64(now / p.Tick)}
	sctx, stopSrv := context.WithCancel(context.Background())
	pctx, stopPop := context.WithCancel(context.Background())
	r.stopSrv, r.stopPop = stopSrv, stopPop
	go func() {
		defer close(r.srvDone)
		if err := r.srv.Run(sctx, netutil.LimitListener(ln, conns), nil); err != nil {
			log.Info("real lane server", "err", err)
		}
	}()
	r.start = time.Now().Add(-now)
	r.lastAt = time.Now()
	go func() {
		defer close(r.popDone)
		r.pop.Run(pctx)
	}()
	return r, nil
}

// stop stops the clients, then the server, and waits until every goroutine
// and connection of both is gone. The measurements stay.
func (r *realRun) stop() {
	if r.stopped {
		return
	}
	r.stopped = true
	r.stopPop()
	<-r.popDone
	r.stopSrv()
	<-r.srvDone
}

// virtual returns the virtual time of wall time now.
func (r *realRun) virtual(now time.Time) time.Duration { return now.Sub(r.start) }

// setDown pauses (down) or resumes the real server.
func (r *realRun) setDown(down bool) {
	if r.stopped || down == r.down {
		return
	}
	if down {
		r.srv.Pause()
	} else {
		r.srv.Resume()
	}
	r.down = down
}

// measure reads the real experiment at wall time now, when the ticks that
// end at or before virtual time to (which the engine is about to emit) have
// not all been measured: the reading's window is from the previous one to
// now, and the ticks it covers share it (see next).
func (r *realRun) measure(now time.Time, to time.Duration) {
	n := int64(to/r.tick) - r.ticks - (r.cur.n - r.cur.given)
	if n <= 0 || r.stopped {
		return
	}
	cur := r.pop.Totals()
	st := r.srv.Stats()
	lat := r.pop.TakeLatencies()
	d := cur.Sub(r.last)
	sec := now.Sub(r.lastAt).Seconds()
	rate := func(k int64) float64 {
		if sec <= 0 {
			return 0
		}
		return float64(k) / sec
	}
	lt := scenario.LaneTick{
		OK: rate(d.OK), Errors: rate(d.Errors), Timeouts: rate(d.Timeouts), Attempts: rate(d.Attempts),
		Retries: rate(d.Retries), GaveUp: rate(d.GaveUp),
		Concurrency:   st.Concurrency,
		ServerLatency: st.Latency.Seconds(), // the model's, whatever its shape
		Backlog:       st.Backlog,
		InBackoff:     int(cur.InBackoff),
		Alive:         int(cur.InBackoff + cur.InFlight),
		// The population's counters are read one by one while its
		// clients run: a client between two of them can be counted twice.
		Thinking: max(0, r.clients-int(cur.InBackoff+cur.InFlight)),
		Queued:   st.Queued,
	}
	lt.SetLatencies(lat)
	r.cur = reading{n: n, delta: d, lt: lt, peak: r.srv.TakePeak()}
	r.last, r.lastAt = cur, now
	if c := r.pop.Conns(); c.Filled > 0 && !r.warned {
		r.warned = true
		r.note = budgetNote(r.lane, r.conns)
	}
}

// budgetNote is the page's message when lane's real clients reach their
// connection budget of n.
func budgetNote(lane, n int) string {
	return fmt.Sprintf("lane %c's real clients reached their connection budget (%d): further connects wait, "+
		"as on a real host out of descriptors, and count as timeouts if none comes free in time", scenario.LaneNames[lane], n)
}

// takeNote returns, once, what the page must be told about the real lane
// since the last measure (its clients reaching their connection budget),
// or "".
func (r *realRun) takeNote() string {
	m := r.note
	r.note = ""
	return m
}

// next returns the real lane's share of the engine's next tick: the rates
// and levels of the reading that covers it, and its share of the reading's
// ok and attempts counts for the verdicts, which it feeds to the detector after the
// engine's outages so far.
func (r *realRun) next(outages [][2]time.Duration, dropped int) scenario.LaneTick {
	r.feed(outages, dropped)
	t := time.Duration(r.ticks+1) * r.tick
	c := &r.cur
	lt := c.lt
	var ok, sent int64
	if c.given < c.n {
		ok = c.delta.OK*(c.given+1)/c.n - c.delta.OK*c.given/c.n
		sent = c.delta.Attempts*(c.given+1)/c.n - c.delta.Attempts*c.given/c.n
		c.given++
	} else { // a tick no reading covers: nothing measured
		lt = scenario.LaneTick{P50: math.NaN(), P99: math.NaN()}
	}
	r.ticks++
	lt.T = t.Seconds()
	r.det.Tick(t, ok, sent, max(c.peak, lt.Concurrency))
	return lt
}

// feed gives the detector the outage transitions it has not seen: the
// engine's latest outages (simengine.Engine.Outages, after dropped older
// ones), all of which happened before the next tick ends. Whole outages
// dropped before the detector saw them are skipped: only the latest
// decide the verdict.
func (r *realRun) feed(outages [][2]time.Duration, dropped int) {
	if r.fed < 2*dropped {
		if r.fed%2 == 1 { // the outage it saw start has ended since
			r.det.OutageEnded(outages[0][0])
		}
		r.fed = 2 * dropped
	}
	for {
		i := r.fed/2 - dropped
		if i >= len(outages) {
			return
		}
		if r.fed%2 == 0 {
			r.det.OutageStarted()
		} else if end := outages[i][1]; end >= 0 {
			r.det.OutageEnded(end)
		} else {
			return
		}
		r.fed++
	}
}

// summary is the real lane's verdict on its ticks so far.
func (r *realRun) summary(outages [][2]time.Duration, dropped int) scenario.Summary {
	r.feed(outages, dropped)
	return r.det.Summary(r.last.Requests, r.last.Attempts, r.last.OK, r.last.GaveUp)
}

// nextWake returns how long after now the session must look at the real
// experiment again: at the next tick's end, or the scheduled outage's start
// or end if one comes first, or the run's end.
func (r *realRun) nextWake(now time.Time, p *scenario.Params) time.Duration {
	v := r.virtual(now)
	next := (v/r.tick + 1) * r.tick
	if p.Outage != scenario.OutageNone && p.OutageFor > 0 {
		for _, x := range []time.Duration{p.OutageAt, p.OutageAt + p.OutageFor} {
			if x > v && x < next {
				next = x
			}
		}
	}
	if p.Duration > v {
		next = min(next, p.Duration)
	}
	return max(next-v, 0)
}

// realLane is the laneSource of a real lane: a realRun per run, started at
// the run's start while it plays, stopped when the run pauses or ends (real
// time cannot pause), and whose measurements stay for the summary.
type realLane struct {
	lane  int
	log   *slog.Logger
	slots *realSlots
	// run is the current run's real experiment; nil before it started.
	run *realRun
}

func (l *realLane) source() string { return scene.SourceReal }

func (l *realLane) addr() string {
	if l.run == nil {
		return ""
	}
	return l.run.addr
}

func (l *realLane) start(p scenario.Params, now time.Duration) error {
	l.stop()
	r, err := startReal(p, l.lane, now, l.log, l.slots.budget())
	if err != nil {
		l.log.Error("real lane", "err", err)
		return fmt.Errorf("the real lane could not start (%v); lane %c runs simulated instead", err, scenario.LaneNames[l.lane])
	}
	l.run = r
	return nil
}

func (l *realLane) stop() {
	if l.run != nil {
		l.run.stop()
	}
}

func (l *realLane) live() bool { return l.run != nil && !l.run.stopped }

func (l *realLane) virtual(now time.Time) time.Duration { return l.run.virtual(now) }

func (l *realLane) nextWake(now time.Time, p *scenario.Params) time.Duration {
	return l.run.nextWake(now, p)
}

func (l *realLane) measure(now time.Time, to time.Duration) string {
	l.run.measure(now, to)
	return l.run.takeNote()
}

func (l *realLane) setDown(down bool) {
	if l.live() {
		l.run.setDown(down)
	}
}

// tick replaces the engine's values with what the real clients and server
// did over the same tick window, while they run.
func (l *realLane) tick(sim scenario.LaneTick, eng *simengine.Engine) scenario.LaneTick {
	if !l.live() {
		return sim
	}
	return l.run.next(eng.Outages(), eng.OutagesDropped())
}

// summary is the real measurements' verdict once the lane ran, even
// stopped: the engine's simulation of the lane is not what the page shows.
func (l *realLane) summary(sim scenario.Summary, eng *simengine.Engine) scenario.Summary {
	if l.run == nil {
		return sim
	}
	return l.run.summary(eng.Outages(), eng.OutagesDropped())
}

// requests returns the engine's requests of lane i while the lane runs
// simulated; a real run's requests are not counted one by one.
func (l *realLane) requests(i int, eng *simengine.Engine) *simengine.Requests {
	if l.run != nil {
		return nil
	}
	return eng.Requests(i)
}

func (l *realLane) note() string {
	name := scenario.LaneNames[l.lane : l.lane+1]
	if l.live() {
		return "lane " + name + " is real: a real server and clients in real time; Pause stops them, and Play then restarts the run from 0"
	}
	return "lane " + name + "'s real server and clients are stopped: Play restarts the run from 0 (real time cannot be paused)"
}

// restarts: a change of what the lane's server and clients are made of
// (clients, think, timeout, server, its strategy and limits, seed) needs
// new ones.
func (l *realLane) restarts(old, p scenario.Params) bool {
	for _, row := range scenario.Table {
		if (row.Scope != scenario.ScopeRun || row.Name == "seed") && row.Value(&p, l.lane) != row.Value(&old, l.lane) {
			return true
		}
	}
	return false
}

// stale: real clients and a real server cannot resume where they stopped.
func (l *realLane) stale() bool { return !l.live() }
