package simengine

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"backofflab/budget"
	"backofflab/internal/cputime"
	"backofflab/scenario"
)

// SetParallel lets the lanes advance each on a goroutine of its own (on),
// or one after the other on the caller's (off, the default), with the same
// events, ticks and verdicts either way. Parallel lanes pay when the run
// has free cores to itself (a command's run, a page's session); where many
// runs already share every core (a sweep's cells, a band's seeds) they
// only add the cost of handing the work over, so those leave it off. Even
// on, the lanes go parallel only when the process has more than one core
// (GOMAXPROCS) and enough work to pay for the goroutines (parallelWork).
func (e *Engine) SetParallel(on bool) { e.parallel = on }

// parallelWork is how many events each lane must have processed in the
// engine's previous round for the next to start goroutines: below it (a
// page's run at its real-time pace, a few events a slice), starting them
// and waiting for them costs more than the lanes' work gains, and the
// round runs its lanes on the caller's goroutine.
const parallelWork = 256

// maxAhead is how many ticks a lane may run ahead of the latest tick every
// lane has ended: the ticks it keeps until the others end them too.
const maxAhead = 64

// round holds the lanes' progress while they advance apart, each to the
// round's target on a goroutine of its own (a round): a lane ends its ticks
// as it reaches them and keeps them (pend) until every lane has ended
// them, when the engine emits them. Between two rounds, lanes may stand at
// different times, their ticks pending, until a Step reaches its target.
//
// The lanes draw on one memory budget, and a lane that outgrows it halts:
// which one does, and when, must not depend on how their goroutines run.
// So each lane draws on a follower of the budget (budget.Account.Follow)
// whose changes come in the order of one lane after the other, tick after
// tick: a change of lane k in its segment s (the ticks it has ended since
// the lanes were last at one time) waits until every lane before it has
// ended segment s or reached the round's target, and every lane after it
// has ended segment s-1 (ready). A lane that waits for one that stopped at
// its share of the round's events runs that one on, on its own goroutine:
// those events come on top of the share, the lanes it waits for brought to
// its tick, at most maxAhead ticks of theirs. A change to the memory is
// rare (a queue that grows past its longest), and a change that never
// comes costs no wait.
type round struct {
	open bool // lanes advance apart: Step goes on with rounds until they are at one time again

	mu      sync.Mutex
	cond    sync.Cond
	wg      sync.WaitGroup
	busy    bool // a round runs: outside one, the engine changes its lanes on its own goroutine, in their order
	target  time.Duration
	waiting int // goroutines waiting in ready

	// Per lane: its runner (running while a goroutine advances it), the
	// segment it is in, the segment its latest change had the turn for
	// (plus one, 0 for none), the segment a waiter needs it to reach, its
	// next tick, its ended ticks not yet emitted, and the events its
	// runners processed in this round.
	running []bool
	done    []bool
	seg     []uint64
	turn    []uint64
	want    []uint64
	next    []time.Duration
	pend    [][]scenario.LaneTick
	events  []int
	share   []int
	follow  []*budget.Account // lane k's follower of the run's budget; nil without a budget

	// rounds and waits count the rounds that started goroutines and the
	// changes that waited in ready, for tests. With timed set, the rounds
	// that start goroutines measure each lane's CPU time: work is their
	// sum, path the sum over rounds of the longest lane's, what two cores
	// or more need at the least (for benchmarks, on a machine too busy to
	// show it in wall time).
	rounds, waits int
	timed         bool
	lane          []time.Duration
	work, path    time.Duration
}

// setRound prepares the engine's rounds for its lanes, after Reset.
func (e *Engine) setRound() {
	n := len(e.lanes)
	r := &e.round
	r.open = false
	r.cond.L = &r.mu
	r.running, r.done = make([]bool, n), make([]bool, n)
	r.seg, r.turn, r.want = make([]uint64, n), make([]uint64, n), make([]uint64, n)
	r.next, r.pend, r.events = make([]time.Duration, n), make([][]scenario.LaneTick, n), make([]int, n)
	r.share = make([]int, n)
	r.follow = make([]*budget.Account, n)
	r.lane = make([]time.Duration, n)
	if e.mem == nil {
		return
	}
	for k := range n {
		r.follow[k] = e.mem.Follow(func() { e.ready(k) })
	}
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
	for k, l := range e.lanes {
		r.next[k] = e.nextTick
		r.pend[k] = r.pend[k][:0]
		if f := r.follow[k]; f != nil {
			l.mem = f
		}
	}
	e.mark()
}

