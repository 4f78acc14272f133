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
// exploits: an event sits in the bucket of the highest digit (of
// digitBits bits) in which its time differs from last, the time of the
// latest minimum, and of that digit's value, so that finding the next
// minimum redistributes one bucket, and each event moves a few times over
// its life (at most once a digit), in appends that stream through memory instead of a
// binary heap's jumps across it (the clients' retry and timeout times
// cluster, so the buckets near last stay small). It was chosen by
// measurement over a binary and a 4-ary heap (BenchmarkQueueCandidates).
//
// The lane may schedule an event before last: last is its next client
// event's time once it has looked at it, and a server completion before
// that (or a change, at a tick's end) may send a client to retry sooner.
// Such events wait in early, a binary heap, all of them before every
// bucket's; when early grows to a good part of the events, they all go
// back into the buckets around the earliest of them (rebase).
//
// A client's event is moved by scheduling it anew: the old entry stays in
// its bucket, stale, and is dropped when it comes up (its seq is no longer
// its client's seq) or when the buckets are swept.
//
// Buckets above 0 are lists of fixed-size blocks from one pool, so that a
// million events moving between buckets neither copy a growing slice nor
// leave garbage behind: the queue holds its events and a block a bucket.
//
// Beside the heap, runs hold the events scheduled with a recurring delay
// (scheduleIn: an attempt's timeout, a fixed backoff), in order already,
// each in a FIFO of blocks from the same pool (see run); the earliest
// event is the earliest of the heap's top and the runs' heads.
type queue struct {
	// b0 holds the events at last, in seq order from head0; buckets[i]
	// those of bucketOf i. Bit i of full is set while bucket i has events.
	b0      []event
	head0   int
	early   []event // a binary heap by (time, seq) of events before last
	scratch []event // rebase's, kept for the next
	buckets [nBuckets]bucket
	full    [(nBuckets + 63) / 64]uint64
	last    uint64 // key of the latest minimum: no event is below it
	blocks  []*[blockLen]event
	free    []int32 // blocks no bucket uses

	// owners are the clients (or the calls) whose events the queue holds:
	// (*owners)[c].seq is the seq of client c's live event, or one that
	// no entry carries while c has none, so that telling a live entry
	// from a stale one reads the client the engine reads next anyway.
	// Bit c of on is set while c has an event.
	owners *[]client
	on     []uint64
	n      int // live events

	seq   uint32
	swept uint32 // seq at the latest sweep of stale entries
	touch uint32 // the sum of what refill and the runs read ahead, for it to be read

	// heapIdle is set when the heap was found empty, until an event
	// enters it: a lane whose clients all wait on timeouts and fixed
	// backoffs, in a storm, has only runs.
	heapIdle bool

	// runs hold the events of a few recurring delays beside the heap,
	// runs[:claimed] claimed by one; recent are the latest delays that
	// found none, nextRecent the place of the next.
	runs       [nRuns]run
	claimed    int
	recent     [nRecent]time.Duration
	nextRecent int
}

// readAheadOwners is how many clients a queue must have for its runs to read
// ahead: 448 KiB of clients or more may not stay in a core's caches.
const readAheadOwners = 1 << 13

// ahead reads what the engine reads of client c when its event comes up,
// to bring it into the cache before then.
func ahead(c *client) uint32 { return c.seq + uint32(c.st.RequestStart) }

// nearEvents is the most events of a bucket whose clients refill reads
// ahead of their turn.
const nearEvents = 64

// bucket is a list of blocks of the queue's pool, n events in all, the
// last of them tail.
type bucket struct {
	ids  []int32
	n    int
	tail *[blockLen]event
}

// blockLen is how many events a block holds: 1 KiB.
const blockLen = 64

// The buckets: one for each digit of a key (levels of them) and each
// value of that digit, and bucket 0 for the events at last. Four bits a
// digit move an event at most 16 times and most only two or three times
// (a bit a digit would be the classic radix heap, whose events move about
// once per bit of their distance from last).
const (
	digitBits = 4
	digitVals = 1 << digitBits
	levels    = 64 / digitBits
	nBuckets  = 1 + levels*digitVals
)

