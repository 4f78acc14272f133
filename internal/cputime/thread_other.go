//go:build !linux

package cputime

import "time"

// thread says that this system does not tell a thread's CPU time.
func thread() (time.Duration, bool) { return 0, false }
