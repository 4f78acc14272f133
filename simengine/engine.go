// Package simengine simulates many clients retrying against one
// load-sensitive server, in virtual time.
//
// An Engine holds 1 to 4 lanes. Each lane is a world of its own (its clients,
// its server) whose clients retry with the lane's strategy; all lanes share
// every other parameter and see the same think times, so the difference
// between two lanes comes from their strategies alone. An Engine is driven by
// one goroutine (its lanes may advance on goroutines of their own between
// two ticks: SetParallel): AdvanceTo moves virtual time forward and reports ticks, and
// Set, Outage and Reset change the run at the current virtual time. The same
// parameters give the same ticks, bit for bit, however AdvanceTo's steps fall.
package simengine

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/reqhist"
	"github.com/backofflab/backofflab/scenario"
)

// Engine runs one simulation. Its methods must not be called concurrently.
type Engine struct {
	p        scenario.Params
	lanes    []*lane
	now      time.Duration
	nextTick time.Duration
	mem      *budget.Account

	// faultState is the faults' state at Now.
	faultState

	// plan is the scheduled faults' transitions still to come at the
	// latest schedule, in order; the engine takes plan[planAt] next.
	// steps are what the lanes do at each (steps[i] at plan[i]), worked
	// out ahead from the engine's fault state (see replan), so that
	// lanes advancing apart each take them at their own time.
	plan   []transition
	planAt int
	steps  []laneStep

	// base is the run's parameters at virtual time 0; pending are the
	// live changes still to take, in time order (a replay's), and applied
	// those taken, each at its time (see Record).
	base    scenario.Params
	pending []scenario.Change
	applied []scenario.Change
	// partial: the latest Step stopped short of its target, so a lane may
	// have processed some of the events at its current time.
	partial bool

	// parallel: the lanes may advance on goroutines of their own
	// (SetParallel); round is the state of their advancing apart.
	parallel bool
	round    round
	// done, when closed, stops lanes advancing apart (see runApart),
	// however much of a Step's events are left: a command's run gives
	// its lanes all the events a round can take and its context here.
	done <-chan struct{}
	// alwaysParallel makes every stretch parallel, however little its
	// work, on any number of cores: for tests of the rounds themselves.
	alwaysParallel bool
}

// transition is a scheduled fault's start or end.
type transition struct {
	at    time.Duration
	start bool
	f     scenario.Fault
}

// window is a fault's span, for Outages.
type window struct {
	span [2]time.Duration
	kind string
}

// MaxOutages is how many outages an Engine remembers: the latest ones. A
// page that toggles the server thousands of times must not grow the run.
const MaxOutages = 100

// New returns an Engine at virtual time 0 for p, or the errors of p's bad
// values (see scenario.Parse). Its memory is bounded by nothing but p.
func New(p scenario.Params) (*Engine, error) { return NewWithBudget(p, nil) }

// NewWithBudget is New with the memory that p's size decides (clients,
// events, the server's queues) drawn from mem, each lane from an equal
// share of it. When a lane's state would outgrow its share, that lane halts: it stops processing events, its queues go
// back to mem, its ticks carry no values from then on and its scenario.Summary says
// why (scenario.Summary.Stopped). NewWithBudget returns mem's *budget.ExceededError
// when the run's initial state does not fit at all.
func NewWithBudget(p scenario.Params, mem *budget.Account) (*Engine, error) {
	return newEngine(p, mem, false)
}

// newEngine is NewWithBudget, with SetParallel(parallel) from the start,
// so that parallel lanes are built each on a goroutine of its own too.
func newEngine(p scenario.Params, mem *budget.Account, parallel bool) (*Engine, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{mem: mem, parallel: parallel}
	e.start(p)
	for _, l := range e.lanes {
		if l.halt != nil {
			err := l.halt.Reason
			e.release()
			return nil, err
		}
	}
	return e, nil
}

