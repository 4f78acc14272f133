package simengine

import (
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// Layered retries. A lane with tiers puts services between its clients
// and its server: a client's attempt is a call at the top inner tier, a
// call's attempt is a call at the tier below it, and the bottom tier's
// attempts meet the server as a client's do without tiers. Each call
// retries by its tier's policy, so the attempts multiply down the chain.
//
// A call answers its caller at once on its first success, or with an
// error once its policy gives up. A caller whose attempt times out moves
// on, by its own policy; its call is orphaned and works on, since no tier
// passes its deadline down (that is where the amplification comes from),
// unless the lane cancels on timeout: then the abandoned call and
// everything below it end at once, the server letting go of its request.
//
// A call is a client-shaped entry of lane.calls, its event in lane.cq.
// Its caller's current attempt is the call exactly when the caller waits
// with in = inTier and slot = the call's index (client.owns), and a call's
// index is reused only once it has ended: an orphan's answer never
// matches its caller's later attempt.

// scheduleCall sets call x's event to d from now. The calls' queue draws
// its sequence numbers from the clients' queue, so that the events of
// both are in one (time, seq) order.
func (l *lane) scheduleCall(x int32, d time.Duration) {
	l.cq.seq = l.q.seq
	l.cq.scheduleIn(x, l.now, d)
	l.q.seq = l.cq.seq
}

// newCall returns a free call's index: an ended one's, or a new one whose
// memory comes from the run's budget; false when the budget halted the
// lane.
func (l *lane) newCall() (int32, bool) {
	if k := len(l.freeCalls); k > 0 {
		x := l.freeCalls[k-1]
		l.freeCalls = l.freeCalls[:k-1]
		return x, true
	}
	if !l.grow(&l.callHeld, int64(len(l.calls)+1)*l.callTimeouts.each()) {
		return 0, false
	}
	l.calls = append(l.calls, client{})
	l.calls[len(l.calls)-1].setState(retired)
	l.callTimeouts.add()
	return int32(len(l.calls) - 1), true
}

// caller returns the caller of a call of inner tier k: client i at the
// top tier (k = 0), else call i of tier k-1.
func (l *lane) caller(k uint8, i int32) *client {
	if k == 0 {
		return &l.clients[i]
	}
	return &l.calls[i]
}

// call carries the current attempt of caller, a client (k = 0) or a call
// of tier k-1, in a new call at inner tier k.
func (l *lane) call(k uint8, caller int32) {
	x, ok := l.newCall()
	if !ok {
		return
	}
	// The caller's attempt is the call from now, before the call can
	// answer it (a refused first attempt answers at once).
	p := l.caller(k, caller)
	p.place(inTier, uint64(x))
	c := &l.calls[x]
	*c = client{pos: tierPos(k), link: uint32(caller), seq: c.seq}
	t := &l.tiers[k]
	t.pol.Begin(&c.st, l.now, 0)
	if !t.pol.AllowFirst(&c.st, l.now, l.rng) {
		// A limit of the tier (a breaker) refused the call: it fails fast.
		l.answer(x, strategies.Error)
		return
	}
	l.callAttempt(x, l.callTimeouts.begun(x, c, t.timer))
}

// callAttempt sends call x's next attempt, whose own timeout is own (0:
// its tier's): to the next tier, or from the bottom tier to the server.
func (l *lane) callAttempt(x int32, own time.Duration) {
	c := &l.calls[x]
	k := c.tier()
	c.send()
	l.tick.tier[k]++
	l.scheduleCall(x, ownOr(own, l.tiers[k].timeout))
	if int(k)+1 < len(l.tiers) {
		l.call(k+1, x) // may grow l.calls: c is stale from here
		return
	}
	l.enter(x, c)
}

// wakeCall handles call x's event: its retry is due, or its attempt timed
// out.
func (l *lane) wakeCall(x int32) {
	c := &l.calls[x]
	switch c.state() {
	case backing:
		if !l.tiers[c.tier()].pol.AllowSend(&c.st, l.now, l.rng) {
			// A limit of the tier (a breaker) refused the retry when
			// it was due: the call fails fast.
			l.answer(x, strategies.Error)
			return
		}
		l.callAttempt(x, time.Duration(c.slot()))
	case waiting:
		if l.cancel {
			l.cancelRequest(x, c)
		} else {
			l.abandon(x, c)
		}
		l.callFailed(x, strategies.Timeout)
	}
}

// callFailed moves call x on after its attempt failed now with outcome o:
// it retries by its tier's policy, or answers its caller with an error.
func (l *lane) callFailed(x int32, o strategies.Outcome) {
	c := &l.calls[x]
	t := &l.tiers[c.tier()]
	t.pol.Record(&c.st, l.now, o)
	d, ok := t.pol.Retry(&c.st, l.now, l.rng)
	if !ok {
		l.answer(x, strategies.Error)
		return
	}
	// Until the retry is due, the slot keeps its attempt's own timeout.
	c.set(backing, nowhere, ownSlot(l.callTimeouts.retried(x, c, t.timer)))
	l.scheduleCall(x, d)
}

// callSucceeded ends call x with the success of its attempt now, and
// answers its caller.
func (l *lane) callSucceeded(x int32) {
	c := &l.calls[x]
	l.tiers[c.tier()].pol.Record(&c.st, l.now, strategies.Success)
	l.answer(x, strategies.Success)
}

// answer ends call x and gives its outcome (Success or Error) to its
// caller, if the caller still waits on it.
func (l *lane) answer(x int32, o strategies.Outcome) {
	c := &l.calls[x]
	i, k := int32(c.link), c.tier()
	l.endCall(x)
	p := l.caller(k, i)
	if !p.owns(inTier, uint64(x)) {
		return // an orphan: its caller timed out and moved on
	}
	switch {
	case k > 0 && o == strategies.Success:
		l.callSucceeded(i)
	case k > 0:
		l.callFailed(i, strategies.Error)
	case o == strategies.Success:
		l.succeeded(i, p)
	default:
		l.tick.errors++
		l.failed(i, p, strategies.Error)
	}
}

// cancelCall ends call x and everything below it now, its caller having
// left (cancel_on_timeout): its attempt leaves the server, the backlog or
// the next tier, and its pending retry stops.
func (l *lane) cancelCall(x int32) {
	if c := &l.calls[x]; c.state() == waiting {
		l.cancelRequest(x, c)
	}
	l.endCall(x)
}

// endCall frees call x for a later one.
func (l *lane) endCall(x int32) {
	c := &l.calls[x]
	c.set(retired, nowhere, 0)
	l.cq.remove(x) // a call refused at once never had an event: nothing to remove
	l.freeCalls = append(l.freeCalls, x)
}
