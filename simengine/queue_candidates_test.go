package simengine

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// This file holds the event sets the engine's queue was chosen among (a
// binary heap, the engine's before, and a 4-ary heap, each with an index
// of its clients' positions), a property test that drives each of them
// and the engine's queue against a simple reference, and the benchmark
// that compares them.

// eventSet is what the engine asks of its pending events.
type eventSet interface {
	schedule(c int32, at time.Duration)
	remove(c int32)
	top() event
	len() int
}

// candidates are the event sets compared, each made with its first
// sequence number for clients below n.
var candidates = []struct {
	name string
	make func(seq uint32, n int) eventSet
}{
	{"binary", func(seq uint32, _ int) eventSet { return &heapQueue{seq: seq} }},
	{"4ary", func(seq uint32, _ int) eventSet { return &quadQueue{seq: seq} }},
	{"radix", func(seq uint32, n int) eventSet { return testQueue(seq, n) }},
}

// testQueue returns a queue of n clients of its own.
func testQueue(seq uint32, n int) *queue {
	clients := make([]client, n)
	q := newQueue(&clients, seq)
	return &q
}

// heapQueue is a binary min-heap of client events with at most one event
// per client, moved in place: pos[c] is client c's index in ev, or -1.
type heapQueue struct {
	ev  []event
	pos []int32
	seq uint32
}

func (q *heapQueue) len() int { return len(q.ev) }

func (q *heapQueue) top() event {
	if len(q.ev) == 0 {
		return event{at: never, c: -1}
	}
	return q.ev[0]
}

func (q *heapQueue) schedule(c int32, at time.Duration) {
	q.seq++
	for int(c) >= len(q.pos) {
		q.pos = append(q.pos, -1)
	}
	i := q.pos[c]
	if i < 0 {
		i = int32(len(q.ev))
		q.ev = append(q.ev, event{at: at, seq: q.seq, c: c})
		q.pos[c] = i
		q.up(i)
		return
	}
	old := q.ev[i]
	q.ev[i].at, q.ev[i].seq = at, q.seq
	if q.ev[i].before(old) {
		q.up(i)
	} else {
		q.down(i)
	}
}

func (q *heapQueue) remove(c int32) {
	if int(c) >= len(q.pos) {
		return
	}
	i := q.pos[c]
	if i < 0 {
		return
	}
	q.pos[c] = -1
	n := int32(len(q.ev)) - 1
	if i != n {
		q.ev[i] = q.ev[n]
		q.pos[q.ev[i].c] = i
	}
	q.ev = q.ev[:n]
	if i != n {
		q.down(i)
		q.up(i)
	}
}

func (q *heapQueue) up(i int32) {
	ev := q.ev
	e := ev[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(ev[p]) {
			break
		}
		ev[i] = ev[p]
		q.pos[ev[i].c] = i
		i = p
	}
	ev[i] = e
	q.pos[e.c] = i
}

func (q *heapQueue) down(i int32) {
	ev := q.ev
	n := int32(len(ev))
	e := ev[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && ev[r].before(ev[l]) {
			m = r
		}
		if !ev[m].before(e) {
			break
		}
		ev[i] = ev[m]
		q.pos[ev[i].c] = i
		i = m
	}
	ev[i] = e
	q.pos[e.c] = i
}

// quadQueue is heapQueue with four children a node: half the levels, so
// fewer of the cache misses that dominate a large heap, for more
// comparisons a level.
type quadQueue struct {
	ev  []event
	pos []int32
	seq uint32
}

func (q *quadQueue) len() int { return len(q.ev) }

func (q *quadQueue) top() event {
	if len(q.ev) == 0 {
		return event{at: never, c: -1}
	}
	return q.ev[0]
}

func (q *quadQueue) schedule(c int32, at time.Duration) {
	q.seq++
	for int(c) >= len(q.pos) {
		q.pos = append(q.pos, -1)
	}
	i := q.pos[c]
	if i < 0 {
		i = int32(len(q.ev))
		q.ev = append(q.ev, event{at: at, seq: q.seq, c: c})
		q.pos[c] = i
		q.up(i)
		return
	}
	old := q.ev[i]
	q.ev[i].at, q.ev[i].seq = at, q.seq
	if q.ev[i].before(old) {
		q.up(i)
	} else {
		q.down(i)
	}
}

