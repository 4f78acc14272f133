// Package cli is backofflab's commands: Run reads the command line,
// dispatches to the command it names (run, bands, map, server, client,
// contention, config, delays, advise, or the playground) and returns its
// error, which ExitCode turns into the process's exit status.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Main is the program: it runs the command line until the command is done
// or a signal (Ctrl-C, SIGTERM) cuts it short, and on a failure says so on
// stderr and exits with ExitCode's status.
func Main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "backofflab:", err)
		os.Exit(ExitCode(err))
	}
}

// The exit statuses of a command that fails (0 is one that succeeds).
const (
	// exitFailure: the command ran and failed: an input file that is not
	// what it should be (a part given to map merge), an output that
	// cannot be written, another I/O error, or a signal (Ctrl-C, SIGTERM)
	// that cut it short.
	exitFailure = 1
	// exitUsage: the command line is wrong (an unknown command, a bad flag
	// or value, an argument too many or missing), found before any work.
	exitUsage = 2
)

// ExitCode is the exit status of a command that returned err: exitUsage
// for a usageError, exitFailure for any other.
func ExitCode(err error) int {
	if errors.As(err, new(usageError)) {
		return exitUsage
	}
	return exitFailure
}

// usageError is bad input on the command line: it exits with status
// exitUsage. Every other error exits with exitFailure.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

const usage = `backofflab: why retry intervals matter

Usage:
  backofflab [-addr localhost:8080]  serve the playground and print its URL
  backofflab run [flags]             simulate retries against a paused server (with no
                                     flags, the playground's landing view) and print
                                     the time series (-format text, csv or json)
  backofflab bands -seeds K [flags]  the same run with K seeds: per lane, how many
                                     collapsed and each column's median and 5–95 %
                                     band over time (-format text, csv or json)
  backofflab map [flags]             a phase map: one run per cell of a grid over one or two
                                     parameters (-x … -y …), on every core, one CSV row per
                                     cell per lane (-format csv or json; -shard k/n for a part);
                                     "sweep", its old name, is still accepted
  backofflab map merge PART...       join the CSV parts of a sharded map into the whole
  backofflab server [flags]          the worker queue over real HTTP (-addr 127.0.0.1:8070),
                                     or 001's server with -server_model curve
  backofflab client [flags]          001's clients against it, retrying as -strategy says
  backofflab contention [flags]      the AWS blog's contention study (2015): calls and
                                     completion time of each strategy against N clients
  backofflab config import -lib NAME FILE
                                     a real library's retry configuration (gRPC, Envoy,
                                     Istio, Linkerd, AWS, resilience4j, Polly) as a lane's
                                     flags and URL query
  backofflab config export [-lib NAME] [lane flags]
                                     a lane as each library's configuration or code
  backofflab delays [-lane a] [lane flags]   or   backofflab delays -lib NAME FILE
                                     a lane's wait before each retry (5th, 50th, 95th
                                     percentile and longest, as the playground's delay
                                     chart draws them) and where it gives up
                                     (-format text or csv)
  backofflab advise [flags]          the retry settings of a library (-library) that meet your
                                     goals (-recover_within, -attempts_per_request) on every
                                     seed, their margins and the configuration to paste
  backofflab help                    this text

Run "backofflab run -h" for the simulation's flags, "backofflab map -h" for a phase map's,
"backofflab advise -h" for the advice's.

Exit status: 0 when the command succeeds (and when the playground or the real
server shuts down on Ctrl-C or SIGTERM); 2 for a usage error, a bad command, flag
or value (the message names it, its value and what is allowed), found before any
work; 1 for a failure while running: an input file that is not what it should be
(a part given to map merge), an output that cannot be written (-o), another I/O
error, or a signal (Ctrl-C, SIGTERM) that cut a run, map, merge or study short.
`

// Run is the whole program, with its inputs and outputs passed in: the
// command args[0] names, run with the rest, or the playground.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	err := command(ctx, args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) { // the help went to stderr: not a failure
		return nil
	}
	return err
}

func command(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || len(args[0]) > 0 && args[0][0] == '-' && !isHelp(args[0]) {
		return serve(ctx, args, stdout, stderr)
	}
	switch args[0] {
	case "run":
		return runSim(ctx, args[1:], stdout, stderr)
	case "bands":
		return runBands(ctx, args[1:], stdout, stderr)
	case "map", "sweep": // sweep: its old name, which scripts and cluster manifests written before still give
		return runMap(ctx, args[1:], stdout, stderr)
	case "server":
		return runServer(ctx, args[1:], stdout, stderr)
	case "client":
		return runClient(ctx, args[1:], stdout, stderr)
	case "contention":
		return runContention(ctx, args[1:], stdout, stderr)
	case "config":
		return runConfig(ctx, args[1:], stdout, stderr)
	case "delays":
		return runDelays(ctx, args[1:], stdout, stderr)
	case "advise":
		return runAdvise(ctx, args[1:], stdout, stderr)
	}
	if isHelp(args[0]) {
		_, err := io.WriteString(stdout, usage)
		return err
	}
	return usageError{fmt.Errorf("unknown command %q\n\n%s", args[0], usage)}
}

// parseFlags parses a command's flags. After -h it returns flag.ErrHelp,
// which run turns into a clean exit; bad flags and stray arguments are usage
// errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseFlagsArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))}
	}
	return nil
}

// parseFlagsArgs parses a command's flags and leaves the arguments after
// them (fs.Args) to the command, which takes some. After -h it returns
// flag.ErrHelp; bad flags are usage errors.
func parseFlagsArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	return nil
}

func isHelp(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	return false
}
