package simengine

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/backofflab/backofflab/internal/cputime"
	"github.com/backofflab/backofflab/scenario"
)

// SetParallel lets the lanes advance each on a goroutine of its own (on),
// or one after the other on the caller's (off, the default), with the same
// events, ticks and verdicts either way. Parallel lanes pay when the run
// has free cores to itself (a command's run, a page's session); where many
// runs already share every core (a sweep's cells, a band's seeds) they
// only add the cost of handing the work over, so those leave it off. Even
// on, the lanes go parallel only when the process has more than one core
// (GOMAXPROCS) and a round has the work to pay for the goroutines
// (parallelWork).
//
// Nothing a lane computes depends on another lane: each has its own
// clients, server and random numbers, and its own share of the run's
// memory budget (budget.Account.Share), and takes each scheduled fault's
// start and end at its own time (replan), so the lanes need not meet
// until their ticks are emitted, or a change applies to all of them.
func (e *Engine) SetParallel(on bool) { e.parallel = on }

// parallelWork is how many events each lane must be expected to process in
// a round for the round to start goroutines: below it (a page's run at its
// real-time pace, a few events a slice), waking a second core and waiting
// for it costs more than the lanes' work gains (about a tenth of a
// millisecond here, some four thousand events' worth), and the round runs
// its lanes on the caller's goroutine, one tick at a time.
const parallelWork = 4096

// transitWork is how many requests one lane must hold for forLanes to go
// parallel: admitting a request costs some ten events' work.
const transitWork = parallelWork / 8

// maxAhead is how many ticks a lane may run ahead of the latest tick every
// lane has ended: the ticks it keeps until the others end them too, some
// 180 bytes each. Long rounds pay: each round hands a lane to a goroutine
// (and a core) anew, whose caches it must fill again. A command's run, a
// process of its own, lets its lanes run further ahead (runAhead: 1.4 MiB
// a lane), so that a run of up to 8 192 ticks (819 s at 001's tick of
// 100 ms) goes in one round.
const (
	maxAhead = 1024
	runAhead = 8192
)

// roundsApart counts the rounds every engine of the process has run with
// its lanes apart: a command's tests read it (RoundsApart) to see that
// its run took the parallel path.
var roundsApart atomic.Int64

// RoundsApart is how many rounds the process's engines have run with their
// lanes each on a goroutine of its own (see SetParallel), since it started.
// A test that runs nothing else meanwhile reads it before and after a run
// to see whether that run's lanes went parallel.
func RoundsApart() int64 { return roundsApart.Load() }

// round holds the lanes' progress while they advance apart, each to the
// round's target on a goroutine of its own (a round): a lane ends its ticks
// as it reaches them and keeps them (apart.pend) until every lane has
// ended them, when the engine emits them. Between two rounds, lanes may
// stand at different times, their ticks pending, until a Step reaches its
// target.
type round struct {
	open bool // lanes advance apart: Step goes on with rounds until they are at one time again

	wg     sync.WaitGroup
	target time.Duration
	lanes  []apart
	// perTick is the events a lane processed per tick in the latest
	// round, by which the next round's work is judged. ahead is the
	// ticks a lane may run ahead (maxAhead, runAhead).
	perTick float64
	ahead   int

	// rounds counts the rounds that started goroutines, for tests. With
	// timed set, they measure each lane's CPU time: work is their sum,
	// path the sum over rounds of the longest lane's, what two cores or
	// more need at the least (for benchmarks, on a machine too busy to
	// show it in wall time).
	rounds     int
	timed      bool
	work, path time.Duration
}

// apart is one lane's part of a round: its next tick, its next step (an
// index of the engine's steps), its ended ticks not yet emitted, and what
// its goroutine did in the round. Each lane's
// goroutine writes its own; the padding keeps two lanes' writes off one
// cache line.
type apart struct {
	next   time.Duration
	step   int
	pend   []scenario.LaneTick
	share  int
	events int
	done   bool
	cpu    time.Duration
	_      [64]byte
}

// setRound prepares the engine's rounds for its lanes, after Reset.
func (e *Engine) setRound() {
	r := &e.round
	r.open = false
	r.lanes = make([]apart, len(e.lanes))
	r.perTick = 0
	r.ahead = maxAhead
}

// goParallel reports whether Step goes parallel (see SetParallel).
func (e *Engine) goParallel() bool {
	if len(e.lanes) < 2 {
		return false
	}
	return e.alwaysParallel || e.parallel && runtime.GOMAXPROCS(0) > 1
}

// openRound starts the lanes' advancing apart, from one time: every lane
// at Now, its next tick the engine's.
func (e *Engine) openRound() {
	r := &e.round
	r.open = true
	for k := range r.lanes {
		r.lanes[k].next = e.nextTick
		r.lanes[k].step = e.planAt
		r.lanes[k].pend = r.lanes[k].pend[:0]
	}
}

// closeRound ends the lanes' advancing apart: they are at one time, every
// tick emitted (or the run is being released).
func (e *Engine) closeRound() { e.round.open = false }

