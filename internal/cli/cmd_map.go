package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/sweep"
)

// runMap is "backofflab map": one whole simulation per cell of a grid
// over one or two parameters of the vocabulary, on every core, written as
// CSV or JSON in cell order; "backofflab map merge" joins the CSV parts
// of a sharded sweep.
func runMap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "merge" {
		return runMerge(ctx, args[1:], stdout, stderr)
	}
	f := newSweepFlags(stderr)
	if err := parseFlags(f.fs, args); err != nil {
		return err
	}
	spec, sh, err := f.spec()
	if err != nil {
		return err
	}
	workers, err := f.parallel.Int()
	if err != nil {
		return err
	}
	return writeOut(*f.out, stdout, func(w io.Writer) error {
		return writeSweep(ctx, w, stderr, spec, sh, *f.format, sweep.Options{
			Parallel: workers,
			Shard:    sh,
			Memory:   func() *budget.Account { return budget.NewAccount(nil, int64(*f.maxMemory)) },
		})
	})
}

// sweepFlags are the sweep command's flags: the scenario's, in q, and the
// sweep's own.
type sweepFlags struct {
	fs        *flag.FlagSet
	q         url.Values
	parallel  *viewFlag
	shard     *string
	format    *string
	out       *string
	maxMemory *budget.Size
}

// newSweepFlags declares the sweep's flags, its help listing its own apart
// from the scenario's.
func newSweepFlags(stderr io.Writer) *sweepFlags {
	fs, q := scenarioFlagSet("map", stderr)
	for _, p := range sweep.Table {
		help := fmt.Sprintf("%s (%s", p.Help, sweep.Allowed(p, sweep.CLILimits))
		if p.Default != "" {
			help += "; default " + p.Default
		}
		fs.Func(p.Name, help+")", func(v string) error { q.Set(p.Name, v); return nil })
	}
	ownFlags := []string{scenario.ParallelParam, "shard", "format", "o", "max_memory"}
	for _, p := range sweep.Table {
		ownFlags = append(ownFlags, p.Name)
	}
	f := &sweepFlags{fs: fs, q: q}
	f.parallel = newViewFlag(fs, scenario.ParallelParam, scenario.ViewMap)
	f.shard = fs.String("shard", "", "run only shard k of n (k/n, n ≥ 1 and 0 ≤ k < n): the cells i with i % n = k, written as a CSV part for \"map merge\"")
	f.format = fs.String("format", sweep.FormatCSV, "output: csv (one row per cell per lane) or json (the spec and the cells)")
	f.out = fs.String("o", "", "write to this file (complete only when the sweep ends: it is written beside it and renamed) instead of the standard output")
	f.maxMemory = memoryFlag(fs, "memory budget of each cell's run: a lane whose queues outgrow its share (the budget over the lanes) stops (outcome stopped)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: backofflab map [flags]\n"+
			"       backofflab map merge [-o FILE] PART...\n\n"+
			"Runs one simulation per cell of a grid: x's values (x_from to x_to in x_steps steps)\n"+
			"by y's, each seeds times, every other parameter as the vocabulary flags give it (those of\n"+
			"\"backofflab run\"). Each cell is exactly the run \"backofflab run\" makes of its parameters.\n"+
			"The CSV has a header, then one row per cell per lane, in cell order, each ending with the\n"+
			"sweep's query (the sweep column, which reruns it) and its shard (k/n, or empty when whole).\n"+
			"001's map: -server_model curve -b.strategy think_scaled -x outage_for -x_from 1s -x_to 60s\n"+
			"-x_steps 32 -y clients -y_from 100 -y_to 3000 -y_steps 32\n\n"+
			"The map's flags:\n")
		printFlags(fs, func(name string) bool { return slices.Contains(ownFlags, name) })
		fmt.Fprintf(fs.Output(), "\nThe scenario's flags, those of \"backofflab run\" (an axis's values replace its own):\n")
		printFlags(fs, func(name string) bool { return !slices.Contains(ownFlags, name) })
		fmt.Fprint(fs.Output(), "\n"+mapExitStatus)
	}
	return f
}

