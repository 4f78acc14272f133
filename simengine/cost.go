package simengine

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/cputime"
	"github.com/backofflab/backofflab/internal/parallel"
	"github.com/backofflab/backofflab/scenario"
)

// Cost is what a run of p costs in time on one core, measured by running
// it for at most limit of work: the whole run's time when it ends within
// limit, else that time extrapolated over the run: its work so far over
// the share of the run's load put on by the virtual time its lanes
// reached (workShare, so that a live change to more clients later in the
// run is costed at the load they bring, not the first clients'); that
// time is its lanes' average (Engine.Now moves only at ticks and
// transitions, and a storm of coarse ticks would run a whole tick, minutes
// of work, before it moved). A storm whose queues grow is stopped by its
// memory budget long before its end, so a run whose memory grew is costed
// at most the work its lanes would take to fill that budget each at the
// rate it grew (an overestimate: the lanes share it); Whole says whether
// Time was measured or extrapolated.
type Cost struct {
	Time   time.Duration
	Whole  bool // the run ended within the limit: Time is measured, not extrapolated
	Slices int  // the slices of events (SliceEvents each at most) the pilot ran
}

// MeasureCost runs p within mem, as RunWithBudget does, until it ends or
// has worked for limit, and returns its Cost. Only the CPU time spent in
// the engine counts (cputime.Measure), not the time spent waiting for a
// core (parallel.Yield) nor the time other processes had it.
// A run whose first state does not fit in mem costs nothing: it stops at
// once.
func MeasureCost(ctx context.Context, p scenario.Params, mem *budget.Account, limit time.Duration) (Cost, error) {
	e, err := NewWithBudget(p, mem)
	if exceeded := (*budget.ExceededError)(nil); errors.As(err, &exceeded) && !exceeded.Shared {
		return Cost{Whole: true}, nil
	} else if err != nil {
		return Cost{}, err
	}
	defer e.release()
	var spent time.Duration
	var used0 int64
	if mem != nil {
		used0 = mem.Used()
	}
	for slices := 1; ; slices++ {
		var done bool
		spent += cputime.Measure(func() { done = e.Step(p.Duration, SliceEvents, nil) })
		if done {
			return Cost{Time: spent, Whole: true, Slices: slices}, nil
		}
		if at := e.progress(); spent >= limit && at > 0 {
			est := float64(spent) / workShare(&p, at)
			if mem != nil {
				if grown := mem.Used() - used0; grown > 0 {
					est = min(est, float64(spent)*float64(len(p.Lanes))*float64(mem.Limit())/float64(grown))
				}
			}
			return Cost{Time: time.Duration(est), Slices: slices}, nil
		}
		if err := parallel.Yield(ctx); err != nil {
			return Cost{}, err
		}
	}
}

// progress is the virtual time e's lanes have reached on average: Now at
// a tick, and between ticks, where a slice that stopped short has taken
// some lanes further than others, their mean.
func (e *Engine) progress() time.Duration {
	var sum time.Duration
	for _, l := range e.lanes {
		sum += l.now
	}
	return sum / time.Duration(len(e.lanes))
}

// workShare is the share of p's load that its run has put on by virtual
// time at, 0 < share <= 1: the load is the requests its clients start each
// second (a closed loop's clients over their mean think time, an open
// loop's rate) as the values at t = 0 and each live change set them, over
// the run's duration. A run without changes of its load has at/Duration.
func workShare(p *scenario.Params, at time.Duration) float64 {
	cur := p.Clone()
	cur.Changes = nil
	load := func(q *scenario.Params) float64 {
		if q.Arrival == scenario.ArrivalOpen {
			return q.Rate
		}
		return float64(q.Clients) / max(q.Think.Seconds(), 1e-9)
	}
	var done, total float64
	from := time.Duration(0)
	add := func(to time.Duration) {
		to = min(to, p.Duration)
		if to <= from {
			return
		}
		l := load(&cur)
		total += l * (to - from).Seconds()
		if at > from {
			done += l * (min(at, to) - from).Seconds()
		}
		from = to
	}
	for _, c := range p.Changes {
		add(c.At)
		for _, a := range c.Set {
			a.Apply(&cur)
		}
	}
	add(p.Duration)
	if total <= 0 || done <= 0 {
		return min(1, float64(at)/float64(max(p.Duration, 1)))
	}
	return min(1, done/total)
}

// MinMemory returns the smallest memory budget that holds p's run at its
// start: the lanes take equal shares of a run's budget, so it is the
// largest lane's first state (its clients, their events and their queue)
// times the lanes. A budget below it stops every lane before its first
// event; one above it lets the run start, and a lane that outgrows its
// share later stops with a verdict that says so.
func MinMemory(p scenario.Params) (int64, error) {
	e, err := NewWithBudget(p, budget.NewAccount(nil, math.MaxInt64))
	if err != nil {
		return 0, err
	}
	defer e.release()
	var most int64
	for _, l := range e.lanes {
		most = max(most, l.mem.Used())
	}
	return most * int64(len(e.lanes)), nil
}
