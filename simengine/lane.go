package simengine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
	"unsafe"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/reqhist"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// The states of a client, and of a tier call (which is never thinking or
// arriving).
const (
	thinking uint8 = iota // between requests; its event starts the next one
	backing               // waiting to retry; its event starts the next attempt
	waiting               // an attempt is in flight; its event is the timeout
	retired               // removed when the client count went down, or its open-loop request (or its call) ended
	arriving              // the open loop's source: its event is the next arrival
)

// Where a client's (or a call's) current attempt is, for the answers and
// for cancel_on_timeout.
const (
	nowhere uint8 = iota
	inServer
	inBacklog
	inTier // carried by a call at the next tier: slot is the call's index
)

// client is one simulated client, or one call of a lane's layered retries
// (a tier's service working on one attempt of its caller: see call). It
// has exactly one pending event in its lane's queue (a call, in the calls'
// queue) while it is not retired.
//
// A request in the server or the backlog, or a call at the next tier, is
// the client's current attempt exactly when the client is waiting, in says
// where the attempt is, and slot is the request's absolute index there or
// the call's index: every attempt starts with in = nowhere, so a stale slot
// never matches, and a call's index is not reused while the call is alive.
type client struct {
	st strategies.State // the current request's retry state
	// pos holds the client's state, in, tier and slot in one word (its
	// fields are below), so that a client is 56 bytes. slot is, while
	// the client waits on an attempt, the attempt's absolute index in
	// the server queue or backlog, or its call's index; while it thinks,
	// its think time, which its next request's Policy.Begin takes
	// (think_scaled's first retry scales it: it is kept, not drawn
	// again, as a live change or a fault may change the mean think time
	// before the request starts); while it backs off, its next attempt's
	// own timeout, or 0 (see ownTimeouts).
	pos uint64
	// link is, for a client, the count of its think times (the
	// common-random-number stream's index); for a call, its caller's
	// index: a client's for a call of the top inner tier, else a call's.
	link uint32
	// seq is the queue's: the sequence number of the client's event in
	// its queue (queue.live). It outlives the client's reuse: a reset
	// keeps it, as stale entries of the old one may still be queued.
	seq uint32
}

// The fields of client.pos, from the top: keptBit (see ownTimeouts),
// state (3 bits), tier (a call's inner tier, 0 for the one the clients
// call, tier 2: 2 bits), in (2 bits) and slot (56 bits). A slot never
// reaches 2^56: a run admits far fewer requests, a think time is at most
// about 37 times the longest mean think time, an hour, some 2^47 ns, and
// an own timeout is cut there (ownSlot); place and set mask it all the
// same, so that no slot can change the other fields.
const (
	slotBits   = 56
	slotMask   = 1<<slotBits - 1
	inShift    = slotBits
	tierShift  = inShift + 2
	stateShift = tierShift + 2
	inMask     = 3 << inShift
	stateMask  = 7 << stateShift
)

// state returns c's state: thinking, backing, waiting, retired or arriving.
func (c *client) state() uint8 { return uint8(c.pos>>stateShift) & 7 }

// in returns where c's current attempt is.
func (c *client) in() uint8 { return uint8(c.pos>>inShift) & 3 }

// tier returns a call's inner tier.
func (c *client) tier() uint8 { return uint8(c.pos>>tierShift) & 3 }

// slot returns c's slot: its attempt's index, or its think time.
func (c *client) slot() uint64 { return c.pos & slotMask }

// setState sets c's state, and leaves the rest.
func (c *client) setState(state uint8) {
	c.pos = c.pos&^stateMask | uint64(state)<<stateShift
}

// place sets where c's attempt is and its slot, and leaves its state.
func (c *client) place(in uint8, slot uint64) {
	c.pos = c.pos&^(inMask|slotMask) | uint64(in)<<inShift | slot&slotMask
}

// set sets c's state, where its attempt is and its slot; a call keeps its
// tier, and the keptBit goes (see ownTimeouts).
func (c *client) set(state, in uint8, slot uint64) {
	c.pos = c.pos&(3<<tierShift) | uint64(state)<<stateShift | uint64(in)<<inShift | slot&slotMask
}

