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

// fifo is a ring buffer of requests in arrival order. Every request keeps an
// absolute index (its position counted from the first request ever pushed),
// so a client can find its own request again to cancel it.
type fifo struct {
	buf  []request
	head int    // index in buf of the oldest request
	n    int    // requests held
	base uint64 // absolute index of the oldest request
}

func (f *fifo) push(r request) uint64 {
	if f.n == len(f.buf) {
		grown := make([]request, max(64, 2*len(f.buf)))
		k := copy(grown, f.buf[f.head:])
		copy(grown[k:], f.buf[:f.head])
		f.buf, f.head = grown, 0
	}
	i := f.head + f.n
	if i >= len(f.buf) {
		i -= len(f.buf)
	}
	f.buf[i] = r
	f.n++
	return f.base + uint64(f.n-1)
}

func (f *fifo) front() *request { return &f.buf[f.head] }

func (f *fifo) pop() request {
	r := f.buf[f.head]
	f.head++
	if f.head == len(f.buf) {
		f.head = 0
	}
	f.n--
	f.base++
	return r
}

// at returns the request at absolute index abs, or nil if it has left.
func (f *fifo) at(abs uint64) *request {
	if abs < f.base || abs >= f.base+uint64(f.n) {
		return nil
	}
	i := f.head + int(abs-f.base)
	if i >= len(f.buf) {
		i -= len(f.buf)
	}
	return &f.buf[i]
}

// clear empties f, keeping its absolute indexes increasing.
func (f *fifo) clear() {
	f.base += uint64(f.n)
	f.head, f.n = 0, 0
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
