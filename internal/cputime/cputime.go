// Package cputime reads the CPU time of the calling OS thread, so that a
// measurement of some work on a busy machine counts the work, not the
// time other processes had the core.
package cputime

import (
	"runtime"
	"time"
)

// Measure calls f on one OS thread and returns the CPU time that thread
// spent in it, or, where the system does not tell a thread's CPU time,
// the wall time f took.
func Measure(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, ok := thread()
	wall := time.Now()
	f()
	if end, ok2 := thread(); ok && ok2 {
		return end - start
	}
	return time.Since(wall)
}
