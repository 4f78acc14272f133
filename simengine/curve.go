package simengine

import (
	"time"

	"backofflab/scenario"
)

// curve is a scenario.Curve with its delays kept per concurrency level once
// computed, since the engine asks for one at every arrival and completion.
// At most maxOver levels are kept: a flat curve (a factor near 1, a large
// k) that never reaches Max would otherwise keep one per request queued.
type curve struct {
	scenario.Curve
	over   []time.Duration // over[i] is the delay at Limit+1+i
	capped bool            // over's last entry reached Max
}

// maxOver bounds a curve's cache: 64 Ki levels, 512 KiB.
const maxOver = 1 << 16

func newCurve(p *scenario.Params) curve { return curve{Curve: scenario.CurveOf(p)} }

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
