package simengine

import (
	"math"
	"time"
	"unsafe"

	"backofflab/budget"
)

// request is one attempt in the server, in 8 bytes rather than 16: the
// server's queue of abandoned requests is what a retry storm grows, by
// millions, so its size is what bounds a run's memory. A request's start is
// kept as the gap since the previous request's start (starts only grow, as
// requests enter in time order); the client that owns it is found by its
// slot (client.slot), so no attempt serial is kept.
type request struct {
	gap uint32 // nanoseconds since the previous request in the queue started
	c   int32  // the client that sent it, or -1 once cancelled or for a filler
}

// maxGap is the longest gap a request records: a longer one is made of
// fillers (dead requests of maxGap each) before it.
const maxGap = math.MaxUint32

// requestBytes is what one queued request costs.
const requestBytes = int64(unsafe.Sizeof(request{}))

// fifo is the server's queue of requests in arrival order. Each request
// keeps an absolute index (its position counted from the first request ever
// pushed), so a client can find its own request to cancel it.
type fifo struct {
	q     chunked[request]
	start time.Duration // when the front request started, if any
	last  time.Duration // when the back request started, if any
}

// push adds a request that started at start, no earlier than the back one,
// and returns its absolute index, or the budget's error, having added
// nothing, when the budget has no room for it.
func (f *fifo) push(start time.Duration, c int32, mem *budget.Account) (uint64, error) {
	if f.q.n == 0 {
		f.start, f.last = start, start
		return f.q.push(request{c: c}, mem)
	}
	for start-f.last > maxGap {
		if _, err := f.q.push(request{gap: maxGap, c: -1}, mem); err != nil {
			return 0, err
		}
		f.last += maxGap
	}
	abs, err := f.q.push(request{gap: uint32(start - f.last), c: c}, mem)
	if err == nil {
		f.last = start
	}
	return abs, err
}

// len returns how many requests the queue holds, fillers and cancelled ones
// included.
func (f *fifo) len() int { return f.q.n }

// front returns the oldest request's client and start; the queue is not
// empty.
func (f *fifo) front() (c int32, start time.Duration) { return f.q.front().c, f.start }

// pop removes the oldest request and returns its absolute index and client.
func (f *fifo) pop() (abs uint64, c int32) {
	abs, r := f.q.pop()
	if f.q.n > 0 {
		f.start += time.Duration(f.q.front().gap)
	}
	return abs, r.c
}

// at returns the request at absolute index abs, or nil if it has left.
func (f *fifo) at(abs uint64) *request { return f.q.at(abs) }

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
	i := q.head + q.n
	if i/chunkLen == len(q.chunks) {
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

// at returns the value at absolute index abs, or nil if it has left.
func (q *chunked[T]) at(abs uint64) *T {
	if abs < q.base || abs >= q.base+uint64(q.n) {
		return nil
	}
	i := q.head + int(abs-q.base)
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