// send makes c wait on a new attempt, nowhere yet; a call keeps its tier,
// and c its keptBit: the attempt's own timeout is still where it was.
func (c *client) send() {
	c.pos = c.pos&(3<<tierShift|keptBit) | uint64(waiting)<<stateShift
}

// tierPos returns the pos of a call of inner tier k that is thinking,
// as a new one is until its first attempt.
func tierPos(k uint8) uint64 { return uint64(k) << tierShift }

// clientBytes is what a client costs: its state and its event. A lane
// that keeps its clients' own timeouts (see ownTimeouts) pays timeoutBytes
// more for each.
const (
	clientBytes  = int64(unsafe.Sizeof(client{})) + int64(unsafe.Sizeof(event{}))
	timeoutBytes = int64(unsafe.Sizeof(time.Duration(0)))
)

// counters count what happens in a lane, over a tick or since the start:
// its clients' requests and attempts and, for layered retries, the
// attempts each inner tier sends.
type counters struct {
	requests, ok, errors, timeouts, attempts, retries, gaveUp int64
	tier                                                      [scenario.MaxTiers]int64
}

func (c *counters) add(d counters) {
	c.requests += d.requests
	c.ok += d.ok
	c.errors += d.errors
	c.timeouts += d.timeouts
	c.attempts += d.attempts
	c.retries += d.retries
	c.gaveUp += d.gaveUp
	for k := range c.tier {
		c.tier[k] += d.tier[k]
	}
}

// lane is one side-by-side world: its own clients and its own server, driven
// by its own strategy. Lanes of an engine share parameters and think times.
type lane struct {
	p   *scenario.Params // the engine's parameters
	pol *strategies.Policy
	// build makes the lane's Policy from its parameters: strategies.New,
	// unless a test gives the lane limits the vocabulary has no name for.
	build  func(strategies.Params) (*strategies.Policy, error)
	cancel bool
	rng    *rand.Rand // the strategy's random numbers

	clients []client
	active  int // clients[:active] take part; the rest are retired
	q       queue
	now     time.Duration
	// timer is the lane's strategy when it sets its attempts' timeouts,
	// else nil; timeouts are its clients' (see ownTimeouts).
	timer    strategies.AttemptTimer
	timeouts ownTimeouts

	// An open loop's requests each have a client of their own, from
	// clients[1:]; client 0 is the source whose events are the arrivals.
	open     bool
	free     []int32 // clients whose request ended, for the next ones
	arrivals uint64  // arrivals so far: the index of the next one's gap
	// nextArrival is the time of the source's event, the next arrival.
	nextArrival time.Duration

	// The server: its model holds what is inside; the lane holds its
	// accept backlog and the failure in effect (nil while it is up).
	model   serverModel
	backlog chunked[int32] // the accept backlog: clients, -1 once cancelled
	blLive  int
	fail    *failure
	next    time.Duration // the next completion, or never

	// onReject is rejectedNow as a func value, made once: a method value
	// made at every plan would allocate at every event.
	onReject func(slot uint64, ci int32)

	// Layered retries: tiers are the lane's inner tiers, top (tier 2)
	// first, none when its clients call the server. calls are their
	// calls, alive or ended (retired, their indices in freeCalls for the
	// next ones), whose events are in cq; cq shares q's sequence numbers
	// (scheduleCall), so that the events of both are ordered by (time,
	// seq) as one queue's would be. callHeld is what the calls take of
	// the budget.
	tiers        []tierRun
	calls        []client
	callTimeouts ownTimeouts // the calls' own timeouts, indexed as calls
	freeCalls    []int32
	cq           queue
	callHeld     int64

	// errFrac is the share of answers an error burst turns into errors,
	// and answers counts the answers, for a reproducible choice of which.
	errFrac float64
	answers uint64

	waiting, inBackoff int
	tick               counters // since the last tick
	total              counters // since the start, up to the last tick
	lat                []time.Duration
	latSeen            uint64 // successes in the current tick; lat keeps a sample of maxLat
	tickMaxC           int    // highest concurrency in the current tick
	events             int64  // events processed, for benchmarks
	det                *scenario.Detector

	// reqs holds the latency of every request that ended, oks of those
	// that succeeded (see gaveUp and succeeded): what the run's users saw, request by
	// request, whichever tick the request ended in.
	reqs, oks reqhist.Histogram
	// peakBottom is, with layered retries, the most attempts the bottom
	// tier sent to the server in a tick.
	peakBottom int64

	// mem is the run's memory budget (nil: unbounded), held is what the
	// lane's clients and events take of it, and halt, once set, is why
	// the lane stopped: it processes no more events.
	mem  *budget.Account
	held int64
	halt *Halt
}

