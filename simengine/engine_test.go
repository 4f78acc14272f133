package simengine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// This file holds the engine's bookkeeping, determinism and live-change
// tests, and the helpers that outage_test.go and model_test.go share. Every
// helper's name starts with sim so that it cannot clash with the helpers of
// the package's other test files.

// simLane returns a lane with strategy name and that strategy's defaults.
func simLane(name string) scenario.Lane {
	p, ok := strategies.Defaults(name)
	if !ok {
		panic("simLane: no strategy " + name)
	}
	return scenario.Lane{Params: p}
}

// simSmall is the small outage scenario of these tests: 300 clients
// thinking 2 s with a 1 s timeout, a 5 s pause at 10 s, 30 s in all, lane a
// fixed and lane b exponential. Steady load is 300/2.1 s ≈ 143 req/s with
// concurrency ≈ 14, under the server's limit of 30.
func simSmall() scenario.Params {
	p := scenariotest.CurveDefaults()
	p.Clients = 300
	p.Think = 2 * time.Second
	p.Timeout = time.Second
	p.OutageAt = 10 * time.Second
	p.OutageFor = 5 * time.Second
	p.Duration = 30 * time.Second
	p.Lanes = []scenario.Lane{simLane(strategies.NameFixed), simLane(strategies.NameExponential)}
	return p
}

// simNew returns a new Engine for p and fails the test if p is rejected.
func simNew(t testing.TB, p scenario.Params) *Engine {
	t.Helper()
	e, err := New(p)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

// simAdvance advances e to to and returns the ticks it emitted.
func simAdvance(t testing.TB, e *Engine, to time.Duration) []scenario.Tick {
	t.Helper()
	var ticks []scenario.Tick
	e.AdvanceTo(to, func(tk scenario.Tick) { ticks = append(ticks, tk) })
	if e.Now() != to {
		t.Fatalf("after AdvanceTo(%v): Now() = %v", to, e.Now())
	}
	return ticks
}

// simRun runs p from 0 to p.Duration in one step and returns the engine and
// every tick.
func simRun(t testing.TB, p scenario.Params) (*Engine, []scenario.Tick) {
	t.Helper()
	e := simNew(t, p)
	return e, simAdvance(t, e, p.Duration)
}

// simSeries returns lane i's share of ticks.
func simSeries(ticks []scenario.Tick, i int) []scenario.LaneTick {
	out := make([]scenario.LaneTick, len(ticks))
	for k, tk := range ticks {
		out[k] = tk.Lanes[i]
	}
	return out
}

// simWindow returns the lane ticks whose end t is in (from, to], in seconds.
// The tick times are k*tick in float64, so the bounds get a small margin.
func simWindow(lts []scenario.LaneTick, from, to float64) []scenario.LaneTick {
	var out []scenario.LaneTick
	for _, lt := range lts {
		if lt.T > from+1e-9 && lt.T <= to+1e-9 {
			out = append(out, lt)
		}
	}
	return out
}

// simAt returns the lane tick that ends at sec seconds.
func simAt(t testing.TB, lts []scenario.LaneTick, sec float64) scenario.LaneTick {
	t.Helper()
	for _, lt := range lts {
		if math.Abs(lt.T-sec) < 1e-9 {
			return lt
		}
	}
	t.Fatalf("no tick at t=%v", sec)
	return scenario.LaneTick{}
}

// simMean returns the mean of f over lts.
func simMean(lts []scenario.LaneTick, f func(scenario.LaneTick) float64) float64 {
	if len(lts) == 0 {
		return math.NaN()
	}
	var s float64
	for _, lt := range lts {
		s += f(lt)
	}
	return s / float64(len(lts))
}

// simCSV renders ticks as CSV rows: it compares ticks bit for bit (NaN
// included, which reflect.DeepEqual would not).
func simCSV(ticks []scenario.Tick) []byte {
	var b []byte
	for _, tk := range ticks {
		for i := range tk.Lanes {
			b = tk.Lanes[i].AppendCSV(b, scenario.LaneNames[i:i+1])
		}
	}
	return b
}

// simSameTicks fails the test unless a and b are identical.
func simSameTicks(t testing.TB, what string, a, b []scenario.Tick) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d ticks against %d", what, len(a), len(b))
	}
	for k := range a {
		ca, cb := simCSV(a[k:k+1]), simCSV(b[k:k+1])
		if a[k].T != b[k].T || !bytes.Equal(ca, cb) {
			t.Fatalf("%s: first difference at tick %d (t=%v):\n%s\nagainst\n%s", what, k, a[k].T, ca, cb)
		}
	}
}

// simJSON renders v as JSON, to compare summaries with pointer fields.
func simJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// simCheck checks every invariant of e's lanes that holds between two calls
// of e's methods, and reports each broken one with where. dropped[i] counts
// lane i's attempts that were in flight when their client was removed by a
// smaller client count: those attempts end neither in ok, error nor timeout.
func simCheck(t testing.TB, e *Engine, where string, dropped []int64) {
	t.Helper()
	for i, l := range e.lanes {
		var extra int64
		if dropped != nil {
			extra = dropped[i]
		}
		simCheckLane(t, e, l, fmt.Sprintf("%s, lane %c", where, scenario.LaneNames[i]), extra)
	}
}