// share returns a lane's part of the run's memory budget, one of n equal
// shares (nil without a budget): a lane that outgrows it halts, whatever
// the other lanes hold, so that no lane's run depends on another's, and
// the lanes may advance apart (SetParallel).
func (e *Engine) share(n int) *budget.Account {
	if e.mem == nil {
		return nil
	}
	return e.mem.Share(e.mem.Limit() / int64(n))
}

// release gives back everything the lanes hold of the budget.
func (e *Engine) release() {
	e.closeRound()
	for _, l := range e.lanes {
		l.release()
	}
}

// Params returns the parameters in effect.
func (e *Engine) Params() scenario.Params { return e.p.Clone() }

// Now returns the current virtual time.
func (e *Engine) Now() time.Duration { return e.now }

// Down reports whether the server is in an outage.
func (e *Engine) Down() bool { return e.down }

// Outages returns the latest fault windows (at most MaxOutages) as their
// start and end; the end of one still in effect is -1. OutagesDropped tells
// how many came before them, and OutageKinds their kinds.
func (e *Engine) Outages() [][2]time.Duration {
	out := make([][2]time.Duration, len(e.outages))
	for i, o := range e.outages {
		if o.span[1] == never {
			o.span[1] = -1
		}
		out[i] = o.span
	}
	return out
}

// OutageKinds returns the kinds of the windows Outages returns, in order:
// an outage kind (pause, crash, partition) or another fault's.
func (e *Engine) OutageKinds() []string {
	out := make([]string, len(e.outages))
	for i, o := range e.outages {
		out[i] = o.kind
	}
	return out
}

// OutageAhead reports whether a scheduled outage (of the outage parameter
// or of faults) is still to start.
func (e *Engine) OutageAhead() bool {
	return slices.ContainsFunc(e.plan[e.planAt:], func(tr transition) bool { return tr.start && scenario.IsOutage(tr.f.Kind) })
}

// Downs returns how many times the server has gone down (an outage kind,
// scheduled or by hand) since the run's start.
func (e *Engine) Downs() int { return e.downs }

// OutagesDropped returns how many outages are older than those Outages
// returns: the index, counted from the run's start, of Outages()[0].
func (e *Engine) OutagesDropped() int { return e.dropped }

// OutageCount returns how many outages have started since the run's start,
// those Outages returns and those it no longer does, without copying any.
func (e *Engine) OutageCount() int { return e.dropped + len(e.outages) }

// start sets p as the run's parameters and starts it from virtual time 0,
// its live changes pending.
func (e *Engine) start(p scenario.Params) {
	e.p = p.Clone()
	e.p.Changes = nil
	e.Reset()
	e.pending = slices.Clone(p.Changes)
}

// Restart starts a new run of p from virtual time 0, its live changes
// (p.Changes) to be taken at their times, or returns p's errors and
// changes nothing.
func (e *Engine) Restart(p scenario.Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	e.start(p)
	return nil
}

// DropChangesFrom drops the pending live changes at or after t: a run whose
// duration is now t does not reach them.
func (e *Engine) DropChangesFrom(t time.Duration) {
	e.pending = slices.DeleteFunc(e.pending, func(c scenario.Change) bool { return c.At >= t })
}

// Reset starts the run again from virtual time 0 with the current
// parameters, without live changes.
func (e *Engine) Reset() {
	e.release()
	e.now = 0
	e.faultState = faultState{}
	e.effective(&e.p)
	e.base, e.pending, e.applied, e.partial = e.p.Clone(), nil, nil, false
	e.nextTick = e.p.Tick
	e.lanes = make([]*lane, len(e.p.Lanes))
	build := func(k int) { e.lanes[k] = newLane(e.eff, k, e.share(len(e.lanes))) }
	// Building a client takes some 75 ns: a lane's clients pay for a
	// goroutine's hand-over (about a tenth of a millisecond here) from
	// some thousands.
	if e.goParallel() && e.p.Clients >= parallelWork {
		e.inParallel(build)
	} else {
		for k := range e.lanes {
			build(k)
		}
	}
	e.setRound()
	e.schedule()
	e.replan()
}

