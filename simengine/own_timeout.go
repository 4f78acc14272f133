package simengine

import (
	"reflect"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// Own timeouts. A strategy that sets its attempts' timeouts itself (a
// strategies.AttemptTimer: gRPC's, Envoy's) computes them from a request's
// State, but what an attempt takes is what the strategy in effect computed
// after the request's Begin or after the retry that Policy.Retry allowed,
// and a strategy that sets none leaves it as it was: a live change away
// from gRPC leaves a request in flight the timeouts gRPC gave it, until
// the request ends, as they were when State held them. The engine keeps
// that without a word per client in the lanes that never run such a
// strategy, and without touching a table in the lanes that run one:
//
//   - an attempt sent at its request's start takes the timeout that begun
//     returns, and a retry the one that retried returned when it was
//     allowed, which its client keeps in its slot while it backs off;
//   - a client in flight under a timer computes its own timeout, unless
//     its keptBit is set: then, as under a strategy that sets none, it
//     is its entry of an ownTimeouts, which retime fills at a live change
//     of the timer for every request in flight.

// keptBit, in client.pos, says that the own timeout of the client's
// request in flight is its entry of the lane's ownTimeouts, not its
// strategy's to compute: the request began before the lane's timer came
// into effect and has not retried since.
const keptBit = 1 << 63

// ownTimeouts holds, for each client (or call) of a lane, its request's
// own timeout (0 for the lane's, or its tier's) where the lane's strategy
// does not compute it (see keptBit). It is nil, and costs nothing, in a
// lane whose strategies never set timeouts, where every one would be 0; it
// is made when a lane first has such a strategy and kept for the rest of
// the run.
type ownTimeouts []time.Duration

// of returns the own timeout of client (or call) c, entry i, whose
// strategy's timer is timer (nil: it sets none), for the attempt in
// flight or, when c backs off, the one it will send.
func (t ownTimeouts) of(i int32, c *client, timer strategies.AttemptTimer) time.Duration {
	switch {
	case t == nil:
		return 0
	case timer == nil || c.pos&keptBit != 0:
		return t[i]
	}
	return timer.AttemptTimeout(&c.st)
}

// begun returns the own timeout of the first attempt of client c's
// request, entry i, which Begin (and AllowFirst) just prepared under a
// strategy whose timer is timer.
func (t ownTimeouts) begun(i int32, c *client, timer strategies.AttemptTimer) time.Duration {
	c.pos &^= keptBit
	if timer != nil {
		return timer.AttemptTimeout(&c.st)
	}
	if t != nil {
		t[i] = 0
	}
	return 0
}

// retried returns the own timeout of client c's next attempt, entry i,
// after Policy.Retry allowed it under a strategy whose timer is timer; a
// strategy that sets none leaves the request's as it was. The caller
// clears c's keptBit as it makes c back off.
func (t ownTimeouts) retried(i int32, c *client, timer strategies.AttemptTimer) time.Duration {
	if timer != nil {
		return timer.AttemptTimeout(&c.st)
	}
	if t != nil {
		return t[i]
	}
	return 0
}

// retime keeps the own timeouts of the requests in flight among cs (the
// waiting and backing ones; of inner tier tier for calls, every one for
// tier -1) across a live change of their strategy's timer from old to
// now: each becomes its entry of *t, which it makes, zero, when now is
// the lane's first timer. It reports whether it made *t. An unchanged
// timer changes nothing.
func retime(t *ownTimeouts, cs []client, tier int, old, now strategies.AttemptTimer) (made bool) {
	if sameTimer(old, now) {
		return false
	}
	if *t == nil {
		if now == nil {
			return false // neither old nor any timer before it: every one is 0
		}
		*t, made = make(ownTimeouts, len(cs), cap(cs)), true
	}
	for i := range cs {
		c := &cs[i]
		if s := c.state(); s != waiting && s != backing || tier >= 0 && int(c.tier()) != tier {
			continue
		}
		(*t)[i] = t.of(int32(i), c, old)
		if now != nil {
			c.pos |= keptBit
		} else {
			c.pos &^= keptBit
		}
	}
	return made
}

// sameTimer reports whether timers a and b (either nil) compute the same
// timeouts: both nil, or equal values of one comparable type.
func sameTimer(a, b strategies.AttemptTimer) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}

// ownOr returns the timeout of an attempt whose own timeout is own: own
// when it is set (positive), else def.
func ownOr(own, def time.Duration) time.Duration {
	if own > 0 {
		return own
	}
	return def
}

// ownSlot returns own timeout own as a backing client's slot keeps it:
// 0 for none, and at most slotMask, some 2.3 years, beyond any run's end
// (a strategy's timeout is at most two days).
func ownSlot(own time.Duration) uint64 {
	if own <= 0 {
		return 0
	}
	return min(uint64(own), slotMask)
}

// add appends an entry for a new client or call, when t is kept.
func (t *ownTimeouts) add() {
	if *t != nil {
		*t = append(*t, 0)
	}
}

// each returns what one client (or call) costs the budget with t.
func (t ownTimeouts) each() int64 {
	if t != nil {
		return clientBytes + timeoutBytes
	}
	return clientBytes
}
