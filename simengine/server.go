package simengine

import (
	"math"
	"time"
)

// request is one attempt that reached the server (or its accept backlog).
type request struct {
	start  time.Duration // when the server accepted it
	c      int32         // the client that sent it, or -1 once cancelled
	serial uint32        // the client's attempt serial when it sent it
}

// fifo is a queue of requests in arrival order, kept in fixed-size chunks so
// that a long storm's millions of abandoned requests grow it without copying.
// Every request keeps an absolute index (its position counted from the first
// request ever pushed), so a client can find its own request to cancel it.
type fifo struct {
	chunks []*[chunkLen]request
	head   int    // index in chunks[0] of the oldest request
	n      int    // requests held
	base   uint64 // absolute index of the oldest request
	spare  []*[chunkLen]request
}

const chunkLen = 1024

func (f *fifo) push(r request) uint64 {
	i := f.head + f.n
	if i/chunkLen == len(f.chunks) {
		var c *[chunkLen]request
		if k := len(f.spare); k > 0 {
			c, f.spare = f.spare[k-1], f.spare[:k-1]
		} else {
			c = new([chunkLen]request)
		}
		f.chunks = append(f.chunks, c)
	}
	f.chunks[i/chunkLen][i%chunkLen] = r
	f.n++
	return f.base + uint64(f.n-1)
}

func (f *fifo) front() *request { return &f.chunks[0][f.head] }

func (f *fifo) pop() request {
	r := f.chunks[0][f.head]
	f.head++
	f.n--
	f.base++
	if f.head == chunkLen {
		f.spare = append(f.spare, f.chunks[0])
		f.chunks[0] = nil
		f.chunks = f.chunks[1:]
		f.head = 0
	}
	return r
}

// at returns the request at absolute index abs, or nil if it has left.
func (f *fifo) at(abs uint64) *request {
	if abs < f.base || abs >= f.base+uint64(f.n) {
		return nil
	}
	i := f.head + int(abs-f.base)
	return &f.chunks[i/chunkLen][i%chunkLen]
}

// curve is 001's latency curve: base while the concurrency n is at most
// limit, then base*factor^((n-limit)/k), capped at ceil. Powers are computed
// once per concurrency level and kept, since the engine asks for one at
// every arrival and completion.
type curve struct {
	base, ceil time.Duration
	limit      int
	factor, k  float64
	over       []time.Duration // over[i] is the delay at limit+1+i
	capped     bool            // over's last entry reached ceil
}

func newCurve(p *Params) curve {
	return curve{base: p.ServerDelay, ceil: p.MaxServerDelay, limit: p.ServerLimit,
		factor: p.ServerFactor, k: p.ServerK}
}

func (c *curve) delay(n int) time.Duration {
	if n <= c.limit || c.factor == 1 {
		return min(c.base, c.ceil)
	}
	i := n - c.limit - 1
	for i >= len(c.over) && !c.capped {
		x := float64(len(c.over)+1) / c.k
		d := float64(c.base) * math.Pow(c.factor, x)
		if d >= float64(c.ceil) {
			c.capped = true
			d = float64(c.ceil)
		}
		c.over = append(c.over, time.Duration(d))
	}
	if i >= len(c.over) {
		return c.ceil
	}
	return c.over[i]
}