// bucketOf returns the bucket of key k: 0 for last, else that of the
// highest digit in which k differs from last, and k's value there.
func (q *queue) bucketOf(k uint64) int {
	x := k ^ q.last
	if x == 0 {
		return 0
	}
	d := (bits.Len64(x) - 1) / digitBits
	return 1 + d*digitVals + int(k>>(d*digitBits))&(digitVals-1)
}

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
func (q *queue) live(e event) bool { return (*q.owners)[e.c].seq == e.seq }

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
	e := event{at: never, c: -1}
	if !q.heapIdle {
		// heapTop's usual case, without its call: bucket 0's head, once
		// the stale entries before it are dropped.
		for len(q.early) == 0 && q.head0 < len(q.b0) {
			if f := q.b0[q.head0]; q.live(f) {
				e = f
				break
			}
			q.head0++
		}
		if e.c < 0 {
			e = q.heapTop()
		}
	}
	if q.claimed == 0 {
		return e
	}
	owners := *q.owners
	for i := range q.runs[:q.claimed] {
		r := &q.runs[i]
		for r.n > 0 {
			// r.hi is below blockLen while r has entries: the mask
			// spares a bounds check.
			f := r.head[r.hi&(blockLen-1)]
			if owners[f.c].seq == f.seq {
				if f.at < e.at || f.at == e.at && (e.c < 0 || int32(f.seq-e.seq) < 0) {
					e = f
				}
				break
			}
			if r.n > 1 && r.hi < blockLen-1 { // pop's usual case
				r.n--
				r.hi++
				continue
			}
			q.pop(r)
		}
	}
	return e
}

