package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// DefaultRunMemory is the memory budget of one "backofflab run", shared
// equally by its lanes: a lane of a million clients takes about a hundred
// megabytes of its share (256 MiB of four lanes'); what outgrows a share is
// a retry storm's queue of abandoned requests, at a byte or two a request.
const DefaultRunMemory = 1 << 30

// memoryFlag defines -max_memory, the memory budget of each run the
// command makes (DefaultRunMemory unless set); help says what outgrowing
// it does. checkMemory checks its value once the flags are parsed.
func memoryFlag(fs *flag.FlagSet, help string) *budget.Size {
	size := budget.Size(DefaultRunMemory)
	fs.Var(&size, "max_memory", help)
	return &size
}

// checkMemory returns a usage error naming -max_memory unless size is
// above 0 and holds the first state of each of runs (simengine.MinMemory):
// a budget that cannot would stop every lane before its first event, and
// what the command says of such runs would be about nothing. The error
// names the minimum.
func checkMemory(size budget.Size, runs ...scenario.Params) error {
	if size <= 0 {
		return usageError{&scenario.ParamError{Name: "max_memory", Value: size.String(), Allow: "a size above 0, such as 256MiB or 4GiB"}}
	}
	var need int64
	for _, p := range runs {
		n, err := simengine.MinMemory(p)
		if err != nil {
			return usageError{err}
		}
		need = max(need, n)
	}
	if int64(size) < need {
		return usageError{&scenario.ParamError{Name: "max_memory", Value: size.String(),
			Allow: fmt.Sprintf("a size of at least %s (%d bytes), what the first state of the run's lanes takes", budget.Bytes(need), need)}}
	}
	return nil
}

// scenarioFlagSet returns the flag set of the command called name, whose
// errors and help go to stderr, with the scenario's flags (paramFlags),
// which gather their values in q.
func scenarioFlagSet(name string, stderr io.Writer) (*flag.FlagSet, url.Values) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	q := url.Values{}
	paramFlags(fs, q)
	return fs, q
}

// parseScenario reads the run's parameters, which paramFlags gathered in q,
// and checks -max_memory's value: each bad value is a usage error. A flag
// of another server model's parameter is refused, as "backofflab server"
// refuses it, rather than left unread.
func parseScenario(q url.Values, maxMemory budget.Size) (scenario.Params, error) {
	p, err := scenario.Parse(q)
	if err != nil {
		return scenario.Params{}, usageError{err}
	}
	var errs []error
	for _, r := range scenario.Table {
		if vals := q[r.Name]; len(vals) > 0 && !r.Lane {
			errs = appendOtherModel(errs, r.Name, r.Name, vals[len(vals)-1], p.ServerModel, q.Has("server_model"))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return scenario.Params{}, usageError{err}
	}
	if err := checkMemory(maxMemory, p); err != nil {
		return scenario.Params{}, err
	}
	return p, nil
}

// runSim is "backofflab run": it simulates the parameters its flags give and
// writes the result in the chosen format.
func runSim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, q := scenarioFlagSet("run", stderr)
	report := fs.Duration("report", 5*time.Second, "interval of the text report's lines")
	format := fs.String("format", "text", "output: text (001's client lines and verdicts), csv (every tick) or json")
	maxMemory := memoryFlag(fs, "memory budget of the run: a lane whose queues outgrow its share (the budget over the lanes) stops, its verdict says so")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: backofflab run [flags]\n\n"+
			"Simulates the run the flags describe; with no flags, the landing view: a worker\n"+
			"queue paused for 15 s, lane a fixed (retry every 100 ms) against lane b exponential\n"+
			"(001's text). 001's experiment as published: -server_model curve -b.strategy think_scaled.\n"+
			"Lane flags carry the lane's letter: -a.strategy fixed -b.strategy exponential -b.factor 2.7\n"+
			"A flag of another server model's parameter (-server_limit without -server_model curve)\n"+
			"is refused, as \"backofflab server\" refuses it.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p, err := parseScenario(q, *maxMemory)
	if err != nil {
		return err
	}
	mem := budget.NewAccount(nil, int64(*maxMemory))
	// A command's run has the machine's cores: whatever the format, its
	// lanes run in parallel.
	switch *format {
	case "csv":
		return simengine.WriteCSVParallel(ctx, stdout, p, mem)
	case "json":
		return simengine.WriteJSONParallel(ctx, stdout, p, mem)
	case "text":
		given := false
		fs.Visit(func(f *flag.Flag) { given = given || f.Name == "report" })
		if !given {
			*report = min(*report, p.Duration)
		}
		if *report < p.Tick || *report > p.Duration {
			return usageError{&scenario.ParamError{Name: "report", Value: report.String(),
				Allow: fmt.Sprintf("a duration from tick (%v) to duration (%v)", p.Tick, p.Duration)}}
		}
		return writeText(ctx, stdout, p, *report, mem)
	}
	return usageError{&scenario.ParamError{Name: "format", Value: *format, Allow: "one of text, csv, json"}}
}

