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
// A job must watch its ctx (the simulations do, every few milliseconds)
// for a cancel to stop the work promptly; the ctx it gets is cancelled at
// the first error too.
func Do(ctx context.Context, workers, n int, job func(ctx context.Context, i int) error) error {
	workers = min(Workers(workers), n)
	if workers <= 0 {
		return ctx.Err()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := job(ctx, i); err != nil {
					once.Do(func() { first = err })
					cancel(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	if int(next.Load()) < n {
		return context.Cause(ctx)
	}
	return nil
}