// schedule sets the scheduled faults' transitions that are still to come:
// the ends before the starts at one time, so that a fault may follow
// another without a gap, but a window of 0s (a herd's wave at once) ends
// after every start at its time, its own included.
func (e *Engine) schedule() {
	e.plan, e.planAt = e.plan[:0], 0
	for _, f := range scenario.AllFaults(&e.p) {
		if f.For <= 0 && !scenario.IsWave(f.Kind) {
			continue
		}
		if f.At >= e.now {
			e.plan = append(e.plan, transition{at: f.At, start: true, f: f})
		}
		if end := f.At + f.For; end >= e.now {
			e.plan = append(e.plan, transition{at: end, f: f})
		}
	}
	slices.SortStableFunc(e.plan, func(a, b transition) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.rank(), b.rank())
	})
}

// rank orders the transitions at one time: the ends of windows that
// lasted, then the starts, then the ends of windows of 0s.
func (tr transition) rank() int {
	switch {
	case tr.start:
		return 1
	case tr.f.For == 0:
		return 2
	}
	return 0
}

// replan works out the lanes' steps at the transitions still to come,
// from the engine's fault state now: after a schedule, and after anything
// else that changes that state but the plan itself (a change, an outage
// by hand). Lanes advancing apart take them from the engine's next one.
func (e *Engine) replan() {
	ahead := e.faultState.clone()
	// steps[i] is plan[i]'s; those before planAt are taken already.
	e.steps = slices.Grow(e.steps[:0], len(e.plan))[:e.planAt]
	clear(e.steps)
	for _, tr := range e.plan[e.planAt:] {
		e.steps = append(e.steps, ahead.take(tr, &e.p))
	}
	for k := range e.round.lanes {
		e.round.lanes[k].step = e.planAt
	}
}

// nextTransition returns when the next scheduled transition or live
// change comes, or never.
func (e *Engine) nextTransition() time.Duration {
	next := never
	if e.planAt < len(e.plan) {
		next = e.plan[e.planAt].at
	}
	if len(e.pending) > 0 {
		next = min(next, e.pending[0].At)
	}
	return next
}

// transit applies the next scheduled transition, which is due now, in
// the engine and in every lane.
func (e *Engine) transit() {
	st := e.take()
	e.forLanes(func(l *lane) { l.takeStep(&st) })
}

// take applies the next scheduled transition to the engine's fault state,
// and returns what the lanes do there.
func (e *Engine) take() laneStep {
	tr := e.plan[e.planAt]
	e.planAt++
	return e.faultState.take(tr, &e.p)
}

// AdvanceTo processes every event before virtual time t and calls emit with
// each tick that ends at or before t, in order. A tick's Lanes slice is new
// for each call: emit may keep it. Times before Now are ignored.
func (e *Engine) AdvanceTo(t time.Duration, emit func(scenario.Tick)) {
	e.Step(t, math.MaxInt, emit)
}

// tickCost is what one lane's tick costs in a Step's budget, in events: it
// is a tick's work (its percentiles, its row) measured against an event's.
const tickCost = 32

// Step is AdvanceTo in a bounded slice: it processes at most maxEvents
// events (maxEvents > 0), a tick counting as tickCost events a lane, and
// reports whether it reached t. Parallel lanes (SetParallel) share
// maxEvents equally, each stopping at its share, and may stand apart when
// it returns (Now is then the latest tick every lane has ended). Calling it again
// goes on where it stopped, with the same events, ticks and verdicts as one
// AdvanceTo, so a caller can answer its users between slices however dense
// the run's events are. A Set or Outage between two slices applies at one
// time for every lane (see settle).
func (e *Engine) Step(t time.Duration, maxEvents int, emit func(scenario.Tick)) bool {
	var done bool
	if e.round.open || e.goParallel() {
		done = e.stepParallel(t, maxEvents, emit)
	} else {
		done = e.step(t, maxEvents, emit)
	}
	e.partial = !done
	return done
}

