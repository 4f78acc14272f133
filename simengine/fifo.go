package simengine

import (
	"encoding/binary"
	"time"
	"unsafe"

	"github.com/backofflab/backofflab/budget"
)

// fifo is the curve server's queue of requests in arrival order, each
// known by its absolute index (its position counted from the first request
// ever pushed), by which a client finds its own request.
//
// A retry storm grows it by tens of millions of abandoned requests, so it
// keeps a request in about two bytes: its start, as the gap since the
// previous request's start (starts only grow, as requests enter in time
// order) in a varint of 1 to 10 bytes, a storm's requests being
// microseconds apart. Who a request belongs to is kept apart, in owners,
// and only while it matters: an entry for each request a client waits on
// and for each one cancelled (a dead request, skipped when it comes to the
// front); a request its client abandoned (it timed out without cancelling)
// needs none, as it will be served to nobody.
type fifo struct {
	gaps   chunked[byte] // the varint gaps of every request but the front one
	n      int           // requests held
	base   uint64        // absolute index of the front request
	start  time.Duration // when the front request started, if any
	last   time.Duration // when the back request started, if any
	owners chunked[owner]
	// waiting, cancelled and abandoned count the owners' entries by kind:
	// an abandoned entry is dropped at once at the front, else when they
	// outnumber the others.
	waiting, cancelled, abandoned int
}

// owner says who a request in the fifo belongs to: c is the client that
// waits on it, or cancelledReq or abandonedReq.
type owner struct {
	abs uint64
	c   int32
}

// The owners' marks of a request no client waits on.
const (
	cancelledReq int32 = -1 // cancelled: the server does not serve it
	abandonedReq int32 = -2 // abandoned: served to nobody
)

// push adds a request of client c that started at start, no earlier than
// the back one, and returns its absolute index, or the budget's error,
// having added nothing, when the budget has no room for it.
func (f *fifo) push(start time.Duration, c int32, mem *budget.Account) (uint64, error) {
	abs := f.base + uint64(f.n)
	if _, err := f.owners.push(owner{abs: abs, c: c}, mem); err != nil {
		return 0, err
	}
	if f.n == 0 {
		f.start, f.last = start, start
	} else {
		if err := pushUvarint(&f.gaps, uint64(start-f.last), mem); err != nil {
			f.owners.popBack()
			return 0, err
		}
		f.last = start
	}
	f.n++
	f.waiting++
	return abs, nil
}

// len returns how many requests the queue holds, cancelled ones included.
func (f *fifo) len() int { return f.n }

// holds reports whether the request at absolute index abs is in the queue.
func (f *fifo) holds(abs uint64) bool { return abs >= f.base && abs < f.base+uint64(f.n) }

// frontCancelled reports whether the oldest request was cancelled; the
// queue is not empty.
func (f *fifo) frontCancelled() bool {
	return f.owners.n > 0 && f.owners.front().abs == f.base && f.owners.front().c == cancelledReq
}

// pop removes the oldest request and returns its absolute index and the
// client that waits on it, or -1 when none does.
func (f *fifo) pop() (abs uint64, c int32) {
	abs, c = f.base, -1
	if f.owners.n > 0 && f.owners.front().abs == abs {
		_, o := f.owners.pop()
		switch o.c {
		case cancelledReq:
			f.cancelled--
		case abandonedReq:
			f.abandoned--
		default:
			f.waiting--
			c = o.c
		}
	}
	f.n--
	f.base++
	if f.n > 0 {
		var v uint64
		for shift := 0; ; shift += 7 {
			_, b := f.gaps.pop()
			v |= uint64(b&0x7f) << shift
			if b < 0x80 {
				break
			}
		}
		f.start += time.Duration(v)
	}
	return abs, c
}

