package realexp

import (
	"fmt"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// TestCoreShedAbove: a request that finds exactly shed_above inside is
// answered at once with an error and does not enter; one that finds one
// fewer enters. 0 sheds nothing.
func TestCoreShedAbove(t *testing.T) {
	for _, tc := range []struct {
		shedAbove, in, shedN int
	}{
		{0, 4, 0},
		{1, 1, 3},
		{3, 3, 1},
		{4, 4, 0},
	} {
		t.Run(fmt.Sprintf("shed_above=%d", tc.shedAbove), func(t *testing.T) {
			c := newCoreAt(t, curve2, 10)
			c.c.shedAbove = tc.shedAbove
			var rs []*request
			for i := range 4 {
				rs = append(rs, c.arrive(time.Duration(i)*ms))
			}
			for i, r := range rs {
				wantShed := i >= tc.in
				if got := r.state == shed; got != wantShed || isDone(r) != wantShed {
					t.Errorf("request %d found %d inside: state %d, done %v; want shed %v", i, min(i, tc.in), r.state, isDone(r), wantShed)
				}
			}
			if st := c.c.stats(); st.Concurrency != tc.in || st.Shed != int64(tc.shedN) || st.Accepted != 4 || st.Completed != 0 {
				t.Errorf("stats %+v; want concurrency %d, %d shed of 4 accepted", st, tc.in, tc.shedN)
			}
		})
	}
}

// TestCoreShedFrees: a shedding server takes requests in again as soon as
// one fewer than shed_above is inside, and a withdrawn request is not
// inside.
func TestCoreShedFrees(t *testing.T) {
	c := newCoreAt(t, curve2, 10)
	c.c.shedAbove = 2
	a, b := c.arrive(0), c.arrive(0)
	if r := c.arrive(ms); r.state != shed {
		t.Fatalf("third with 2 inside: state %d, want shed", r.state)
	}
	c.c.withdraw(b, c.at(2*ms))
	d := c.arrive(3 * ms)
	if d.state != inside {
		t.Fatalf("after a withdrawal, 1 inside: state %d, want inside", d.state)
	}
	if r := c.arrive(4 * ms); r.state != shed {
		t.Fatalf("a and d inside: state %d, want shed", r.state)
	}
	c.advance(200*ms, 2) // a, aged 200 ms at concurrency 2; then d, at 1
	if a.state != completed || d.state != completed {
		t.Fatal("a or d not completed")
	}
	if r := c.arrive(201 * ms); r.state != inside {
		t.Fatalf("nobody inside: state %d, want inside", r.state)
	}
	if st := c.c.stats(); st.Shed != 2 || st.Completed != 2 || st.Concurrency != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestCoreShedFlood: at a resume each parked request meets the door in
// arrival order: those that find shed_above inside are shed, abandoned or
// not (an abandoned one is answered for nobody), and a withdrawn one does
// not count.
func TestCoreShedFlood(t *testing.T) {
	c := newCoreAt(t, curve2, 10)
	c.c.shedAbove = 3
	in := c.arrive(0)
	c.c.pause(c.at(0))
	a, b, d, e := c.arrive(ms), c.arrive(2*ms), c.arrive(3*ms), c.arrive(4*ms)
	c.c.withdraw(b, c.at(5*ms))
	c.c.leave(e) // its client left, unknown to the server
	c.c.resume(c.at(time.Second))
	if in.state != inside || a.state != inside || d.state != inside || e.state != shed || !isDone(e) {
		t.Fatalf("states: inside %d, a %d, d %d, e %d; want a and d in (3 inside), e shed", in.state, a.state, d.state, e.state)
	}
	if st := c.c.stats(); st.Concurrency != 3 || st.Backlog != 0 || st.Shed != 1 || st.Abandoned != 1 {
		t.Fatalf("stats %+v; want 3 inside, 1 shed for nobody", st)
	}
	if p := c.c.takePeak(); p != 3 {
		t.Errorf("peak %d, want 3", p)
	}
}

// protQueue is a worker queue of workers serving each request in exactly
// service, with room for 100 waiting, and the protections set.
func protQueue(t *testing.T, workers int, service time.Duration, set func(p *scenario.Params)) *queueAt {
	p := scenario.Defaults()
	p.ServerModel, p.Workers, p.ServiceTime, p.ServiceDist, p.QueueOrder, p.Backlog =
		scenario.QueueModel, workers, service, scenario.ServiceFixed, scenario.QueueFIFO, 100
	set(&p)
	return &queueAt{t: t, c: newQueueCore(&p), t0: time.Unix(1000, 0)}
}

// TestQueueShedAbove: the worker queue's concurrency is the requests in
// service and waiting: with shed_above 3 and one worker, the fourth
// request is shed, and while paused (answering nothing) it parks instead.
func TestQueueShedAbove(t *testing.T) {
	q := protQueue(t, 1, 100*ms, func(p *scenario.Params) { p.ShedAbove = 3 })
	q.arrive(0)
	q.arrive(ms)
	q.arrive(2 * ms)
	r := q.arrive(3 * ms)
	if r.state != shed || !isDone(r) {
		t.Fatalf("fourth with 3 inside: state %d, want shed", r.state)
	}
	q.want("1 in service, 2 waiting", 3, 2)
	q.advance(100*ms, 1)
	if r := q.arrive(100 * ms); r.state != waiting {
		t.Fatalf("2 inside: state %d, want waiting", r.state)
	}
	q.c.pause(q.at(110 * ms))
	if r := q.arrive(120 * ms); r.state != parked {
		t.Fatalf("paused with 3 inside: state %d, want parked", r.state)
	}
	if st := q.c.stats(); st.Shed != 1 || st.Accepted != 6 {
		t.Fatalf("stats %+v", st)
	}
}

// TestQueueShedFlood: at a resume the parked requests enter in arrival
// order, each meeting the door with the requests frozen in service and
// waiting counted, as the simulator's backlog enters its stopped model;
// those admitted wait from the resume.
func TestQueueShedFlood(t *testing.T) {
	q := protQueue(t, 1, 100*ms, func(p *scenario.Params) { p.ShedAbove = 3 })
	a, b := q.arrive(0), q.arrive(10*ms)
	q.c.pause(q.at(20 * ms)) // a has 80 ms left
	c, d, e := q.arrive(30*ms), q.arrive(40*ms), q.arrive(50*ms)
	q.want("paused: a in service, b waiting, 3 parked", 2, 4)
	q.c.resume(q.at(time.Second))
	if c.state != waiting || d.state != shed || e.state != shed || !isDone(d) || !isDone(e) {
		t.Fatalf("states c %d, d %d, e %d: want c waiting, d and e shed", c.state, d.state, e.state)
	}
	if !c.start.Equal(q.at(time.Second)) {
		t.Errorf("c waits from %v, want the resume", c.start.Sub(q.t0))
	}
	q.want("resumed: a, b, c", 3, 2)
	if got := q.c.wait.len(); got != 2 {
		t.Errorf("the wait list holds %d, want b and c only", got)
	}
	q.advance(time.Second+80*ms, 1)  // a; b starts
	q.advance(time.Second+180*ms, 1) // b; c starts
	q.advance(time.Second+280*ms, 1) // c
	if !isDone(a) || !isDone(b) || c.state != completed {
		t.Fatal("want a, b and c served")
	}
	if st := q.c.stats(); st.Shed != 2 || st.Completed != 3 || st.Concurrency != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestQueueTimeoutBoundary: a request that waited exactly queue_timeout
// for a worker is served; one that waited a nanosecond longer is answered
// with an error when the worker reaches it, not before, and costs no
// worker: the next waiting request takes it at once.
func TestQueueTimeoutBoundary(t *testing.T) {
	const timeout = 60 * ms
	for _, tc := range []struct {
		name    string
		arrive  time.Duration // the worker is free at 100 ms
		expired bool
	}{
		{"waited exactly the timeout", 100*ms - timeout, false},
		{"waited a nanosecond more", 100*ms - timeout - 1, true},
		{"waited less", 99 * ms, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := protQueue(t, 1, 100*ms, func(p *scenario.Params) { p.QueueTimeout = timeout })
			q.arrive(0)
			r := q.arrive(tc.arrive)
			next := q.arrive(99 * ms) // waits 1 ms, behind r
			q.advance(100*ms-1, 0)
			if isDone(r) {
				t.Fatal("answered before a worker reached it")
			}
			q.advance(100*ms, 1)
			if got := r.state == expired; got != tc.expired || got != isDone(r) {
				t.Fatalf("state %d, done %v; want expired %v", r.state, isDone(r), tc.expired)
			}
			// The worker serves r, or, r expired, the next one at once.
			want := next
			if !tc.expired {
				want = r
			}
			if want.state != inside || q.next() != 200*ms {
				t.Fatalf("in service: state %d, next end %v; want 200ms", want.state, q.next())
			}
			if st := q.c.stats(); st.Expired != map[bool]int64{false: 0, true: 1}[tc.expired] {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

// TestQueueLimit: how long a request joining the queue may wait: the
// queue timeout, and under codel the shorter of it and codel_interval, or
// codel_target once the queue has not been empty for longer than
// codel_interval (for exactly the interval, it is not yet overloaded).
func TestQueueLimit(t *testing.T) {
	for _, tc := range []struct {
		timeout time.Duration
		codel   bool
		since   time.Duration // since the queue was last empty
		want    time.Duration
	}{
		{0, false, time.Hour, 0},
		{50 * ms, false, time.Hour, 50 * ms},
		{0, true, 0, 100 * ms},
		{0, true, 100 * ms, 100 * ms},
		{0, true, 100*ms + 1, 5 * ms},
		{50 * ms, true, 0, 50 * ms},
		{500 * ms, true, 0, 100 * ms},
		{500 * ms, true, time.Hour, 5 * ms},
		{2 * ms, true, time.Hour, 2 * ms},
	} {
		t.Run(fmt.Sprintf("timeout=%v,codel=%v,since=%v", tc.timeout, tc.codel, tc.since), func(t *testing.T) {
			q := protQueue(t, 1, 100*ms, func(p *scenario.Params) {
				p.QueueTimeout = tc.timeout
				if tc.codel {
					p.QueueControl, p.CoDelTarget, p.CoDelInterval = scenario.QueueControlCoDel, 5*ms, 100*ms
				}
			})
			q.c.line.Arrive(q.c.clock(q.at(0))) // the queue found empty at 0
			if got := q.c.limit(q.at(tc.since)); got != tc.want {
				t.Errorf("limit = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestQueueCoDel: Fail at Scale's adaptive LIFO, step by step. One worker
// of 100 ms, codel_target 10 ms, codel_interval 150 ms. While the queue has
// emptied within the interval, requests are served oldest first and may
// wait the interval; once it has not, the newest is served first and a
// request joining may wait only the target; when the workers empty the
// queue, the server is back to fifo.
func TestQueueCoDel(t *testing.T) {
	q := protQueue(t, 1, 100*ms, func(p *scenario.Params) {
		p.QueueControl, p.CoDelTarget, p.CoDelInterval = scenario.QueueControlCoDel, 10*ms, 150*ms
	})
	a := q.arrive(0)       // served until 100 ms
	b := q.arrive(10 * ms) // the queue empty until now: may wait 150 ms
	c := q.arrive(20 * ms)
	if b.limit != 150*ms || c.limit != 150*ms {
		t.Fatalf("limits %v, %v: want the interval", b.limit, c.limit)
	}
	q.advance(100*ms, 1) // a; 90 ms since the queue was empty: fifo, b
	if !isDone(a) || b.state != inside || c.state != waiting {
		t.Fatalf("at 100 ms: b %d, c %d; want b served first (fifo)", b.state, c.state)
	}
	d := q.arrive(170 * ms) // 160 ms since empty: overloaded
	f := q.arrive(195 * ms)
	if d.limit != 10*ms || f.limit != 10*ms {
		t.Fatalf("overloaded: limits %v, %v; want the target", d.limit, f.limit)
	}
	q.advance(200*ms, 1) // b; lifo: f, waited 5 ms
	if f.state != inside || d.state != waiting || c.state != waiting {
		t.Fatalf("at 200 ms: f %d, d %d, c %d; want f served first (lifo)", f.state, d.state, c.state)
	}
	q.advance(300*ms, 1) // f; lifo: d waited 130 ms > 10, c 280 ms > 150
	if d.state != expired || c.state != expired || !isDone(d) || !isDone(c) {
		t.Fatalf("at 300 ms: d %d, c %d; want both expired", d.state, c.state)
	}
	q.want("the queue emptied at 300 ms", 0, 0)
	g := q.arrive(310 * ms) // to the free worker
	h := q.arrive(320 * ms) // the queue empty until now: fifo again
	i := q.arrive(330 * ms)
	if h.limit != 150*ms || i.limit != 150*ms {
		t.Fatalf("limits %v, %v: want the interval", h.limit, i.limit)
	}
	q.advance(410*ms, 1) // g; fifo: h
	if !isDone(g) || h.state != inside || i.state != waiting {
		t.Fatalf("at 410 ms: h %d, i %d; want h served first (fifo again)", h.state, i.state)
	}
	if st := q.c.stats(); st.Expired != 2 || st.Completed != 4 {
		t.Fatalf("stats %+v", st)
	}
}

// TestQueueCoDelEmptyAt: the queue counts as empty when a worker takes
// its last request or an arrival finds nobody waiting, not when its last
// waiting request is withdrawn; and a pause keeps it from emptying, so
// that the flood at the resume finds the server overloaded.
func TestQueueCoDelEmptyAt(t *testing.T) {
	codel := func(p *scenario.Params) {
		p.QueueControl, p.CoDelTarget, p.CoDelInterval = scenario.QueueControlCoDel, 10*ms, 100*ms
	}
	t.Run("withdrawn", func(t *testing.T) {
		q := protQueue(t, 1, time.Second, codel)
		q.arrive(0)
		b := q.arrive(10 * ms)
		c := q.arrive(20 * ms)
		q.c.withdraw(b, q.at(30*ms))
		q.c.withdraw(c, q.at(40*ms)) // empty now, but not seen so
		q.arrive(50 * ms)            // sees it empty: empty at 50 ms
		if got := q.arrive(151 * ms).limit; got != 10*ms {
			t.Errorf("101 ms after an arrival found it empty: limit %v, want the target", got)
		}
		if got := q.c.limit(q.at(150 * ms)); got != 100*ms {
			t.Errorf("100 ms after: limit %v, want the interval", got)
		}
	})
	t.Run("flood", func(t *testing.T) {
		q := protQueue(t, 1, 100*ms, codel)
		q.arrive(0)
		b := q.arrive(10 * ms) // empty at 10 ms
		q.c.pause(q.at(20 * ms))
		c, d := q.arrive(30*ms), q.arrive(40*ms)
		q.c.resume(q.at(time.Second)) // 990 ms without emptying
		if c.limit != 10*ms || d.limit != 10*ms {
			t.Fatalf("the flood's limits %v, %v: want the target", c.limit, d.limit)
		}
		q.advance(time.Second+80*ms, 1) // lifo: d waited 80 ms, c 80, b 1070: all expire
		if b.state != expired || c.state != expired || d.state != expired {
			t.Fatalf("states b %d, c %d, d %d: want all expired", b.state, c.state, d.state)
		}
		q.want("emptied", 0, 0)
	})
	t.Run("flood into an empty queue", func(t *testing.T) {
		q := protQueue(t, 1, 100*ms, codel)
		q.arrive(0) // in service; nobody waits
		q.c.pause(q.at(20 * ms))
		c, d := q.arrive(30*ms), q.arrive(40*ms)
		q.c.resume(q.at(time.Second)) // c finds it empty at the resume
		if c.limit != 100*ms || d.limit != 100*ms {
			t.Fatalf("the flood's limits %v, %v: want the interval", c.limit, d.limit)
		}
		q.advance(time.Second+80*ms, 1) // fifo: c waited 80 ms
		if c.state != inside || d.state != waiting {
			t.Fatalf("states c %d, d %d: want c served (fifo)", c.state, d.state)
		}
	})
}