func (e *Engine) step(t time.Duration, maxEvents int, emit func(scenario.Tick)) bool {
	if t < e.now {
		return true
	}
	budget := maxEvents
	for {
		next := e.nextTransition()
		switch {
		case e.nextTick <= next && e.nextTick <= t:
			if !e.runTo(e.nextTick, &budget) {
				return false
			}
			tk := scenario.Tick{T: e.nextTick.Seconds(), Lanes: make([]scenario.LaneTick, len(e.lanes))}
			for i, l := range e.lanes {
				tk.Lanes[i] = l.endTick(e.nextTick)
			}
			e.nextTick += e.p.Tick
			if emit != nil {
				emit(tk)
			}
			// A tick costs as much as tickCost events, so that a slice
			// of a run with few events (an idle or halted one) emits a
			// bounded number of ticks too.
			if budget -= tickCost * len(e.lanes); budget <= 0 {
				return e.now >= t
			}
		case next <= t:
			if !e.runTo(next, &budget) {
				return false
			}
			// At one time, the scheduled faults come before a live
			// change, in a live run as in its replay.
			if e.planAt < len(e.plan) && e.plan[e.planAt].at == next {
				e.transit()
			} else {
				e.takeChange()
			}
		default:
			return e.runTo(t, &budget)
		}
	}
}

// runTo runs every lane to t, within budget events, and reports whether
// they all got there. Lanes are independent worlds: one may stop short
// while others have reached t.
func (e *Engine) runTo(t time.Duration, budget *int) bool {
	for _, l := range e.lanes {
		if !l.run(t, budget) {
			return false
		}
	}
	e.now = t
	return true
}

// settle brings every lane to the same time after a Step that stopped
// short, the latest of theirs, so that a change applies at one time in all
// of them. The lanes behind have about as many events to catch up as the
// slice that stopped short processed.
func (e *Engine) settle() {
	if e.round.open {
		e.settleRound()
		return
	}
	t := e.now
	for _, l := range e.lanes {
		t = max(t, l.now)
	}
	if t == e.now {
		return
	}
	n := math.MaxInt
	for _, l := range e.lanes {
		l.run(t, &n)
	}
	e.now = t
}

// Outage starts (on) or ends (off) an outage now, of the kind the outage
// parameter names (pause when it is none). The latest change wins: a
// scheduled transition still to come applies when its time comes.
func (e *Engine) Outage(on bool) {
	e.settle()
	kind := e.p.Outage
	if kind == scenario.OutageNone {
		kind = scenario.OutagePause
	}
	e.outage(on, kind)
	e.scheduled = false
	e.replan()
}

// outage starts (on) or ends the outage of kind now.
func (e *Engine) outage(on bool, kind string) {
	st := e.faultState.outage(on, kind, e.now)
	e.forLanes(func(l *lane) { l.takeStep(&st) })
}

// ErrRestarted is returned by Set when the new parameters could not apply
// to the running simulation (a different number of lanes, seed, tick,
// arrival, kind of server or number of a lane's tiers) and the run started
// again from virtual time 0.
var ErrRestarted = errors.New("simengine: the run restarted from 0")