// find returns the owners' entry of the request at absolute index abs,
// or nil. A request looked for is most often among the oldest, so the
// search gallops from the front before it halves.
func (f *fifo) find(abs uint64) *owner {
	n := f.owners.n
	if n == 0 || abs < f.owners.front().abs {
		return nil
	}
	if o := f.owners.front(); o.abs == abs {
		// The usual case: with one timeout, the oldest request waited
		// on is the one whose client times out.
		return o
	}
	hi := 1
	for hi < n && f.owners.nth(hi).abs < abs {
		hi *= 2
	}
	lo := hi / 2
	hi = min(hi, n-1)
	for lo < hi { // the first entry at or after abs is in [lo, hi]
		m := int(uint(lo+hi) >> 1)
		if f.owners.nth(m).abs < abs {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if o := f.owners.nth(lo); o.abs == abs {
		return o
	}
	return nil
}

// cancel marks client c's request at absolute index abs cancelled and
// reports whether it was there and c's.
func (f *fifo) cancel(abs uint64, c int32) bool {
	o := f.find(abs)
	if o == nil || o.c != c || c < 0 {
		return false
	}
	o.c = cancelledReq
	f.waiting--
	f.cancelled++
	return true
}

// abandon forgets that client c waits on its request at absolute index
// abs: the request stays, to be served to nobody.
func (f *fifo) abandon(abs uint64, c int32) {
	o := f.find(abs)
	if o == nil || o.c != c || c < 0 {
		return
	}
	o.c = abandonedReq
	f.waiting--
	f.abandoned++
	for f.owners.n > 0 && f.owners.front().c == abandonedReq {
		f.owners.pop()
		f.abandoned--
	}
	if f.abandoned > f.waiting+f.cancelled+chunkLen {
		f.compact()
	}
}

// compact drops the owners' abandoned entries: a storm whose timeouts
// vary abandons requests behind ones still waited on.
func (f *fifo) compact() {
	w := 0
	for r := range f.owners.n {
		if o := *f.owners.nth(r); o.c != abandonedReq {
			*f.owners.nth(w) = o
			w++
		}
	}
	for f.owners.n > w {
		f.owners.popBack()
	}
	f.abandoned = 0
}

// each calls fn with every request, oldest first: its absolute index,
// its start and its client, cancelledReq or abandonedReq.
func (f *fifo) each(fn func(abs uint64, start time.Duration, c int32)) {
	start, g, o := f.start, 0, 0
	for i := range f.n {
		abs := f.base + uint64(i)
		if i > 0 {
			var v uint64
			for shift := 0; ; shift += 7 {
				b := *f.gaps.nth(g)
				g++
				v |= uint64(b&0x7f) << shift
				if b < 0x80 {
					break
				}
			}
			start += time.Duration(v)
		}
		c := abandonedReq
		if o < f.owners.n && f.owners.nth(o).abs == abs {
			c = f.owners.nth(o).c
			o++
		}
		fn(abs, start, c)
	}
}

// clear drops every request, keeping their chunks for the next ones.
func (f *fifo) clear() {
	f.base += uint64(f.n)
	f.gaps.clear()
	f.owners.clear()
	f.n, f.waiting, f.cancelled, f.abandoned = 0, 0, 0, 0
}

// free drops every request, and gives their memory back to mem.
func (f *fifo) free(mem *budget.Account) {
	f.base += uint64(f.n)
	f.gaps.free(mem)
	f.owners.free(mem)
	f.n, f.waiting, f.cancelled, f.abandoned = 0, 0, 0, 0
}

// chunked is a queue kept in fixed-size chunks, so that a long storm's
// millions of abandoned requests grow it without copying, and every chunk
// is paid for from the run's memory budget. Values keep absolute indices.
type chunked[T any] struct {
	chunks []*[chunkLen]T
	head   int    // index in chunks[0] of the oldest value
	n      int    // values held
	base   uint64 // absolute index of the oldest value
	spare  []*[chunkLen]T
}

const chunkLen = 1024

// push adds v and returns its absolute index, or mem's error, having added
// nothing, when the queue needs a new chunk and mem has no room for it.
func (q *chunked[T]) push(v T, mem *budget.Account) (uint64, error) {
	i := uint(q.head + q.n) // unsigned: a shift and a mask below
	if i/chunkLen == uint(len(q.chunks)) {
		var c *[chunkLen]T
		if k := len(q.spare); k > 0 {
			c, q.spare = q.spare[k-1], q.spare[:k-1]
		} else {
			if err := mem.Grow(q.chunkBytes()); err != nil {
				return 0, err
			}
			c = new([chunkLen]T)
		}
		q.chunks = append(q.chunks, c)
	}
	q.chunks[i/chunkLen][i%chunkLen] = v
	q.n++
	return q.base + uint64(q.n-1), nil
}

// pushUvarint adds v to q as a varint, or, having added nothing, returns
// mem's error when q needs a new chunk and mem has no room for it. A
// request's gap, a few bytes, is most often written straight into the
// last chunk.
func pushUvarint(q *chunked[byte], v uint64, mem *budget.Account) error {
	i := uint(q.head + q.n)
	if uint(len(q.chunks))*chunkLen-i >= binary.MaxVarintLen64 {
		q.n += binary.PutUvarint(q.chunks[i/chunkLen][i%chunkLen:], v)
		return nil
	}
	var buf [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(buf[:], v)
	for j, b := range buf[:k] {
		if _, err := q.push(b, mem); err != nil {
			for range j {
				q.popBack()
			}
			return err
		}
	}
	return nil
}

func (q *chunked[T]) front() *T { return &q.chunks[0][q.head] }

func (q *chunked[T]) pop() (abs uint64, v T) {
	v, abs = q.chunks[0][q.head], q.base
	q.head++
	q.n--
	q.base++
	if q.head == chunkLen {
		q.spare = append(q.spare, q.chunks[0])
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.head = 0
	}
	return abs, v
}

// popBack removes the newest value; its absolute index is the next push's.
func (q *chunked[T]) popBack() (abs uint64, v T) {
	q.n--
	i := q.head + q.n
	v, abs = q.chunks[i/chunkLen][i%chunkLen], q.base+uint64(q.n)
	if last := len(q.chunks) - 1; last > 0 && i == last*chunkLen {
		q.spare = append(q.spare, q.chunks[last])
		q.chunks[last] = nil
		q.chunks = q.chunks[:last]
	}
	return abs, v
}

// nth returns the i-th oldest value; i < q.n.
func (q *chunked[T]) nth(i int) *T {
	j := uint(q.head + i)
	return &q.chunks[j/chunkLen][j%chunkLen]
}

// clear drops every value, keeping the chunks for the next ones.
func (q *chunked[T]) clear() {
	q.spare = append(q.spare, q.chunks...)
	q.chunks = q.chunks[:0]
	q.base += uint64(q.n)
	q.head, q.n = 0, 0
}

// each calls fn with every value, oldest first.
func (q *chunked[T]) each(fn func(T)) {
	for i := range q.n {
		fn(*q.nth(i))
	}
}

// at returns the value at absolute index abs, or nil if it has left.
func (q *chunked[T]) at(abs uint64) *T {
	if abs < q.base || abs >= q.base+uint64(q.n) {
		return nil
	}
	i := uint(q.head) + uint(abs-q.base)
	return &q.chunks[i/chunkLen][i%chunkLen]
}

func (q *chunked[T]) chunkBytes() int64 {
	var v T
	return int64(unsafe.Sizeof(v)) * chunkLen
}

// free drops every value and chunk, and gives their memory back to mem.
func (q *chunked[T]) free(mem *budget.Account) {
	mem.Shrink(int64(len(q.chunks)+len(q.spare)) * q.chunkBytes())
	*q = chunked[T]{base: q.base + uint64(q.n)}
}