// spec reads the parsed flags as the sweep and its shard (the whole sweep
// when -shard is not given), and checks that -max_memory holds the first
// state of each of its extreme cells.
func (f *sweepFlags) spec() (sweep.Spec, sweep.Shard, error) {
	// The sweep's extreme cells (every value of each axis and the
	// corners), whose first states -max_memory must hold.
	var extremes []scenario.Params
	lim := sweep.CLILimits
	lim.Check = func(p scenario.Params) error {
		extremes = append(extremes, p.Clone())
		return nil
	}
	var sh sweep.Shard
	spec, err := sweep.ParseSpec(f.q, lim)
	if err != nil {
		return spec, sh, usageError{err}
	}
	if *f.shard != "" {
		if sh, err = sweep.ParseShard(*f.shard); err != nil {
			return spec, sh, usageError{err}
		}
		if *f.format != sweep.FormatCSV {
			return spec, sh, usageError{&scenario.ParamError{Name: "format", Value: *f.format, Allow: "csv with -shard: map merge joins CSV parts"}}
		}
	}
	return spec, sh, checkMemory(*f.maxMemory, extremes...)
}

// writeSweep runs the cells of spec's shard sh and writes them to w in
// format, its progress on stderr; a cell that cannot be written stops the
// sweep.
func writeSweep(ctx context.Context, w, stderr io.Writer, spec sweep.Spec, sh sweep.Shard, format string, opt sweep.Options) error {
	sw, err := sweep.NewWriter(w, format, spec, sh)
	if err != nil {
		return usageError{err}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	bar := newProgress(stderr, sh.Cells(spec.Cells()))
	err = sweep.Run(ctx, spec, opt, func(c sweep.Cell) {
		if err := sw.Add(c); err != nil {
			cancel(err)
		}
		bar.done()
	})
	bar.stop()
	err = stopCause(ctx, err)
	if cerr := sw.Close(); err == nil {
		err = cerr
	}
	return err
}

// mapExitStatus is the exit statuses of map and map merge, for
// their help.
const mapExitStatus = `Exit status: 0 when done; 2 for a bad flag or value (or no part given to merge),
before any work; 1 for a failure while running: a part that is not of the sweep, an
output (-o) that cannot be written, another I/O error, or a signal (Ctrl-C, SIGTERM)
that cut it short. A failure leaves no -o file, and no part of one.
`

// printFlags prints, as fs.PrintDefaults does, the flags of fs whose name
// keep accepts.
func printFlags(fs *flag.FlagSet, keep func(string) bool) {
	some := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	some.SetOutput(fs.Output())
	fs.VisitAll(func(f *flag.Flag) {
		if keep(f.Name) {
			some.Var(f.Value, f.Name, f.Usage)
		}
	})
	some.PrintDefaults()
}

// runMerge is "backofflab map merge": it joins the CSV parts of a
// sharded sweep into what the whole sweep writes.
func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("map merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "write to this file (renamed into place once complete) instead of the standard output")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: backofflab map merge [-o FILE] PART...\n\n"+
			"Joins the CSV parts (files, or directories of *.csv files) that \"backofflab map -shard k/n\" wrote, one per shard, into exactly\n"+
			"what the sweep run whole writes. It fails when the parts belong to different sweeps, a shard\n"+
			"is missing or given twice, or a cell is missing or appears twice. It checks every row against\n"+
			"the sweep the parts' sweep column names (each column's type and range, and each cell's steps,\n"+
			"seed, axis values, lanes and strategies as that sweep gives them), and reads no line longer,\n"+
			"and no part larger, than a legal sweep writes. An error names the part, the line, the\n"+
			"column, the value and what was expected.\n\n")
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\n"+mapExitStatus)
	}
	if err := parseFlagsArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{errors.New("map merge: no parts given (backofflab map merge PART...)")}
	}
	names, err := partFiles(fs.Args())
	if err != nil {
		return err
	}
	parts := make([]sweep.Part, len(names))
	files := make([]*os.File, 0, len(names))
	defer func() {
		for _, f := range files {
			f.Close() // read only: a close's error loses nothing
		}
	}()
	for i, name := range names {
		f, err := openPart(ctx, name)
		if err != nil {
			return stopCause(ctx, err)
		}
		files = append(files, f)
		parts[i] = sweep.Part{Name: name, R: f}
	}
	// A read that blocks (a FIFO whose writer never writes) would outlast
	// Ctrl-C or SIGTERM, which the program catches: closing the files ends
	// it, and Merge then returns the signal.
	stopReads := context.AfterFunc(ctx, func() {
		for _, f := range files {
			f.Close()
		}
	})
	defer stopReads()
	return writeOut(*out, stdout, func(w io.Writer) error { return sweep.Merge(ctx, w, parts) })
}

