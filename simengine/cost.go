package simengine

import (
	"context"
	"errors"
	"time"

	"backofflab/budget"
	"backofflab/internal/cputime"
	"backofflab/internal/parallel"
	"backofflab/scenario"
)

// Cost is what a run of p costs in time on one core, measured by running
// it for at most limit of work: the whole run's time when it ends within
// limit, else that time extrapolated over its virtual time (its work so
// far × p.Duration / the virtual time its lanes reached, on average:
// Engine.Now moves only at ticks and transitions, and a storm of coarse
// ticks would run a whole tick, minutes of work, before it moved). A storm whose queues
// grow is stopped by its memory budget long before its end, so a run
// whose memory grew is costed at most the work its lanes would take to
// fill that budget each at the rate it grew (an overestimate: the lanes
// share it); Whole says whether Time was measured or extrapolated.
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
			est := float64(spent) * float64(p.Duration) / float64(at)
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
