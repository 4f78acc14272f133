package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/backofflab/backofflab/bands"
	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
)

// runBands is "backofflab bands": it simulates the parameters its flags
// give with many seeds and writes, per lane, how many collapsed and the
// bands of every tick column.
func runBands(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, q := scenarioFlagSet("bands", stderr)
	seedsFlag := newViewFlag(fs, scenario.SeedsParam, scenario.ViewBands)
	format := fs.String("format", "text", "output: text (each lane's collapsed seeds and median recovery times), csv (each tick's bands) or json")
	parallelFlag := newViewFlag(fs, scenario.ParallelParam, scenario.ViewBands)
	maxMemory := memoryFlag(fs, "memory budget of each seed's run: a lane whose queues outgrow its share (the budget over the lanes) stops, and counts as collapsed")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: backofflab bands -seeds K [flags]\n\n"+
			"Simulates the run the flags describe (as \"backofflab run\" does) with K seeds: seed,\n"+
			"seed+1, …, seed+K−1. Per lane it tells how many seeds collapsed and, per tick, each\n"+
			"column's median and 5–95 %% band across the seeds (nearest rank).\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	seeds, err := seedsFlag.Int()
	if err != nil {
		return err
	}
	workers, err := parallelFlag.Int()
	if err != nil {
		return err
	}
	p, err := parseScenario(q, *maxMemory)
	if err != nil {
		return err
	}
	var write func(*bands.Result) error
	switch *format {
	case "csv":
		write = func(r *bands.Result) error { return r.WriteCSV(stdout) }
	case "json":
		write = func(r *bands.Result) error { return r.WriteJSON(stdout) }
	case "text":
		write = func(r *bands.Result) error { return writeBandsText(stdout, r) }
	default:
		return usageError{&scenario.ParamError{Name: "format", Value: *format, Allow: "one of text, csv, json"}}
	}
	if err := bands.Check(p, seeds, 0); err != nil {
		if tl, ok := err.(*bands.TooLargeError); ok {
			err = tl.ParamError()
		}
		return usageError{err}
	}
	r, err := bands.Run(ctx, p, seeds, bands.Options{Parallel: workers,
		Memory: func() (*budget.Account, error) { return budget.NewAccount(nil, int64(*maxMemory)), nil }})
	if err != nil {
		return stopCause(ctx, err)
	}
	return write(r)
}

// writeBandsText prints per lane how many seeds collapsed and, over the
// seeds that recovered, the median (and 5–95 % band) of the times the
// service and the server took to come back after the outage, or after the
// fault that disrupts a run without one (scenario.Disruption: "the herd").
func writeBandsText(w io.Writer, r *bands.Result) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%d seeds (%d to %d), %s of %v each:\n", r.Seeds, r.Params.Seed, r.Params.Seed+uint64(r.Seeds)-1,
		plural(len(r.Lanes), "lane"), r.Params.Duration)
	after := scenario.Disruption(&r.Params)
	for _, ln := range r.Lanes {
		service := make([]*float64, len(ln.Outcomes))
		server := make([]*float64, len(ln.Outcomes))
		for i, o := range ln.Outcomes {
			service[i], server[i] = o.Summary.ServiceRecoveredAfter, o.Summary.ServerRecoveredAfter
		}
		fmt.Fprintf(bw, "[%s %s] %d of %d seeds collapsed (%.0f %%); service back: %s; server back: %s\n",
			ln.Name, ln.Strategy, ln.Collapsed, r.Seeds, 100*float64(ln.Collapsed)/float64(r.Seeds),
			recoveryText(service, after), recoveryText(server, after))
	}
	return bw.Flush()
}

// recoveryText says the median and 5–95 % band of the recovery times the
// seeds that recovered took, after what ("the outage"), and how many did.
func recoveryText(times []*float64, after string) string {
	var got []float64
	for _, t := range times {
		if t != nil {
			got = append(got, *t)
		}
	}
	if len(got) == 0 {
		return fmt.Sprintf("in none of %d seeds", len(times))
	}
	q := bands.Quantile(got)
	d := func(s float64) time.Duration {
		return time.Duration(s * float64(time.Second)).Round(100 * time.Millisecond)
	}
	return fmt.Sprintf("%v after %s (median; 5–95 %%: %v–%v) in %d of %d seeds", d(q[1]), after, d(q[0]), d(q[2]), len(got), len(times))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