// partFiles returns the files that args name: a file as it is, and for a
// directory the *.csv files in it (not those whose name begins with a dot,
// such as a part still being written): a cluster's merge Job names the
// shared volume's directory, having no shell to expand a pattern.
func partFiles(args []string) ([]string, error) {
	var names []string
	for _, arg := range args {
		st, err := os.Stat(arg)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			names = append(names, arg)
			continue
		}
		files, err := filepath.Glob(filepath.Join(arg, "*.csv"))
		if err != nil {
			return nil, err
		}
		n := len(names)
		for _, f := range files {
			if !strings.HasPrefix(filepath.Base(f), ".") {
				names = append(names, f)
			}
		}
		if len(names) == n {
			return nil, fmt.Errorf("map merge: %s holds no part (*.csv)", arg)
		}
	}
	return names, nil
}

// writeOut calls write with stdout, or when name is not empty with a file
// beside name that it renames to name once write has succeeded: a file of
// that name is always complete. It checks name, and creates the file
// beside it, before it calls write, so that a sweep whose -o cannot be
// written fails before its first cell runs, not after its last.
func writeOut(name string, stdout io.Writer, write func(io.Writer) error) error {
	if name == "" {
		return write(stdout)
	}
	if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() {
		what := "a directory"
		if !st.IsDir() {
			what = "not a regular file (" + st.Mode().Type().String() + ")"
		}
		return fmt.Errorf("-o %s: %s: give a file's name (the output is written beside it, then renamed to it)", name, what)
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return fmt.Errorf("-o %s: cannot write beside it: %w", name, err)
	}
	defer os.Remove(f.Name())              // once renamed, there is nothing to remove
	if err := f.Chmod(0o644); err != nil { // CreateTemp's 0600 is for secrets
		f.Close()
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}

// progress draws a bar on a terminal: cells done of the total, cells per
// second and the time left. On anything else it draws nothing.
type progress struct {
	w     io.Writer // nil: not a terminal
	total int
	start time.Time

	mu    sync.Mutex
	n     int
	drawn time.Time
}

func newProgress(stderr io.Writer, total int) *progress {
	p := &progress{total: total, start: time.Now()}
	if f, ok := stderr.(*os.File); ok && isTerminal(f) {
		p.w = f
	}
	return p
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (p *progress) done() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if now := time.Now(); now.Sub(p.drawn) >= 200*time.Millisecond || p.n == p.total {
		p.drawn = now
		fmt.Fprint(p.w, "\r"+progressLine(p.n, p.total, now.Sub(p.start)))
	}
}

func (p *progress) stop() {
	if p.w != nil && p.n > 0 {
		fmt.Fprintln(p.w)
	}
}

// progressLine is the bar for n cells done of total after elapsed.
func progressLine(n, total int, elapsed time.Duration) string {
	const width = 30
	filled := width
	if total > 0 {
		filled = n * width / total
	}
	rate := float64(n) / max(elapsed.Seconds(), 1e-9)
	left := "?"
	if n > 0 {
		left = time.Duration(float64(total-n) / rate * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("[%s%s] %d/%d cells  %.1f cells/s  %s left ",
		strings.Repeat("#", filled), strings.Repeat(".", width-filled), n, total, rate, left)
}