// Set applies p at the current virtual time: new clients start thinking,
// removed ones give up their open request, the server's curve and the
// strategies change for every decision from now on, and a moved scheduled
// outage applies if its times are still to come. Set returns p's errors and
// changes nothing if p has bad values.
func (e *Engine) Set(p scenario.Params) error {
	if err := p.Validate(); err != nil {
		return err
	}
	e.settle()
	old := e.p
	e.p = p.Clone()
	e.p.Changes = nil
	if len(p.Lanes) != len(old.Lanes) || p.Seed != old.Seed || p.Tick != old.Tick || !sameServer(&p, &old) ||
		p.Arrival != old.Arrival || !sameTiers(&p, &old) {
		e.Reset()
		return ErrRestarted
	}
	if p.Outage != old.Outage || p.OutageAt != old.OutageAt || p.OutageFor != old.OutageFor || !slices.Equal(p.Faults, old.Faults) {
		e.schedule()
		// A scheduled outage whose new window no longer holds now ends
		// now; the other faults in effect are those whose window holds now,
		// which this sets: their starts and ends at now are taken here, not
		// again from the plan (a start would apply its fault twice). A
		// herd that starts now and has not released its wave yet is the
		// exception: its start and end stay in the plan, which releases
		// it once. (A herd set live after its start releases none: its
		// wave was due before the change.)
		ahead := func(f scenario.Fault) bool {
			return f.At == e.now && scenario.IsWave(f.Kind) && !e.released(f, e.now)
		}
		e.plan = slices.DeleteFunc(e.plan, func(tr transition) bool {
			return tr.at == e.now && !scenario.IsOutage(tr.f.Kind) && !ahead(tr.f)
		})
		in := false
		var effects []scenario.Fault
		for _, f := range scenario.AllFaults(&p) {
			if f.At <= e.now && e.now < f.At+f.For && !ahead(f) {
				if scenario.IsOutage(f.Kind) {
					in = true
				} else {
					effects = append(effects, f)
				}
			}
		}
		if e.down && e.scheduled && !in {
			e.Outage(false)
		}
		changed := ""
		for _, f := range e.effects {
			if !slices.Contains(effects, f) {
				e.closeWindow(kindIs(f.Kind), e.now)
				changed = f.Kind
			}
		}
		for _, f := range effects {
			if !slices.Contains(e.effects, f) {
				e.window(f.Kind, e.now)
				changed = f.Kind
			}
		}
		e.effects = effects
		// The lanes' verdicts judge from the faults now in effect.
		for _, l := range e.lanes {
			l.det.Faults(len(effects), changed, e.now)
		}
	}
	// The lanes read the new parameters once, the faults in effect applied.
	e.effective(&e.p)
	for i, l := range e.lanes {
		l.p, l.errFrac = e.eff, e.errFrac
		l.setParams(i)
	}
	e.replan()
	return nil
}

// sameTiers reports whether every lane of a has as many tiers as b's: a
// lane's calls in flight name their tier by its place, so a live change
// may change what the tiers do but not how many there are.
func sameTiers(a, b *scenario.Params) bool {
	for i := range a.Lanes {
		if len(a.Lanes[i].Tiers) != len(b.Lanes[i].Tiers) {
			return false
		}
	}
	return true
}

// sameServer reports whether a lane's server can go from a's model to b's
// live: the same model, or two latencies of the concurrency, which the
// curve server serves alike.
func sameServer(a, b *scenario.Params) bool {
	return a.ServerModel == b.ServerModel ||
		scenario.ServerModelOf(a).Latency != nil && scenario.ServerModelOf(b).Latency != nil
}

// Summaries returns each lane's verdict on the ticks so far.
func (e *Engine) Summaries() []scenario.Summary {
	out := make([]scenario.Summary, len(e.lanes))
	for i, l := range e.lanes {
		out[i] = l.summary()
	}
	return out
}

// Requests is a lane's requests one by one: the latency, from the first
// attempt to the final answer, waits included, of every request that
// ended (Ended) and of those that succeeded (Succeeded). A Summary keeps
// their figures alone; these are for a caller that merges the requests
// of several lanes or runs (reqhist.Histogram.Merge), or asks other
// quantiles or patiences of them.
type Requests struct {
	Ended, Succeeded reqhist.Histogram
}

// Requests returns lane i's requests so far, a copy of its own.
func (e *Engine) Requests(i int) *Requests {
	l := e.lanes[i]
	return &Requests{Ended: l.reqs, Succeeded: l.oks}
}

func (l *lane) summary() scenario.Summary {
	var total counters
	total.add(l.total)
	total.add(l.tick)
	s := l.det.Summary(total.requests, total.attempts, total.ok, total.gaveUp)
	s.SetTiers(total.tier[:len(l.tiers)])
	if len(l.tiers) > 0 {
		s.PeakAttemptRate = float64(l.peakBottom) / l.p.Tick.Seconds()
	}
	_, late := l.openRequests(l.p.Patience)
	s.SetRequests(&l.reqs, &l.oks, late, l.p.Patience)
	if l.halt != nil {
		s.Collapsed, s.Stopped = true, l.halt.String()
	}
	return s
}