// stepParallel is Step with the lanes advancing apart, in rounds.
func (e *Engine) stepParallel(t time.Duration, maxEvents int, emit func(scenario.Tick)) bool {
	if t < e.now {
		return true
	}
	r := &e.round
	if !r.open {
		e.openRound()
	}
	budget := maxEvents
	for {
		e.emitEnded(emit)
		next := e.nextChange()
		end := min(next, t)
		if e.lanesAt(end) {
			e.now = max(e.now, end) // lanes ahead of end may have emitted ticks past it
			// At one time, the scheduled faults come before a live
			// change, in a live run as in its replay: the lanes have
			// taken those at end.
			e.catchUp(e.now, true)
			if next > t {
				e.closeIfDone()
				return true
			}
			e.takeChange()
			if !r.open { // a change restarted the run
				e.openRound()
			}
			continue
		}
		if budget <= 0 || stopped(e.done) {
			return false
		}
		// A lane runs at most r.ahead ticks past the latest tick every
		// lane has ended; in a round without the work for goroutines,
		// one.
		target := min(end, e.nextTick+time.Duration(r.ahead)*e.p.Tick)
		apart := e.worthApart(target, budget)
		if !apart {
			target = min(end, e.nextTick)
		}
		if !e.runRound(target, &budget, apart) {
			e.emitEnded(emit)
			return false
		}
	}
}

// worthApart reports whether a round to target within budget events has
// the work to pay for goroutines: by the events per tick of the latest
// round (before the first, the fewest a tick can have), each lane's part
// of it is at least parallelWork.
func (e *Engine) worthApart(target time.Duration, budget int) bool {
	if e.alwaysParallel {
		return true
	}
	perTick := e.round.perTick
	if perTick == 0 {
		perTick = leastPerTick(&e.p)
	}
	ticks := float64(target-e.now) / float64(e.p.Tick)
	work := min(perTick*ticks, float64(budget/len(e.lanes)))
	return work >= parallelWork
}

// leastPerTick is the fewest events a lane of p can be expected to have
// in a tick: an open loop's arrivals, or a closed loop's every client
// starting a request once in a think time.
func leastPerTick(p *scenario.Params) float64 {
	if p.Arrival == scenario.ArrivalOpen {
		return p.Rate * p.Tick.Seconds()
	}
	return float64(p.Clients) * float64(p.Tick) / float64(max(p.Think, 1))
}

// nextChange returns when the next live change comes, or never.
func (e *Engine) nextChange() time.Duration {
	if len(e.pending) > 0 {
		return e.pending[0].At
	}
	return never
}

// catchUp takes in the engine's fault state the transitions that every
// lane has taken and that come before t (or at t, through).
func (e *Engine) catchUp(t time.Duration, through bool) {
	taken := len(e.plan)
	for _, a := range e.round.lanes {
		taken = min(taken, a.step)
	}
	for e.planAt < taken {
		if at := e.plan[e.planAt].at; at > t || at == t && !through {
			return
		}
		e.take()
	}
}

// closeIfDone ends the round once the lanes are at one time with every
// tick emitted, so that the next Step may go on one lane after the other.
func (e *Engine) closeIfDone() {
	for _, a := range e.round.lanes {
		if len(a.pend) > 0 {
			return
		}
	}
	e.closeRound()
}

// lanesAt reports whether every lane is at t (or past it, ahead of
// a later target a Step had set), each having taken its steps up to t.
func (e *Engine) lanesAt(t time.Duration) bool {
	for k, l := range e.lanes {
		if l.now < t {
			return false
		}
		if i := e.round.lanes[k].step; i < len(e.steps) && e.steps[i].at <= t {
			return false
		}
	}
	return true
}

// emitEnded emits, in order, the ticks that every lane has ended, and
// moves Now to the latest.
func (e *Engine) emitEnded(emit func(scenario.Tick)) {
	r := &e.round
	n := len(r.lanes[0].pend)
	for _, a := range r.lanes[1:] {
		n = min(n, len(a.pend))
	}
	if n == 0 {
		return
	}
	for i := range n {
		e.catchUp(e.nextTick, false)
		tk := scenario.Tick{T: e.nextTick.Seconds(), Lanes: make([]scenario.LaneTick, len(e.lanes))}
		for k := range e.lanes {
			tk.Lanes[k] = r.lanes[k].pend[i]
		}
		e.now = e.nextTick
		e.nextTick += e.p.Tick
		if emit != nil {
			emit(tk)
		}
	}
	for k := range r.lanes {
		a := &r.lanes[k]
		a.pend = a.pend[:copy(a.pend, a.pend[n:])]
	}
}

