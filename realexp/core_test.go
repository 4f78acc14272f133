package realexp

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/scenario"
)

// modelAt is a server model with a fake clock: times are offsets from t0.
type modelAt[M model] struct {
	t  *testing.T
	c  M
	t0 time.Time
}

func newModelAt[M model](t *testing.T, c M) *modelAt[M] {
	return &modelAt[M]{t: t, c: c, t0: time.Unix(1000, 0)}
}

func (m *modelAt[M]) at(d time.Duration) time.Time { return m.t0.Add(d) }

func (m *modelAt[M]) arrive(d time.Duration) *request {
	r := &request{done: make(chan struct{})}
	m.c.arrive(r, m.at(d))
	return r
}

// next returns when the next completion is due, as an offset, or -1.
func (m *modelAt[M]) next() time.Duration {
	at, ok := m.c.next()
	if !ok {
		return -1
	}
	return at.Sub(m.t0)
}

func (m *modelAt[M]) advance(d time.Duration, want int) {
	m.t.Helper()
	if got := m.c.advance(m.at(d)); got != want {
		m.t.Fatalf("at %v: %d completed, want %d", d, got, want)
	}
}

// want checks the concurrency (in service and waiting) and the backlog
// (waiting and parked) that Stats reports.
func (m *modelAt[M]) want(what string, concurrency, backlog int) {
	m.t.Helper()
	if st := m.c.stats(); st.Concurrency != concurrency || st.Backlog != backlog {
		m.t.Fatalf("%s: concurrency %d, backlog %d; want %d, %d", what, st.Concurrency, st.Backlog, concurrency, backlog)
	}
}

// coreAt is a core (the latency curve's model) with a fake clock.
type coreAt = modelAt[*core]

func newCoreAt(t *testing.T, cv scenario.Latency, backlog int) *coreAt {
	return newModelAt(t, &core{lat: cv, backlog: backlog})
}

func isDone(r *request) bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

const ms = time.Millisecond

// curve2 doubles the delay per request over a limit of 1: 100 ms, 200 ms,
// 400 ms…
var curve2 = scenario.Curve{Base: 100 * ms, Limit: 1, Factor: 2, K: 1, Max: time.Hour}

// TestCoreOldestFirst: a request completes when its age reaches the delay
// for the concurrency of the moment, oldest first.
func TestCoreOldestFirst(t *testing.T) {
	c := newCoreAt(t, curve2, 10)
	a := c.arrive(0)
	b := c.arrive(150 * ms) // C=2: delay 200 ms for both
	if got := c.next(); got != 200*ms {
		t.Fatalf("next = %v, want 200ms (a's start + delay(2))", got)
	}
	c.advance(199*ms, 0)
	c.advance(200*ms, 1)
	if !isDone(a) || isDone(b) {
		t.Fatalf("at 200ms: a done %v, b done %v; want only a", isDone(a), isDone(b))
	}
	// C=1: delay 100 ms, b (age 50 ms) is due at 250 ms.
	if got := c.next(); got != 250*ms {
		t.Fatalf("next = %v, want 250ms", got)
	}
	c.advance(250*ms, 1)
	if !isDone(b) || c.c.live != 0 || c.c.completed != 2 || c.next() != -1 {
		t.Fatalf("after 250ms: b done %v, live %d, completed %d, next %v", isDone(b), c.c.live, c.c.completed, c.next())
	}
}

// TestCoreCascade: when the oldest completes the concurrency falls, and
// every request then old enough completes at once.
func TestCoreCascade(t *testing.T) {
	c := newCoreAt(t, curve2, 10)
	rs := []*request{c.arrive(0), c.arrive(10 * ms), c.arrive(20 * ms), c.arrive(300 * ms)}
	// C=4: 800 ms. At 800: first completes; C=3 (400 ms): ages 790, 780 ≥
	// 400 → both; C=1 (100 ms): the last, age 500 → too.
	if got := c.next(); got != 800*ms {
		t.Fatalf("next = %v, want 800ms", got)
	}
	c.advance(800*ms, 4)
	for i, r := range rs {
		if !isDone(r) {
			t.Errorf("request %d not done", i)
		}
	}
}

// TestCoreReplansOnConcurrency: a completion time is not fixed at arrival,
// it follows the current concurrency both ways.
func TestCoreReplansOnConcurrency(t *testing.T) {
	c := newCoreAt(t, curve2, 10)
	a := c.arrive(0)
	if got := c.next(); got != 100*ms {
		t.Fatalf("alone: next = %v, want 100ms", got)
	}
	b := c.arrive(50 * ms)
	if got := c.next(); got != 200*ms {
		t.Fatalf("with b: next = %v, want 200ms", got)
	}
	if !c.c.withdraw(b, c.at(50*ms)) { // b's client left (cancel_on_timeout)
		t.Fatal("withdraw(b) = false")
	}
	if got := c.next(); got != 100*ms {
		t.Fatalf("b withdrawn: next = %v, want 100ms", got)
	}
	c.advance(100*ms, 1)
	if !isDone(a) || isDone(b) || c.c.withdraw(b, c.at(100*ms)) {
		t.Fatalf("a done %v, b done %v", isDone(a), isDone(b))
	}
}