func (q *quadQueue) remove(c int32) {
	if int(c) >= len(q.pos) {
		return
	}
	i := q.pos[c]
	if i < 0 {
		return
	}
	q.pos[c] = -1
	n := int32(len(q.ev)) - 1
	if i != n {
		q.ev[i] = q.ev[n]
		q.pos[q.ev[i].c] = i
	}
	q.ev = q.ev[:n]
	if i != n {
		q.down(i)
		q.up(i)
	}
}

func (q *quadQueue) up(i int32) {
	ev := q.ev
	e := ev[i]
	for i > 0 {
		p := (i - 1) >> 2
		if !e.before(ev[p]) {
			break
		}
		ev[i] = ev[p]
		q.pos[ev[i].c] = i
		i = p
	}
	ev[i] = e
	q.pos[e.c] = i
}

func (q *quadQueue) down(i int32) {
	ev := q.ev
	n := int32(len(ev))
	e := ev[i]
	for {
		l := 4*i + 1
		if l >= n {
			break
		}
		m := l
		for r := l + 1; r < min(l+4, n); r++ {
			if ev[r].before(ev[m]) {
				m = r
			}
		}
		if !ev[m].before(e) {
			break
		}
		ev[i] = ev[m]
		q.pos[ev[i].c] = i
		i = m
	}
	ev[i] = e
	q.pos[e.c] = i
}

// delayScheduler is an event set that takes an event as a delay from a
// time (the engine's queue, which keeps the events of a recurring delay
// in a run of their own).
type delayScheduler interface {
	scheduleIn(c int32, now, d time.Duration)
}

// scheduleIn schedules client c's event d after now in q: by the delay
// when q takes one, else at the sum.
func scheduleIn(q eventSet, c int32, now, d time.Duration) {
	if ds, ok := q.(delayScheduler); ok {
		ds.scheduleIn(c, now, d)
		return
	}
	q.schedule(c, now+d)
}

// queueRef is the reference queue's entry: a client's (at, seq), seq
// counted without wrapping.
type queueRef struct {
	at  time.Duration
	seq uint64
}

// queueRefTop returns ref's earliest event, found by looking at them all.
func queueRefTop(ref map[int32]queueRef) (int32, queueRef, bool) {
	best, found := int32(-1), false
	var bv queueRef
	for c, v := range ref {
		if !found || v.at < bv.at || v.at == bv.at && v.seq < bv.seq {
			best, bv, found = c, v, true
		}
	}
	return best, bv, found
}

