package realexp

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"time"

	"backofflab/scenario"
)

// queueCore is the worker-queue server (server_model=queue) without clock
// or goroutines, as the simulator's queue model has it: workers serve one
// request each for a service time drawn from service_dist with mean
// service_time; a request that finds every worker busy waits, at most
// backlog of them (room they share with the requests a paused server
// leaves in the accept backlog), and a free worker takes the oldest (fifo)
// or the newest (lifo). An abandoned request is still served, and costs a
// worker, unless its client's leaving withdraws it (cancel_on_timeout).
// Each request in service has its end time; only the earliest needs a
// wake-up, so the Server's one timer serves this model too.
//
// Its protections are the simulator's (simengine/server_queue.go): a
// request that finds shed_above inside is shed (door); a free worker
// answers with an error, at once and without serving it, a request that
// waited longer than its limit (queue_timeout); and with
// queue_control=codel, while the queue has not been empty for
// codel_interval the server is overloaded: a worker takes the newest
// request, and a request that joins the queue may wait codel_target, else
// codel_interval (or queue_timeout, if shorter).
type queueCore struct {
	workers int
	mean    time.Duration
	fixed   bool // every service takes mean
	lifo    bool
	backlog int
	rng     *rand.Rand // the service times, seeded, so a run's draws repeat
	door
	timeout time.Duration // queue_timeout; 0 for none
	// codel is queue_control=codel, with its target and interval.
	codel            bool
	target, interval time.Duration
	// emptyAt is when the queue was last seen empty, as the simulator
	// tracks it: by a request entering the running server (to a worker or
	// to the queue) that found nobody waiting, or by a worker taking the
	// last waiting request. A withdrawn request that leaves it empty does
	// not count until the next arrival sees it so. It is read only after
	// one of them has set it.
	emptyAt time.Time

	busy busyHeap // in service, by end
	// wait holds the requests waiting for a worker and, while paused, the
	// parked ones behind them, in arrival order. Withdrawn ones stay until
	// a worker passes over them or keep sweeps them out.
	wait    queue
	waitN   int // waiting (counted in the concurrency), not withdrawn
	parkedN int // parked while paused (not counted, as the simulator has it), not withdrawn
	deadN   int // withdrawn ones still in wait

	paused bool
	since  time.Time // when the pause began
	peak   int
	counts
}

var _ model = (*queueCore)(nil)

// serviceStream is the PCG stream of the service times: the simulator's,
// though the two draw them in different orders.
const serviceStream = 0x2545f4914f6cdd1d

// newQueueCore returns the worker queue of p's server.
func newQueueCore(p *scenario.Params) *queueCore {
	return &queueCore{
		workers: p.Workers, mean: p.ServiceTime, backlog: p.Backlog,
		fixed: p.ServiceDist == scenario.ServiceFixed, lifo: p.QueueOrder == scenario.QueueLIFO,
		rng:  rand.New(rand.NewPCG(p.Seed, serviceStream)),
		door: door{p.ShedAbove}, timeout: p.QueueTimeout,
		codel: p.QueueControl == scenario.QueueControlCoDel, target: p.CoDelTarget, interval: p.CoDelInterval,
	}
}

// draw returns a service time.
func (c *queueCore) draw() time.Duration {
	if c.fixed {
		return c.mean
	}
	return time.Duration(-math.Log1p(-c.rng.Float64()) * float64(c.mean))
}

// arrive admits r (see admit) or, while paused, parks it in the wait list;
// a request that finds the backlog full is dropped: the connect the kernel
// would drop, whose attempt times out. Requests due by now complete first,
// so that a late timer does not hold a worker an arrival should have.
func (c *queueCore) arrive(r *request, now time.Time) {
	c.accepted++
	c.advance(now)
	r.start = now
	switch {
	case !c.paused:
		if c.admit(r, now) {
			c.wait.push(r)
		}
	case c.waitN+c.parkedN >= c.backlog:
		c.drop(r)
	default:
		r.state = parked
		c.wait.push(r)
		c.parkedN++
	}
	c.peak = max(c.peak, c.concurrency())
}

