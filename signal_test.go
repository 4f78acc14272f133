package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// signalChildEnv holds the command line that TestSignalChild runs as the
// whole program.
const signalChildEnv = "BACKOFFLAB_SIGNAL_CHILD"

// TestSignalChild is the child process of TestSigtermNamesTheSignal: it
// runs main with the command line in $BACKOFFLAB_SIGNAL_CHILD. SIGTERM is
// ignored until main catches it (signal.NotifyContext undoes the Ignore),
// so that a SIGTERM sent before main is ready is lost instead of killing
// the process with no message; the parent sends it until the child ends.
func TestSignalChild(t *testing.T) {
	args := os.Getenv(signalChildEnv)
	if args == "" {
		t.Skip("the child process of TestSigtermNamesTheSignal")
	}
	signal.Ignore(syscall.SIGTERM)
	os.Args = append([]string{"backofflab"}, strings.Fields(args)...)
	main()
	t.Fatal("main returned: the command ended before any SIGTERM")
}

// TestSigtermNamesTheSignal: a command stopped by SIGTERM says so, as
// sweep does ("terminated signal received"), rather than "context
// canceled", and exits with status 1. Each command is given hours of
// work, so that only the signal ends it.
func TestSigtermNamesTheSignal(t *testing.T) {
	for _, c := range []struct{ name, args string }{
		{"contention", "contention -n 190 -runs 10000 -parallel 1"},
		{"bands", "bands -seeds 50 -clients 20000 -duration 1h -parallel 1"},
		{"sweep", "sweep -clients 20000 -duration 1h -x outage_for -x_from 10s -x_to 60s -x_steps 8 -parallel 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestSignalChild$")
			cmd.Env = append(os.Environ(), signalChildEnv+"="+c.args)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// The child ignores SIGTERM until main catches it; resend
			// until it ends rather than guess when it is ready.
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			var err error
		wait:
			for {
				select {
				case err = <-done:
					break wait
				case <-tick.C:
					if serr := cmd.Process.Signal(syscall.SIGTERM); serr != nil && !errors.Is(serr, os.ErrProcessDone) {
						t.Fatalf("sending SIGTERM: %v", serr)
					}
				}
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Errorf("the child ended with %v, want exit status 1", err)
			}
			if got, want := stderr.String(), "backofflab: terminated signal received\n"; got != want {
				t.Errorf("stderr %q, want %q (stdout %q)", got, want, stdout.String())
			}
		})
	}
}
