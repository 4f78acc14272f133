package simengine

import (
	"math"
	"math/rand/v2"
	"time"

	"backofflab/strategies"
)

// The states of a client.
const (
	thinking uint8 = iota // between requests; its event starts the next one
	backing               // waiting to retry; its event starts the next attempt
	waiting               // an attempt is in flight; its event is the timeout
	retired               // removed when the client count went down
)

// Where a client's current attempt is, for cancel_on_timeout.
const (
	nowhere uint8 = iota
	inServer
	inBacklog
)

// The states of a lane's server.
const (
	up uint8 = iota
	paused
	crashed
	partitioned
)

// client is one simulated client. It has exactly one pending event in its
// lane's queue while it is not retired.
type client struct {
	st     strategies.State // the current request's retry state; st.Think is its last think time
	slot   uint64           // absolute index of its attempt in the server queue or backlog
	serial uint32           // counts its attempts; requests carry it to tell abandoned ones apart
	thinks uint32           // counts its think times: the common-random-number stream's index
	state  uint8
	in     uint8
}

// counters count what happens in a lane, over a tick or since the start.
type counters struct {
	requests, ok, errors, timeouts, attempts, retries, gaveUp int64
}

func (c *counters) add(d counters) {
	c.requests += d.requests
	c.ok += d.ok
	c.errors += d.errors
	c.timeouts += d.timeouts
	c.attempts += d.attempts
	c.retries += d.retries
	c.gaveUp += d.gaveUp
}

// lane is one side-by-side world: its own clients and its own server, driven
// by its own strategy. Lanes of an engine share parameters and think times.
type lane struct {
	p      *Params // the engine's parameters
	pol    *strategies.Policy
	cancel bool
	rng    *rand.Rand // the strategy's random numbers

	clients []client
	active  int // clients[:active] take part; the rest are retired
	q       queue
	now     time.Duration

	// The server.
	srv     fifo // requests inside, oldest first
	live    int  // concurrency: requests in srv not cancelled
	backlog fifo // the accept backlog while paused
	blLive  int
	state   uint8
	next    time.Duration // the next completion, or never
	curve   curve

	waiting, inBackoff int
	tick               counters // since the last tick
	total              counters // since the start, up to the last tick
	lat                []time.Duration
	tickMaxC           int   // highest concurrency in the current tick
	events             int64 // events processed, for benchmarks
	det                Detector
}

// strategyStream is the PCG stream of every lane's strategy randomness: two
// lanes with the same strategy and parameters draw the same numbers.
const strategyStream = 0x5851f42d4c957f2d

func newLane(p *Params, i int) *lane {
	l := &lane{p: p, next: never}
	l.rng = rand.New(rand.NewPCG(p.Seed, strategyStream))
	l.configure(i)
	l.curve = newCurve(p)
	l.det = newDetector(p)
	l.clients = make([]client, 0, p.Clients)
	l.q.ev = make([]event, 0, p.Clients)
	l.q.pos = make([]int32, 0, p.Clients)
	l.resize(p.Clients)
	return l
}

// configure reads lane i's strategy parameters.
func (l *lane) configure(i int) {
	pol, err := strategies.New(l.p.Lanes[i].Params)
	if err != nil {
		panic("simengine: unvalidated strategy: " + err.Error())
	}
	l.pol, l.cancel = pol, l.p.Lanes[i].CancelOnTimeout
}