// admit lets r into the server at now, as the simulator's lane and model
// do: shed if it finds shed_above inside; else to a free worker, or
// dropped with the backlog full, or waiting with its limit, when admit
// reports true and the caller puts it in the wait list. While paused (the
// resume's flood) no worker is free: every request admitted waits.
func (c *queueCore) admit(r *request, now time.Time) (waits bool) {
	if c.sheds(c.concurrency()) {
		c.shed(r)
		return false
	}
	if c.waitN == 0 {
		c.emptyAt = now // empty until r joins it
	}
	switch {
	case !c.paused && len(c.busy) < c.workers:
		c.serve(r, now)
		return false
	case c.waitN >= c.backlog:
		c.drop(r)
		return false
	}
	r.state, r.limit = waiting, c.limit(now)
	c.waitN++
	return true
}

// drop turns r away: no room.
func (c *queueCore) drop(r *request) {
	r.state = dropped
	c.droppedN++
}

// limit returns how long a request joining the queue at now may wait for
// a worker: queue_timeout, and under codel the shorter of it and
// codel_target while overloaded, codel_interval otherwise; 0 for no limit.
func (c *queueCore) limit(now time.Time) time.Duration {
	lim := c.timeout
	if c.codel {
		l := c.interval
		if c.overloaded(now) {
			l = c.target
		}
		if lim == 0 || l < lim {
			lim = l
		}
	}
	return lim
}

// overloaded reports whether, under codel, the queue has not been empty
// for longer than codel_interval at now (Fail at Scale's test).
func (c *queueCore) overloaded(now time.Time) bool {
	return c.codel && now.Sub(c.emptyAt) > c.interval
}

// serve puts r in service from at on.
func (c *queueCore) serve(r *request, at time.Time) {
	r.state, r.end = inside, at.Add(c.draw())
	heap.Push(&c.busy, r)
}

// advance completes, earliest first, every request whose service has ended
// by now; each freed worker takes the next waiting request from the moment
// it was freed, so the workers' pace does not depend on the timer's.
func (c *queueCore) advance(now time.Time) int {
	n := 0
	for !c.paused && len(c.busy) > 0 && !c.busy[0].end.After(now) {
		r := heap.Pop(&c.busy).(*request)
		c.complete(r)
		n++
		c.fill(r.end)
	}
	return n
}

// fill gives every free worker a waiting request, starting at at (or at
// its arrival, for one that came after). A request that waited longer
// than its limit is answered with an error instead, and costs no worker.
func (c *queueCore) fill(at time.Time) {
	for !c.paused && len(c.busy) < c.workers && c.waitN > 0 {
		r := c.take(at)
		from := maxTime(at, r.start)
		if r.limit > 0 && from.Sub(r.start) > r.limit {
			c.expire(r)
			continue
		}
		c.serve(r, from)
	}
}

// take removes the waiting request that a worker freed at at picks:
// queue_order's, or under codel the newest while overloaded; it passes
// over withdrawn ones. One is waiting. Taking the last one leaves the
// queue empty at at.
func (c *queueCore) take(at time.Time) *request {
	lifo := c.lifo || c.overloaded(at)
	for {
		var r *request
		if lifo {
			r = c.wait.popBack()
		} else {
			r = c.wait.pop()
		}
		if r.state != waiting {
			c.deadN--
			continue
		}
		c.waitN--
		if c.waitN == 0 {
			c.emptyAt = at
		}
		return r
	}
}

func (c *queueCore) next() (time.Time, bool) {
	if c.paused || len(c.busy) == 0 {
		return time.Time{}, false
	}
	return c.busy[0].end, true
}

// withdraw takes r out: in service, its worker takes the next waiting
// request now; waiting or parked, a worker will pass over it.
func (c *queueCore) withdraw(r *request, now time.Time) bool {
	switch r.state {
	case inside:
		heap.Remove(&c.busy, r.idx)
		c.fill(now)
	case waiting:
		c.waitN--
		c.dead()
	case parked:
		c.parkedN--
		c.dead()
	case dropped:
	default:
		return false
	}
	r.state = withdrawn
	c.withdrawnN++
	return true
}

