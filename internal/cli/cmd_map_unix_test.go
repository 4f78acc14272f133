//go:build unix

package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// sweepChildEnv holds, newline-separated, the arguments with which the test
// binary, run again, is backofflab.
const sweepChildEnv = "BACKOFFLAB_SWEEP_CHILD_ARGS"

// TestSweepMergeProcess runs "backofflab sweep merge" (map merge by its old name) in a process of its
// own (the test binary run again, as main) to see what a user sees: given
// /dev/zero as a part it stops at its first line's bound with a short
// message and exit status 1, where it grew until the OOM killer ended it;
// stopped by SIGTERM while a read blocks (a FIFO no one writes) it names
// the signal and exits with 1; and neither leaves its -o file or the file
// beside it.
func TestSweepMergeProcess(t *testing.T) {
	if args, ok := os.LookupEnv(sweepChildEnv); ok {
		os.Args = append([]string{"backofflab"}, strings.Split(args, "\n")...)
		Main()
		os.Exit(0)
	}
	dir := t.TempDir()
	part := filepath.Join(dir, "p0.csv")
	mustRun(t, "sweep", "-duration", "10s", "-x", "clients", "-x_from", "100", "-x_to", "200", "-x_steps", "2", "-shard", "0/2", "-o", part)
	out := filepath.Join(dir, "out.csv")
	child := func(args ...string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSweepMergeProcess$")
		cmd.Env = append(os.Environ(), sweepChildEnv+"="+strings.Join(args, "\n"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		return cmd, &stderr
	}
	check := func(t *testing.T, err error, stderr *bytes.Buffer, want string) {
		t.Helper()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != exitFailure {
			t.Errorf("exit: %v, want status %d", err, exitFailure)
		}
		if !strings.Contains(stderr.String(), want) || stderr.Len() > 600 {
			t.Errorf("stderr (%d bytes): %.600q, want a short message saying %q", stderr.Len(), stderr, want)
		}
		files, _ := os.ReadDir(dir)
		for _, f := range files {
			if !slices.Contains([]string{"p0.csv", "fifo"}, f.Name()) {
				t.Errorf("left %s", f.Name())
			}
		}
	}

	t.Run("/dev/zero", func(t *testing.T) {
		cmd, stderr := child("sweep", "merge", "-o", out, part, "/dev/zero")
		check(t, cmd.Run(), stderr, "/dev/zero, line 1: longer than 65536 bytes")
	})
	t.Run("SIGTERM", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no FIFO:", err)
		}
		cmd, stderr := child("sweep", "merge", "-o", out, part, fifo)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Opening the FIFO to write returns once the merge has opened it
		// to read, after main has taken over SIGTERM; the merge then
		// blocks reading it.
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		check(t, cmd.Wait(), stderr, "terminated")
	})
}

// TestSweepMergeStopsOpeningAFIFO: a merge whose part is a FIFO that no
// one opens to write blocks opening it; the end of its context (Ctrl-C,
// SIGTERM) ends it with the context's error, and it leaves no goroutine
// behind, where the open held it until a writer came.
func TestSweepMergeStopsOpeningAFIFO(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	for _, tc := range []struct {
		name   string
		before bool // the context ends before the merge starts, else while it runs
	}{{"ended before", true}, {"ended while opening", false}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.before {
				cancel()
			}
			done := make(chan error, 1)
			go func() { done <- Run(ctx, []string{"sweep", "merge", fifo}, io.Discard, io.Discard) }()
			if !tc.before {
				cancel()
			}
			// A bound for a failure, not a measure of speed: the merge
			// blocked in the kernel's open never returns.
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("merge: %v, want the context's error", err)
				}
			case <-time.After(30 * time.Second):
				// Unblock the open, so that the test can end.
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
				t.Fatalf("merge still opening the FIFO 30 s after its context ended")
			}
		})
	}
}