// heapTop returns the radix heap's earliest event, or one at never when
// it has none.
func (q *queue) heapTop() event {
	for len(q.early) > 0 {
		if e := q.early[0]; q.live(e) {
			return e
		}
		q.popEarly()
	}
	for {
		for q.head0 < len(q.b0) {
			if e := q.b0[q.head0]; q.live(e) {
				return e
			}
			q.head0++
		}
		q.b0, q.head0 = q.b0[:0], 0
		if !q.refill() {
			q.heapIdle = true
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
	j := b.n & (blockLen - 1) // b.n % blockLen, in fewer instructions
	if j == 0 {
		if b.n == 0 {
			q.full[i>>6] |= 1 << (i & 63)
		}
		if b.n > 0 || b.tail == nil {
			b.tail = q.newBlock(b)
		}
	}
	b.tail[j] = e
	b.n++
}

// newBlock adds a block to b, from the pool's free ones if it has any.
func (q *queue) newBlock(b *bucket) *[blockLen]event {
	var id int32
	if k := len(q.free); k > 0 {
		id, q.free = q.free[k-1], q.free[:k-1]
	} else {
		id = int32(len(q.blocks))
		q.blocks = append(q.blocks, new([blockLen]event))
	}
	b.ids = append(b.ids, id)
	return q.blocks[id]
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

// empty empties bucket i. It keeps its first block, the pool gets the
// others: a bucket that is used stays so, most often with a few events.
func (q *queue) empty(i int) {
	b := &q.buckets[i]
	if len(b.ids) > 1 {
		q.free = append(q.free, b.ids[1:]...)
		b.ids = b.ids[:1]
		b.tail = q.blocks[b.ids[0]]
	}
	b.n = 0
	q.full[i>>6] &^= 1 << (i & 63)
}

// refill empties the lowest non-empty bucket into the lower ones, its
// earliest time becoming last, and reports whether there was one.
func (q *queue) refill() bool {
	i := -1
	for w, f := range q.full {
		if f != 0 {
			i = w<<6 | bits.TrailingZeros64(f)
			break
		}
	}
	if i < 0 {
		return false
	}
	b := &q.buckets[i]
	if b.n == 1 { // the most common case: the next event alone
		e := b.tail[0]
		q.last = key(e.at)
		q.b0 = append(q.b0, e)
		b.n = 0
		q.full[i>>6] &^= 1 << (i & 63)
		return true
	}
	// The events of a small bucket come next: reading their clients now,
	// all at once, brings them into the cache side by side rather than
	// one miss an event later. It is done in the loop that finds the
	// earliest time, which does little else, so that many of the reads
	// are under way at once.
	near := b.n <= nearEvents
	owners, touch := *q.owners, q.touch
	m := uint64(math.MaxUint64)
	for k, id := range b.ids {
		n := min(blockLen, b.n-k*blockLen)
		for _, e := range q.blocks[id][:n] {
			m = min(m, key(e.at))
			if near {
				touch += ahead(&owners[e.c])
			}
		}
	}
	q.last, q.touch = m, touch
	for k, id := range b.ids {
		n := min(blockLen, b.n-k*blockLen)
		for _, e := range q.blocks[id][:n] {
			q.add(q.bucketOf(key(e.at)), e)
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
	if len(q.b0)-q.head0 <= 1 {
		return // top checks the one left
	}
	b := slices.DeleteFunc(q.b0[q.head0:], func(e event) bool { return !q.live(e) })
	if len(b) > 1 {
		slices.SortFunc(b, func(e, f event) int { return int(int32(e.seq - f.seq)) })
	}
	q.b0, q.head0 = b, 0
}

// schedule sets client c's event to at, adding c if it has none.
func (q *queue) schedule(c int32, at time.Duration) {
	e := event{at: at, seq: q.enter(c), c: c}
	q.heapIdle = false
	if k := key(at); k >= q.last {
		q.add(q.bucketOf(k), e)
		return
	}
	q.pushEarly(e)
	if len(q.early) > max(64, q.n/4) {
		q.rebase()
	}
}

// scheduleIn sets client c's event to now + d, adding c if it has none:
// in d's run when d recurs and the time is not before the run's latest,
// else in the heap.
func (q *queue) scheduleIn(c int32, now, d time.Duration) {
	at := now + d
	var r *run
	for i := range q.runs[:q.claimed] {
		if q.runs[i].d == d {
			r = &q.runs[i]
			break
		}
	}
	if r == nil {
		r = q.claim(d)
	}
	if r == nil || at < r.at {
		q.schedule(c, at)
		return
	}
	e := event{at: at, seq: q.enter(c), c: c}
	if r.ti == blockLen {
		q.extend(r)
	}
	r.tail[r.ti] = e
	r.ti++
	r.n++
	r.at = at
}

// enter draws client c's event's sequence number, makes it c's, and
// returns it.
func (q *queue) enter(c int32) uint32 {
	seq := q.next()
	if int(c)>>6 >= len(q.on) {
		q.grow(int(c) + 1)
	}
	if w, bit := &q.on[c>>6], uint64(1)<<(c&63); *w&bit == 0 {
		*w |= bit
		q.n++
	}
	(*q.owners)[c].seq = seq
	return seq
}

// pushEarly adds e to early.
func (q *queue) pushEarly(e event) {
	h := append(q.early, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
	q.early = h
}

// popEarly drops early's earliest event.
func (q *queue) popEarly() {
	h := q.early
	n := len(h) - 1
	e := h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(h[l]) {
			m = r
		}
		if !h[m].before(e) {
			break
		}
		h[i] = h[m]
		i = m
	}
	if n > 0 {
		h[i] = e
	}
	q.early = h
}

// grow makes room for clients below n.
func (q *queue) grow(n int) {
	if w := (n + 63) >> 6; w > len(q.on) {
		q.on = slices.Grow(q.on, w-len(q.on))[:w]
	}
}

// reserve makes room for n clients at once.
func (q *queue) reserve(n int) { q.grow(n) }

// newQueue returns an empty queue of the events of owners, whose first
// sequence number will be seq+1.
func newQueue(owners *[]client, seq uint32) queue {
	return queue{owners: owners, seq: seq, swept: seq}
}

// rebase puts every live event of the heap, early's included, back into
// the buckets around the earliest of them.
func (q *queue) rebase() {
	all := q.appendHeap(q.scratch[:0])
	q.b0, q.head0, q.early = q.b0[:0], 0, q.early[:0]
	for i := 1; i < len(q.buckets); i++ {
		if q.buckets[i].n > 0 {
			q.empty(i)
		}
	}
	q.last = math.MaxUint64
	for _, e := range all {
		q.last = min(q.last, key(e.at))
	}
	for _, e := range all {
		q.add(q.bucketOf(key(e.at)), e)
	}
	q.order0()
	q.scratch = all[:0]
}

// remove drops client c's event, if it has one. A client may have none
// and lie beyond the owners: an open loop's new client whose first attempt
// a limiter refused retires before anything was scheduled for it.
func (q *queue) remove(c int32) {
	if !q.has(c) {
		return
	}
	q.on[c>>6] &^= 1 << (c & 63)
	q.n--
	(*q.owners)[c].seq = q.next()
}

// sweep drops every stale entry.
func (q *queue) sweep() {
	q.swept = q.seq
	q.order0()
	early := q.early
	q.early = q.early[:0]
	for _, e := range early {
		if q.live(e) {
			q.pushEarly(e)
		}
	}
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
		if w == 0 {
			q.empty(i)
			continue
		}
		keep := max(1, (w+blockLen-1)/blockLen)
		q.free = append(q.free, b.ids[keep:]...)
		b.ids, b.n, b.tail = b.ids[:keep], w, q.blocks[b.ids[keep-1]]
	}
	for i := range q.runs {
		q.sweepRun(&q.runs[i])
	}
}

// events returns the live events, in no order.
func (q *queue) events() []event { return q.appendEvents(nil) }

// appendEvents appends the live events to out, in no order.
func (q *queue) appendEvents(out []event) []event {
	out = q.appendHeap(out)
	for i := range q.runs {
		q.eachRun(&q.runs[i], func(e event) {
			if q.live(e) {
				out = append(out, e)
			}
		})
	}
	return out
}

// appendHeap appends the radix heap's live events to out, in no order.
func (q *queue) appendHeap(out []event) []event {
	keep := func(e event) {
		if q.live(e) {
			out = append(out, e)
		}
	}
	for _, e := range q.early {
		keep(e)
	}
	for _, e := range q.b0[q.head0:] {
		keep(e)
	}
	for i := 1; i < len(q.buckets); i++ {
		q.each(i, keep)
	}
	return out
}
