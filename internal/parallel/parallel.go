// Package parallel runs many independent jobs on a fixed number of
// goroutines: the cells of a phase map, the seeds of a band, the runs of
// the contention study. Each job is a whole simulation on one goroutine
// (the engine is single-threaded by design), so the speed-up comes from
// running as many jobs at once as there are cores.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers returns n when it is above 0, else the number of CPUs the
// process may use (GOMAXPROCS): the default of every sweep.
func Workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// Do calls job(ctx, i) for every i in [0, n) on min(workers, n) goroutines,
// in increasing order of i as workers come free. It stops handing out jobs
// at the first error a job returns or when ctx is done, and returns only
// when every goroutine it started has returned: nothing outlives it. Its
// error is the first job's error, else ctx's if ctx ended before every
// job was handed out.
//
// Under a Pool's share (Pool.Join) each goroutine runs jobs only while it
// holds a core of the pool, and gives it up between jobs, or at a job's
// Yield, when its quantum is over and another share waits; a share past
// its budget ends with a *BudgetError. A Do within such a job runs its
// jobs one at a time on the core its caller holds.
//
// A job must watch its ctx (the simulations do, every few milliseconds,
// by Yield) for a cancel to stop the work promptly; the ctx it gets is
// cancelled at the first error too.
func Do(ctx context.Context, workers, n int, job func(ctx context.Context, i int) error) error {
	if t, _ := ctx.Value(turnKey{}).(*turn); t != nil {
		workers = 1
	} else if s, _ := ctx.Value(shareKey{}).(*share); s != nil {
		return doShared(ctx, s, workers, n, job)
	}
	return doOn(ctx, workers, n, func(ctx context.Context, next func() (int, bool)) error {
		return runJobs(ctx, next, job)
	})
}

// runJobs runs job on the indexes next hands out, one after the other,
// until there are none left or a job fails; between two jobs it yields
// (Yield), and a Yield that fails because ctx ended leaves the error to
// Do, which says whether every job was handed out.
func runJobs(ctx context.Context, next func() (int, bool), job func(ctx context.Context, i int) error) error {
	for {
		i, ok := next()
		if !ok {
			return nil
		}
		if err := job(ctx, i); err != nil {
			return err
		}
		if err := Yield(ctx); err != nil {
			return orNil(ctx, err)
		}
	}
}

// doOn runs worker on min(workers, n) goroutines, which take the indexes
// [0, n) in turn from next, until next says there are none left (all
// handed out, or ctx done). The first error a worker returns cancels the
// others' ctx and is Do's error.
func doOn(ctx context.Context, workers, n int, worker func(ctx context.Context, next func() (int, bool)) error) error {
	workers = min(Workers(workers), n)
	if workers <= 0 {
		return ctx.Err()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var handed atomic.Int64
	next := func() (int, bool) {
		if ctx.Err() != nil {
			return 0, false
		}
		i := int(handed.Add(1) - 1)
		return i, i < n
	}
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := worker(ctx, next); err != nil {
				once.Do(func() { first = err })
				cancel(err)
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	if int(handed.Load()) < n {
		return context.Cause(ctx)
	}
	return nil
}
