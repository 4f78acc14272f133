package simengine

import (
	"math"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// curve is a server's scenario.Latency with its delays kept per
// concurrency level once computed, since the engine asks for one at every
// arrival and completion. Up to the latency's Flat level it keeps one
// value; above it at most maxOver levels: a flat curve (a factor near 1, a
// large k) that never reaches its cap would otherwise keep one per request
// queued.
type curve struct {
	lat    scenario.Latency
	flat   int             // up to this level the delay is base
	base   time.Duration   // the delay at level 0
	top    time.Duration   // the highest delay, reached or not
	over   []time.Duration // over[i] is the delay at flat+1+i
	capped bool            // over's last entry is top
}

// maxOver bounds a curve's cache: 64 Ki levels, 512 KiB.
const maxOver = 1 << 16

func newCurve(p *scenario.Params) curve {
	lat := scenario.LatencyOf(p)
	return curve{lat: lat, flat: lat.Flat(), base: lat.Delay(0), top: lat.Delay(math.MaxInt)}
}

func (c *curve) delay(n int) time.Duration {
	if n <= c.flat {
		return c.base
	}
	i := n - c.flat - 1
	if i >= maxOver && !c.capped {
		return c.lat.Delay(n)
	}
	for i >= len(c.over) && !c.capped {
		d := c.lat.Delay(c.flat + 1 + len(c.over))
		c.capped = d == c.top
		c.over = append(c.over, d)
	}
	if i >= len(c.over) {
		return c.top
	}
	return c.over[i]
}