// tierRun is one inner tier of a lane: its policy, shared by its calls as
// a lane's is by its clients, its strategy when that sets its attempts'
// timeouts (else nil), and its per-attempt timeout.
type tierRun struct {
	pol     *strategies.Policy
	timer   strategies.AttemptTimer
	timeout time.Duration
}

// maxLat bounds the success latencies a lane keeps per tick for p50 and
// p99: past it they are a uniform sample (reservoir sampling) of the tick's
// successes, so a tick of millions of fast requests costs 512 KiB, not a
// slice of millions.
const maxLat = 1 << 16

// Halt says why a lane stopped before the end of the run, and where.
type Halt struct {
	At     time.Duration // virtual time of the stop
	Queued int           // requests in the server and its backlog then
	Reason error         // the budget it would have exceeded
}

// String puts the stop in words, as the lane's verdict shows it.
func (h *Halt) String() string {
	return fmt.Sprintf("collapsed: stopped at %s queued requests at t = %.1f s, %v",
		groupDigits(h.Queued), h.At.Seconds(), h.Reason)
}

// groupDigits writes n with thin spaces between groups of three digits.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}

// strategyStream is the PCG stream of every lane's strategy randomness: two
// lanes with the same strategy and parameters draw the same numbers.
const strategyStream = 0x5851f42d4c957f2d

func newLane(p *scenario.Params, i int, mem *budget.Account) *lane {
	l := &lane{p: p, next: never, mem: mem}
	l.q = newQueue(&l.clients, 0)
	l.cq = newQueue(&l.calls, 0)
	l.onReject = l.rejectedNow
	l.rng = rand.New(rand.NewPCG(p.Seed, strategyStream))
	l.configure(i)
	l.model = newServerModel(p)
	l.det = scenario.NewDetector(*p)
	if l.open = p.Arrival == scenario.ArrivalOpen; l.open {
		if l.reserve(1) {
			l.addClient()
			l.clients[0].setState(arriving)
			l.active = 1
			l.nextArrival = l.arrivalGap()
			l.q.schedule(0, l.nextArrival)
		}
		return l
	}
	if l.reserve(p.Clients) {
		l.clients = make([]client, 0, p.Clients)
		if l.timeouts != nil {
			l.timeouts = make(ownTimeouts, 0, p.Clients)
		}
		l.q.reserve(p.Clients)
		l.resize(p.Clients)
	}
	return l
}

// addClient appends a new client, and its own timeout when the lane keeps
// them.
func (l *lane) addClient() {
	l.clients = append(l.clients, client{})
	l.timeouts.add()
}

// arrivalGap returns the time from the open loop's current arrival to the
// next: exponential with mean 1/rate, a pure function of the seed and the
// arrival's index, so every lane sees the same arrivals (common random
// numbers). Its hash input has the top bit set, which no client's think
// time has.
func (l *lane) arrivalGap() time.Duration {
	h := mix(l.p.Seed ^ mix(1<<63|l.arrivals))
	l.arrivals++
	u := float64(h>>11) * 0x1p-53
	return time.Duration(-math.Log1p(-u) / l.p.Rate * float64(time.Second))
}

// arrive starts an open loop's new request, in a client of its own, and
// sets the next arrival.
func (l *lane) arrive() {
	gap := l.arrivalGap()
	l.nextArrival = l.now + gap
	l.q.schedule(0, l.nextArrival)
	if ci, c := l.requestClient(); c != nil {
		l.start(ci, c, gap)
	}
}

// requestClient returns a client, fresh, for an open loop's new request:
// a free one, else a new one; nil when the budget has none and the lane
// halts.
func (l *lane) requestClient() (int32, *client) {
	var ci int32
	if k := len(l.free); k > 0 {
		ci, l.free = l.free[k-1], l.free[:k-1]
	} else {
		if !l.reserve(len(l.clients) + 1) {
			return -1, nil
		}
		ci = int32(len(l.clients))
		l.addClient()
		l.active++
	}
	c := &l.clients[ci]
	*c = client{seq: c.seq}
	return ci, c
}

