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
type queueCore struct {
	workers int
	mean    time.Duration
	fixed   bool // every service takes mean
	lifo    bool
	backlog int
	rng     *rand.Rand // the service times, seeded, so a run's draws repeat

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
		rng: rand.New(rand.NewPCG(p.Seed, serviceStream)),
	}
}

// draw returns a service time.
func (c *queueCore) draw() time.Duration {
	if c.fixed {
		return c.mean
	}
	return time.Duration(-math.Log1p(-c.rng.Float64()) * float64(c.mean))
}

// arrive gives r a free worker, or a place in the wait list (parked while
// paused), or drops it when the backlog is full: the connect the kernel
// would drop, whose attempt times out. Requests due by now complete first,
// so that a late timer does not hold a worker an arrival should have.
func (c *queueCore) arrive(r *request, now time.Time) {
	c.accepted++
	c.advance(now)
	r.start = now
	switch {
	case !c.paused && len(c.busy) < c.workers:
		c.serve(r, now)
	case c.waitN+c.parkedN >= c.backlog:
		r.state = dropped
		c.droppedN++
		return
	case c.paused:
		r.state = parked
		c.wait.push(r)
		c.parkedN++
	default:
		r.state = waiting
		c.wait.push(r)
		c.waitN++
	}
	c.peak = max(c.peak, c.concurrency())
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
// its arrival, for one that came after).
func (c *queueCore) fill(at time.Time) {
	for !c.paused && len(c.busy) < c.workers && c.waitN > 0 {
		r := c.take()
		c.waitN--
		c.serve(r, maxTime(at, r.start))
	}
}

// take removes the waiting request queue_order picks, passing over
// withdrawn ones; one is waiting.
func (c *queueCore) take() *request {
	for {
		var r *request
		if c.lifo {
			r = c.wait.popBack()
		} else {
			r = c.wait.pop()
		}
		if r.state == waiting {
			return r
		}
		c.deadN--
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

// pause stops every worker at now (SIGSTOP); arrivals park.
func (c *queueCore) pause(now time.Time) {
	if !c.paused {
		c.paused, c.since = true, now
	}
}

// resume restarts the workers at now, each request in service with the
// service time it had left, and the parked requests join the waiting ones,
// abandoned or not, behind them: workers left free take them at once.
func (c *queueCore) resume(now time.Time) {
	if !c.paused {
		return
	}
	c.shift(c.since, now.Sub(c.since))
	c.paused = false
	for _, r := range c.wait.items[c.wait.head:] {
		if r.state == parked {
			r.state = waiting
		}
	}
	c.waitN += c.parkedN
	c.parkedN = 0
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