// TestModelQueue drives every candidate event set, the engine's queue
// among them, with random schedules, moves and removes and the engine's
// loop (take the top, schedule it later), against a map searched in full,
// and checks the top after every operation and the order of a final
// drain, exactly, ties and the sequence number's wrap included. Times
// start late in the case "late", and some schedules fall before the
// latest top, as a lane's at a tick's end or a change. In the cases with
// delays most events are scheduled as one of a few constant delays from
// now (the engine's timeouts and fixed backoffs, which its queue keeps in
// runs), the set of delays changing halfway in "shorter" (a live change
// of the timeout: times go back) and outnumbering the runs in "many
// delays".
func TestModelQueue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		seed    uint64
		clients int
		span    int           // event times are drawn from [now, now+span) ns: small spans make ties
		seq     uint32        // the set's starting sequence number
		back    int           // a schedule falls up to back ns before now
		start   time.Duration // the first now
		delays  []time.Duration
	}{
		{"ties", 1, 50, 5, 0, 0, 0, nil},
		{"spread", 2, 500, 1_000_000, 0, 0, 0, nil},
		{"seq wraps", 3, 50, 3, math.MaxUint32 - 3000, 0, 0, nil},
		{"one client", 4, 1, 3, 0, 0, 0, nil},
		{"back in time", 5, 200, 1000, 0, 300, 0, nil},
		{"late", 6, 300, 1 << 40, math.MaxUint32 - 5000, 1 << 30, never - 1<<50, nil},
		{"many", 7, 5000, 10_000_000, 0, 0, time.Hour, nil},
		{"runs", 8, 300, 1000, 0, 0, 0, []time.Duration{100, 700, 2000}},
		{"runs ties", 9, 50, 3, 0, 0, 0, []time.Duration{0, 1, 2}},
		{"runs seq wraps", 10, 200, 50, math.MaxUint32 - 3000, 0, 0, []time.Duration{0, 10, 40}},
		{"runs back in time", 11, 200, 1000, 0, 300, 0, []time.Duration{50, 500}},
		{"runs late", 12, 300, 1 << 40, math.MaxUint32 - 5000, 1 << 30, never - 1<<50, []time.Duration{1 << 20, 1 << 38}},
		{"many delays", 13, 500, 10_000, 0, 0, 0, []time.Duration{1, 2, 3, 5, 8, 13, 21, 34, 55, 89}},
		{"shorter", 14, 300, 1000, 0, 0, 0, []time.Duration{400, 2000}},
		{"runs many", 15, 5000, 10_000_000, 0, 0, time.Hour, []time.Duration{1_000_000, 2_000_000}},
	} {
		for _, cand := range candidates {
			t.Run(c.name+"/"+cand.name, func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewPCG(c.seed, 99))
				q := cand.make(c.seq, c.clients+1)
				ref := map[int32]queueRef{}
				var seq uint64
				now := c.start
				seen := 0 // clients scheduled at least once
				delays := c.delays
				// when returns the time of a new event as a delay from a
				// time: mostly one of the delays when there are some.
				when := func() (time.Duration, time.Duration) {
					from := now
					if c.back > 0 && rng.IntN(10) == 0 {
						from = now - time.Duration(rng.IntN(c.back))
						if len(delays) == 0 {
							return from, 0
						}
					}
					if len(delays) > 0 && rng.IntN(4) > 0 {
						d := delays[rng.IntN(len(delays))]
						return from, min(d, never-from)
					}
					return from, min(time.Duration(rng.IntN(c.span)), never-from)
				}
				check := func(op int) {
					t.Helper()
					if q.len() != len(ref) {
						t.Fatalf("op %d: %d events, reference %d", op, q.len(), len(ref))
					}
					if rq, ok := q.(*queue); ok && (op%97 == 0 || c.clients <= 50) {
						if err := rq.check(); err != nil {
							t.Fatalf("op %d: %v", op, err)
						}
					}
					wc, wr, ok := queueRefTop(ref)
					top := q.top()
					if !ok {
						if top.at != never || top.c != -1 {
							t.Fatalf("op %d: empty set's top is %+v", op, top)
						}
						return
					}
					if top.c != wc || top.at != wr.at {
						t.Fatalf("op %d: top is client %d at %v, reference client %d at %v", op, top.c, top.at, wc, wr.at)
					}
				}
				for op := range 20_000 {
					if c.name == "shorter" && op == 10_000 {
						delays = []time.Duration{100, 1000}
					}
					switch r := rng.IntN(10); {
					case r < 4: // schedule (or move) a client's event
						cl := int32(rng.IntN(c.clients))
						from, d := when()
						scheduleIn(q, cl, from, d)
						seq++
						ref[cl] = queueRef{from + d, seq}
						seen = max(seen, int(cl)+1)
					case r < 5 && seen > 0: // remove a client's event, if any
						cl := int32(rng.IntN(seen + 1))
						q.remove(cl)
						delete(ref, cl)
					default: // the engine's loop: take the top, schedule it later
						top := q.top()
						if top.c < 0 {
							continue
						}
						now = top.at
						from, d := when()
						scheduleIn(q, top.c, from, d)
						seq++
						ref[top.c] = queueRef{from + d, seq}
					}
					check(op)
				}
				type key struct {
					at  time.Duration
					seq uint64
					c   int32
				}
				var want []key
				for cl, r := range ref {
					want = append(want, key{r.at, r.seq, cl})
				}
				slices.SortFunc(want, func(a, b key) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
				for i, w := range want {
					top := q.top()
					if top.c != w.c || top.at != w.at {
						t.Fatalf("drain %d: client %d at %v, want client %d at %v", i, top.c, top.at, w.c, w.at)
					}
					q.remove(top.c)
				}
				if top := q.top(); top.at != never || q.len() != 0 {
					t.Fatalf("after the drain: %+v, %d events", top, q.len())
				}
			})
		}
	}
}