func simCheckLane(t testing.TB, e *Engine, l *lane, where string, dropped int64) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf("%s: %s", where, fmt.Sprintf(format, args...))
	}
	if l.now != e.now {
		fail("lane time %v, engine time %v", l.now, e.now)
	}

	// The server's state follows the engine's.
	var want *failure
	if e.down {
		want = failureOf(e.p.Outage)
	}
	if l.fail != want {
		fail("server failure %s, want %s (down=%v, outage=%s)", failName(l.fail), failName(want), e.down, e.p.Outage)
	}

	// Clients' own timeouts: kept, one each, once the lane's strategy sets them.
	if l.timer != nil && l.timeouts == nil {
		fail("the lane's strategy sets its timeouts, and its clients keep none")
	}
	if l.timeouts != nil && len(l.timeouts) != len(l.clients) {
		fail("%d clients' own timeouts for %d clients", len(l.timeouts), len(l.clients))
	}

	// Clients: recount the states.
	var nWaiting, nBacking int
	for ci := range l.clients {
		c := &l.clients[ci]
		if ci >= l.active {
			if c.state() != retired {
				fail("client %d beyond active %d is in state %d", ci, l.active, c.state())
			}
			continue
		}
		// Think times are the common-random-number stream: the client's
		// k-th think time, whatever the lane, which a thinking client
		// keeps in its slot for its next request's Begin.
		if th := time.Duration(c.slot()); c.state() == thinking && c.link > 0 && th != l.thinkTime(int32(ci), c.link) {
			fail("client %d's think time %v is not its think time number %d", ci, th, c.link)
		}
		switch c.state() {
		case waiting:
			nWaiting++
		case backing:
			nBacking++
		case retired:
			fail("active client %d is retired", ci)
		}
	}
	if l.waiting != nWaiting {
		fail("l.waiting = %d, recount %d", l.waiting, nWaiting)
	}
	if l.inBackoff != nBacking {
		fail("l.inBackoff = %d, recount %d", l.inBackoff, nBacking)
	}

	// Counters: every request is ok, given up or open; every attempt is ok,
	// an error, a timeout, still in flight or dropped with its client.
	var total counters
	total.add(l.total)
	total.add(l.tick)
	s := l.summary()
	if s.Requests != s.Succeeded+s.GaveUp+s.Open {
		fail("requests %d != succeeded %d + gave_up %d + open %d", s.Requests, s.Succeeded, s.GaveUp, s.Open)
	}
	if s.Open != int64(nWaiting+nBacking) {
		fail("open %d, but %d clients are waiting and %d backing off", s.Open, nWaiting, nBacking)
	}
	if got := total.ok + total.errors + total.timeouts + int64(nWaiting) + dropped; total.attempts != got {
		fail("attempts %d != ok %d + errors %d + timeouts %d + waiting %d + dropped with their client %d",
			total.attempts, total.ok, total.errors, total.timeouts, nWaiting, dropped)
	}
	if s.Attempts != total.attempts || s.Requests != total.requests || s.Succeeded != total.ok || s.GaveUp != total.gaveUp {
		fail("summary %+v does not match the counters %+v", s, total)
	}
	// Each request's first attempt goes out when it begins; every other
	// attempt is a retry.
	if total.attempts != total.requests+total.retries {
		fail("attempts %d != requests %d + retries %d", total.attempts, total.requests, total.retries)
	}

	// The server queue and the backlog: live counts, oldest first, and every
	// request that a client still waits on is where the client thinks it is.
	strict := l.cancel && dropped == 0
	owner := map[int32]bool{}
	checkReq := func(name string, in uint8, abs uint64, c int32) bool {
		t.Helper()
		switch c {
		case cancelledReq: // in the server or the backlog
			return false
		case abandonedReq:
			if strict {
				fail("%s: request %d was abandoned but not cancelled", name, abs)
			}
			return true
		}
		cl := l.at(c) // a client, or with tiers a call of the bottom one
		if in == inServer && !(cl.state() == waiting && cl.in() == in && cl.slot() == abs) {
			fail("%s: request %d is client %d's, which no longer waits on it (at (%d, %d), state %d)",
				name, abs, c, cl.in(), cl.slot(), cl.state())
		} // a client, or with tiers a call of the bottom one
		if cl.state() == waiting && cl.in() == in && cl.slot() == abs {
			if owner[c] {
				fail("client %d has two requests in flight", c)
			}
			owner[c] = true
		} else if strict {
			fail("%s: request %d of client %d (client at (%d, %d), state %d) was abandoned but not cancelled",
				name, abs, c, cl.in(), cl.slot(), cl.state())
		}
		return true
	}
	live, last := 0, time.Duration(math.MinInt64)
	curveIn(l).q.each(func(abs uint64, start time.Duration, c int32) {
		if start < last {
			fail("server: request %d started at %v after one at %v: not oldest first", abs, start, last)
		}
		last = start
		if checkReq("server", inServer, abs, c) {
			live++
		}
	})
	if curveIn(l).q.len() > 0 && last != curveIn(l).q.last {
		fail("server: the newest request started at %v, the queue says %v", last, curveIn(l).q.last)
	}
	if live != curveIn(l).live {
		fail("server: %d live requests, counter says %d", live, curveIn(l).live)
	}
	live = 0
	for abs := l.backlog.base; abs < l.backlog.base+uint64(l.backlog.n); abs++ {
		if checkReq("backlog", inBacklog, abs, *l.backlog.at(abs)) {
			live++
		}
	}
	if live != l.blLive {
		fail("backlog: %d live requests, counter says %d", live, l.blLive)
	}
	// Every client (with tiers, every call) that waits on a request in
	// the server or the backlog finds it there.
	owners := l.clients[:l.active]
	if len(l.tiers) > 0 {
		owners = l.calls
	}
	for ci := range owners {
		c := &owners[ci]
		if c.state() != waiting || owner[int32(ci)] {
			continue
		}
		if c.in() == inServer && curveIn(l).q.holds(c.slot()) || c.in() == inBacklog && l.backlog.at(c.slot()) != nil {
			fail("client %d thinks its request is at (%d, %d), which holds another", ci, c.in(), c.slot())
		}
	}
	if q := &curveIn(l).q; q.len() > 0 && q.frontCancelled() {
		fail("the server's oldest request is a cancelled one")
	}
	if q := &curveIn(l).q; q.owners.n > 2*(q.waiting+q.cancelled)+chunkLen+1 {
		fail("the server keeps %d owners for %d requests waited on and %d cancelled", q.owners.n, q.waiting, q.cancelled)
	}
	if l.fail != failures[scenario.OutagePause] && l.backlog.n != 0 {
		fail("server failure %s with %d requests in the backlog", failName(l.fail), l.backlog.n)
	}
	if l.backlog.n > e.p.Backlog && l.fail == failures[scenario.OutagePause] {
		// Set may lower backlog below what is already queued; otherwise never.
		fail("backlog %d over its limit %d", l.backlog.n, e.p.Backlog)
	}
	if l.fail == failures[scenario.OutageCrash] && curveIn(l).q.len() != 0 {
		fail("crashed server holds %d requests", curveIn(l).q.len())
	}

	// The current tick's highest concurrency is at least the level now.
	if l.tickMaxC < curveIn(l).live {
		fail("the tick's highest concurrency %d is under the concurrency %d", l.tickMaxC, curveIn(l).live)
	}

	// The next completion.
	switch {
	case curveIn(l).live == 0 || l.fail == failures[scenario.OutagePause] || l.fail == failures[scenario.OutageCrash]:
		if l.next != never {
			fail("next completion at %v with live %d in failure %s", l.next, curveIn(l).live, failName(l.fail))
		}
	default:
		start := curveIn(l).q.start
		due := start + curveIn(l).curve.delay(curveIn(l).live)
		if want := max(due, l.now); l.next != want {
			fail("next completion at %v, want max(oldest start %v + delay(%d) %v, now %v) = %v",
				l.next, start, curveIn(l).live, curveIn(l).curve.delay(curveIn(l).live), l.now, want)
		}
	}

	// The event queue: one event per active client, a consistent radix
	// heap, and nothing in the past.
	q := &l.q
	if err := q.check(); err != nil {
		fail("event queue: %v", err)
	}
	evs := q.events()
	if len(evs) != l.active || q.len() != l.active {
		fail("%d events (%d counted) for %d active clients", len(evs), q.len(), l.active)
	}
	for i, ev := range evs {
		if int(ev.c) >= l.active || ev.c < 0 {
			fail("event %d belongs to client %d, not active", i, ev.c)
			continue
		}
		if ev.at < l.now {
			fail("client %d's event at %v is in the past (now %v)", ev.c, ev.at, l.now)
		}
		c := &l.clients[ev.c]
		switch c.state() {
		case waiting:
			if want := c.st.AttemptStart + ownOr(l.timeouts.of(ev.c, c, l.timer), e.p.Timeout); ev.at != want {
				fail("waiting client %d times out at %v, want %v", ev.c, ev.at, want)
			}
		case backing:
			if ev.at != c.st.AttemptStart {
				fail("backing client %d wakes at %v, its next attempt starts at %v", ev.c, ev.at, c.st.AttemptStart)
			}
			if want := ownSlot(l.timeouts.of(ev.c, c, l.timer)); c.slot() != want {
				fail("backing client %d keeps own timeout %d, its entry is %d", ev.c, c.slot(), want)
			}
		}
	}
	for ci := l.active; ci < len(l.clients); ci++ {
		if q.has(int32(ci)) {
			fail("retired client %d still has an event", ci)
		}
	}
	simCheckCalls(e, l, fail, strict)
	simCheckRequests(t, l, where)
}

