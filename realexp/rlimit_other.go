//go:build !(linux || darwin)

package realexp

import "errors"

// RaiseFileLimit is not supported here: it returns an error.
func RaiseFileLimit() (soft, hard uint64, err error) {
	return 0, 0, errors.New("open-file limit: not supported on this system")
}
