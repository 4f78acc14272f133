package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
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

// childReady is the line TestSignalChild writes on its stderr once a
// SIGTERM can no longer kill it unheard.
const childReady = "ignoring SIGTERM until main catches it"

// TestSignalChild is the child process of TestSigtermNamesTheSignal: it
// runs main with the command line in $BACKOFFLAB_SIGNAL_CHILD. It ignores
// SIGTERM, says so (childReady), and runs main, whose
// signal.NotifyContext undoes the Ignore: a SIGTERM sent in between is
// lost instead of killing the process with no message, and the parent
// sends one until the child ends.
func TestSignalChild(t *testing.T) {
	args := os.Getenv(signalChildEnv)
	if args == "" {
		t.Skip("the child process of TestSigtermNamesTheSignal")
	}
	signal.Ignore(syscall.SIGTERM)
	if _, err := fmt.Fprintln(os.Stderr, childReady); err != nil {
		t.Fatal(err)
	}
	os.Args = append([]string{"backofflab"}, strings.Fields(args)...)
	Main()
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
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			pipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			stderr := bufio.NewReader(pipe)
			if line, err := stderr.ReadString('\n'); line != childReady+"\n" {
				t.Fatalf("the child's first line: %q, %v; want %q (killing it: %v; it ended with %v)",
					line, err, childReady, cmd.Process.Kill(), cmd.Wait())
			}
			type end struct {
				stderr string
				err    error
			}
			done := make(chan end, 1)
			go func() {
				rest, rerr := io.ReadAll(stderr)
				werr := cmd.Wait()
				done <- end{string(rest), errors.Join(werr, rerr)}
			}()
			// Between its childReady and main's signal.NotifyContext
			// the child drops SIGTERM; resend until it ends rather than
			// guess when main is ready.
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			var got end
		wait:
			for {
				select {
				case got = <-done:
					break wait
				case <-tick.C:
					if serr := cmd.Process.Signal(syscall.SIGTERM); serr != nil && !errors.Is(serr, os.ErrProcessDone) {
						t.Fatalf("sending SIGTERM: %v (killing the child: %v; it ended with %v)", serr, cmd.Process.Kill(), (<-done).err)
					}
				}
			}
			err = got.err
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Errorf("the child ended with %v, want exit status 1", err)
			}
			if want := "backofflab: terminated signal received\n"; got.stderr != want {
				t.Errorf("stderr %q, want %q (stdout %q)", got.stderr, want, stdout.String())
			}
		})
	}
}