// reserve takes from the budget what n clients cost, beyond what the lane
// holds already; when it cannot, the lane halts.
func (l *lane) reserve(n int) bool { return l.grow(&l.held, int64(n)*l.timeouts.each()) }

// grow takes from the budget what bytes (of clients or calls) cost beyond
// *held, and adds it to *held; when it cannot, the lane halts.
func (l *lane) grow(held *int64, bytes int64) bool {
	need := bytes - *held
	if need <= 0 {
		return true
	}
	if err := l.mem.Grow(need); err != nil {
		l.stop(err)
		return false
	}
	*held += need
	return true
}

// stop halts the lane now because of err: it processes no more events, and
// its queues go back to the budget.
func (l *lane) stop(err error) {
	if l.halt != nil {
		return
	}
	l.halt = &Halt{At: l.now, Queued: l.model.held() + l.backlog.n, Reason: err}
	l.model.free(l.mem)
	l.backlog.free(l.mem)
	l.blLive, l.next = 0, never
}

// release gives back everything the lane holds of the budget.
func (l *lane) release() {
	l.model.free(l.mem)
	l.backlog.free(l.mem)
	l.mem.Shrink(l.held + l.callHeld)
	l.held, l.callHeld = 0, 0
}

// configure reads lane i's strategy parameters. The new Policy keeps the
// state of the old one's shared limits whose parameters did not change
// (strategies.Policy.Keep): a live change of, say, the client count does
// not reset a lane's token bucket. Per-client limit state stays in the
// clients' States.
func (l *lane) configure(i int) {
	build := l.build
	if build == nil {
		build = strategies.New
	}
	pol, err := build(l.p.Lanes[i].Params)
	if err != nil {
		panic("simengine: unvalidated strategy: " + err.Error())
	}
	pol.Keep(l.pol)
	l.pol, l.cancel = pol, l.p.Lanes[i].CancelOnTimeout
	timer, _ := pol.Strategy.(strategies.AttemptTimer)
	if retime(&l.timeouts, l.clients, -1, l.timer, timer) {
		l.reserve(len(l.clients)) // a live change to gRPC: the clients cost more
	}
	l.timer = timer
	// The tiers' policies, each keeping its old one's shared limits. The
	// number of tiers is fixed for a run (Engine.Set restarts when it
	// changes): the calls alive name their tier by its index.
	tiers := l.p.Lanes[i].Tiers
	if len(l.tiers) != len(tiers) {
		l.tiers = make([]tierRun, len(tiers))
	}
	for k, t := range tiers {
		pol, err := build(t.Params(l.p.Lanes[i].Params))
		if err != nil {
			panic("simengine: unvalidated tier: " + err.Error())
		}
		pol.Keep(l.tiers[k].pol)
		timer, _ := pol.Strategy.(strategies.AttemptTimer)
		if retime(&l.callTimeouts, l.calls, k, l.tiers[k].timer, timer) {
			l.grow(&l.callHeld, int64(len(l.calls))*l.callTimeouts.each())
		}
		l.tiers[k] = tierRun{pol: pol, timer: timer, timeout: t.Timeout}
	}
}

// resize makes n clients active: new ones start thinking now, removed ones
// give up the request they have open.
func (l *lane) resize(n int) {
	if l.open {
		return // the open loop's clients come and go with its requests
	}
	if n > len(l.clients) && !l.reserve(n) {
		return
	}
	for l.active > n {
		l.active--
		ci := int32(l.active)
		c := &l.clients[ci]
		switch c.state() {
		case waiting:
			l.abandon(ci, c)
			l.waiting--
			l.gaveUp(c)
		case backing:
			l.inBackoff--
			l.gaveUp(c)
		}
		c.setState(retired)
		l.q.remove(ci)
	}
	for l.active < n {
		if l.active == len(l.clients) {
			l.addClient()
		}
		ci := int32(l.active)
		l.active++
		l.think(ci, &l.clients[ci])
	}
}

