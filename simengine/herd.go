package simengine

import (
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// herdStream salts the hashes that decide which clients join a herd and
// when each sends: common to every lane, so that lanes see the same wave
// (common random numbers), and apart from the think times' and the
// arrivals' hashes.
const herdStream = 0x243f6a8885a308d3

// herd releases, now (its start), the wave of herd f. In a closed loop,
// each client that is thinking joins with probability f.M and sends its
// next request at a time drawn evenly over [f.At, f.At+f.For) (now when
// f.For is 0), instead of when its think would end: a client woken by a
// cache expiry, or restarted by a deploy, does not finish its pause. The
// clients waiting on an attempt or to retry are busy and keep their
// course. The client keeps the think time it drew, which think_scaled's
// first retry scales.
func (l *lane) herd(f scenario.Fault) {
	if l.halt != nil {
		return
	}
	if l.open {
		l.herdArrivals(f)
		return
	}
	salt := mix(l.p.Seed ^ mix(uint64(f.At)^herdStream))
	for ci := range int32(l.active) {
		if l.clients[ci].state() != thinking {
			continue
		}
		h := mix(salt ^ uint64(ci))
		if unit(h) >= f.M {
			continue
		}
		l.q.schedule(ci, l.now+time.Duration(unit(mix(h))*float64(f.For)))
	}
}

// herdArrivals releases herd f's wave in an open loop: each arrival the
// window [f.At, f.At+f.For) would bring comes now with probability f.M,
// and the others at their own times. An open loop's rate is its users'
// demand, which a herd does not raise: it synchronises requests that
// would come anyway, as the closed loop's herd brings its clients' next
// requests forward, so the run's arrivals are the same ones, only sooner.
// (Adding m × rate × for arrivals instead would raise the offered load,
// which is a load spike's part.) The window's arrivals are drawn at its
// start, at the rate then: a change of the rate within the window (a
// live change, a load spike that starts in it) applies from its end.
func (l *lane) herdArrivals(f scenario.Fault) {
	end := f.At + f.For
	salt := mix(l.p.Seed ^ mix(uint64(f.At)^herdStream))
	at := l.nextArrival
	for at < end {
		joins := unit(mix(salt^l.arrivals)) < f.M
		gap := l.arrivalGap()
		ci, c := l.requestClient()
		if c == nil {
			return
		}
		if joins {
			l.start(ci, c, gap)
		} else {
			// The arrival keeps its time: its client waits for it as a
			// closed loop's thinks, and starts it then (lane.wake).
			c.set(thinking, nowhere, uint64(gap))
			l.q.schedule(ci, at)
		}
		at += gap
	}
	l.nextArrival = at
	l.q.schedule(0, at)
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) * 0x1p-53 }