// resize makes n clients active: new ones start thinking now, removed ones
// give up the request they have open.
func (l *lane) resize(n int) {
	for l.active > n {
		l.active--
		ci := int32(l.active)
		c := &l.clients[ci]
		switch c.state {
		case waiting:
			l.waiting--
			l.tick.gaveUp++
		case backing:
			l.inBackoff--
			l.tick.gaveUp++
		}
		c.state = retired
		l.q.remove(ci)
	}
	for l.active < n {
		if l.active == len(l.clients) {
			l.clients = append(l.clients, client{})
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

// run processes every event before until, in (time, seq) order; a server
// completion goes before a client event at the same time.
func (l *lane) run(until time.Duration) {
	for {
		e := l.q.top()
		if l.next <= e.at {
			if l.next >= until {
				break
			}
			l.now = l.next
			l.events++
			l.complete()
			continue
		}
		if e.at >= until {
			break
		}
		l.now = e.at
		l.events++
		l.wake(e.c)
	}
	l.now = until
}

// wake handles client ci's event.
func (l *lane) wake(ci int32) {
	c := &l.clients[ci]
	switch c.state {
	case thinking:
		l.tick.requests++
		l.pol.Begin(&c.st, l.now, c.st.Think)
		l.attempt(ci, c)
	case backing:
		l.inBackoff--
		l.tick.retries++
		l.attempt(ci, c)
	case waiting:
		l.tick.timeouts++
		if l.cancel {
			l.cancelRequest(ci, c)
		}
		l.failed(ci, c)
	}
}

// attempt sends client ci's next attempt.
func (l *lane) attempt(ci int32, c *client) {
	c.serial++
	c.state = waiting
	l.waiting++
	l.tick.attempts++
	l.q.schedule(ci, l.now+c.st.AttemptTimeout(l.p.Timeout))
	r := request{start: l.now, c: ci, serial: c.serial}
	switch l.state {
	case up:
		c.slot, c.in = l.srv.push(r), inServer
		l.live++
		l.tickMaxC = max(l.tickMaxC, l.live)
		l.plan()
	case paused:
		if l.blLive < l.p.Backlog { // a cancelled connection has left the queue
			c.slot, c.in = l.backlog.push(r), inBacklog
			l.blLive++
		} // else the connect is dropped and the attempt will time out
	case crashed:
		l.tick.errors++
		l.failed(ci, c)
	} // partitioned: the request is lost and the attempt will time out
}

// failed moves client ci on after its attempt failed now.
func (l *lane) failed(ci int32, c *client) {
	l.waiting--
	d, ok := l.pol.Retry(&c.st, l.now, l.rng)
	if !ok {
		l.tick.gaveUp++
		l.think(ci, c)
		return
	}
	c.state = backing
	l.inBackoff++
	l.q.schedule(ci, l.now+d)
}

// think starts client ci's next think time.
func (l *lane) think(ci int32, c *client) {
	c.thinks++
	c.st.Think = l.thinkTime(ci, c.thinks)
	c.state = thinking
	c.in = nowhere
	l.q.schedule(ci, l.now+c.st.Think)
}

// complete answers the oldest request in the server.
func (l *lane) complete() {
	r := l.srv.pop()
	l.live--
	if r.c >= 0 && l.state == up {
		c := &l.clients[r.c]
		if c.state == waiting && c.serial == r.serial {
			l.waiting--
			l.tick.ok++
			l.lat = append(l.lat, l.now-c.st.RequestStart)
			l.think(r.c, c)
		}
	} // else the client left, or the answer is lost in a partition
	l.plan()
}

// plan sets the time of the next completion: requests complete oldest first,
// as soon as their age reaches the delay for the current concurrency.
func (l *lane) plan() {
	for l.srv.n > 0 && l.srv.front().c < 0 {
		l.srv.pop()
	}
	if l.live == 0 || l.state == paused || l.state == crashed {
		l.next = never
		return
	}
	l.next = max(l.now, l.srv.front().start+l.curve.delay(l.live))
}

// cancelRequest removes client ci's abandoned attempt from the server or the
// backlog (cancel_on_timeout: the server learns that the client left).
func (l *lane) cancelRequest(ci int32, c *client) {
	var r *request
	switch c.in {
	case inServer:
		r = l.srv.at(c.slot)
	case inBacklog:
		r = l.backlog.at(c.slot)
	}
	if r == nil || r.c != ci || r.serial != c.serial {
		return
	}
	r.c = -1
	if c.in == inServer {
		l.live--
		l.plan()
	} else {
		l.blLive--
	}
	c.in = nowhere
}

// setState moves the server to state s now.
func (l *lane) setState(s uint8) {
	if s == l.state {
		return
	}
	if l.state == paused {
		// Resume: the backlog enters the server at once, abandoned or not.
		for l.backlog.n > 0 {
			r := l.backlog.pop()
			if r.c < 0 {
				continue
			}
			r.start = l.now
			slot := l.srv.push(r)
			l.live++
			if c := &l.clients[r.c]; c.in == inBacklog && c.serial == r.serial {
				c.slot, c.in = slot, inServer
			}
		}
		l.blLive = 0
		l.tickMaxC = max(l.tickMaxC, l.live)
	}
	l.state = s
	if s == crashed {
		// The process dies: every connection is reset and its work lost.
		for l.srv.n > 0 {
			r := l.srv.pop()
			if r.c < 0 {
				continue
			}
			if c := &l.clients[r.c]; c.state == waiting && c.serial == r.serial {
				l.tick.errors++
				l.failed(r.c, c)
			}
		}
		l.live = 0
	}
	l.plan()
}

// setParams applies changed parameters now.
func (l *lane) setParams(i int) {
	l.configure(i)
	l.curve = newCurve(l.p)
	l.det.limit = l.p.ServerLimit
	l.resize(l.p.Clients)
	l.plan()
}

// level returns the lane's levels and rates over the tick that ends now,
// and starts the next tick.
func (l *lane) endTick(t time.Duration) LaneTick {
	sec := l.p.Tick.Seconds()
	rate := func(n int64) float64 { return float64(n) / sec }
	lt := LaneTick{
		T:             t.Seconds(),
		OK:            rate(l.tick.ok),
		Errors:        rate(l.tick.errors),
		Timeouts:      rate(l.tick.timeouts),
		Attempts:      rate(l.tick.attempts),
		Retries:       rate(l.tick.retries),
		GaveUp:        rate(l.tick.gaveUp),
		Concurrency:   l.live,
		ServerLatency: l.curve.delay(l.live).Seconds(),
		Backlog:       l.blLive,
		InBackoff:     l.inBackoff,
	}
	lt.SetLatencies(l.lat)
	l.det.Tick(t, l.tick.ok, l.tickMaxC)
	l.total.add(l.tick)
	l.tick = counters{}
	l.lat = l.lat[:0]
	l.tickMaxC = l.live
	return lt
}