// paramFlags defines one flag per parameter of the vocabulary (per lane for
// lane parameters); each stores its raw value in q for scenario.Parse. A
// boolean parameter's flag is a boolean flag: given alone it is true, as
// -a.cancel_on_timeout; -a.cancel_on_timeout=false turns it off.
func paramFlags(fs *flag.FlagSet, q url.Values) {
	def := scenario.Defaults()
	store := func(name string) func(string) error {
		return func(v string) error { q.Set(name, v); return nil }
	}
	define := func(param scenario.Param, name, help string) {
		if param.Type == scenario.TypeBool {
			fs.BoolFunc(name, help, store(name))
			return
		}
		fs.Func(name, help, store(name))
	}
	lanes := scenario.MustLookup("lanes")
	fs.Func("lanes", fmt.Sprintf("%s (%s)", lanes.Help, lanes.Allowed()), store("lanes"))
	changes := scenario.ChangesParam()
	fs.Func(changes.Name, changes.Help+" (default none)", store(changes.Name))
	for _, param := range scenario.Table {
		if !param.Lane {
			define(param, param.Name, fmt.Sprintf("%s (%s; default %s)", param.Help, param.Allowed(),
				defaultText(param.Value(&def, 0))))
			continue
		}
		for i := range scenario.MaxLanes {
			name := scenario.LaneNames[i:i+1] + "." + param.Name
			help := "lane " + scenario.LaneNames[i:i+1] + "'s " + param.Name
			switch {
			case i == 0 && param.Scope != scenario.ScopeStrategy: // every strategy's default
				help = fmt.Sprintf("%s (%s; default %s)", param.Help, param.Allowed(), defaultText(param.Value(&def, 0)))
			case i == 0:
				help = fmt.Sprintf("%s (%s; default: the strategy's)", param.Help, param.Allowed())
			}
			define(param, name, help)
		}
	}
}

// defaultText is a default value as help text says it: an empty one (no
// faults, no tiers) as "none".
func defaultText(v string) string {
	if v == "" {
		return "none"
	}
	return v
}

// writeText prints, every report interval, one line per lane in the format of
// 001's client plus the server's concurrency and latency, then the verdicts.
func writeText(ctx context.Context, w io.Writer, p scenario.Params, report time.Duration, mem *budget.Account) error {
	bw := bufio.NewWriter(w)
	label := make([]string, len(p.Lanes))
	for i, l := range p.Lanes {
		label[i] = fmt.Sprintf("[%c %s]", scenario.LaneNames[i], l.Strategy)
	}
	type window struct{ ok, errors, timeouts float64 }
	sums := make([]window, len(p.Lanes))
	n := 0
	nextReport := report
	// A command's run has the machine's cores: its lanes run in parallel.
	sum, err := simengine.RunParallel(ctx, p, mem, func(t scenario.Tick) {
		for i, lt := range t.Lanes {
			sums[i].ok += lt.OK
			sums[i].errors += lt.Errors
			sums[i].timeouts += lt.Timeouts
		}
		n++
		if time.Duration(t.T*float64(time.Second)+0.5) < nextReport {
			return
		}
		for i, lt := range t.Lanes {
			s := sums[i]
			latency := time.Duration(lt.ServerLatency * float64(time.Second)).Round(time.Millisecond)
			fmt.Fprintf(bw, "%s t=%v OK: %.2f req/sec, errors: %.2f req/sec, timedout: %.2f req/sec, concurrency: %d, latency: %v\n",
				label[i], time.Duration(t.T*float64(time.Second)).Round(time.Millisecond),
				s.ok/float64(n), s.errors/float64(n), s.timeouts/float64(n), lt.Concurrency, latency)
		}
		clear(sums)
		n = 0
		nextReport += report
	})
	if err != nil {
		return err
	}
	bw.WriteString("\n")
	for i, s := range sum {
		text := s.Verdict(scenario.Finished).Text
		// A lane judged on a run that changed says so, with the values.
		if w := scenario.LaneChangeWords(p.Changes, i); w != "" {
			text += " (" + w + ")"
		}
		fmt.Fprintf(bw, "%s %s\n", label[i], text)
	}
	return bw.Flush()
}
