package workq

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

const ms = time.Millisecond

// list is a wait list of request numbers, oldest first; the numbers in
// gone were withdrawn.
type list struct {
	items []int
	gone  map[int]bool
}

func (s *list) PopFront() int {
	w := s.items[0]
	s.items = s.items[1:]
	return w
}

func (s *list) PopBack() int {
	w := s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return w
}

func (s *list) Withdrawn(w int) bool { return s.gone[w] }

// queue is a Line with its list, driven by hand: join puts request w in
// at now with the limit the line gives it.
type queue struct {
	l     Line
	s     list
	at    map[int]time.Duration // when each joined
	limit map[int]time.Duration // the limit each was given
}

func newQueue(d Discipline) *queue {
	return &queue{l: Line{Discipline: d}, s: list{gone: map[int]bool{}},
		at: map[int]time.Duration{}, limit: map[int]time.Duration{}}
}

func (q *queue) join(w int, now time.Duration) {
	q.l.Arrive(now)
	q.at[w], q.limit[w] = now, q.l.Limit(now)
	q.s.items = append(q.s.items, w)
	q.l.Join()
}

// take is a worker freed at now: it returns the request it takes and
// whether that one expired (answered with an error, not served).
func (q *queue) take(now time.Duration) (int, bool) {
	w := Take[int](&q.l, &q.s, now)
	return w, Expired(q.limit[w], now-q.at[w])
}

// TestCoDelByHand works Fail at Scale's controlled delay through one
// worker, codel_target 10 ms and codel_interval 100 ms, step by step.
func TestCoDelByHand(t *testing.T) {
	q := newQueue(Discipline{CoDel: true, Target: 10 * ms, Interval: 100 * ms})
	// At 0 the queue is empty: 1, 2, 3 join with the interval as limit.
	q.join(1, 0)
	q.join(2, 20*ms)
	q.join(3, 40*ms)
	for w := 1; w <= 3; w++ {
		if q.limit[w] != 100*ms {
			t.Fatalf("request %d: limit %v, want the interval 100ms (the queue emptied at 0)", w, q.limit[w])
		}
	}
	// At 90 ms the queue has been busy 90 ms, not overloaded: oldest
	// first; 1 waited 90 ms ≤ 100 ms and is served.
	if w, exp := q.take(90 * ms); w != 1 || exp {
		t.Fatalf("at 90ms took %d (expired %v), want 1 served", w, exp)
	}
	// At 101 ms, 101 ms > 100 ms without emptying: overloaded. 4 joins
	// with the target as limit.
	if !q.l.Overloaded(101 * ms) {
		t.Fatal("at 101ms: not overloaded, want overloaded (busy 101 ms > 100 ms)")
	}
	q.join(4, 101*ms)
	if q.limit[4] != 10*ms {
		t.Fatalf("request 4: limit %v, want the target 10ms", q.limit[4])
	}
	// At 105 ms the worker takes the newest, 4, which waited 4 ms ≤ 10.
	if w, exp := q.take(105 * ms); w != 4 || exp {
		t.Fatalf("at 105ms took %d (expired %v), want 4 served (newest first)", w, exp)
	}
	// At 200 ms, newest first: 3 waited 160 ms > its 100 ms: dropped
	// (answered with an error); then 2, 180 ms > 100 ms: dropped too, and
	// the queue is empty at 200 ms.
	if w, exp := q.take(200 * ms); w != 3 || !exp {
		t.Fatalf("at 200ms took %d (expired %v), want 3 expired", w, exp)
	}
	if w, exp := q.take(200 * ms); w != 2 || !exp {
		t.Fatalf("at 200ms took %d (expired %v), want 2 expired", w, exp)
	}
	if q.l.Waiting() != 0 || q.l.Overloaded(300*ms) {
		t.Fatalf("waiting %d, overloaded at 300ms %v: want an empty queue since 200ms, not overloaded", q.l.Waiting(), q.l.Overloaded(300*ms))
	}
	// The queue emptied at 200 ms: 5 joins at 300 ms with the interval,
	// 6 at 301 ms too (the queue held 5 for only 1 ms), and the worker at
	// 302 ms takes the oldest again.
	q.join(5, 300*ms)
	q.join(6, 301*ms)
	if q.limit[5] != 100*ms || q.limit[6] != 100*ms {
		t.Fatalf("limits %v, %v: want the interval", q.limit[5], q.limit[6])
	}
	if w, _ := q.take(302 * ms); w != 5 {
		t.Fatalf("at 302ms took %d, want 5 (oldest first again)", w)
	}
}