// simCheckCalls checks lane l's calls of layered retries: one event per
// call alive, a consistent heap whose sequence numbers no client event
// shares, every ended call once in the free list, every caller's call
// alive and pointing back at it, the budget holding them all, and when the
// lane cancels on timeout (strict), no orphan.
func simCheckCalls(e *Engine, l *lane, fail func(string, ...any), strict bool) {
	if len(l.tiers) == 0 {
		if len(l.calls) != 0 || l.cq.len() != 0 || l.total.tier != [scenario.MaxTiers]int64{} || l.tick.tier != [scenario.MaxTiers]int64{} {
			fail("a lane without tiers has %d calls, %d call events, tier attempts %v + %v", len(l.calls), l.cq.len(), l.total.tier, l.tick.tier)
		}
		return
	}
	for k := len(l.tiers); k < scenario.MaxTiers; k++ {
		if l.total.tier[k]+l.tick.tier[k] != 0 {
			fail("tier %d, which the lane has not, sent attempts", k+2)
		}
	}
	if cost := int64(len(l.calls)) * l.callTimeouts.each(); l.halt == nil && l.callHeld != cost {
		fail("the calls hold %d bytes of the budget, %d calls cost %d", l.callHeld, len(l.calls), cost)
	}
	if l.callTimeouts != nil && len(l.callTimeouts) != len(l.calls) {
		fail("%d calls' own timeouts for %d calls", len(l.callTimeouts), len(l.calls))
	}
	for k, t := range l.tiers {
		if t.timer != nil && l.callTimeouts == nil {
			fail("tier %d's strategy sets its timeouts, and the calls keep none", k+2)
		}
	}
	free := map[int32]bool{}
	for _, x := range l.freeCalls {
		if free[x] {
			fail("call %d is twice in the free list", x)
		}
		free[x] = true
	}
	live := 0
	callEvents := map[int32]event{}
	for _, ev := range l.cq.events() {
		callEvents[ev.c] = ev
	}
	for x := range l.calls {
		c := &l.calls[x]
		if c.state() == retired {
			if !free[int32(x)] {
				fail("ended call %d is not in the free list: a leak", x)
			}
			if l.cq.has(int32(x)) {
				fail("ended call %d still has an event", x)
			}
			continue
		}
		live++
		if free[int32(x)] {
			fail("call %d is alive (state %d) and in the free list", x, c.state())
		}
		if c.state() != waiting && c.state() != backing {
			fail("call %d in state %d", x, c.state())
		}
		if int(c.tier()) >= len(l.tiers) {
			fail("call %d of tier %d, the lane has %d", x, c.tier()+2, len(l.tiers))
			continue
		}
		if ev, ok := callEvents[int32(x)]; !ok {
			fail("call %d (state %d) has no event", x, c.state())
		} else if want := c.st.AttemptStart + ownOr(l.callTimeouts.of(int32(x), c, l.tiers[c.tier()].timer), l.tiers[c.tier()].timeout); c.state() == waiting && ev.at != want {
			fail("waiting call %d times out at %v, want %v", x, ev.at, want)
		} else if c.state() == backing && ev.at != c.st.AttemptStart {
			fail("backing call %d wakes at %v, its next attempt starts at %v", x, ev.at, c.st.AttemptStart)
		}
		// Its caller waits on it, unless it is an orphan, which no
		// caller waits on when the lane cancels.
		p := l.caller(c.tier(), int32(c.link))
		if strict && !p.owns(inTier, uint64(x)) {
			fail("call %d of tier %d is an orphan (caller %d in state %d at (%d, %d)) though the lane cancels",
				x, c.tier()+2, c.link, p.state(), p.in(), p.slot())
		}
	}
	if live+len(l.freeCalls) != len(l.calls) {
		fail("%d calls alive and %d free, of %d", live, len(l.freeCalls), len(l.calls))
	}
	if len(callEvents) != live || l.cq.len() != live {
		fail("%d call events (%d counted) for %d calls alive", len(callEvents), l.cq.len(), live)
	}
	// Every caller that waits at the next tier finds its own call there.
	check := func(who string, i int, c *client, k int) {
		if c.state() != waiting || c.in() != inTier {
			return
		}
		x := c.slot()
		if x >= uint64(len(l.calls)) || l.calls[x].state() == retired || l.calls[x].tier() != uint8(k) || l.calls[x].link != uint32(i) {
			fail("%s %d waits on call %d, which is not its own", who, i, x)
		}
	}
	for ci := range l.clients[:l.active] {
		check("client", ci, &l.clients[ci], 0)
	}
	for x := range l.calls {
		if c := &l.calls[x]; c.state() != retired && int(c.tier())+1 < len(l.tiers) {
			check("call", x, c, int(c.tier())+1)
		} else if c.state() == waiting && c.in() == inTier {
			fail("call %d of the bottom tier waits at a tier below", x)
		}
	}
	// The queue, and the sequence numbers shared with the clients' events.
	if err := l.cq.check(); err != nil {
		fail("calls' queue: %v", err)
	}
	seqs := map[uint32]bool{}
	for _, ev := range l.q.events() {
		seqs[ev.seq] = true
	}
	for _, ev := range l.cq.events() {
		if ev.at < l.now {
			fail("call %d's event at %v is in the past (now %v)", ev.c, ev.at, l.now)
		}
		if seqs[ev.seq] {
			fail("call %d's event has the sequence number %d of another event", ev.c, ev.seq)
		}
		seqs[ev.seq] = true
	}
}

