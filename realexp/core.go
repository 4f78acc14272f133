package realexp

import (
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// model is what the server does with the requests inside it, without
// clock or goroutines, so that tests can drive it with made-up times: core
// for a latency of the concurrency (001's curve, linear), queueCore for the
// worker queue. The Server calls it under its lock, with the time of the
// call, and keeps one timer armed for the time next returns.
type model interface {
	// arrive lets r in at now, or parks or drops it (r.state says which).
	arrive(r *request, now time.Time)
	// advance completes every request due by now, and returns how many.
	advance(now time.Time) int
	// next returns when the next request is due, or false when none can
	// complete (empty or paused).
	next() (time.Time, bool)
	// withdraw takes r out at now because its client left and the server
	// learned it; it reports whether r was still waiting for an answer.
	withdraw(r *request, now time.Time) bool
	// leave marks r as answered for nobody: its client left and the
	// server, not told, keeps working on it. It reports whether r was still
	// waiting for an answer.
	leave(r *request) bool
	// pause freezes the server at now; resume ends the pause at now.
	pause(now time.Time)
	resume(now time.Time)
	// stall tells the model that the process did not run from from to to
	// (a SIGSTOP), as a pause it could not see coming.
	stall(from, to time.Time)
	// takePeak returns the highest concurrency since the previous call,
	// and starts the next period at the current concurrency.
	takePeak() int
	// stats returns the model's part of a snapshot: every field of Stats
	// but Abandoned, which counts the abandoned requests that only the
	// Server sees, and to which it adds the model's.
	stats() Stats
}

// The states of a request in the server.
const (
	parked    uint8 = iota // waiting in the accept backlog while the server is paused
	inside                 // counted in the concurrency, ageing towards its delay (queue: in service)
	dropped                // arrived with the backlog full: never enters
	completed              // went through its delay and was answered
	withdrawn              // its client left and the server learned it (cancel_on_timeout)
	waiting                // queue: counted in the concurrency, waiting for a worker
	shed                   // turned away at the door (shed_above): answered at once with an error
	expired                // queue: waited past its queue timeout, answered with an error when a worker reached it
)

// request is one GET /api in the server.
type request struct {
	start time.Time     // when it entered (for a parked one: the resume; queue: when it arrived, or the resume)
	end   time.Time     // queue: when its service ends, while in service
	limit time.Duration // queue: the longest it may wait for a worker (queue_timeout, codel); 0 for no limit
	idx   int           // queue: its index in the heap of requests in service
	state uint8         //
	left  bool          // its client left; the server, not told, answers it for nobody
	done  chan struct{} // closed when it completes
}

// counts are the counters every model keeps.
type counts struct {
	accepted, completed, droppedN, withdrawnN int64
	// shedN counts the requests shed (shed_above), expiredN those that
	// waited past their queue timeout: both answered with an error.
	shedN, expiredN int64
	// leftN counts the requests answered, with their work done or an
	// error, after their client left.
	leftN int64
}

// complete answers r, whose work is done.
func (n *counts) complete(r *request) {
	n.answer(r, completed)
	n.completed++
}

// shed answers r at once with an error: the server sheds load.
func (n *counts) shed(r *request) {
	n.answer(r, shed)
	n.shedN++
}

// expire answers r with an error: it waited past its queue timeout.
func (n *counts) expire(r *request) {
	n.answer(r, expired)
	n.expiredN++
}

// withdraw ends r as withdrawn, its client having left and the server
// having learned it, if r was still waiting for an answer: inside (in
// service, for the queue), waiting, parked or dropped. It returns the state
// r left, for the model to take r out of its own accounts, and whether it
// was one of those.
func (n *counts) withdraw(r *request) (was uint8, ok bool) {
	switch was = r.state; was {
	case inside, waiting, parked, dropped:
		r.state = withdrawn
		n.withdrawnN++
		return was, true
	}
	return was, false
}

// leave marks r as answered for nobody when it completes: its client left
// and the server, which does not learn of it, keeps working on it. It
// reports whether r was still waiting (inside, waiting or parked).
func (n *counts) leave(r *request) bool {
	switch r.state {
	case inside, waiting, parked:
		r.left = true
		return true
	}
	return false
}

// counted returns st with the counters filled in.
func (n *counts) counted(st Stats) Stats {
	st.Accepted, st.Completed, st.Abandoned = n.accepted, n.completed, n.leftN
	st.Dropped, st.Shed, st.Expired = n.droppedN, n.shedN, n.expiredN
	return st
}

// answer ends r in state, which its handler reads once done is closed.
func (n *counts) answer(r *request, state uint8) {
	r.state = state
	close(r.done)
	if r.left {
		n.leftN++
	}
}

// door is the load shedding every model does where a request enters
// (shed_above), as the simulator's lane does at admission: a request that
// finds shedAbove requests inside is answered at once with an error
// rather than join them. A paused server sheds nothing, since it answers
// nothing; at the resume, each request entering from the backlog meets
// the door in turn.
type door struct{ shedAbove int }

// sheds reports whether a request that finds inside requests inside is
// turned away.
func (d door) sheds(inside int) bool { return d.shedAbove > 0 && inside >= d.shedAbove }

// queue holds requests in arrival order; withdrawn ones stay until they
// reach the front.
type queue struct {
	items []*request
	head  int
}

func (q *queue) push(r *request) { q.items = append(q.items, r) }
func (q *queue) len() int        { return len(q.items) - q.head }
func (q *queue) front() *request { return q.items[q.head] }

func (q *queue) pop() *request {
	r := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	} else if q.head >= 1024 && q.head*2 >= len(q.items) {
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	return r
}

// popBack removes the newest request; one is there.
func (q *queue) popBack() *request {
	n := len(q.items) - 1
	r := q.items[n]
	q.items[n] = nil
	q.items = q.items[:n]
	if n == q.head {
		q.items, q.head = q.items[:0], 0
	}
	return r
}

// keep drops, in place and in order, the requests for which ok is false.
func (q *queue) keep(ok func(*request) bool) {
	n := 0
	for _, r := range q.items[q.head:] {
		if ok(r) {
			q.items[n] = r
			n++
		}
	}
	clear(q.items[n:])
	q.items, q.head = q.items[:n], 0
}

// core is the server's model without clock or goroutines, so that tests can
// drive it with made-up times. Every request shares the threshold
// delay(concurrency) and requests enter in time order, so they complete
// oldest first and only the oldest needs a wake-up: one timer for the whole
// server, re-planned whenever the concurrency changes.
type core struct {
	lat     scenario.Latency
	backlog int // most requests parked while paused
	door

	in, bl    queue // inside (oldest first) and parked
	live      int   // concurrency: requests inside, withdrawn ones excluded
	peak      int   // highest live since the last takePeak
	parkedN   int   // parked requests not withdrawn
	paused    bool
	lastDelay time.Duration
	counts
}

var _ model = (*core)(nil)

// arrive lets r in at now: inside when the server runs, unless it sheds
// it; parked in the backlog while it is paused, or dropped when the
// backlog is full.
func (c *core) arrive(r *request, now time.Time) {
	c.accepted++
	switch {
	case !c.paused && c.sheds(c.live):
		c.shed(r)
	case !c.paused:
		r.start, r.state = now, inside
		c.in.push(r)
		c.live++
		c.peak = max(c.peak, c.live)
	case c.parkedN < c.backlog:
		r.state = parked
		c.bl.push(r)
		c.parkedN++
	default:
		r.state = dropped
		c.droppedN++
	}
}

// advance completes, oldest first, every request whose age at now has
// reached the delay for the concurrency at that moment, and returns how many.
func (c *core) advance(now time.Time) int {
	n := 0
	for {
		at, ok := c.next()
		if !ok || now.Before(at) {
			return n
		}
		c.live--
		c.complete(c.in.pop())
		n++
	}
}

// next returns when the oldest request inside is due, or false when nothing
// can complete (empty or paused).
func (c *core) next() (time.Time, bool) {
	for c.in.len() > 0 && c.in.front().state != inside {
		c.in.pop()
	}
	if c.paused || c.live == 0 {
		return time.Time{}, false
	}
	c.lastDelay = c.lat.Delay(c.live)
	return c.in.front().start.Add(c.lastDelay), true
}

// withdraw takes r out because its client left. It reports whether r was
// still waiting (inside, parked or dropped).
func (c *core) withdraw(r *request, _ time.Time) bool {
	was, ok := c.counts.withdraw(r)
	switch was {
	case inside:
		c.live--
	case parked:
		c.parkedN--
	}
	return ok
}

// pause freezes the server: nothing completes, arrivals park.
func (c *core) pause(time.Time) { c.paused = true }

// stall does nothing: a request's delay counts from its start, so the
// requests inside a stopped process keep ageing, as 001's did.
func (c *core) stall(_, _ time.Time) {}

// resume lets every parked request in at once, all starting now, abandoned
// or not: the flood that 001's SIGCONT lets in from the accept queue. A
// shedding server answers with an error each one that finds shed_above
// inside.
func (c *core) resume(now time.Time) {
	if !c.paused {
		return
	}
	c.paused = false
	for c.bl.len() > 0 {
		r := c.bl.pop()
		if r.state != parked {
			continue
		}
		if c.sheds(c.live) {
			c.shed(r)
			continue
		}
		r.start, r.state = now, inside
		c.in.push(r)
		c.live++
	}
	c.parkedN = 0
	c.peak = max(c.peak, c.live)
}

// takePeak returns the highest concurrency since the previous call, and
// starts the next period at the current concurrency.
func (c *core) takePeak() int {
	p := max(c.peak, c.live)
	c.peak = c.live
	return p
}

// stats: the concurrency is the requests inside, the backlog the parked
// ones, and the last delay the one last computed, as 001's server printed.
func (c *core) stats() Stats {
	return c.counted(Stats{
		Concurrency:      c.live,
		Backlog:          c.parkedN,
		LastDelay:        c.lastDelay,
		LastDelaySeconds: c.lastDelay.Seconds(),
		Latency:          c.lat.Delay(c.live),
		Paused:           c.paused,
	})
}
