package cli

import (
	"context"
	"errors"
)

// stopCause returns err, or the cause of ctx's end in its place when err
// is only that ctx was cancelled. main's context ends with the signal
// that stopped the command as its cause ("terminated signal received"),
// which tells the user what happened where "context canceled" does not.
func stopCause(ctx context.Context, err error) error {
	if !errors.Is(err, context.Canceled) {
		return err
	}
	if cause := context.Cause(ctx); cause != nil && cause != err {
		return cause
	}
	return err
}