// TestCorePauseResume: paused, nothing completes and arrivals wait outside
// the concurrency; on resume they all enter at once, starting then.
func TestCorePauseResume(t *testing.T) {
	c := newCoreAt(t, curve2, 10)
	a := c.arrive(0)
	c.c.pause(c.at(0))
	b := c.arrive(60 * ms)
	if c.c.live != 1 || c.c.parkedN != 1 || c.next() != -1 {
		t.Fatalf("paused: live %d, parked %d, next %v; want 1, 1, none", c.c.live, c.c.parkedN, c.next())
	}
	c.advance(10*time.Second, 0)
	c.c.resume(c.at(10 * time.Second))
	if c.c.live != 2 || c.c.parkedN != 0 {
		t.Fatalf("resumed: live %d, parked %d; want 2, 0", c.c.live, c.c.parkedN)
	}
	if !b.start.Equal(c.at(10 * time.Second)) {
		t.Fatalf("b starts at %v, want the resume", b.start.Sub(c.t0))
	}
	c.advance(10*time.Second, 1) // a, aged 10 s, is long due
	if !isDone(a) || isDone(b) {
		t.Fatal("want a done, b not")
	}
	if got := c.next(); got != 10*time.Second+100*ms {
		t.Fatalf("next = %v, want 10.1s", got)
	}
}

// TestCoreBacklog: while paused at most backlog requests wait; the rest are
// dropped and never enter; a parked request whose client left does not enter.
func TestCoreBacklog(t *testing.T) {
	c := newCoreAt(t, curve2, 2)
	c.c.pause(c.at(0))
	a, b, d := c.arrive(0), c.arrive(ms), c.arrive(2*ms)
	if d.state != dropped || c.c.droppedN != 1 {
		t.Fatalf("third arrival: state %d, dropped %d; want dropped", d.state, c.c.droppedN)
	}
	if !c.c.withdraw(a, c.at(3*ms)) || c.c.parkedN != 1 {
		t.Fatalf("withdraw parked a: parked %d, want 1", c.c.parkedN)
	}
	c.c.resume(c.at(time.Second))
	if c.c.live != 1 || b.state != inside || a.state != withdrawn {
		t.Fatalf("resumed: live %d, a %d, b %d", c.c.live, a.state, b.state)
	}
}

// TestCoreCap: however many requests are inside, the delay stops at the cap.
func TestCoreCap(t *testing.T) {
	c := newCoreAt(t, scenario.Curve{Base: 100 * ms, Limit: 1, Factor: 10, K: 0.1, Max: 3 * time.Second}, 0)
	for i := range 100_000 {
		c.arrive(time.Duration(i) * time.Microsecond)
	}
	if got := c.next(); got != 3*time.Second {
		t.Fatalf("next = %v, want the 3s cap", got)
	}
	c.advance(3*time.Second, 1) // then 99 999 inside: still capped
	if got := c.next(); got != 3*time.Second+time.Microsecond {
		t.Fatalf("next = %v, want 3.000001s", got)
	}
}

// TestQueueCompacts: a long-lived queue does not keep every request it saw.
func TestQueueCompacts(t *testing.T) {
	var q queue
	for i := range 100_000 {
		q.push(&request{})
		if i%2 == 1 {
			q.pop()
		}
	}
	if q.len() != 50_000 || cap(q.items) > 4*50_000 {
		t.Fatalf("len %d, cap %d", q.len(), cap(q.items))
	}
}

// TestCorePeak: takePeak reports the highest concurrency since the previous
// call, a resume's flood included, even when it is gone by then.
func TestCorePeak(t *testing.T) {
	c := newCoreAt(t, curve2, 10)
	if p := c.c.takePeak(); p != 0 {
		t.Fatalf("empty server: peak %d", p)
	}
	c.arrive(0)
	c.arrive(0)
	c.advance(time.Second, 2) // 2 inside, 200 ms each: both long due
	if p := c.c.takePeak(); p != 2 || c.c.live != 0 {
		t.Fatalf("peak %d, live %d; want 2, 0", p, c.c.live)
	}
	if p := c.c.takePeak(); p != 0 {
		t.Fatalf("next period: peak %d, want 0", p)
	}
	c.c.pause(c.at(time.Second))
	for range 3 {
		c.arrive(time.Second)
	}
	if p := c.c.takePeak(); p != 0 {
		t.Fatalf("parked requests are not inside: peak %d", p)
	}
	c.c.resume(c.at(2 * time.Second))
	c.advance(10*time.Second, 3)
	if p := c.c.takePeak(); p != 3 {
		t.Fatalf("the resume's flood: peak %d, want 3", p)
	}
}

// TestCoreLinear: the real server answers by any model's latency. With the
// linear model (100 ms + 50 ms per request inside), a second request makes
// the first wait 200 ms; when the first leaves, the second, 190 ms old,
// is past its 150 ms and leaves with it.
func TestCoreLinear(t *testing.T) {
	p := scenariotest.CurveDefaults()
	p.ServerModel, p.ServerDelay, p.ServerSlope = "linear", 100*ms, 50*ms
	c := newCoreAt(t, scenario.LatencyOf(&p), 10)
	c.arrive(0)
	if got := c.next(); got != 150*ms {
		t.Fatalf("one request inside: due at %v, want 150ms", got)
	}
	c.arrive(10 * ms)
	if got := c.next(); got != 200*ms {
		t.Fatalf("two requests inside: due at %v, want 200ms", got)
	}
	c.advance(199*ms, 0)
	c.advance(200*ms, 2)
}
