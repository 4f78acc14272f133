package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/backofflab/backofflab/advise"
	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/parallel"
	"github.com/backofflab/backofflab/scenario"
)

// runAdvise is "backofflab advise": it searches the retry settings of a
// library that meet the user's goals on the system and outage its flags
// give, and prints the advice (text or JSON) on stdout, its estimate and
// progress on stderr.
func runAdvise(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, q := scenarioFlagSet("advise", stderr)
	for _, p := range advise.Table {
		fs.Func(p.Name, p.FlagHelp(), func(v string) error { q.Set(p.Name, v); return nil })
	}
	parallelFlag := newViewFlag(fs, scenario.ParallelParam, scenario.ViewAdvise)
	format := fs.String("format", "text", "output: text or json")
	maxMemory := memoryFlag(fs, "memory budget of each run: a lane whose queues outgrow its share (the budget over the lanes) stops, and has not recovered")
	ownFlags := []string{scenario.ParallelParam, "format", "max_memory"}
	for _, p := range advise.Table {
		ownFlags = append(ownFlags, p.Name)
	}
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: backofflab advise [flags]\n\n"+
			"Searches the retry settings of a library (-library) that meet your goals on the system and\n"+
			"the outage the scenario's flags give (those of \"backofflab run\"; with none, the landing\n"+
			"view's): its back-off and the limiters its configuration sets (gRPC's maxTokens and\n"+
			"tokenRatio, Envoy's max_retries and retry budget, resilience4j's breaker, backofflab's retry\n"+
			"budget), each setting whole runs of a suite (an ordinary day with -errors of its answers\n"+
			"failing, the outage, a herd at the outage's start) on -seeds seeds from -seed, a goal met\n"+
			"only if every seed of every scenario it judges meets it: -success of requests answered\n"+
			"within the patience, the ordinary day's -p99 per request, -recover_within after the outage\n"+
			"and the herd, -attempts_per_request through the outage. It recommends the setting that\n"+
			"meets every goal with the largest margin and says what each goal cost. It prints the\n"+
			"recommendation, its check on as many fresh seeds (from seed+seeds: a claim stands only if\n"+
			"it holds there too) beside the runner-up's, its margins\n"+
			"(the longest outage and highest load it still recovers from), the trade-off between\n"+
			"recovery and attempts per request, a map around it, the library's configuration, and the\n"+
			"flags of the \"backofflab run\" that reproduces it.\n"+
			"Where no setting meets the goals it says how close the best came and tries the protections\n"+
			"(retry budget, throttling, deadline propagation, load shedding, capacity). Lane a's flags\n"+
			"are your settings today (default: the library's defaults); the estimate and the progress\n"+
			"go to stderr.\n"+
			"Example: backofflab advise -library grpc -outage_for 60s -recover_within 20s -attempts_per_request 1.2 -success 0.35\n\n"+
			"The advice's flags:\n")
		printFlags(fs, func(name string) bool { return slices.Contains(ownFlags, name) })
		fmt.Fprintf(fs.Output(), "\nThe scenario's flags, those of \"backofflab run\" (lane a only):\n")
		printFlags(fs, func(name string) bool { return !slices.Contains(ownFlags, name) })
		fmt.Fprint(fs.Output(), "\n"+adviseExitStatus)
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return usageError{&scenario.ParamError{Name: "format", Value: *format, Allow: "one of text, json"}}
	}
	r, err := advise.ParseRequest(q, advise.CLILimits)
	if err != nil {
		return usageError{err}
	}
	var errs []error
	for _, row := range scenario.Table {
		if vals := q[row.Name]; len(vals) > 0 && !row.Lane {
			errs = appendOtherModel(errs, row.Name, row.Name, vals[len(vals)-1], r.Scenario.ServerModel, q.Has("server_model"))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return usageError{err}
	}
	if err := checkMemory(*maxMemory, r.Scenario); err != nil {
		return err
	}
	workers, err := parallelFlag.Int()
	if err != nil {
		return err
	}
	o := advise.Options{
		Parallel: workers,
		Memory:   func() (*budget.Account, error) { return budget.NewAccount(nil, int64(*maxMemory)), nil },
	}
	est, err := advise.EstimateCost(ctx, r, o)
	if err != nil {
		return stopCause(ctx, err)
	}
	fmt.Fprintf(stderr, "advise: at most %d runs, about %s of CPU\n", est.Runs, est.CPU.Round(100*time.Millisecond))
	bar := newAdviseProgress(stderr, workers)
	o.Progress = bar.update
	a, err := advise.Run(ctx, r, o)
	bar.stop()
	if err != nil {
		return stopCause(ctx, err)
	}
	if *format == "json" {
		return advise.WriteJSON(stdout, a)
	}
	return advise.WriteText(stdout, a)
}

// adviseExitStatus is the exit statuses of advise, for its help.
const adviseExitStatus = `Exit status: 0 when the advice is printed, whether or not a setting meets the goals; 2 for a
bad flag or value, before any run; 1 for a failure while running: an output that cannot be
written, or a signal (Ctrl-C, SIGTERM) that cut it short.
`

// adviseProgress shows an advice's progress on stderr: on a terminal one
// line redrawn (the phase, runs done of the total and the time left); on
// anything else a line when the phase changes.
type adviseProgress struct {
	w       io.Writer
	workers int // runs at once
	tty     bool
	start   time.Time
	drawn   time.Time
	phase   string
	last    advise.Progress
}

func newAdviseProgress(stderr io.Writer, workers int) *adviseProgress {
	p := &adviseProgress{w: stderr, workers: parallel.Workers(workers), start: time.Now()}
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		p.tty = true
	}
	return p
}

// update is Options.Progress: Run calls it from one goroutine.
func (p *adviseProgress) update(pr advise.Progress) {
	p.last = pr
	now := time.Now()
	if !p.tty {
		if pr.Phase != p.phase {
			p.phase = pr.Phase
			fmt.Fprintf(p.w, "advise: %s (%d/%d runs, %s left)\n", pr.Phase, pr.Done, pr.Total, p.left(pr, now))
		}
		return
	}
	if now.Sub(p.drawn) >= 200*time.Millisecond || pr.Done == pr.Total {
		p.drawn = now
		fmt.Fprintf(p.w, "\r%-60s %d/%d runs, %s left ", pr.Phase, pr.Done, pr.Total, p.left(pr, now))
	}
}

// left is the time left at the rate so far; "?" until the first runs on
// every core have ended, when a rate means something.
func (p *adviseProgress) left(pr advise.Progress, now time.Time) string {
	if pr.Done < 2*p.workers {
		return "?"
	}
	per := now.Sub(p.start) / time.Duration(pr.Done)
	return (per * time.Duration(pr.Total-pr.Done)).Round(100 * time.Millisecond).String()
}

func (p *adviseProgress) stop() {
	took := time.Since(p.start).Round(10 * time.Millisecond)
	if p.tty && p.last.Done > 0 {
		fmt.Fprintln(p.w)
	}
	fmt.Fprintf(p.w, "advise: %d runs in %s\n", p.last.Done, strings.TrimSpace(took.String()))
}