// closeRound ends the lanes' advancing apart: they are at one time, every
// tick emitted (or the run is being released).
func (e *Engine) closeRound() {
	r := &e.round
	if !r.open {
		return
	}
	r.open = false
	for _, l := range e.lanes {
		l.mem = e.mem
	}
}

// mark starts a new segment for every lane: they are at one time, where
// the engine changes them (a transition, a change, a Step's target), as
// the lanes one after the other would start a new stretch there.
func (e *Engine) mark() {
	r := &e.round
	clear(r.seg)
	clear(r.turn)
	clear(r.want)
}

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
		next := e.nextTransition()
		end := min(next, t)
		if e.lanesAt(end) {
			e.now = max(e.now, end) // lanes ahead of end may have emitted ticks past it
			e.mark()
			if next > t {
				e.closeIfDone()
				return true
			}
			// At one time, the scheduled faults come before a live
			// change, in a live run as in its replay.
			if len(e.plan) > 0 && e.plan[0].at == next {
				e.transit()
			} else {
				e.takeChange()
			}
			if !r.open { // a change restarted the run
				e.openRound()
			}
			continue
		}
		if budget <= 0 {
			return false
		}
		// A lane runs at most maxAhead ticks past the latest tick every
		// lane has ended.
		target := min(end, e.nextTick+maxAhead*e.p.Tick)
		if !e.runRound(target, &budget) {
			e.emitEnded(emit)
			return false
		}
	}
}

// closeIfDone ends the round once the lanes are at one time with every
// tick emitted, so that the next Step may go on one lane after the other.
func (e *Engine) closeIfDone() {
	for _, p := range e.round.pend {
		if len(p) > 0 {
			return
		}
	}
	e.closeRound()
}

// lanesAt reports whether every lane is at t (or past it, ahead of
// a later target a Step had set).
func (e *Engine) lanesAt(t time.Duration) bool {
	for _, l := range e.lanes {
		if l.now < t {
			return false
		}
	}
	return true
}

// emitEnded emits, in order, the ticks that every lane has ended, and
// moves Now to the latest.
func (e *Engine) emitEnded(emit func(scenario.Tick)) {
	r := &e.round
	n := len(r.pend[0])
	for _, p := range r.pend[1:] {
		n = min(n, len(p))
	}
	if n == 0 {
		return
	}
	for i := range n {
		tk := scenario.Tick{T: e.nextTick.Seconds(), Lanes: make([]scenario.LaneTick, len(e.lanes))}
		for k := range e.lanes {
			tk.Lanes[k] = r.pend[k][i]
		}
		e.now = e.nextTick
		e.nextTick += e.p.Tick
		if emit != nil {
			emit(tk)
		}
	}
	for k, p := range r.pend {
		r.pend[k] = p[:copy(p, p[n:])]
	}
}

// runRound runs every lane to target, each within its share of budget
// (see below), a tick counting tickCost events: each on a goroutine of its own
// when they have the work to pay for it, else one after the other on the
// caller's. budget loses what they processed. It reports whether they all
// reached target.
func (e *Engine) runRound(target time.Duration, budget *int) bool {
	r := &e.round
	n := len(e.lanes)
	// Equal shares; what does not divide goes to the lanes furthest
	// behind, one event each, so that the shares add up to the budget and
	// a slice smaller than the lanes moves the last of them.
	share := *budget / n
	for k := range n {
		r.share[k] = share
	}
	for range *budget % n {
		behind := -1
		for k, l := range e.lanes {
			if r.share[k] == share && (behind < 0 || l.now < e.lanes[behind].now) {
				behind = k
			}
		}
		r.share[behind]++
	}
	r.target = target
	clear(r.events)
	clear(r.done)
	r.busy = true
	defer func() { r.busy = false }()
	if e.alwaysParallel || e.work >= parallelWork && share >= parallelWork {
		r.rounds++
		// Every lane has its runner from the start: none is taken over
		// before its own goroutine starts.
		r.mu.Lock()
		for k := range n {
			r.running[k] = true
		}
		r.mu.Unlock()
		for k := 1; k < n; k++ {
			r.wg.Go(func() { e.timedTask(k, r.share[k]) })
		}
		e.timedTask(0, r.share[0])
		r.wg.Wait()
		if r.timed {
			r.path += slices.Max(r.lane)
			for _, d := range r.lane {
				r.work += d
			}
		}
	} else {
		for k := range n {
			e.task(k, r.share[k])
		}
	}
	spent, ok := 0, true
	for k := range n {
		spent += r.events[k]
		ok = ok && r.done[k]
	}
	*budget -= spent
	e.work = spent / n
	return ok
}