// simCheckTicks checks that the rates of the ticks emitted so far add up to
// lane i's counters since the start.
func simCheckTicks(t testing.TB, e *Engine, ticks []scenario.Tick, where string) {
	t.Helper()
	sec := e.p.Tick.Seconds()
	for i, l := range e.lanes {
		var sum counters
		for _, tk := range ticks {
			lt := tk.Lanes[i]
			n := func(rate float64) int64 { return int64(math.Round(rate * sec)) }
			sum.ok += n(lt.OK)
			sum.errors += n(lt.Errors)
			sum.timeouts += n(lt.Timeouts)
			sum.attempts += n(lt.Attempts)
			sum.retries += n(lt.Retries)
			sum.gaveUp += n(lt.GaveUp)
			for k, v := range []float64{lt.T2Attempts, lt.T3Attempts, lt.T4Attempts} {
				sum.tier[k] += n(v)
			}
		}
		sum.requests = l.total.requests // ticks carry no request rate
		if sum != l.total {
			t.Errorf("%s, lane %c: the ticks add up to %+v, the counters to %+v", where, scenario.LaneNames[i], sum, l.total)
		}
	}
}

// unevenSteps are the lengths of simAdvanceUnevenly's steps, in turn: off
// tick boundaries, one nanosecond, several ticks at once.
var unevenSteps = []time.Duration{37 * time.Millisecond, time.Second, 3300 * time.Millisecond, 1, 101 * time.Millisecond, 2 * time.Second}

// simAdvanceUnevenly advances e in unevenSteps up to each moment of
// checkAt in turn, calls step (unless nil) after each step, and at each
// moment checks that every count adds up, up to the ticks so far; it stops
// the test at the first failure and returns the ticks.
func simAdvanceUnevenly(t *testing.T, e *Engine, checkAt []time.Duration, step func(now time.Duration)) []scenario.Tick {
	t.Helper()
	var ticks []scenario.Tick
	emit := func(tk scenario.Tick) { ticks = append(ticks, tk) }
	now, k := time.Duration(0), 0
	for _, at := range checkAt {
		for now < at {
			now = min(now+unevenSteps[k%len(unevenSteps)], at)
			k++
			e.AdvanceTo(now, emit)
			if step != nil {
				step(now)
			}
		}
		simCheck(t, e, fmt.Sprintf("at %v", at), nil)
		simCheckTicks(t, e, ticks, fmt.Sprintf("at %v", at))
		if t.Failed() {
			t.FailNow()
		}
	}
	return ticks
}