// Halted returns why each lane stopped before the run's end, nil for a lane
// that runs on.
func (e *Engine) Halted() []*Halt {
	out := make([]*Halt, len(e.lanes))
	for i, l := range e.lanes {
		out[i] = l.halt
	}
	return out
}

// takeChange takes the next live change, which is due now, and records it.
func (e *Engine) takeChange() {
	c := e.pending[0]
	e.pending = e.pending[1:]
	c.At = e.now
	switch c.Outage {
	case scenario.ChangeStop, scenario.ChangeResume:
		e.Outage(c.Outage == scenario.ChangeStop)
	default:
		p := e.p.Clone()
		for _, a := range c.Set {
			a.Apply(&p)
		}
		// A change is checked before it is pending (Params.Validate for a
		// replay's, Change for a live one): it always applies on the fly.
		if err := e.Set(p); err != nil {
			panic("simengine: a checked live change did not apply: " + err.Error())
		}
	}
	e.applied = append(e.applied, c)
}

// changeGrain is the resolution of a live change's time.
const changeGrain = time.Millisecond

// ErrRunOver is Change's error when the change would come at or after the
// run's end.
var ErrRunOver = errors.New("changes: the run is over: a change now would come after its end")

// ErrTooManyChanges is Change's error once a run holds
// scenario.MaxChanges live changes: a new run (Reset) takes more.
var ErrTooManyChanges = fmt.Errorf("changes: a run holds at most %d live changes; reset to start a new run", scenario.MaxChanges)

// Change takes a live change now, at the first whole millisecond of
// virtual time at which every lane can take it as a replay of the run
// would (where the latest Step stopped short, a lane may have processed
// some events of its current time: the change comes after), which must be
// before end,
// the run's end (else ErrRunOver). c's At is ignored; the
// change that took, with its time, is returned, and it drops the changes
// still pending (a replay's future, which no longer happens). Ticks that
// end before it go to emit. A change of parameters that the running
// simulation cannot take (scenario.LiveError) or with bad values is an
// error, and changes nothing.
func (e *Engine) Change(c scenario.Change, end time.Duration, emit func(scenario.Tick)) (scenario.Change, error) {
	if len(e.applied) >= scenario.MaxChanges {
		return c, ErrTooManyChanges
	}
	at := e.now
	// A lane may be ahead of Now after a Step that stopped short, or with
	// parallel lanes, after one that reached a target short of an earlier
	// one's (its ticks pending).
	if e.partial || e.round.open {
		for _, l := range e.lanes {
			at = max(at, l.now)
		}
		at++
	}
	// The change comes at the first whole millisecond from there, which
	// a replay takes as well: the page's link then reads @17.601s, not
	// the slice's end, @17.600006652s.
	at = (at + changeGrain - 1) / changeGrain * changeGrain
	if at >= end {
		return c, ErrRunOver
	}
	c.At = at
	if c.Outage == "" {
		next := e.p.Clone()
		for _, a := range c.Set {
			a.Apply(&next)
		}
		if err := scenario.LiveError(&e.p, &next); err != nil {
			return c, err
		}
		if err := next.Validate(); err != nil {
			return c, err
		}
	}
	e.pending = append(e.pending[:0], c)
	e.Step(at, math.MaxInt, emit)
	return e.applied[len(e.applied)-1], nil
}

// Record returns the run as parameters that replay it: those at virtual
// time 0 with the live changes taken since (Changes), each at its time,
// and those still pending. Run, or New then Step, of Record gives the same
// ticks and summaries, tick for tick.
func (e *Engine) Record() scenario.Params {
	p := e.base.Clone()
	p.Changes = append(slices.Clone(e.applied), e.pending...)
	return p
}

// Taken returns how many live changes the run has taken since its start.
func (e *Engine) Taken() int { return len(e.applied) }

// Applied returns the live changes taken since the run's start, in order.
func (e *Engine) Applied() []scenario.Change { return slices.Clone(e.applied) }