// timedTask is task, its CPU time in lane[k] when the rounds are timed.
func (e *Engine) timedTask(k, share int) {
	r := &e.round
	if !r.timed {
		e.task(k, share)
		return
	}
	r.lane[k] = cputime.Measure(func() { e.task(k, share) })
}

// task advances lane k toward the round's target within share events, and
// on past them while a waiter needs it further.
func (e *Engine) task(k, share int) {
	r := &e.round
	r.mu.Lock()
	r.running[k] = true
	r.mu.Unlock()
	left := share
	reached := e.advance(k, &left, math.MaxUint64)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events[k] += share - left
	r.done[k] = reached
	for !r.done[k] && r.want[k] > r.seg[k] {
		want := r.want[k]
		r.mu.Unlock()
		e.advanceAll(k, want)
		r.mu.Lock()
	}
	r.running[k] = false
	r.cond.Broadcast()
}

// advanceAll advances lane k whatever it takes until it has ended segment
// need-1 or reached the round's target. Its caller is lane k's runner.
func (e *Engine) advanceAll(k int, need uint64) {
	r := &e.round
	left := math.MaxInt
	reached := e.advance(k, &left, need)
	r.mu.Lock()
	r.events[k] += math.MaxInt - left
	r.done[k] = reached
	r.mu.Unlock()
}

// advance runs lane k toward the round's target, ending its ticks on the
// way, within *left events (a tick counting tickCost), and stops at the
// tick that makes its segment need; it reports whether the lane reached the
// target.
func (e *Engine) advance(k int, left *int, need uint64) bool {
	r := &e.round
	l := e.lanes[k]
	target := r.target
	if l.now >= target {
		return true // ahead of a target that an earlier Step had set further
	}
	for {
		b := r.next[k]
		if b > target {
			return l.run(target, left)
		}
		if !l.run(b, left) {
			return false
		}
		r.pend[k] = append(r.pend[k], l.endTick(b))
		*left -= tickCost
		r.mu.Lock()
		r.next[k] = b + e.p.Tick
		r.seg[k]++
		seg := r.seg[k]
		if r.waiting > 0 {
			r.cond.Broadcast()
		}
		r.mu.Unlock()
		if b == target {
			return true
		}
		if *left <= 0 || seg >= need {
			return false
		}
	}
}

// ready returns once lane k's memory may change: every lane before it has
// ended lane k's segment or reached the round's target, and every lane
// after it has ended the segment before (see round). A lane that must go
// further and has no runner is run on by this goroutine.
func (e *Engine) ready(k int) {
	r := &e.round
	if !r.busy {
		return // between rounds, lanes at one time: the engine's own goroutine
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.seg[k]
	if r.turn[k] == s+1 {
		return
	}
	r.waits++
	for i := range e.lanes {
		if i == k {
			continue
		}
		need := s // a lane after k must be in segment s
		if i < k {
			need = s + 1 // a lane before k must be past it
		}
		for r.seg[i] < need && !r.done[i] {
			if r.running[i] {
				r.want[i] = max(r.want[i], need)
				r.waiting++
				r.cond.Wait()
				r.waiting--
				continue
			}
			r.running[i] = true
			r.mu.Unlock()
			e.advanceAll(i, need)
			r.mu.Lock()
			r.running[i] = false
			r.cond.Broadcast()
		}
	}
	r.turn[k] = s + 1
}

// settleRound is settle for lanes advancing apart: every lane runs on to
// the latest of their times, ending its ticks on the way (the next Step
// emits them), and a new segment starts there.
func (e *Engine) settleRound() {
	t := e.now
	for _, l := range e.lanes {
		t = max(t, l.now)
	}
	if !e.lanesAt(t) {
		n := math.MaxInt
		e.runRound(t, &n)
	}
	e.now = t
	e.mark()
}