// TestEngineBookkeeping runs every strategy against every outage kind, with
// cancel_on_timeout off and on, in uneven steps, and checks after each step
// that time only moves forward and at chosen moments (before, at, inside
// and after the outage, on and off tick boundaries) that every count adds up.
func TestEngineBookkeeping(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	checkAt := []time.Duration{
		3700 * ms, 10 * time.Second, 10*time.Second + 1, 10050 * ms, 12345 * ms, 17*time.Second + 999999999,
		18 * time.Second, 18*time.Second + 1, 19500 * ms, 25 * time.Second, 33333 * ms, 40 * time.Second,
	}
	for _, kind := range []string{scenario.OutagePause, scenario.OutageCrash, scenario.OutagePartition} {
		for _, cancel := range []bool{false, true} {
			for _, name := range strategies.Names() {
				t.Run(fmt.Sprintf("%s/cancel=%v/%s", kind, cancel, name), func(t *testing.T) {
					p := simSmall()
					p.Clients = 200
					p.Outage = kind
					p.OutageAt, p.OutageFor = 10*time.Second, 8*time.Second
					p.Duration = 40 * time.Second
					// scenario.Lane a has the strategy under test; lane b the same one
					// with max_attempts 3 and a 5 s deadline, so that requests
					// also give up.
					a := simLane(name)
					a.CancelOnTimeout = cancel
					// gRPC's attempts last at least min_connect_timeout: 20 s
					// would outlast the outage.
					a.MinConnectTimeout = time.Second
					b := a
					b.MaxAttempts, b.Deadline = 3, 5*time.Second
					p.Lanes = []scenario.Lane{a, b}
					e := simNew(t, p)
					ticks := simAdvanceUnevenly(t, e, checkAt, func(now time.Duration) {
						for i, l := range e.lanes {
							if l.now != now {
								t.Fatalf("lane %c at %v after AdvanceTo(%v)", scenario.LaneNames[i], l.now, now)
							}
							if top := l.q.top(); top.at < now || l.next < now {
								t.Fatalf("lane %c has an event in the past at %v: next client event %v, completion %v",
									scenario.LaneNames[i], now, top.at, l.next)
							}
						}
					})
					if want := int(checkAt[len(checkAt)-1] / p.Tick); len(ticks) != want {
						t.Errorf("%d ticks, want %d", len(ticks), want)
					}
					for k, tk := range ticks {
						if want := time.Duration(k+1) * p.Tick; math.Abs(tk.T-want.Seconds()) > 1e-9 {
							t.Fatalf("tick %d at t=%v, want %v", k, tk.T, want.Seconds())
						}
					}
					// The scenario must exercise what it checks.
					sa := e.Summaries()
					if sa[0].Requests == 0 || sa[0].Succeeded == 0 {
						t.Errorf("lane a did nothing: %+v", sa[0])
					}
					if name != strategies.NameNone && sa[0].Attempts <= sa[0].Requests {
						t.Errorf("lane a never retried: %+v", sa[0])
					}
					if sa[1].GaveUp == 0 {
						t.Errorf("lane b never gave up despite max_attempts 3: %+v", sa[1])
					}
				})
			}
		}
	}
}

// TestEngineEventOrder steps the engine from one event time to the next and
// checks that virtual time never goes backwards: no event is ever scheduled
// before the time the lane has reached, at any instant of a run with an
// outage, a flood and a retry storm.
func TestEngineEventOrder(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{scenario.OutagePause, scenario.OutageCrash, scenario.OutagePartition} {
		for _, cancel := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/cancel=%v", kind, cancel), func(t *testing.T) {
				p := simSmall()
				p.Outage = kind
				for i := range p.Lanes {
					p.Lanes[i].CancelOnTimeout = cancel
				}
				e := simNew(t, p)
				steps := 0
				for e.Now() < p.Duration {
					next := p.Duration
					for _, l := range e.lanes {
						next = min(next, l.q.top().at, l.next)
					}
					if next < e.Now() {
						t.Fatalf("at %v: an event is pending at %v", e.Now(), next)
					}
					// Process the events at exactly next, then look again.
					to := min(next+1, p.Duration)
					e.AdvanceTo(to, nil)
					steps++
					for i, l := range e.lanes {
						if l.now != to {
							t.Fatalf("lane %c at %v, want %v", scenario.LaneNames[i], l.now, to)
						}
						if top := l.q.top(); top.at < to || l.next < to {
							t.Fatalf("lane %c at %v: event at %v, completion at %v", scenario.LaneNames[i], to, top.at, l.next)
						}
					}
					if steps%2000 == 0 {
						simCheck(t, e, fmt.Sprintf("step %d at %v", steps, to), nil)
					}
				}
				if steps < 5000 {
					t.Errorf("only %d steps: the run is too quiet to test the order of events", steps)
				}
				simCheck(t, e, "at the end", nil)
			})
		}
	}
}

