package simengine

import "time"

// event is one pending client event: client c wakes at at. seq orders events
// that fall at the same time in the order they were scheduled.
type event struct {
	at  time.Duration
	seq uint32
	c   int32
}

// before orders events by (time, seq). seq wraps around after 2^32 events;
// comparing its difference as signed keeps the order right across the wrap,
// since no event waits while 2^31 others are scheduled.
func (e event) before(f event) bool {
	return e.at < f.at || (e.at == f.at && int32(e.seq-f.seq) < 0)
}

// queue is a binary min-heap of client events with at most one event per
// client: every client always has exactly one pending event (its think, its
// backoff or its attempt's timeout), so the engine moves a client's event
// with fix instead of pushing and popping, and the heap never holds stale
// entries. pos[c] is client c's index in ev, or -1.
type queue struct {
	ev  []event
	pos []int32
	seq uint32
}

// never is a time after every event.
const never = time.Duration(1<<63 - 1)

// top returns the earliest event, or one at never when the queue is empty.
func (q *queue) top() event {
	if len(q.ev) == 0 {
		return event{at: never, c: -1}
	}
	return q.ev[0]
}

// schedule sets client c's event to at, adding c if it has none.
func (q *queue) schedule(c int32, at time.Duration) {
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

// remove drops client c's event, if it has one. A client may have none
// and lie beyond pos: an open loop's new client whose first attempt a
// limiter refused retires before anything was scheduled for it.
func (q *queue) remove(c int32) {
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

func (q *queue) up(i int32) {
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

func (q *queue) down(i int32) {
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