// TestQueueSweep checks that the radix queue drops its stale entries when
// its sequence numbers have gone a quarter of the way round, so that a
// stale entry never lives to see its number drawn again.
func TestQueueSweep(t *testing.T) {
	t.Parallel()
	q := testQueue(0, 10)
	for c := range int32(10) {
		q.schedule(c, time.Hour)
	}
	for c := range int32(10) {
		q.schedule(c, time.Minute) // the entries at an hour go stale
	}
	if err := q.check(); err != nil {
		t.Fatal(err)
	}
	q.seq = q.swept + sweepEvery - 1
	q.schedule(0, time.Minute)
	if err := q.check(); err != nil {
		t.Fatal(err)
	}
	// The sweep comes before client 0's new entry, which makes its
	// previous one stale: 10 live entries and that one are left.
	total := len(q.b0) - q.head0
	for i := 1; i < len(q.buckets); i++ {
		q.each(i, func(e event) {
			total++
			if e.at == time.Hour {
				t.Errorf("stale entry %+v survived the sweep", e)
			}
		})
	}
	if total != 11 || q.len() != 10 {
		t.Fatalf("after the sweep: %d entries for %d events, want 11 for 10", total, q.len())
	}
}

// BenchmarkQueueCandidates measures each candidate event set at 1 000,
// 100 000 and 1 000 000 pending events in two mixes: hold, BenchmarkQueue's
// (the top goes again an exponential time later, mean 10 s), and storm,
// the engine's in a retry storm: each client cycles through a think
// (exponential, mean 10 s), an attempt's 2 s timeout and a fixed 1 s
// backoff, so that most times are now plus one of two constants, which
// the engine's queue keeps in runs (scheduleIn) as the engine does.
func BenchmarkQueueCandidates(b *testing.B) {
	for _, mix := range []string{"hold", "storm"} {
		for _, n := range []int{1000, 100_000, 1_000_000} {
			for _, cand := range candidates {
				b.Run(fmt.Sprintf("%s/%s/%s", mix, sizeName(n), cand.name), func(b *testing.B) {
					if testing.Short() && n > 100_000 {
						b.Skip("a million events take a while to set up")
					}
					rng := rand.New(rand.NewPCG(1, 2))
					q := cand.make(0, n)
					phase := make([]uint8, n)
					// next schedules client c's next event after now: a
					// think as a time, a timeout or a backoff as a delay.
					next := func(c int32, now time.Duration) {
						if mix == "storm" {
							phase[c] = (phase[c] + 1) % 3
							switch phase[c] {
							case 1:
								scheduleIn(q, c, now, 2*time.Second)
								return
							case 2:
								scheduleIn(q, c, now, time.Second)
								return
							}
						}
						q.schedule(c, now+time.Duration(rng.ExpFloat64()*float64(10*time.Second)))
					}
					for c := range int32(n) {
						phase[c] = uint8(rng.IntN(3))
						next(c, 0)
					}
					b.ResetTimer()
					for b.Loop() {
						e := q.top()
						next(e.c, e.at)
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
				})
			}
		}
	}
}

// TestQueueSweepRuns checks that a sweep drops the stale entries of the
// queue's runs too, and keeps their live ones in order.
func TestQueueSweepRuns(t *testing.T) {
	t.Parallel()
	q := testQueue(0, 200)
	for round := range time.Duration(3) {
		for c := range int32(200) {
			q.scheduleIn(c, round, time.Hour) // the earlier rounds' entries go stale
		}
	}
	if q.runs[0].n < 400 {
		t.Fatalf("run of an hour: %d entries, want the 400 and more scheduled after its claim", q.runs[0].n)
	}
	q.seq = q.swept + sweepEvery - 1
	q.scheduleIn(0, 3, time.Hour)
	if err := q.check(); err != nil {
		t.Fatal(err)
	}
	// The sweep comes before client 0's new entry, which makes its
	// previous one stale: 200 live entries and that one are left.
	total := len(q.b0) - q.head0 + len(q.early)
	for i := 1; i < len(q.buckets); i++ {
		q.each(i, func(event) { total++ })
	}
	for i := range q.runs {
		q.eachRun(&q.runs[i], func(e event) {
			total++
			if e.at < 2+time.Hour {
				t.Errorf("stale entry %+v survived the sweep", e)
			}
		})
	}
	if total != 201 || q.len() != 200 {
		t.Fatalf("after the sweep: %d entries for %d events, want 201 for 200", total, q.len())
	}
	for c := range int32(200) {
		top := q.top()
		want, at := c+1, 2+time.Hour
		if c == 199 {
			want, at = 0, 3+time.Hour
		}
		if top.c != want || top.at != at {
			t.Fatalf("after the sweep, event %d: %+v, want client %d at %v", c, top, want, at)
		}
		q.remove(top.c)
	}
}

// TestQueueReadAhead drives a queue of more clients than readAheadOwners,
// whose runs read their clients ahead, through the engine's loop with one
// delay and ties: every event comes up in the order it was scheduled.
func TestQueueReadAhead(t *testing.T) {
	t.Parallel()
	const n = readAheadOwners + 1000
	q := testQueue(0, n)
	var want []int32 // clients in the order their events must come up
	for c := range int32(n) {
		q.scheduleIn(c, 0, time.Second) // all at 1 s: seq breaks the ties
		want = append(want, c)
	}
	for i := range 3 * n {
		e := q.top()
		if e.c != want[i] {
			t.Fatalf("event %d: client %d at %v, want client %d", i, e.c, e.at, want[i])
		}
		if i%(n/3) == 0 {
			if err := q.check(); err != nil {
				t.Fatal(err)
			}
		}
		q.scheduleIn(e.c, e.at, time.Second)
		want = append(want, e.c)
	}
	for i, c := range want[3*n:] { // the drain: the runs' last blocks
		if e := q.top(); e.c != c {
			t.Fatalf("drain %d: client %d at %v, want client %d", i, e.c, e.at, c)
		}
		q.remove(c)
	}
	if e := q.top(); e.c >= 0 {
		t.Fatalf("after the drain: %+v", e)
	}
}

// TestQueueRebaseKeepsRuns checks that a rebase, when many events fall
// before the heap's latest minimum, moves the heap's events alone and
// leaves the runs' in place, every event coming up in (time, seq) order.
func TestQueueRebaseKeepsRuns(t *testing.T) {
	t.Parallel()
	const n = 400
	q := testQueue(0, n)
	type want struct {
		c  int32
		at time.Duration
	}
	var all []want
	for c := range int32(n / 2) {
		q.scheduleIn(c, time.Duration(c), 10*time.Second) // a run, but for the first
	}
	for c := int32(n / 2); c < n; c++ {
		q.schedule(c, 5*time.Second+time.Duration(c))
	}
	if top := q.top(); top.c != n/2 {
		t.Fatalf("top %+v, want client %d", top, n/2)
	}
	for c := int32(n / 2); c < n; c++ {
		q.schedule(c, time.Second+time.Duration(c)) // before the heap's last
	}
	if len(q.early) != 0 {
		t.Fatalf("%d early events left, want a rebase", len(q.early))
	}
	if err := q.check(); err != nil {
		t.Fatal(err)
	}
	for c := n / 2; c < n; c++ {
		all = append(all, want{int32(c), time.Second + time.Duration(c)})
	}
	for c := range n / 2 {
		all = append(all, want{int32(c), 10*time.Second + time.Duration(c)})
	}
	for i, w := range all {
		top := q.top()
		if top.c != w.c || top.at != w.at {
			t.Fatalf("event %d: client %d at %v, want client %d at %v", i, top.c, top.at, w.c, w.at)
		}
		q.remove(top.c)
	}
	if top := q.top(); top.c >= 0 {
		t.Fatalf("after the drain: %+v", top)
	}
}