// thinkTime returns client ci's k-th think time. It is a pure function of the
// seed, the client and k, so every lane sees the same think times: lanes
// differ by their strategy alone (common random numbers).
func (l *lane) thinkTime(ci int32, k uint32) time.Duration {
	h := mix(l.p.Seed ^ mix(uint64(ci)<<32|uint64(k)))
	u := float64(h>>11) * 0x1p-53
	return time.Duration(-math.Log1p(-u) * float64(l.p.Think))
}

// mix is splitmix64's finalizer.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// run processes every event before until, in (time, seq) order, a server
// completion before a client event at the same time, but at most *budget
// events: it reports whether it reached until, and takes the events it
// processed from *budget. When it stops short, the lane's time is its last
// event's, and the next call goes on from there with the same events as if
// it had not stopped. A halted lane has nothing to process. In a lane with
// tiers, its calls' events, in their own queue, take their turn among the
// clients' by (time, seq).
func (l *lane) run(until time.Duration, budget *int) bool {
	if l.halt != nil {
		l.now = max(l.now, until)
		return true
	}
	layered := len(l.tiers) > 0
	n := *budget
	defer func() { *budget = n }()
	for ; n > 0; n-- {
		e, call := l.q.top(), false
		if layered {
			if ce := l.cq.top(); ce.before(e) {
				e, call = ce, true
			}
		}
		if l.next <= e.at {
			if l.next >= until {
				l.now = until
				return true
			}
			l.now = l.next
			l.events++
			l.complete()
		} else {
			if e.at >= until {
				l.now = until
				return true
			}
			l.now = e.at
			l.events++
			if call {
				l.wakeCall(e.c)
			} else {
				l.wake(e.c)
			}
		}
		if l.halt != nil {
			l.now = max(l.now, until)
			return true
		}
	}
	return false
}

// wake handles client ci's event.
func (l *lane) wake(ci int32) {
	c := &l.clients[ci]
	switch c.state() {
	case thinking:
		l.start(ci, c, time.Duration(c.slot()))
	case arriving:
		l.arrive()
	case backing:
		l.inBackoff--
		if !l.pol.AllowSend(&c.st, l.now, l.rng) {
			// A limit (a breaker) refused the retry when it was due:
			// the request ends unsent.
			l.gaveUp(c)
			l.think(ci, c)
			return
		}
		l.tick.retries++
		l.attempt(ci, c, ownOr(time.Duration(c.slot()), l.p.Timeout))
	case waiting:
		l.tick.timeouts++
		if l.cancel {
			l.cancelRequest(ci, c)
		} else {
			l.abandon(ci, c)
		}
		l.failed(ci, c, strategies.Timeout)
	}
}

// start begins client ci's new request after a think time of think (in
// an open loop, the gap before its arrival).
func (l *lane) start(ci int32, c *client, think time.Duration) {
	l.tick.requests++
	l.pol.Begin(&c.st, l.now, think)
	if !l.pol.AllowFirst(&c.st, l.now, l.rng) {
		// A limit (a breaker) refused the request: it ends unsent.
		l.gaveUp(c)
		l.think(ci, c)
		return
	}
	own := l.timeouts.begun(ci, c, l.timer)
	l.attempt(ci, c, ownOr(own, l.p.Timeout))
}

// attempt sends client ci's next attempt, which times out after timeout:
// to the server, or with tiers to a call of the top one.
func (l *lane) attempt(ci int32, c *client, timeout time.Duration) {
	c.send()
	l.waiting++
	l.tick.attempts++
	l.q.scheduleIn(ci, l.now, timeout)
	if len(l.tiers) > 0 {
		l.call(0, ci)
		return
	}
	l.enter(ci, c)
}

