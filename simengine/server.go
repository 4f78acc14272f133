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

// Curve is 001's latency curve (DESIGN.md §1): Base while the concurrency
// is at most Limit, then Base×Factor^((C−Limit)/K), never more than Max.
// The simulated server and realexp's real one both answer by it.
type Curve struct {
	Base   time.Duration // server_delay (001's -baseDelay)
	Limit  int           // server_limit (001's -limit)
	Factor float64       // server_factor (001's -factor)
	K      float64       // server_k (001's hard-coded 15)
	Max    time.Duration // max_server_delay: the cap 001's server lacked
}

// CurveOf returns the latency curve of p's server.
func CurveOf(p *Params) Curve {
	return Curve{Base: p.ServerDelay, Limit: p.ServerLimit, Factor: p.ServerFactor,
		K: p.ServerK, Max: p.MaxServerDelay}
}

// Delay returns the latency at concurrency c. It saturates at Max instead
// of overflowing, whatever c is.
func (cv Curve) Delay(c int) time.Duration {
	if c <= cv.Limit || cv.Factor == 1 {
		return min(cv.Base, cv.Max)
	}
	d := float64(cv.Base) * math.Pow(cv.Factor, float64(c-cv.Limit)/cv.K)
	if !(d < float64(cv.Max)) { // also +Inf and NaN
		return cv.Max
	}
	return time.Duration(d)
}

// curve is a Curve with its delays kept per concurrency level once
// computed, since the engine asks for one at every arrival and completion.
type curve struct {
	Curve
	over   []time.Duration // over[i] is the delay at Limit+1+i
	capped bool            // over's last entry reached Max
}

func newCurve(p *Params) curve { return curve{Curve: CurveOf(p)} }

func (c *curve) delay(n int) time.Duration {
	if n <= c.Limit || c.Factor == 1 {
		return min(c.Base, c.Max)
	}
	i := n - c.Limit - 1
	for i >= len(c.over) && !c.capped {
		d := c.Delay(c.Limit + 1 + len(c.over))
		c.capped = d == c.Max
		c.over = append(c.over, d)
	}
	if i >= len(c.over) {
		return c.Max
	}
	return c.over[i]
}
