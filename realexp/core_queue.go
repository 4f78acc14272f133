package realexp

import (
	"container/heap"
	"time"

	"github.com/backofflab/backofflab/internal/workq"
	"github.com/backofflab/backofflab/scenario"
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
// Its protections are the simulator's: a request that finds shed_above
// inside is shed (door); and its discipline, the simulator's own code
// (workq), answers with an error a request that waited past its limit
// (queue_timeout, codel) and, under codel, serves the newest first while
// overloaded.
type queueCore struct {
	workers int
	backlog int
	svc     workq.Service // seeded, so a run's draws repeat
	door
	// line counts the live waiting requests, and tracks when the queue
	// last emptied for codel, on a clock of the time since epoch, the
	// first time the line was told of.
	line  workq.Line
	epoch time.Time

	busy busyHeap // in service, by end
	// wait holds the requests waiting for a worker and, while paused, the
	// parked ones behind them, in arrival order. Withdrawn ones stay until
	// a worker passes over them or keep sweeps them out.
	wait    queue
	parkedN int // parked while paused (not counted, as the simulator has it), not withdrawn
	deadN   int // withdrawn ones still in wait

	paused bool
	since  time.Time // when the pause began
	peak   int
	counts
}

var _ model = (*queueCore)(nil)

// newQueueCore returns the worker queue of p's server. Its service times
// are the simulator's stream, though the two draw them in different orders.
func newQueueCore(p *scenario.Params) *queueCore {
	return &queueCore{
		workers: p.Workers, backlog: p.Backlog, svc: workq.ServiceOf(p),
		door: door{p.ShedAbove}, line: workq.Line{Discipline: workq.DisciplineOf(p)},
	}
}

// clock returns t on the line's clock: the time since the first time it
// was given. Only differences of these times count, and they are t's.
func (c *queueCore) clock(t time.Time) time.Duration {
	if c.epoch.IsZero() {
		c.epoch = t
	}
	return t.Sub(c.epoch)
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
	case c.line.Waiting()+c.parkedN >= c.backlog:
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
	c.line.Arrive(c.clock(now))
	switch {
	case !c.paused && len(c.busy) < c.workers:
		c.serve(r, now)
		return false
	case c.line.Waiting() >= c.backlog:
		c.drop(r)
		return false
	}
	r.state, r.limit = waiting, c.limit(now)
	c.line.Join()
	return true
}

// drop turns r away: no room.
func (c *queueCore) drop(r *request) {
	r.state = dropped
	c.droppedN++
}

// limit returns how long a request joining the queue at now may wait for
// a worker (workq.Line.Limit).
func (c *queueCore) limit(now time.Time) time.Duration { return c.line.Limit(c.clock(now)) }

// serve puts r in service from at on.
func (c *queueCore) serve(r *request, at time.Time) {
	r.state, r.end = inside, at.Add(c.svc.Draw())
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
	for !c.paused && len(c.busy) < c.workers && c.line.Waiting() > 0 {
		r := workq.Take[*request](&c.line, c, c.clock(at))
		from := maxTime(at, r.start)
		if workq.Expired(r.limit, from.Sub(r.start)) {
			c.expire(r)
			continue
		}
		c.serve(r, from)
	}
}

// PopFront, PopBack and Withdrawn make the wait list a workq.List. A
// worker takes requests only while the server runs, when every request in
// the list is waiting or withdrawn.
func (c *queueCore) PopFront() *request { return c.wait.pop() }
func (c *queueCore) PopBack() *request  { return c.wait.popBack() }

func (c *queueCore) Withdrawn(r *request) bool {
	if r.state != waiting {
		c.deadN--
		return true
	}
	return false
}

func (c *queueCore) next() (time.Time, bool) {
	if c.paused || len(c.busy) == 0 {
		return time.Time{}, false
	}
	return c.busy[0].end, true
}

// withdraw takes r out: in service, its worker takes the next waiting
// request now; waiting or parked, a worker will pass over it. It reports
// whether r was still waiting for an answer.
func (c *queueCore) withdraw(r *request, now time.Time) bool {
	was, ok := c.counts.withdraw(r)
	switch was {
	case inside:
		heap.Remove(&c.busy, r.idx)
		c.fill(now)
	case waiting:
		c.line.Withdraw()
		c.dead()
	case parked:
		c.parkedN--
		c.dead()
	}
	return ok
}

// dead counts one more withdrawn request in the wait list, and sweeps them
// out once they outnumber the live ones: with lifo, a withdrawn request at
// the bottom may otherwise stay as long as the list is not empty.
func (c *queueCore) dead() {
	c.deadN++
	if c.deadN > 64 && c.deadN > c.line.Waiting()+c.parkedN {
		c.wait.keep(func(r *request) bool { return r.state == waiting || r.state == parked })
		c.deadN = 0
	}
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

func (c *queueCore) concurrency() int { return len(c.busy) + c.line.Waiting() }

// latency is what a request arriving now would take in fifo order, as the
// simulator has it.
func (c *queueCore) latency() time.Duration { return c.svc.Latency(c.line.Waiting(), c.workers) }

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
	return c.counted(Stats{
		Concurrency:      c.concurrency(),
		Backlog:          c.line.Waiting() + c.parkedN,
		Queued:           c.line.Waiting(),
		LastDelay:        d,
		LastDelaySeconds: d.Seconds(),
		Latency:          d,
		Paused:           c.paused,
	})
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