// enter sends the attempt of c, which is client ci or, with tiers, call
// ci of the bottom tier, to the server: what it meets there decides
// whether it is inside, waits in the backlog, fails at once or is lost.
func (l *lane) enter(ci int32, c *client) {
	switch l.admission() {
	case admitted:
		if l.sheds() {
			// Load shedding: the server answers at once with an error
			// rather than take one more request in.
			l.errorAnswer(ci, c)
			return
		}
		slot, err := l.model.admit(l.now, ci, l.mem)
		if err == errFull {
			return // the connect is dropped and the attempt will time out
		}
		if err != nil {
			l.stop(err)
			return
		}
		c.place(inServer, slot)
		l.tickMaxC = max(l.tickMaxC, l.model.concurrency())
		l.plan()
	case backlogged:
		// A cancelled connection has left the backlog; a queue server's
		// waiting requests share it.
		if l.blLive+l.model.queued() < l.p.Backlog {
			slot, err := l.backlog.push(ci, l.mem)
			if err != nil {
				l.stop(err)
				return
			}
			c.place(inBacklog, slot)
			l.blLive++
		} // else the connect is dropped and the attempt will time out
	case refused:
		l.errorAnswer(ci, c)
	} // lost: the request never arrives and the attempt will time out
}

// at returns the owner of a request in the server or the backlog: client
// ci, or with tiers the bottom tier's call ci. A lane's tiers are fixed
// for its run, so every request of its server has the same kind of owner.
func (l *lane) at(ci int32) *client {
	if len(l.tiers) > 0 {
		return &l.calls[ci]
	}
	return &l.clients[ci]
}

// errorAnswer fails now, with an error, the attempt that the server
// answered so (refused, shed, a queue timeout, an error burst, a crash's
// reset): client ci's, or with tiers the bottom tier's call ci's.
func (l *lane) errorAnswer(ci int32, c *client) {
	if len(l.tiers) > 0 {
		l.callFailed(ci, strategies.Error)
		return
	}
	l.tick.errors++
	l.failed(ci, c, strategies.Error)
}

// served ends now, with success, the attempt that the server answered:
// client ci's, or with tiers the bottom tier's call ci's.
func (l *lane) served(ci int32, c *client) {
	if len(l.tiers) > 0 {
		l.callSucceeded(ci)
		return
	}
	l.succeeded(ci, c)
}

// succeeded ends client ci's request with the success of its current
// attempt now.
func (l *lane) succeeded(ci int32, c *client) {
	l.waiting--
	l.tick.ok++
	l.pol.Record(&c.st, l.now, strategies.Success)
	d := l.now - c.st.RequestStart
	l.latency(d)
	l.reqs.Record(d)
	l.oks.Record(d)
	l.think(ci, c)
}

// sheds reports whether the server, shedding load (shed_above), turns a
// request away now: as many as shed_above are inside.
func (l *lane) sheds() bool {
	return l.p.ShedAbove > 0 && l.model.concurrency() >= l.p.ShedAbove
}

// admission returns what a new attempt meets at the server now.
func (l *lane) admission() admission {
	if l.fail == nil {
		return admitted
	}
	return l.fail.admit
}

// failed moves client ci on after its attempt failed now with outcome o.
func (l *lane) failed(ci int32, c *client, o strategies.Outcome) {
	l.waiting--
	l.pol.Record(&c.st, l.now, o)
	d, ok := l.pol.Retry(&c.st, l.now, l.rng)
	if !ok {
		l.gaveUp(c)
		l.think(ci, c)
		return
	}
	// Until the retry is due, the slot keeps its attempt's own timeout.
	c.set(backing, nowhere, ownSlot(l.timeouts.retried(ci, c, l.timer)))
	l.inBackoff++
	l.q.scheduleIn(ci, l.now, d)
}

// gaveUp ends client c's request now without an answer: its policy gave
// up, a limit refused it, or the client was removed. Its latency, from
// its first attempt to now, is what its user waited for nothing.
func (l *lane) gaveUp(c *client) {
	l.tick.gaveUp++
	l.reqs.Record(l.now - c.st.RequestStart)
}

// openRequests returns how many of the lane's clients' requests are open
// now (begun, not ended: an attempt in flight or a retry pending), and
// how many of them began more than patience ago. Calls of the tiers are
// not requests: their callers' are.
func (l *lane) openRequests(patience time.Duration) (open, late int64) {
	for i := range l.clients[:l.active] {
		c := &l.clients[i]
		if s := c.state(); s != waiting && s != backing {
			continue
		}
		open++
		if l.now-c.st.RequestStart > patience {
			late++
		}
	}
	return open, late
}