// TestEngineDeterminism checks that the same parameters give the same run,
// bit for bit, however AdvanceTo's steps fall, and that the seed matters.
func TestEngineDeterminism(t *testing.T) {
	t.Parallel()
	p := simSmall()
	p.Lanes = append(p.Lanes, simLane(strategies.NameThinkScaled), simLane(strategies.NameGRPC))
	p.Lanes[1].CancelOnTimeout = true

	t.Run("csv", func(t *testing.T) {
		var a, b bytes.Buffer
		if err := WriteCSV(context.Background(), &a, p, nil); err != nil {
			t.Fatal(err)
		}
		if err := WriteCSV(context.Background(), &b, p, nil); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatal("two runs of the same parameters wrote different CSV")
		}
		if rows := strings.Count(a.String(), "\n"); rows != 1+len(p.Lanes)*int(p.Duration/p.Tick) {
			t.Errorf("%d rows of CSV, want %d", rows, 1+len(p.Lanes)*int(p.Duration/p.Tick))
		}
		q := p
		q.Seed = 2
		var c bytes.Buffer
		if err := WriteCSV(context.Background(), &c, q, nil); err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(a.Bytes(), c.Bytes()) {
			t.Fatal("seeds 1 and 2 wrote the same CSV")
		}
	})

	t.Run("steps", func(t *testing.T) {
		e1, one := simRun(t, p)
		e2 := simNew(t, p)
		var many []scenario.Tick
		steps := []time.Duration{37 * time.Millisecond, time.Second, 3300 * time.Millisecond, 1, 0,
			99 * time.Millisecond, 100 * time.Millisecond, 5 * time.Second, 7}
		for k := 0; e2.Now() < p.Duration; k++ {
			to := min(e2.Now()+steps[k%len(steps)], p.Duration)
			e2.AdvanceTo(to, func(tk scenario.Tick) { many = append(many, tk) })
			// A time in the past is ignored.
			e2.AdvanceTo(to-time.Second, func(scenario.Tick) { t.Fatal("AdvanceTo into the past emitted a tick") })
		}
		simSameTicks(t, "one step against many", one, many)
		if a, b := simJSON(t, e1.Summaries()), simJSON(t, e2.Summaries()); a != b {
			t.Errorf("summaries differ:\n%s\n%s", a, b)
		}
	})

	t.Run("common random numbers", func(t *testing.T) {
		// Lanes with the same strategy parameters are the same world.
		q := simSmall()
		q.Lanes = []scenario.Lane{simLane(strategies.NameExponential), simLane(strategies.NameFixed), simLane(strategies.NameExponential)}
		_, ticks := simRun(t, q)
		a, b, c := simSeries(ticks, 0), simSeries(ticks, 1), simSeries(ticks, 2)
		for k := range a {
			ra, rc := a[k].AppendCSV(nil, "x"), c[k].AppendCSV(nil, "x")
			if !bytes.Equal(ra, rc) {
				t.Fatalf("lanes a and c have the same strategy but differ at t=%v:\n%s%s", a[k].T, ra, rc)
			}
		}
		// Lanes with different strategies differ only once retries begin:
		// with these parameters, not before the outage.
		before := simWindow(a, 0, q.OutageAt.Seconds())
		for k := range before {
			if before[k].Timeouts != 0 || before[k].Retries != 0 {
				t.Fatalf("a retry before the outage at t=%v: the scenario does not test what it says", before[k].T)
			}
			ra, rb := a[k].AppendCSV(nil, "x"), b[k].AppendCSV(nil, "x")
			if !bytes.Equal(ra, rb) {
				t.Fatalf("lanes a and b differ before the outage, at t=%v:\n%s%s", a[k].T, ra, rb)
			}
		}
		differ := false
		for k := len(before); k < len(a); k++ {
			differ = differ || !bytes.Equal(a[k].AppendCSV(nil, "x"), b[k].AppendCSV(nil, "x"))
		}
		if !differ {
			t.Error("lanes fixed and exponential never differ")
		}
		// Defaults: lanes fixed and think_scaled agree until the pause.
		d := scenariotest.CurveDefaults()
		d.Duration = 25 * time.Second
		_, dt := simRun(t, d)
		for _, tk := range dt {
			if tk.T > d.OutageAt.Seconds()+1e-9 {
				break
			}
			ra, rb := tk.Lanes[0].AppendCSV(nil, "x"), tk.Lanes[1].AppendCSV(nil, "x")
			if !bytes.Equal(ra, rb) {
				t.Fatalf("default lanes differ before the outage, at t=%v:\n%s%s", tk.T, ra, rb)
			}
		}
	})
}