// dead counts one more withdrawn request in the wait list, and sweeps them
// out once they outnumber the live ones: with lifo, a withdrawn request at
// the bottom may otherwise stay as long as the list is not empty.
func (c *queueCore) dead() {
	c.deadN++
	if c.deadN > 64 && c.deadN > c.waitN+c.parkedN {
		c.wait.keep(func(r *request) bool { return r.state == waiting || r.state == parked })
		c.deadN = 0
	}
}

func (c *queueCore) leave(r *request) bool {
	switch r.state {
	case inside, waiting, parked:
		r.left = true
		return true
	}
	return false
}

// pause stops every worker at now (SIGSTOP); arrivals park. The services
// due by then end first.
func (c *queueCore) pause(now time.Time) {
	if !c.paused {
		c.advance(now)
		c.paused, c.since = true, now
	}
}

// resume restarts the workers at now, each request in service with the
// service time it had left. The parked requests, abandoned or not, enter
// first, in arrival order and behind the waiting ones, as the simulator's
// backlog enters its stopped model: each is admitted at now (shed if it
// finds shed_above inside, else waiting with its limit). Then the free
// workers take their requests at once.
func (c *queueCore) resume(now time.Time) {
	if !c.paused {
		return
	}
	c.shift(c.since, now.Sub(c.since))
	if c.parkedN > 0 {
		for _, r := range c.wait.items[c.wait.head:] {
			if r.state == parked {
				r.start = now
				c.admit(r, now) // waiting, it keeps its place in the list
			}
		}
		// Sweep out those shed, and the withdrawn ones with them.
		c.wait.keep(func(r *request) bool { return r.state == waiting })
		c.deadN, c.parkedN = 0, 0
	}
	c.paused = false
	c.fill(now)
	c.peak = max(c.peak, c.concurrency())
}

// stall: the workers did not work while the process was stopped, so each
// service not over when it stopped ends that much later.
func (c *queueCore) stall(from, to time.Time) {
	if !c.paused && to.After(from) {
		c.shift(from, to.Sub(from))
	}
}

// shift delays by d the end of every service that ends at or after from.
// The heap stays in order: the ends it moves keep theirs, and stay after
// the ones it does not.
func (c *queueCore) shift(from time.Time, d time.Duration) {
	for _, r := range c.busy {
		if !r.end.Before(from) {
			r.end = r.end.Add(d)
		}
	}
}

func (c *queueCore) concurrency() int { return len(c.busy) + c.waitN }

// latency is what a request arriving now would take in fifo order, as the
// simulator has it: its wait for the ones before it, then its own service.
func (c *queueCore) latency() time.Duration {
	return c.mean + time.Duration(float64(c.mean)*float64(c.waitN)/float64(c.workers))
}

func (c *queueCore) takePeak() int {
	p := max(c.peak, c.concurrency())
	c.peak = c.concurrency()
	return p
}

// stats: the concurrency is the requests in service and waiting, the
// backlog those waiting and parked, and the last delay what a request
// arriving now would take.
func (c *queueCore) stats() Stats {
	d := c.latency()
	return Stats{
		Concurrency:      c.concurrency(),
		Backlog:          c.waitN + c.parkedN,
		LastDelay:        d,
		LastDelaySeconds: d.Seconds(),
		Latency:          d,
		Paused:           c.paused,
		Accepted:         c.accepted,
		Completed:        c.completed,
		Abandoned:        c.leftN,
		Dropped:          c.droppedN,
		Shed:             c.shedN,
		Expired:          c.expiredN,
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// busyHeap is the requests in service, a min-heap by end; each knows its
// index, so that a withdrawn one leaves in O(log n).
type busyHeap []*request

func (h busyHeap) Len() int           { return len(h) }
func (h busyHeap) Less(i, j int) bool { return h[i].end.Before(h[j].end) }
func (h busyHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}

func (h *busyHeap) Push(x any) {
	r := x.(*request)
	r.idx = len(*h)
	*h = append(*h, r)
}

func (h *busyHeap) Pop() any {
	old := *h
	n := len(old) - 1
	r := old[n]
	old[n] = nil
	*h = old[:n]
	return r
}