// think starts client ci's next think time; in an open loop, whose
// requests do not come back, it frees the client for a later arrival.
func (l *lane) think(ci int32, c *client) {
	if l.open {
		c.set(retired, nowhere, 0)
		l.q.remove(ci)
		l.free = append(l.free, ci)
		return
	}
	c.link++
	d := l.thinkTime(ci, c.link)
	c.set(thinking, nowhere, uint64(d))
	l.q.schedule(ci, l.now+d)
}

// complete answers the oldest request in the server.
func (l *lane) complete() {
	abs, ci := l.model.complete()
	if ci >= 0 && (l.fail == nil || l.fail.answers) {
		c := l.at(ci)
		if c.owns(inServer, abs) && l.errFrac > 0 && l.burst() {
			l.errorAnswer(ci, c)
		} else if c.owns(inServer, abs) {
			l.served(ci, c)
		}
	} else if ci >= 0 {
		// The answer is lost in a partition: the request has left the
		// server, and a cancel at the client's timeout finds nothing.
		if c := l.at(ci); c.owns(inServer, abs) {
			c.place(nowhere, 0)
		}
	} // else the client left
	l.plan()
}

// burst reports whether an error burst turns the current answer into an
// error: with probability errFrac, by a hash of the seed and the answer's
// index, so that the run stays reproducible and the strategies' random
// numbers are not drawn on.
func (l *lane) burst() bool {
	l.answers++
	h := mix(l.p.Seed ^ mix(l.answers^0x6a09e667f3bcc909))
	return float64(h>>11)*0x1p-53 < l.errFrac
}

// setEffects applies the faults in effect now: the engine has changed the
// parameters the lane reads (its server's, its load's), and errFrac.
func (l *lane) setEffects(errFrac float64) {
	if l.halt != nil {
		return
	}
	l.errFrac = errFrac
	l.model.setParams(l.p)
	l.plan()
}

// owns reports whether the request at absolute index abs of the server
// (in = inServer) or the backlog (inBacklog) is c's current attempt.
func (c *client) owns(in uint8, abs uint64) bool {
	return c.pos&^(3<<tierShift|keptBit) == uint64(waiting)<<stateShift|uint64(in)<<inShift|abs
}

// latency records a success's end-to-end latency for the tick's
// percentiles: every one up to maxLat, then a uniform sample of them whose
// choices are a hash of the seed and the count, so the run stays
// reproducible and the strategies' random numbers are not drawn on.
func (l *lane) latency(d time.Duration) {
	l.latSeen++
	if len(l.lat) < maxLat {
		l.lat = append(l.lat, d)
		return
	}
	if j := mix(l.p.Seed^l.latSeen) % l.latSeen; j < maxLat {
		l.lat[j] = d
	}
}

// plan sets the time of the next completion: requests complete oldest first,
// as soon as their age reaches the delay for the current concurrency.
func (l *lane) plan() {
	l.next = l.model.next(l.now)
	if l.fail != nil && !l.fail.serves {
		l.next = never
	}
	l.model.rejected(l.onReject)
}

// rejectedNow fails the attempt the server answered now with an error
// instead of serving it (a queue timeout), if its client still waits.
func (l *lane) rejectedNow(slot uint64, ci int32) {
	if c := l.at(ci); c.owns(inServer, slot) {
		l.errorAnswer(ci, c)
	}
}

// cancelRequest removes client ci's abandoned attempt from the server or the
// backlog, or the call that carries it at the next tier with everything
// below it (cancel_on_timeout: the server, and every tier, learns that the
// client left). For a call, ci is the call's index.
func (l *lane) cancelRequest(ci int32, c *client) {
	switch c.in() {
	case inTier:
		l.cancelCall(int32(c.slot()))
	case inServer:
		if l.model.cancel(c.slot(), ci) {
			l.plan()
		}
	case inBacklog:
		if r := l.backlog.at(c.slot()); r != nil && *r == ci {
			*r = -1
			l.blLive--
		}
	}
	c.place(nowhere, 0)
}

// abandon tells the server that client ci (or, with tiers, the bottom
// tier's call ci) no longer waits on its attempt there, if the attempt is
// in it: it timed out, or the client left.
func (l *lane) abandon(ci int32, c *client) {
	if c.in() == inServer {
		l.model.abandon(c.slot(), ci)
	}
}

