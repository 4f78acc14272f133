package simengine

import (
	"math"
	"math/bits"
	"slices"
	"time"
)

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

// queue is the pending-event set of a lane's clients: a radix heap with
// lazy deletion, at most one live event per client. Every client always
// has exactly one pending event (its think, its backoff or its attempt's
// timeout), and the engine's time never goes back, which a radix heap
// exploits: an event sits in the bucket of the highest bit in which its
// time differs from last, the time of the latest minimum, so that finding
// the next minimum redistributes one bucket, and each event moves a few
// times over its life, in appends that stream through memory instead of a
// binary heap's jumps across it (the clients' retry and timeout times
// cluster, so the buckets near last stay small). It was chosen by
// measurement over a binary and a 4-ary heap (BenchmarkQueueCandidates).
//
// A client's event is moved by scheduling it anew: the old entry stays in
// its bucket, stale, and is dropped when it comes up (its seq is no longer
// the client's stamp) or when the buckets are swept.
//
// Buckets above 0 are lists of fixed-size blocks from one pool, so that a
// million events moving between buckets neither copy a growing slice nor
// leave garbage behind: the queue holds its events and a block a bucket.
type queue struct {
	// b0 holds the events at last, in seq order from head0; buckets[i]
	// those whose time first differs from last in bit i-1.
	b0      []event
	head0   int
	buckets [65]bucket
	last    uint64 // key of the latest minimum: no event is below it
	blocks  []*[blockLen]event
	free    []int32 // blocks no bucket uses

	// stamp[c] is the seq of client c's live event, or one that no
	// entry carries while c has none; bit c of on is set while c has one.
	stamp []uint32
	on    []uint64
	n     int // live events

	seq   uint32
	swept uint32 // seq at the latest sweep of stale entries
}

// bucket is a list of blocks of the queue's pool, n events in all.
type bucket struct {
	ids []int32
	n   int
}

// blockLen is how many events a block holds: 4 KiB.
const blockLen = 256

// never is a time after every event.
const never = time.Duration(1<<63 - 1)

// key maps a time to an unsigned key in the same order.
func key(at time.Duration) uint64 { return uint64(at) ^ 1<<63 }

// sweepEvery is how many sequence numbers may be drawn between two sweeps
// of the stale entries: a stale entry must be gone before the seq it
// carries comes round again (2^32 numbers later) and makes it look live.
// A stale entry was live until fewer than 2^31 numbers after it was drawn
// (no event waits longer), so a sweep every 2^30 numbers finds it stale in
// time. The calls' queue draws from the same numbers as the clients'
// (lane.scheduleCall): the clients' queue, never empty, sees every one.
const sweepEvery = 1 << 30

// len returns how many clients have an event.
func (q *queue) len() int { return q.n }

// has reports whether client c has an event.
func (q *queue) has(c int32) bool {
	return int(c)>>6 < len(q.on) && q.on[c>>6]&(1<<(c&63)) != 0
}

// live reports whether e is its client's current event.
func (q *queue) live(e event) bool { return q.stamp[e.c] == e.seq }

// next draws the next sequence number.
func (q *queue) next() uint32 {
	q.seq++
	if q.seq-q.swept >= sweepEvery {
		q.sweep()
	}
	return q.seq
}

// top returns the earliest event, or one at never when the queue is empty.
func (q *queue) top() event {
	for {
		for q.head0 < len(q.b0) {
			if e := q.b0[q.head0]; q.live(e) {
				return e
			}
			q.head0++
		}
		q.b0, q.head0 = q.b0[:0], 0
		if !q.refill() {
			return event{at: never, c: -1}
		}
	}
}

// add puts e in bucket i.
func (q *queue) add(i int, e event) {
	if i == 0 {
		q.b0 = append(q.b0, e)
		return
	}
	b := &q.buckets[i]
	j := b.n % blockLen
	if j == 0 {
		var id int32
		if k := len(q.free); k > 0 {
			id, q.free = q.free[k-1], q.free[:k-1]
		} else {
			id = int32(len(q.blocks))
			q.blocks = append(q.blocks, new([blockLen]event))
		}
		b.ids = append(b.ids, id)
	}
	q.blocks[b.ids[len(b.ids)-1]][j] = e
	b.n++
}

// each calls fn with every event of bucket i > 0.
func (q *queue) each(i int, fn func(e event)) {
	b := &q.buckets[i]
	for k, id := range b.ids {
		n := min(blockLen, b.n-k*blockLen)
		for _, e := range q.blocks[id][:n] {
			fn(e)
		}
	}
}

