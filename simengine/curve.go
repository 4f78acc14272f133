package simengine

import (
	"math"
	"time"
)

// Curve is 001's latency curve: Base while the concurrency
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
// At most maxOver levels are kept: a flat curve (a factor near 1, a large
// k) that never reaches Max would otherwise keep one per request queued.
type curve struct {
	Curve
	over   []time.Duration // over[i] is the delay at Limit+1+i
	capped bool            // over's last entry reached Max
}

// maxOver bounds a curve's cache: 64 Ki levels, 512 KiB.
const maxOver = 1 << 16

func newCurve(p *Params) curve { return curve{Curve: CurveOf(p)} }

func (c *curve) delay(n int) time.Duration {
	if n <= c.Limit || c.Factor == 1 {
		return min(c.Base, c.Max)
	}
	i := n - c.Limit - 1
	if i >= maxOver && !c.capped {
		return c.Delay(n)
	}
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
