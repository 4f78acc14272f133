package realexp

import (
	"math"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// queueAt is a worker queue with a fake clock.
type queueAt = modelAt[*queueCore]

// newQueueAt returns a queue of workers whose services all take service
// (service_dist=fixed), served in order ("fifo" or "lifo"), with room for
// backlog waiting.
func newQueueAt(t *testing.T, workers int, service time.Duration, order string, backlog int) *queueAt {
	p := scenario.Defaults()
	p.ServerModel, p.Workers, p.ServiceTime, p.ServiceDist, p.QueueOrder, p.Backlog =
		scenario.QueueModel, workers, service, scenario.ServiceFixed, order, backlog
	return newModelAt(t, newQueueCore(&p))
}

// order serves three requests on one worker and returns the order in which
// they completed.
func order(t *testing.T, queueOrder string) []int {
	q := newQueueAt(t, 1, 100*ms, queueOrder, 10)
	rs := []*request{q.arrive(0), q.arrive(10 * ms), q.arrive(20 * ms)}
	q.want("one in service, two waiting", 3, 2)
	var done []int
	for end := 100 * ms; end <= 300*ms; end += 100 * ms {
		if got := q.next(); got != end {
			t.Fatalf("%s: next service ends at %v, want %v (one after the other, no gap)", queueOrder, got, end)
		}
		q.advance(end-ms, 0)
		q.advance(end, 1)
		for i, r := range rs {
			if isDone(r) && r.state == completed && !contains(done, i) {
				done = append(done, i)
			}
		}
	}
	q.want("all served", 0, 0)
	return done
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestQueueOrder: a free worker takes the oldest waiting request (fifo)
// or the newest (lifo), the moment it is free.
func TestQueueOrder(t *testing.T) {
	if got := order(t, scenario.QueueFIFO); !equalInts(got, []int{0, 1, 2}) {
		t.Errorf("fifo: completed %v, want [0 1 2]", got)
	}
	if got := order(t, scenario.QueueLIFO); !equalInts(got, []int{0, 2, 1}) {
		t.Errorf("lifo: completed %v, want [0 2 1]", got)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestQueueWorkers: up to workers requests are served at once, each its
// own service time from its arrival; the last delay is what a new request
// would take: its wait behind those waiting, then its service.
func TestQueueWorkers(t *testing.T) {
	q := newQueueAt(t, 2, 100*ms, scenario.QueueFIFO, 10)
	a, b := q.arrive(0), q.arrive(30*ms)
	q.want("two workers busy", 2, 0)
	if st := q.c.stats(); st.LastDelay != 100*ms || st.Latency != 100*ms {
		t.Fatalf("nobody waiting: last delay %v, latency %v; want 100ms", st.LastDelay, st.Latency)
	}
	c := q.arrive(40 * ms)
	q.want("two busy, one waiting", 3, 1)
	if st := q.c.stats(); st.LastDelay != 150*ms {
		t.Fatalf("one waiting for two workers: last delay %v, want 150ms", st.LastDelay)
	}
	q.advance(100*ms, 1) // a; c starts
	q.advance(130*ms, 1) // b
	if !isDone(a) || !isDone(b) || isDone(c) {
		t.Fatal("want a and b done, c in service")
	}
	if got := q.next(); got != 200*ms {
		t.Fatalf("c ends at %v, want 200ms: its service from when a's worker was free", got)
	}
	// A late wake-up does not slow the workers: c's successor starts when
	// c's service ended, not when the server noticed.
	d := q.arrive(150 * ms)
	e := q.arrive(160 * ms)
	q.want("two busy, one waiting", 3, 1)
	q.advance(260*ms, 2) // c at 200 and d at 250, noticed late
	if !isDone(c) || !isDone(d) || isDone(e) {
		t.Fatal("want c and d done, e not yet")
	}
	if got := q.next(); got != 300*ms {
		t.Fatalf("e ends at %v, want 300ms: its service from 200ms, when c's worker was free", got)
	}
	q.advance(300*ms, 1)
	if st := q.c.stats(); st.Completed != 5 || st.Accepted != 5 || st.Concurrency != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestQueueBacklogFull: a request that finds every worker busy and the
// backlog full is dropped and never served; parked requests share the
// backlog's room with the waiting ones; with no backlog, only a free
// worker takes a request in.
func TestQueueBacklogFull(t *testing.T) {
	q := newQueueAt(t, 1, 100*ms, scenario.QueueFIFO, 2)
	q.arrive(0)
	q.arrive(ms)
	q.c.pause(q.at(2 * ms))
	parkedReq := q.arrive(3 * ms)
	d := q.arrive(4 * ms)
	if parkedReq.state != parked || d.state != dropped || q.c.droppedN != 1 {
		t.Fatalf("states %d, %d; dropped %d: want the third parked, the fourth dropped", parkedReq.state, d.state, q.c.droppedN)
	}
	q.want("paused: one in service, one waiting, one parked", 2, 2)
	q.c.resume(q.at(5 * ms))
	q.want("resumed: the parked one waits too", 3, 2)
	q.advance(time.Second, 3)
	if isDone(d) || d.state != dropped {
		t.Fatal("the dropped request was served")
	}

	none := newQueueAt(t, 2, 100*ms, scenario.QueueFIFO, 0)
	a, b, c := none.arrive(0), none.arrive(0), none.arrive(0)
	if a.state != inside || b.state != inside || c.state != dropped {
		t.Fatalf("backlog 0: states %d %d %d, want two in service and one dropped", a.state, b.state, c.state)
	}
	none.want("backlog 0", 2, 0)
}

// TestQueueCancel: a withdrawn request in service frees its worker for the
// next waiting one at once; a withdrawn waiting one is passed over; neither
// is answered. Without cancel_on_timeout, an abandoned request is served
// all the same, and costs its worker.
func TestQueueCancel(t *testing.T) {
	q := newQueueAt(t, 1, 100*ms, scenario.QueueFIFO, 10)
	a, b, c, d := q.arrive(0), q.arrive(10*ms), q.arrive(20*ms), q.arrive(25*ms)
	if !q.c.withdraw(a, q.at(30*ms)) {
		t.Fatal("withdraw(a in service) = false")
	}
	q.want("a withdrawn: b in service, c and d waiting", 3, 2)
	if got := q.next(); got != 130*ms {
		t.Fatalf("b ends at %v, want 130ms: a's worker took b at once", got)
	}
	if !q.c.withdraw(c, q.at(40*ms)) {
		t.Fatal("withdraw(c waiting) = false")
	}
	q.want("c withdrawn", 2, 1)
	if !q.c.leave(d) {
		t.Fatal("leave(d waiting) = false")
	}
	q.advance(130*ms, 1) // b; the worker passes over c and takes d
	if got := q.next(); got != 230*ms {
		t.Fatalf("d ends at %v, want 230ms", got)
	}
	q.advance(230*ms, 1)
	if isDone(a) || isDone(c) || !isDone(b) || !isDone(d) {
		t.Fatalf("done: a %v b %v c %v d %v; want b and d", isDone(a), isDone(b), isDone(c), isDone(d))
	}
	if st := q.c.stats(); st.Completed != 2 || st.Abandoned != 1 || q.c.withdrawnN != 2 {
		t.Fatalf("stats %+v, withdrawn %d: want 2 completed (1 for nobody), 2 withdrawn", st, q.c.withdrawnN)
	}
	q.want("empty", 0, 0)
}

// TestQueueNothingToWithdraw: withdrawing or leaving a request that is no
// longer waiting for an answer changes nothing; withdrawing a dropped one
// only ends it.
func TestQueueNothingToWithdraw(t *testing.T) {
	q := newQueueAt(t, 1, 100*ms, scenario.QueueFIFO, 0)
	a := q.arrive(0)
	b := q.arrive(0) // dropped: no room
	q.advance(100*ms, 1)
	if q.c.withdraw(a, q.at(150*ms)) || q.c.leave(a) || a.state != completed {
		t.Fatalf("withdraw or leave of a completed request: state %d", a.state)
	}
	if q.c.leave(b) || !q.c.withdraw(b, q.at(150*ms)) || q.c.withdraw(b, q.at(150*ms)) {
		t.Fatal("a dropped request: leave false, withdraw true once")
	}
	q.want("nothing inside", 0, 0)
	if st := q.c.stats(); st.Completed != 1 || st.Dropped != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestQueuePauseResume: paused, no service progresses and new requests
// park, outside the concurrency; resumed, each request in service gets the
// service time it had left, and the parked ones join the waiting ones.
func TestQueuePauseResume(t *testing.T) {
	q := newQueueAt(t, 2, 100*ms, scenario.QueueFIFO, 10)
	a, b := q.arrive(0), q.arrive(50*ms)
	q.c.pause(q.at(80 * ms)) // a has 20 ms left, b 70 ms
	if q.next() != -1 {
		t.Fatalf("paused: next %v, want none", q.next())
	}
	c := q.arrive(500 * ms)
	q.want("paused: two in service, one parked", 2, 1)
	if st := q.c.stats(); !st.Paused || c.state != parked {
		t.Fatalf("paused: %+v, c state %d", st, c.state)
	}
	q.advance(time.Second, 0)
	q.c.resume(q.at(time.Second))
	q.want("resumed: c waits for a worker", 3, 1)
	if got := q.next(); got != time.Second+20*ms {
		t.Fatalf("a ends at %v, want 1.02s: the 20 ms it had left", got)
	}
	q.advance(time.Second+20*ms, 1)
	if !isDone(a) || isDone(b) {
		t.Fatal("want a done, b not")
	}
	q.advance(time.Second+70*ms, 1) // b's 70 ms
	if got := q.next(); got != time.Second+120*ms {
		t.Fatalf("c ends at %v, want 1.12s: taken when a's worker was free", got)
	}
	q.advance(time.Second+120*ms, 1)
	if !isDone(c) {
		t.Fatal("c not done")
	}
}

// TestQueuePauseFreesWorkers: a worker freed by a cancel while paused
// stays idle until the resume, and then takes a parked request at once.
func TestQueuePauseFreesWorkers(t *testing.T) {
	q := newQueueAt(t, 1, 100*ms, scenario.QueueFIFO, 10)
	a := q.arrive(0)
	q.c.pause(q.at(10 * ms))
	q.c.withdraw(a, q.at(20*ms))
	b := q.arrive(30 * ms)
	if b.state != parked || q.next() != -1 {
		t.Fatalf("paused with a free worker: b state %d, next %v; want parked, none", b.state, q.next())
	}
	q.c.resume(q.at(time.Second))
	if b.state != inside || q.next() != time.Second+100*ms {
		t.Fatalf("resumed: b state %d, next %v; want in service until 1.1s", b.state, q.next())
	}
}

// TestQueueStall: a stop of the process that the server only sees
// afterwards (SIGSTOP) delays every service not over when it began, as a
// pause does; during a pause, the pause already counts it.
func TestQueueStall(t *testing.T) {
	q := newQueueAt(t, 2, 100*ms, scenario.QueueFIFO, 10)
	q.arrive(0)
	q.arrive(50 * ms)
	q.c.stall(q.at(120*ms), q.at(620*ms)) // the first had ended at 100 ms
	q.advance(620*ms, 1)
	if got := q.next(); got != 650*ms {
		t.Fatalf("the second ends at %v, want 650ms: its 30 ms left after the stop", got)
	}
	q.c.pause(q.at(620 * ms))
	q.c.stall(q.at(630*ms), q.at(700*ms))
	q.c.resume(q.at(720 * ms))
	if got := q.next(); got != 750*ms {
		t.Fatalf("after a stall within a pause the second ends at %v, want 750ms: the pause's 100 ms once", got)
	}
}

// TestQueueSweepsWithdrawn: with lifo, requests withdrawn at the bottom of
// the list would stay as long as it is not empty: they are swept out.
func TestQueueSweepsWithdrawn(t *testing.T) {
	q := newQueueAt(t, 1, time.Hour, scenario.QueueLIFO, 1_000_000)
	q.arrive(0) // holds the worker
	for i := range 100_000 {
		r := q.arrive(time.Duration(i) * time.Microsecond)
		if i%10 != 0 {
			q.c.withdraw(r, q.at(time.Duration(i)*time.Microsecond))
		}
	}
	q.want("one in service, a tenth waiting", 1+10_000, 10_000)
	if n := q.c.wait.len(); n > 2*10_000+64 {
		t.Fatalf("the wait list holds %d requests for 10000 waiting", n)
	}
}

// TestQueueExpService: exponential service times, drawn from a stream of
// the seed: the same seed gives the same times, and their mean is
// service_time.
func TestQueueExpService(t *testing.T) {
	p := scenario.Defaults()
	p.ServerModel, p.ServiceTime, p.ServiceDist = scenario.QueueModel, 100*ms, scenario.ServiceExp
	a, b := newQueueCore(&p), newQueueCore(&p)
	p.Seed++
	other := newQueueCore(&p)
	var sum time.Duration
	same, differ := true, false
	const n = 100_000
	for range n {
		d := a.svc.Draw()
		same = same && d == b.svc.Draw()
		differ = differ || d != other.svc.Draw()
		sum += d
	}
	if !same || !differ {
		t.Errorf("same seed same draws %v, another seed other draws %v", same, differ)
	}
	if mean := float64(sum) / n / float64(100*ms); math.Abs(mean-1) > 0.02 {
		t.Errorf("mean service %.3f × service_time, want 1 ± 0.02", mean)
	}
}

// TestQueueSweepCountsTheWithdrawn: the sweep that a withdrawal sets off
// takes that request out with the others, so that the withdrawn ones still
// in the list are as many as the queue counts: none, right after it.
func TestQueueSweepCountsTheWithdrawn(t *testing.T) {
	q := newQueueAt(t, 1, time.Hour, scenario.QueueFIFO, 1000)
	q.arrive(0) // holds the worker
	var rs []*request
	for i := range 100 {
		rs = append(rs, q.arrive(time.Duration(i)*time.Millisecond))
	}
	for i, r := range rs[:65] {
		q.c.withdraw(r, q.at(time.Duration(100+i)*time.Millisecond))
	}
	// The 65th withdrawal outnumbers the 35 live ones: the sweep runs.
	if n := q.c.wait.len(); n != 35 || q.c.deadN != 0 {
		t.Fatalf("after the sweep the list holds %d requests, %d counted withdrawn; want the 35 waiting and 0", n, q.c.deadN)
	}
	q.want("one in service, 35 waiting", 36, 35)
}
