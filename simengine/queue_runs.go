package simengine

import "time"

// Runs of events scheduled with one delay. Most of a lane's events are its
// clients' now plus a constant: an attempt's timeout is now plus the
// lane's timeout, a backoff without jitter now plus a fixed delay. Since
// the lane's time never goes back and sequence numbers rise, the events
// scheduled with one delay arrive in (time, seq) order already: a FIFO
// holds them in order, an append to schedule and a look at its head to
// find its earliest, where the radix heap would move each of them a few
// times. The queue keeps a few such runs beside its radix heap, each
// claimed by a delay that recurs; an event joins its delay's run only when
// it is at or after the run's latest time (a live change to a shorter
// timeout, or an event scheduled before the lane's time, goes to the heap
// instead), so a run's entries stay in (time, seq) order whatever the
// delays, and the queue's earliest event is the earliest of the runs'
// heads and the heap's top.
//
// A run's entries go stale as the heap's do (their client was moved or
// removed) and are dropped when they reach its head or at a sweep. Its
// entries are in blocks of the queue's pool, which it gives back as its
// head leaves them.

// nRuns is how many runs a queue keeps: the timeout's and a few backoff
// delays (an exponential backoff without jitter has one a retry).
const nRuns = 4

// nRecent is how many of the latest delays that found no run a queue
// remembers: a delay among them claims an empty run, so that a delay
// seen once (a jittered backoff's) takes none.
const nRecent = 4

// run is a FIFO of events scheduled with one delay, in (time, seq) order.
type run struct {
	d    time.Duration    // the delay it holds the events of
	at   time.Duration    // the latest time appended: the next must not be before it
	n    int              // entries, stale ones included
	head *[blockLen]event // the block of the earliest entry, ids[first]
	hi   int              // the earliest entry's index in head
	tail *[blockLen]event // the block of the latest entry, ids[len(ids)-1]
	ti   int              // entries in tail
	// ids are the run's blocks from ids[first], oldest first; the ones
	// before first went back to the pool.
	ids   []int32
	first int
}

// claim returns a run for delay d, which no run holds: an empty one, if
// d recurs and a run is empty, else nil.
func (q *queue) claim(d time.Duration) *run {
	for _, x := range q.recent {
		if x != d {
			continue
		}
		for i := range q.runs {
			if r := &q.runs[i]; r.n == 0 {
				if r.head == nil {
					var b bucket
					r.tail = q.newBlock(&b)
					r.ids = b.ids
					r.head = r.tail
				}
				r.d, r.at = d, minTime
				q.claimed = max(q.claimed, i+1)
				return r
			}
		}
		return nil
	}
	q.recent[q.nextRecent] = d
	q.nextRecent = (q.nextRecent + 1) % nRecent
	return nil
}

// minTime is a time before every event.
const minTime = time.Duration(-1 << 63)

// extend gives r's full tail a block after it.
func (q *queue) extend(r *run) {
	b := bucket{ids: r.ids}
	r.tail = q.newBlock(&b)
	r.ids = b.ids
	r.ti = 0
}

// pop drops r's earliest entry.
func (q *queue) pop(r *run) {
	r.n--
	r.hi++
	if r.n == 0 {
		// Empty: keep the one block it ends in.
		q.free = append(q.free, r.ids[r.first:len(r.ids)-1]...)
		r.ids[0] = r.ids[len(r.ids)-1]
		r.ids, r.first = r.ids[:1], 0
		r.head, r.hi, r.ti = r.tail, 0, 0
		r.at = minTime // any time may come next
		return
	}
	if r.hi == blockLen {
		q.free = append(q.free, r.ids[r.first])
		r.first++
		r.head, r.hi = q.blocks[r.ids[r.first]], 0
		if r.first >= 32 && r.first*2 >= len(r.ids) {
			k := copy(r.ids, r.ids[r.first:])
			r.ids, r.first = r.ids[:k], 0
		}
		q.readAhead(r)
	}
}

// readAhead reads the clients of the entries of r's next block, all at
// once, as its head enters a block: the engine reads each when its entry
// comes up, and a million clients do not fit the caches, so that many
// cache misses are under way together, long before they would be one at
// a time. Fewer clients, which fit the caches, need none.
func (q *queue) readAhead(r *run) {
	if len(*q.owners) < readAheadOwners || r.first+1 >= len(r.ids) {
		return
	}
	b, end := q.blocks[r.ids[r.first+1]], blockLen
	if b == r.tail {
		end = r.ti
	}
	owners, touch := *q.owners, q.touch
	for _, e := range b[:end] {
		touch += ahead(&owners[e.c])
	}
	q.touch = touch
}

// eachRun calls fn with every entry of r, stale ones included, earliest
// first.
func (q *queue) eachRun(r *run, fn func(e event)) {
	if r.n == 0 {
		return
	}
	for k, id := range r.ids[r.first:] {
		b := q.blocks[id]
		lo, hi := 0, blockLen
		if k == 0 {
			lo = r.hi
		}
		if k == len(r.ids)-r.first-1 {
			hi = r.ti
		}
		for _, e := range b[lo:hi] {
			fn(e)
		}
	}
}

// sweepRun drops r's stale entries, keeping the live ones in order.
func (q *queue) sweepRun(r *run) {
	if r.n == 0 {
		return
	}
	// Move the live entries to the front of its blocks, from ids[first].
	ids := r.ids[r.first:]
	w := 0
	q.eachRun(r, func(e event) {
		if q.live(e) {
			q.blocks[ids[w/blockLen]][w%blockLen] = e
			w++
		}
	})
	keep := max(1, (w+blockLen-1)/blockLen)
	q.free = append(q.free, ids[keep:]...)
	k := copy(r.ids, ids[:keep])
	r.ids, r.first = r.ids[:k], 0
	r.head, r.hi = q.blocks[r.ids[0]], 0
	r.tail, r.ti = q.blocks[r.ids[k-1]], w-(k-1)*blockLen
	if r.n = w; w == 0 {
		r.at = minTime
	}
}