// runRound runs every lane to target, each within its share of budget (a
// tick counting tickCost events): each on a goroutine of its own when
// apart, else one after the other on the caller's. budget loses what they
// processed. It reports whether they all reached target.
func (e *Engine) runRound(target time.Duration, budget *int, apart bool) bool {
	r := &e.round
	n := len(e.lanes)
	// Equal shares; what does not divide goes to the lanes furthest
	// behind, one event each, so that the shares add up to the budget and
	// a slice smaller than the lanes moves the last of them.
	share := *budget / n
	for k := range r.lanes {
		r.lanes[k].share, r.lanes[k].events, r.lanes[k].done = share, 0, false
	}
	for range *budget % n {
		behind := -1
		for k, l := range e.lanes {
			if r.lanes[k].share == share && (behind < 0 || l.now < e.lanes[behind].now) {
				behind = k
			}
		}
		r.lanes[behind].share++
	}
	r.target = target
	from := e.now
	if apart {
		r.rounds++
		roundsApart.Add(1)
		e.inParallel(e.task)
		if r.timed {
			var longest time.Duration
			for _, a := range r.lanes {
				r.work += a.cpu
				longest = max(longest, a.cpu)
			}
			r.path += longest
		}
	} else {
		for k, l := range e.lanes {
			l.runApart(&r.lanes[k], target, e.p.Tick, e.steps, e.done)
		}
	}
	spent, ok := 0, true
	for _, a := range r.lanes {
		spent += a.events
		ok = ok && a.done
	}
	*budget -= spent
	if ticks := float64(target-from) / float64(e.p.Tick); ok && ticks >= 1 {
		r.perTick = float64(spent) / float64(n) / ticks
	}
	return ok
}

// inParallel calls fn for every lane, each on a goroutine of its own (the
// first on the caller's), and returns when every call has.
func (e *Engine) inParallel(fn func(k int)) {
	r := &e.round
	for k := 1; k < len(e.lanes); k++ {
		r.wg.Go(func() { fn(k) })
	}
	fn(0)
	r.wg.Wait()
}

// forLanes calls fn for every lane, in parallel when the lanes may go
// parallel and one of them has at least transitWork requests to go
// through (an outage's end admits a lane's whole backlog), else one after
// the other.
func (e *Engine) forLanes(fn func(l *lane)) {
	most := 0
	for _, l := range e.lanes {
		most = max(most, l.backlog.n+l.model.held())
	}
	if e.goParallel() && (e.alwaysParallel || most >= transitWork) {
		e.inParallel(func(k int) { fn(e.lanes[k]) })
		return
	}
	for _, l := range e.lanes {
		fn(l)
	}
}

// task runs lane k's part of a round, its CPU time measured when the
// rounds are timed.
func (e *Engine) task(k int) {
	r := &e.round
	a, l := &r.lanes[k], e.lanes[k]
	if !r.timed {
		l.runApart(a, r.target, e.p.Tick, e.steps, e.done)
		return
	}
	a.cpu = cputime.Measure(func() { l.runApart(a, r.target, e.p.Tick, e.steps, e.done) })
}

// runApart runs the lane toward target within a.share events, ending its
// ticks (every tick of virtual time from a.next) on the way into a.pend
// and taking the steps from steps[a.step] as it reaches them (a step
// after the tick at its time, as the engine's Step takes a transition);
// a.done tells whether it reached target. Once done is closed, it stops
// within SliceEvents events, short of target.
func (l *lane) runApart(a *apart, target, tick time.Duration, steps []laneStep, done <-chan struct{}) {
	left := a.share
	defer func() { a.events = a.share - left }()
	if l.now > target {
		// Ahead of a target that an earlier Step had set further: it has
		// taken every step before its time.
		a.done = true
		return
	}
	// run runs the lane to t, looking at done every SliceEvents events
	// (a tick counting tickCost).
	since := 0
	run := func(t time.Duration) bool {
		for {
			n := min(left, SliceEvents-since)
			k := n
			ok := l.run(t, &k)
			left -= n - k
			if since += n - k; since >= SliceEvents {
				since = 0
				if stopped(done) {
					return false
				}
			}
			if ok || left <= 0 {
				return ok
			}
		}
	}
	for {
		b := a.next
		if a.step < len(steps) {
			if st := &steps[a.step]; st.at < b && st.at <= target {
				if !run(st.at) {
					return
				}
				l.takeStep(st)
				a.step++
				continue
			}
		}
		if b > target {
			a.done = run(target)
			return
		}
		if !run(b) {
			return
		}
		a.pend = append(a.pend, l.endTick(b))
		left -= tickCost
		since += tickCost
		a.next = b + tick
		if left <= 0 {
			return
		}
	}
}

// stopped reports whether done is closed; a nil done never is.
func stopped(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// settleRound is settle for lanes advancing apart: every lane runs on to
// the latest of their times, ending its ticks on the way (the next Step
// emits them).
func (e *Engine) settleRound() {
	t := e.now
	for _, l := range e.lanes {
		t = max(t, l.now)
	}
	if !e.lanesAt(t) {
		n := math.MaxInt
		e.runRound(t, &n, e.worthApart(t, n))
	}
	e.now = t
	e.catchUp(t, true)
}