// TestEngineLiveChanges changes the run while it goes: the client count up
// and down, bad values, values that restart the run, Reset, and a Set that
// changes nothing.
func TestEngineLiveChanges(t *testing.T) {
	t.Parallel()
	steady := func() scenario.Params {
		p := simSmall()
		p.Clients = 500
		p.Outage = scenario.OutageNone
		p.Duration = 60 * time.Second
		return p
	}
	okRate := func(lts []scenario.LaneTick) float64 {
		return simMean(lts, func(lt scenario.LaneTick) float64 { return lt.OK })
	}

	t.Run("clients", func(t *testing.T) {
		p := steady()
		e := simNew(t, p)
		ticks := simAdvance(t, e, 20*time.Second)
		r500 := okRate(simWindow(simSeries(ticks, 0), 5, 20))

		p.Clients = 1000
		if err := e.Set(p); err != nil {
			t.Fatalf("Set clients=1000: %v", err)
		}
		if e.Now() != 20*time.Second {
			t.Fatalf("Set moved time to %v", e.Now())
		}
		simCheck(t, e, "after growing", nil)
		ticks = append(ticks, simAdvance(t, e, 40*time.Second)...)
		r1000 := okRate(simWindow(simSeries(ticks, 0), 25, 40))

		// Shrink to 250: the removed clients' open requests give up.
		var open, inFlight []int64
		var gaveUp []int64
		for _, l := range e.lanes {
			var o, w int64
			for ci := 250; ci < l.active; ci++ {
				switch l.clients[ci].state() {
				case waiting:
					o++
					w++
				case backing:
					o++
				}
			}
			open, inFlight = append(open, o), append(inFlight, w)
			gaveUp = append(gaveUp, l.tick.gaveUp)
		}
		p.Clients = 250
		if err := e.Set(p); err != nil {
			t.Fatalf("Set clients=250: %v", err)
		}
		for i, l := range e.lanes {
			if open[i] == 0 {
				t.Fatalf("lane %c: no removed client had a request open: the test tests nothing", scenario.LaneNames[i])
			}
			if got := l.tick.gaveUp - gaveUp[i]; got != open[i] {
				t.Errorf("lane %c: removing clients gave up %d requests, want %d", scenario.LaneNames[i], got, open[i])
			}
			if l.active != 250 {
				t.Errorf("lane %c: %d active clients, want 250", scenario.LaneNames[i], l.active)
			}
		}
		simCheck(t, e, "after shrinking", inFlight)
		ticks = append(ticks, simAdvance(t, e, 60*time.Second)...)
		simCheck(t, e, "at 60 s", inFlight)
		r250 := okRate(simWindow(simSeries(ticks, 0), 45, 60))

		t.Logf("ok/s: %.1f with 500 clients, %.1f with 1000, %.1f with 250", r500, r1000, r250)
		for _, c := range []struct {
			clients int
			rate    float64
		}{{500, r500}, {1000, r1000}, {250, r250}} {
			want := float64(c.clients) / (p.Think + p.ServerDelay).Seconds()
			if math.Abs(c.rate-want) > 0.1*want {
				t.Errorf("%d clients: %.1f ok/s, want %.1f ± 10 %%", c.clients, c.rate, want)
			}
		}
		if !(r1000 > 1.7*r500 && r250 < 0.6*r500) {
			t.Errorf("ok/s did not follow the client count: %.1f, %.1f, %.1f", r500, r1000, r250)
		}
	})

	t.Run("clients during an outage", func(t *testing.T) {
		// Shrink in the middle of a pause, when many clients are backing
		// off or waiting in the backlog, then grow back.
		p := simSmall()
		e := simNew(t, p)
		simAdvance(t, e, 13*time.Second)
		dropped := make([]int64, len(e.lanes))
		nBacking := int64(0)
		for i, l := range e.lanes {
			for ci := 100; ci < l.active; ci++ {
				switch l.clients[ci].state() {
				case waiting:
					dropped[i]++
				case backing:
					nBacking++
				}
			}
		}
		if nBacking == 0 || dropped[0] == 0 {
			t.Fatalf("at 13 s no removed client is backing off (%d) or waiting (%d): the test tests nothing", nBacking, dropped[0])
		}
		before := e.Summaries()
		p.Clients = 100
		if err := e.Set(p); err != nil {
			t.Fatal(err)
		}
		simCheck(t, e, "after shrinking in the pause", dropped)
		after := e.Summaries()
		for i := range after {
			if after[i].Open > 100 || after[i].GaveUp <= before[i].GaveUp {
				t.Errorf("lane %c: open %d (want ≤ 100), gave_up %d → %d", scenario.LaneNames[i], after[i].Open, before[i].GaveUp, after[i].GaveUp)
			}
		}
		simAdvance(t, e, 20*time.Second)
		simCheck(t, e, "at 20 s", dropped)
		p.Clients = 300
		if err := e.Set(p); err != nil {
			t.Fatal(err)
		}
		simCheck(t, e, "after growing back", dropped)
		simAdvance(t, e, 30*time.Second)
		simCheck(t, e, "at 30 s", dropped)
	})

	t.Run("bad value", func(t *testing.T) {
		for _, c := range []struct {
			name string
			bad  func(*scenario.Params)
		}{
			{"clients", func(p *scenario.Params) { p.Clients = 0 }},
			{"server_factor", func(p *scenario.Params) { p.ServerFactor = 0.5 }},
			{"outage", func(p *scenario.Params) { p.Outage = "sigkill" }},
			{"b.factor", func(p *scenario.Params) { p.Lanes[1].Factor = 11 }},
			{"a.strategy", func(p *scenario.Params) { p.Lanes[0].Strategy = "forever" }},
			{"lanes", func(p *scenario.Params) { p.Lanes = nil }},
		} {
			t.Run(c.name, func(t *testing.T) {
				p := simSmall()
				e, twin := simNew(t, p), simNew(t, p)
				a, b := simAdvance(t, e, 12*time.Second), simAdvance(t, twin, 12*time.Second)
				q := p.Clone()
				c.bad(&q)
				err := e.Set(q)
				if err == nil {
					t.Fatal("Set accepted a bad value")
				}
				if errors.Is(err, ErrRestarted) {
					t.Fatalf("Set restarted on a bad value: %v", err)
				}
				named := false
				for _, pe := range scenario.Errors(err) {
					named = named || pe.Name == c.name
				}
				if !named || !strings.Contains(err.Error(), c.name) {
					t.Errorf("the error does not name %s: %v", c.name, err)
				}
				if e.Now() != 12*time.Second || !e.Down() {
					t.Errorf("after a bad Set: now %v, down %v", e.Now(), e.Down())
				}
				if simJSON(t, e.Params().Map()) != simJSON(t, p.Map()) {
					t.Error("a bad Set changed the parameters")
				}
				a = append(a, simAdvance(t, e, p.Duration)...)
				b = append(b, simAdvance(t, twin, p.Duration)...)
				simSameTicks(t, "after a bad Set", a, b)
			})
		}
	})

	t.Run("restart", func(t *testing.T) {
		for _, c := range []struct {
			name   string
			change func(*scenario.Params)
		}{
			{"seed", func(p *scenario.Params) { p.Seed = 7 }},
			{"lanes", func(p *scenario.Params) { p.Lanes = append(p.Lanes, simLane(strategies.NameFullJitter)) }},
			{"fewer lanes", func(p *scenario.Params) { p.Lanes = p.Lanes[:1] }},
			{"tick", func(p *scenario.Params) { p.Tick = 50 * time.Millisecond }},
		} {
			t.Run(c.name, func(t *testing.T) {
				p := simSmall()
				e := simNew(t, p)
				simAdvance(t, e, 12*time.Second)
				q := p.Clone()
				c.change(&q)
				if err := e.Set(q); !errors.Is(err, ErrRestarted) {
					t.Fatalf("Set = %v, want ErrRestarted", err)
				}
				if e.Now() != 0 || e.Down() || len(e.lanes) != len(q.Lanes) {
					t.Fatalf("after the restart: now %v, down %v, %d lanes", e.Now(), e.Down(), len(e.lanes))
				}
				if simJSON(t, e.Params().Map()) != simJSON(t, q.Map()) {
					t.Error("the restart did not take the new parameters")
				}
				_, want := simRun(t, q)
				simSameTicks(t, "restarted against new", simAdvance(t, e, q.Duration), want)
			})
		}
	})

	t.Run("reset", func(t *testing.T) {
		p := simSmall()
		_, want := simRun(t, p)
		e := simNew(t, p)
		simAdvance(t, e, 12345*time.Millisecond)
		e.Reset()
		if e.Now() != 0 || e.Down() {
			t.Fatalf("after Reset: now %v, down %v", e.Now(), e.Down())
		}
		simCheck(t, e, "after Reset", nil)
		simSameTicks(t, "reset against new", simAdvance(t, e, p.Duration), want)
	})

	t.Run("same params", func(t *testing.T) {
		// Set with the parameters in effect changes nothing, even mid-storm.
		p := simSmall()
		_, want := simRun(t, p)
		e := simNew(t, p)
		got := simAdvance(t, e, 16*time.Second)
		if err := e.Set(p); err != nil {
			t.Fatal(err)
		}
		got = append(got, simAdvance(t, e, p.Duration)...)
		simSameTicks(t, "after a Set that changes nothing", got, want)
	})

	t.Run("move the outage", func(t *testing.T) {
		p := simSmall()
		e := simNew(t, p)
		simAdvance(t, e, 5*time.Second)
		p.OutageAt, p.OutageFor = 7*time.Second, 2*time.Second
		if err := e.Set(p); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			at   time.Duration
			down bool
		}{{6 * time.Second, false}, {7 * time.Second, true}, {8 * time.Second, true}, {9 * time.Second, false}, {12 * time.Second, false}} {
			simAdvance(t, e, c.at)
			if e.Down() != c.down {
				t.Errorf("at %v: Down() = %v, want %v", c.at, e.Down(), c.down)
			}
		}
	})
}