// TestAdaptiveLIFOSwitch: under codel a worker takes the oldest request
// until the queue has been busy for longer than the interval, then the
// newest; queue_order=lifo always takes the newest.
func TestAdaptiveLIFOSwitch(t *testing.T) {
	for _, tc := range []struct {
		d    Discipline
		now  time.Duration // when the worker takes, the queue busy since 0
		want int
	}{
		{Discipline{}, time.Hour, 1},
		{Discipline{LIFO: true}, 0, 3},
		{Discipline{CoDel: true, Target: 5 * ms, Interval: 100 * ms}, 100 * ms, 1},
		{Discipline{CoDel: true, Target: 5 * ms, Interval: 100 * ms}, 100*ms + 1, 3},
	} {
		t.Run(fmt.Sprintf("%+v,at=%v", tc.d, tc.now), func(t *testing.T) {
			q := newQueue(tc.d)
			for w := 1; w <= 3; w++ {
				q.join(w, 0)
			}
			if w, _ := q.take(tc.now); w != tc.want {
				t.Errorf("took %d, want %d", w, tc.want)
			}
		})
	}
}

// TestLimit: a joining request's limit is queue_timeout, under codel the
// shorter of it and the interval, or the target while overloaded.
func TestLimit(t *testing.T) {
	codel := func(timeout time.Duration) Discipline {
		return Discipline{Timeout: timeout, CoDel: true, Target: 5 * ms, Interval: 100 * ms}
	}
	for _, tc := range []struct {
		d    Discipline
		busy time.Duration // since the queue was last empty
		want time.Duration
	}{
		{Discipline{}, time.Hour, 0},
		{Discipline{Timeout: 50 * ms}, time.Hour, 50 * ms},
		{codel(0), 0, 100 * ms},
		{codel(0), 100 * ms, 100 * ms},
		{codel(0), 100*ms + 1, 5 * ms},
		{codel(50 * ms), 0, 50 * ms},
		{codel(500 * ms), time.Hour, 5 * ms},
		{codel(2 * ms), time.Hour, 2 * ms},
	} {
		t.Run(fmt.Sprintf("%+v,busy=%v", tc.d, tc.busy), func(t *testing.T) {
			l := Line{Discipline: tc.d}
			l.Arrive(time.Second) // found empty at 1 s
			if got := l.Limit(time.Second + tc.busy); got != tc.want {
				t.Errorf("limit %v, want %v", got, tc.want)
			}
		})
	}
}

// TestWithdrawnPassedOver: a withdrawn request no longer counts, and a
// worker passes over it; a withdrawal that leaves nobody waiting does not
// make the queue empty until an arrival sees it so.
func TestWithdrawnPassedOver(t *testing.T) {
	q := newQueue(Discipline{CoDel: true, Target: 5 * ms, Interval: 100 * ms})
	q.join(1, 0)
	q.join(2, 10*ms)
	q.s.gone[1] = true
	q.l.Withdraw()
	if w, _ := q.take(20 * ms); w != 2 || len(q.s.items) != 0 {
		t.Fatalf("took %d, list %v: want 2, passing over 1, and an empty list", w, q.s.items)
	}
	q.join(3, 30*ms)
	q.join(4, 40*ms)
	q.s.gone[3], q.s.gone[4] = true, true
	q.l.Withdraw()
	q.l.Withdraw()
	// 3 found the queue empty at 30 ms; withdrawn, 3 and 4 leave nobody
	// waiting, but the queue counts as busy since 30 ms.
	if q.l.Waiting() != 0 || !q.l.Overloaded(131*ms) {
		t.Fatalf("waiting %d, overloaded at 131ms %v: want 0, and the queue busy since 30ms", q.l.Waiting(), q.l.Overloaded(131*ms))
	}
	q.l.Arrive(131 * ms)
	if q.l.Overloaded(132 * ms) {
		t.Fatal("overloaded at 132ms, though an arrival found the queue empty at 131ms")
	}
}

// TestService: fixed service times are the mean; exponential ones repeat
// for a seed; the latency of a new arrival counts the waiting requests'
// share of the workers.
func TestService(t *testing.T) {
	p := scenario.Defaults()
	p.ServiceTime, p.ServiceDist = 100*ms, scenario.ServiceFixed
	s := ServiceOf(&p)
	if d := s.Draw(); d != 100*ms {
		t.Errorf("fixed: %v, want 100ms", d)
	}
	// 30 waiting for 10 workers: 3 services before its own, 400 ms.
	if got := s.Latency(30, 10); got != 400*ms {
		t.Errorf("latency %v, want 400ms", got)
	}
	p.ServiceDist = scenario.ServiceExp
	a, b := ServiceOf(&p), ServiceOf(&p)
	var da, db []time.Duration
	for range 5 {
		da, db = append(da, a.Draw()), append(db, b.Draw())
	}
	if !slices.Equal(da, db) || da[0] == da[1] {
		t.Errorf("draws %v and %v: want the same, varied, for one seed", da, db)
	}
}