// setFailure puts failure f in effect now, or none (the server is up) for
// nil.
func (l *lane) setFailure(f *failure) {
	if f == l.fail || l.halt != nil {
		return
	}
	if l.fail != nil && l.fail.admit == backlogged {
		// The backlog enters the server at once, abandoned or not.
		for l.backlog.n > 0 {
			abs, ci := l.backlog.pop()
			if ci < 0 {
				continue
			}
			if l.sheds() {
				// A shedding server answers the flood with errors.
				if c := l.at(ci); c.owns(inBacklog, abs) {
					l.errorAnswer(ci, c)
				}
				continue
			}
			slot, err := l.model.admit(l.now, ci, l.mem)
			if err == errFull {
				continue // dropped: its client's attempt will time out
			}
			if err != nil {
				l.stop(err)
				return
			}
			if c := l.at(ci); c.owns(inBacklog, abs) {
				c.place(inServer, slot)
			} else {
				l.model.abandon(slot, ci) // its client left while it waited
			}
		}
		l.blLive = 0
		l.tickMaxC = max(l.tickMaxC, l.model.concurrency())
	}
	wasServing := l.fail == nil || l.fail.serves
	if serving := f == nil || f.serves; serving != wasServing {
		if serving {
			l.model.thaw(l.now)
		} else {
			l.model.freeze(l.now)
		}
	}
	l.fail = f
	if f != nil && f.drops {
		// Every connection is reset and its work lost.
		l.model.drop(func(abs uint64, ci int32) {
			if c := l.at(ci); c.owns(inServer, abs) {
				l.errorAnswer(ci, c)
			}
		})
	}
	l.plan()
}

// setParams applies changed parameters now.
func (l *lane) setParams(i int) {
	if l.halt != nil {
		return
	}
	l.configure(i)
	l.model.setParams(l.p)
	l.det.SetLimit(scenario.HealthyOf(l.p))
	l.resize(l.p.Clients)
	l.plan()
}

// thinking returns how many of a closed loop's clients are between
// requests: every active client is thinking, waiting for an answer or
// waiting to retry. An open loop's clients are its requests.
func (l *lane) thinking() int {
	if l.open {
		return 0
	}
	return l.active - l.waiting - l.inBackoff
}

// level returns the lane's levels and rates over the tick that ends now,
// and starts the next tick.
func (l *lane) endTick(t time.Duration) scenario.LaneTick {
	if l.halt != nil { // nothing is known of a stopped lane: no values
		nan := math.NaN()
		return scenario.LaneTick{T: t.Seconds(), OK: nan, Errors: nan, Timeouts: nan, Attempts: nan,
			Retries: nan, GaveUp: nan, ServerLatency: nan, P50: nan, P99: nan, Halted: true}
	}
	sec := l.p.Tick.Seconds()
	rate := func(n int64) float64 { return float64(n) / sec }
	lt := scenario.LaneTick{
		T:             t.Seconds(),
		OK:            rate(l.tick.ok),
		Errors:        rate(l.tick.errors),
		Timeouts:      rate(l.tick.timeouts),
		Attempts:      rate(l.tick.attempts),
		Retries:       rate(l.tick.retries),
		GaveUp:        rate(l.tick.gaveUp),
		Concurrency:   l.model.concurrency(),
		ServerLatency: l.model.latency().Seconds(),
		Backlog:       l.blLive + l.model.queued(),
		InBackoff:     l.inBackoff,
		Alive:         l.waiting + l.inBackoff,
		Thinking:      l.thinking(),
		Queued:        l.model.queued(),
		T2Attempts:    rate(l.tick.tier[0]),
		T3Attempts:    rate(l.tick.tier[1]),
		T4Attempts:    rate(l.tick.tier[2]),
	}
	lt.SetLatencies(l.lat)
	l.det.Tick(t, l.tick.ok, l.tick.attempts, l.tickMaxC)
	if k := len(l.tiers); k > 0 {
		l.peakBottom = max(l.peakBottom, l.tick.tier[k-1])
	}
	l.total.add(l.tick)
	l.tick = counters{}
	l.lat, l.latSeen = l.lat[:0], 0
	l.tickMaxC = l.model.concurrency()
	return lt
}
