package cputime

import (
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID: the calling
// thread's CPU time, in nanoseconds (getrusage's RUSAGE_THREAD counts in
// clock ticks, too coarse for a slice of a few milliseconds).
const clockThreadCPUTime = 3

// thread returns the calling thread's CPU time.
func thread() (time.Duration, bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
