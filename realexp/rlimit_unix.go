//go:build linux || darwin

package realexp

import "syscall"

// RaiseFileLimit raises the soft limit on open files to the hard limit,
// where the system allows, and returns the limits in force.
func RaiseFileLimit() (soft, hard uint64, err error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, 0, err
	}
	if lim.Cur < lim.Max {
		raised := lim
		raised.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err == nil {
			lim = raised
		}
	}
	return uint64(lim.Cur), uint64(lim.Max), nil
}
