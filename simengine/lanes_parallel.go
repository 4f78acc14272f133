package simengine

import (
	"math"
	"runtime"
	"sync"
	"time"

	"backofflab/budget"
)

// SetParallel lets the lanes advance each on a goroutine of its own (on),
// or one after the other on the caller's (off, the default), with the
// same events, ticks and verdicts either way. Parallel lanes pay when the
// run has free cores to itself (a command's run, a page's session); where
// many runs already share every core (a sweep's cells, a band's seeds) they
// only add the cost of handing the work over, so those leave it off. Even
// on, a stretch of the run goes parallel only when the process has more
// than one core (GOMAXPROCS) and its lanes have work enough to pay for the
// goroutines: see parallelWork.
func (e *Engine) SetParallel(on bool) { e.parallel = on }

// parallelWork is how many events each lane must have processed in the
// engine's previous stretch between two stops (a tick, a transition, the
// end of a slice), and may process in the next, for the next to go
// parallel: below it, starting the goroutines and waiting for them costs
// more than the lanes' work gains.
const parallelWork = 256

// lanesRun states, for a round of parallel lanes.
const (
	laneRunning uint8 = iota // its goroutine runs it
	laneShort                // it stopped at its share of the events, short of the round's time
	laneReached              // it reached the round's time
)

// round is one stretch of parallel lanes: every lane runs to t on a
// goroutine of its own, within its share of the slice's events.
//
// The lanes draw on one memory budget, and a lane that outgrows it halts:
// which one does, and when, must be what it is when the lanes run one
// after the other, lane 0 first. So lane 0 uses the budget itself, and each
// later lane a follower of it (budget.Account.Follow) that holds back its
// Shrinks and, at its first Grow, waits until every lane before it has
// reached t and passed its changes on (ready). A lane that stopped at its
// share while a later one waits for it goes on to t: on the waiter's
// goroutine if its own has ended, else on its own. Those events are
// beyond the slice's share: a lane's Grow is rare (a queue that grows
// past its longest), and the events that bring the lanes before it to t
// are at most the rest of their current tick.
type round struct {
	mu     sync.Mutex
	cond   sync.Cond
	wg     sync.WaitGroup
	t      time.Duration
	state  []uint8
	waited []bool
	events []int
	follow []*budget.Account // lane k's follower of the run's budget; nil for lane 0 or without a budget

	// rounds and waits count the rounds and the lanes' waits in ready,
	// for tests.
	rounds, waits int
}

// setRound prepares the engine's rounds for its lanes, after Reset.
func (e *Engine) setRound() {
	n := len(e.lanes)
	r := &e.round
	r.cond.L = &r.mu
	r.state, r.waited, r.events = make([]uint8, n), make([]bool, n), make([]int, n)
	r.follow = make([]*budget.Account, n)
	if e.mem == nil {
		return
	}
	for k := 1; k < n; k++ {
		r.follow[k] = e.mem.Follow(func() { e.ready(k) })
	}
}

// goParallel reports whether the next stretch, of at most budget events,
// goes parallel (see SetParallel and parallelWork).
func (e *Engine) goParallel(budget int) bool {
	n := len(e.lanes)
	if e.alwaysParallel {
		return n > 1
	}
	return e.parallel && n > 1 && e.work >= parallelWork && budget/n >= parallelWork &&
		runtime.GOMAXPROCS(0) > 1
}

// runLanes runs every lane to t within budget events, in parallel or one
// after the other, and reports whether they all got there. It keeps the
// lanes' work per stretch for goParallel.
func (e *Engine) runLanes(t time.Duration, budget *int) bool {
	var before int64
	for _, l := range e.lanes {
		before += l.events
	}
	var ok bool
	if e.goParallel(*budget) {
		ok = e.runParallel(t, budget)
	} else {
		ok = true
		for _, l := range e.lanes {
			if !l.run(t, budget) {
				ok = false
				break
			}
		}
	}
	var after int64
	for _, l := range e.lanes {
		after += l.events
	}
	// A stretch that processed nothing (its lanes already there) says
	// nothing of the work to come.
	if after > before {
		e.work = int((after - before) / int64(len(e.lanes)))
	}
	return ok
}

// runParallel is runLanes on a goroutine a lane, the caller's running lane
// 0: each lane gets an equal share of budget, and budget loses the events
// they all processed.
func (e *Engine) runParallel(t time.Duration, budget *int) bool {
	r := &e.round
	n := len(e.lanes)
	share := max(1, *budget/n)
	r.t = t
	r.rounds++
	for k := range n {
		r.state[k], r.waited[k], r.events[k] = laneRunning, false, 0
		if f := r.follow[k]; f != nil {
			e.lanes[k].mem = f
		}
	}
	for k := 1; k < n; k++ {
		r.wg.Go(func() { e.task(k, share) })
	}
	e.task(0, share)
	r.wg.Wait()
	ok := true
	spent := 0
	for k, l := range e.lanes {
		// Whatever a follower still holds is the lane's, after the
		// lanes before it: passed on in their order.
		if f := r.follow[k]; f != nil {
			f.Hold()
			l.mem = e.mem
		}
		spent += r.events[k]
		ok = ok && r.state[k] == laneReached
	}
	*budget -= spent
	return ok
}

// task runs lane k to the round's time within share events, then on to
// it if a later lane waits for it.
func (e *Engine) task(k, share int) {
	r := &e.round
	l := e.lanes[k]
	left := share
	reached := l.run(r.t, &left)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events[k] += share - left
	if !reached && r.waited[k] {
		r.mu.Unlock()
		n := runAll(l, r.t)
		r.mu.Lock()
		r.events[k] += n
		reached = true
	}
	r.state[k] = laneShort
	if reached {
		r.state[k] = laneReached
	}
	r.cond.Broadcast()
}

// runAll runs l to t whatever it takes, and returns the events it
// processed.
func runAll(l *lane, t time.Duration) int {
	left := math.MaxInt
	l.run(t, &left)
	return math.MaxInt - left
}

// ready returns once every lane before lane k has reached the round's
// time and passed its memory's changes on: lane k's Grow comes after all
// of theirs, as it does when the lanes run one after the other.
func (e *Engine) ready(k int) {
	r := &e.round
	r.mu.Lock()
	r.waits++
	r.mu.Unlock()
	for j := range k {
		r.mu.Lock()
		for r.state[j] == laneRunning {
			r.waited[j] = true
			r.cond.Wait()
		}
		if r.state[j] == laneShort {
			// Its goroutine has ended short of the time: it goes on
			// on this one.
			r.state[j] = laneRunning
			r.mu.Unlock()
			n := runAll(e.lanes[j], r.t)
			r.mu.Lock()
			r.events[j] += n
			r.state[j] = laneReached
			r.cond.Broadcast()
		}
		if f := r.follow[j]; f != nil {
			f.Hold()
		}
		r.mu.Unlock()
	}
}