// TestEngineSetEndsOutage shortens the scheduled outage while it is in
// effect, to an end that has already passed, and turns it off: the server
// should come back, as it would have had these been the parameters from
// the start.
func TestEngineSetEndsOutage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		change func(*scenario.Params)
	}{
		{"outage_for shorter than elapsed", func(p *scenario.Params) { p.OutageFor = 2 * time.Second }},
		{"outage none", func(p *scenario.Params) { p.Outage = scenario.OutageNone }},
		{"outage_at later", func(p *scenario.Params) { p.OutageAt = 20 * time.Second }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := simSmall()
			e := simNew(t, p)
			simAdvance(t, e, 13*time.Second)
			if !e.Down() {
				t.Fatal("not down at 13 s")
			}
			c.change(&p)
			if err := e.Set(p); err != nil {
				t.Fatal(err)
			}
			simAdvance(t, e, 19*time.Second)
			if e.Down() {
				t.Fatal("Set moved the scheduled outage so that it no longer covers now, " +
					"yet the server stays down")
			}
			simCheck(t, e, "at 19 s", nil)
			if p.Outage != scenario.OutageNone && p.OutageAt > 19*time.Second {
				simAdvance(t, e, p.OutageAt+time.Second)
				if !e.Down() {
					t.Errorf("the moved outage did not start at %v", p.OutageAt)
				}
				simAdvance(t, e, p.OutageAt+p.OutageFor+time.Second)
				if e.Down() {
					t.Errorf("the moved outage did not end at %v", p.OutageAt+p.OutageFor)
				}
			}
		})
	}
}

// TestEngineTooManyLanes gives New and Set five lanes, one more than
// MaxLanes: they should report a bad value for lanes, as for zero lanes.
func TestEngineTooManyLanes(t *testing.T) {
	t.Parallel()
	p := simSmall()
	for len(p.Lanes) <= scenario.MaxLanes {
		p.Lanes = append(p.Lanes, simLane(strategies.NameFixed))
	}
	try := func(what string, f func() error) {
		t.Helper()
		var err error
		panicked := func() (v any) {
			defer func() { v = recover() }()
			err = f()
			return nil
		}()
		if panicked != nil {
			t.Fatalf("%s with %d lanes panics instead of returning a lanes error: %v",
				what, len(p.Lanes), panicked)
		}
		named := false
		for _, pe := range scenario.Errors(err) {
			named = named || pe.Name == "lanes"
		}
		if !named {
			t.Errorf("%s with %d lanes: %v, want an error naming lanes", what, len(p.Lanes), err)
		}
	}
	try("New", func() error { _, err := New(p); return err })
	e := simNew(t, simSmall())
	simAdvance(t, e, 3*time.Second)
	try("Set", func() error { return e.Set(p) })
	if e.Now() != 3*time.Second || len(e.lanes) != 2 {
		t.Errorf("a rejected Set changed the engine: now %v, %d lanes", e.Now(), len(e.lanes))
	}
}

// curveIn returns lane l's server model, 001's curve.
func curveIn(l *lane) *curveModel { return l.model.(*curveModel) }

// failName names failure f for a message: its outage kind, or up for nil.
func failName(f *failure) string {
	for name, g := range failures {
		if g == f {
			return name
		}
	}
	return "up"
}
