//go:build unix

package cli

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// openPart opens a part to read, as os.Open does, but gives up when ctx
// ends: opening a FIFO to read blocks in the kernel until a writer opens
// it, where no signal that the program catches would end the merge. A
// FIFO is opened on a goroutine of its own; when ctx ends first, the open
// is ended by opening the FIFO to write, without waiting (a FIFO's reader
// waits only for a writer to come), and the file it opened is closed: no
// goroutine outlives the call.
func openPart(ctx context.Context, name string) (*os.File, error) {
	if st, err := os.Stat(name); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		return os.Open(name)
	}
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(name)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		return o.f, o.err
	case <-ctx.Done():
	}
	// The goroutine may not have reached its open yet: until it has, a
	// writer's open finds no reader (ENXIO) and is tried again.
	retry := time.NewTicker(time.Millisecond)
	defer retry.Stop()
	for {
		w, err := os.OpenFile(name, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			w.Close()
		} else if !errors.Is(err, syscall.ENXIO) {
			// The FIFO cannot be opened to write (its permissions):
			// the open is left to end when a writer comes; the
			// command is ending anyway.
			return nil, context.Cause(ctx)
		}
		select {
		case o := <-done:
			if o.f != nil {
				o.f.Close()
			}
			return nil, context.Cause(ctx)
		case <-retry.C:
		}
	}
}
