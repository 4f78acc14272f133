package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/backofflab/backofflab/contention"
	"github.com/backofflab/backofflab/scenario"
)

// runContention is "backofflab contention": the AWS blog's contention study
// (package contention), written as text, CSV or JSON.
func runContention(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("contention", flag.ContinueOnError)
	fs.SetOutput(stderr)
	q := url.Values{}
	for _, p := range contention.Params() {
		fs.Func(p.Name, p.FlagHelp(), func(v string) error { q.Set(p.Name, v); return nil })
	}
	// The old names, which scripts written before the rename may give;
	// contention.Parse reads them as their new ones.
	aliases := scenario.Aliases[scenario.ViewContention]
	for _, old := range slices.Sorted(maps.Keys(aliases)) {
		fs.Func(old, fmt.Sprintf("the old name of -%s, which it still sets", aliases[old]),
			func(v string) error { q.Set(old, v); return nil })
	}
	parallelFlag := newViewFlag(fs, scenario.ParallelParam, scenario.ViewContention)
	format := fs.String("format", "text", "output: "+strings.Join(contention.Formats, ", ")+" (text: a table per N)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: backofflab contention [flags]\n\n"+
			"Reruns the contention study of the AWS Architecture Blog's \"Exponential Backoff and\n"+
			"Jitter\" (2015): N clients each make one optimistic-concurrency write to one row;\n"+
			"it prints each strategy's calls (writes) and completion time at each N, over -seeds\n"+
			"runs of each, every run on its own random stream. Its bounds, checked before it\n"+
			"starts: N up to %d, up to %d points (Ns × strategies), and seeds × the sum of N²\n"+
			"over the points up to %.0e, about an hour of one core.\n\n",
			contention.CLILimits.MaxClients, contention.CLILimits.MaxPoints, float64(contention.CLILimits.MaxWork))
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	spec, err := contention.Parse(q, contention.CLILimits)
	if err != nil {
		return usageError{err}
	}
	workers, err := parallelFlag.Int()
	if err != nil {
		return err
	}
	if !slices.Contains(contention.Formats, *format) {
		return usageError{&scenario.ParamError{Name: "format", Value: *format, Allow: "one of " + strings.Join(contention.Formats, ", ")}}
	}
	points, err := contention.Run(ctx, spec, contention.Options{Parallel: workers})
	if err != nil {
		return stopCause(ctx, err)
	}
	return contention.Write(stdout, *format, spec, points)
}