// empty gives bucket i's blocks back to the pool.
func (q *queue) empty(i int) {
	b := &q.buckets[i]
	q.free = append(q.free, b.ids...)
	b.ids, b.n = b.ids[:0], 0
}

// refill empties the lowest non-empty bucket into the lower ones, its
// earliest time becoming last, and reports whether there was one.
func (q *queue) refill() bool {
	i := 1
	for i < len(q.buckets) && q.buckets[i].n == 0 {
		i++
	}
	if i == len(q.buckets) {
		return false
	}
	b := &q.buckets[i]
	m := uint64(math.MaxUint64)
	for k, id := range b.ids {
		n := min(blockLen, b.n-k*blockLen)
		for _, e := range q.blocks[id][:n] {
			m = min(m, key(e.at))
		}
	}
	q.last = m
	for k, id := range b.ids {
		n := min(blockLen, b.n-k*blockLen)
		for _, e := range q.blocks[id][:n] {
			q.add(bits.Len64(key(e.at)^m), e)
		}
	}
	q.empty(i)
	q.order0()
	return true
}

// order0 drops the stale entries of bucket 0, just filled, and puts the
// rest in seq order: the events at one time leave in the order they were
// scheduled.
func (q *queue) order0() {
	b := slices.DeleteFunc(q.b0[q.head0:], func(e event) bool { return !q.live(e) })
	if len(b) > 1 {
		slices.SortFunc(b, func(e, f event) int { return int(int32(e.seq - f.seq)) })
	}
	q.b0, q.head0 = b, 0
}

// schedule sets client c's event to at, adding c if it has none.
func (q *queue) schedule(c int32, at time.Duration) {
	seq := q.next()
	if int(c) >= len(q.stamp) {
		q.grow(int(c) + 1)
	}
	if !q.has(c) {
		q.on[c>>6] |= 1 << (c & 63)
		q.n++
	}
	q.stamp[c] = seq
	k := key(at)
	if k < q.last {
		q.rebase()
	}
	q.add(bits.Len64(k^q.last), event{at: at, seq: seq, c: c})
}

// grow makes room for clients below n.
func (q *queue) grow(n int) {
	q.stamp = slices.Grow(q.stamp, n-len(q.stamp))[:n]
	if w := (n + 63) >> 6; w > len(q.on) {
		q.on = slices.Grow(q.on, w-len(q.on))[:w]
	}
}

// reserve makes room for n clients at once.
func (q *queue) reserve(n int) { q.grow(n) }

// rebase makes the lowest possible key last, so that an event may be
// scheduled before the latest minimum: a lane stopped at a time before
// its next event (a tick's end, a change) may schedule one there. Every
// live event goes to the bucket of its key's top bit, from which the next
// top sorts them out again; a change that schedules many clients rebases
// once, not once a client.
func (q *queue) rebase() {
	all := q.events()
	q.b0, q.head0 = q.b0[:0], 0
	for i := 1; i < len(q.buckets); i++ {
		q.empty(i)
	}
	q.last = 0
	for _, e := range all {
		q.add(bits.Len64(key(e.at)), e)
	}
	q.order0()
}

// remove drops client c's event, if it has one. A client may have none
// and lie beyond the stamps: an open loop's new client whose first attempt
// a limiter refused retires before anything was scheduled for it.
func (q *queue) remove(c int32) {
	if !q.has(c) {
		return
	}
	q.on[c>>6] &^= 1 << (c & 63)
	q.n--
	q.stamp[c] = q.next()
}

// sweep drops every stale entry.
func (q *queue) sweep() {
	q.swept = q.seq
	q.order0()
	for i := 1; i < len(q.buckets); i++ {
		b := &q.buckets[i]
		w := 0
		for r := range b.n {
			e := q.blocks[b.ids[r/blockLen]][r%blockLen]
			if q.live(e) {
				q.blocks[b.ids[w/blockLen]][w%blockLen] = e
				w++
			}
		}
		keep := (w + blockLen - 1) / blockLen
		q.free = append(q.free, b.ids[keep:]...)
		b.ids, b.n = b.ids[:keep], w
	}
}

// events returns the live events, in no order.
func (q *queue) events() []event {
	var out []event
	keep := func(e event) {
		if q.live(e) {
			out = append(out, e)
		}
	}
	for _, e := range q.b0[q.head0:] {
		keep(e)
	}
	for i := 1; i < len(q.buckets); i++ {
		q.each(i, keep)
	}
	return out
}
