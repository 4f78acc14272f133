package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/backofflab/backofflab/realexp"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// clientReads reports whether the client has a flag for row r: the clients',
// the strategy's and the limits' rows, and the seed its clients draw from.
func clientReads(r scenario.Param) bool {
	switch r.Scope {
	case scenario.ScopeClients, scenario.ScopeStrategy, scenario.ScopeLimiter:
		return true
	}
	return r.Name == "seed"
}

// runClient is "backofflab client": 001's client population over real HTTP,
// retrying with the strategies the simulator uses.
func runClient(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	p := scenario.Defaults()
	f := newClientFlags(&p, stderr)
	if err := parseFlags(f.fs, args); err != nil {
		return err
	}
	cfg, run, err := f.config(&p)
	if err != nil {
		return usageError{err}
	}
	f.note(stderr, &p, cfg)
	if run > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, run)
		defer cancel()
	}
	_, err = realexp.RunClients(ctx, cfg, func(w realexp.Window) {
		if w.Final && w.Elapsed() < cfg.Report/2 {
			return // a sliver at the end: its rate would mean little
		}
		fmt.Fprintln(stdout, w.Line())
	})
	return err
}

// clientFlags are the client command's flags: the vocabulary's rows it
// reads and its own.
type clientFlags struct {
	fs       *flag.FlagSet
	vf       *vocabFlags
	addr     *string
	exp      *bool
	simple   *string
	duration *string
	report   *time.Duration
}

// newClientFlags declares the client's flags, their defaults p's.
func newClientFlags(p *scenario.Params, stderr io.Writer) *clientFlags {
	def := realexp.DefaultClientConfig()
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &clientFlags{fs: fs}
	f.addr = fs.String("addr", def.Addr, "the server's host:port (or base URL)")
	// A lane row's default is the chosen strategy's, not lane a's; the
	// limits' defaults are every strategy's.
	f.vf = newVocabFlags(fs, clientReads, p, func(r scenario.Param) string {
		switch {
		case r.Name == "strategy":
			return r.Value(p, realLane) + "; " + strategies.NameThinkScaled + " with -exponential-backoff"
		case r.Lane && r.Scope != scenario.ScopeLimiter:
			return "the strategy's"
		}
		return r.Value(p, realLane)
	})
	f.exp = fs.Bool("exponential-backoff", false,
		"retry as 001's program did: -strategy think_scaled (factor e, jitter 0.1, max_delay 5m)")
	f.simple = fs.String("simple-backoff-delay", "100ms", "the simple backoff's fixed delay: -strategy fixed's min_delay")
	f.duration = fs.String("duration", "0", "how long to run; 0 runs until interrupted")
	f.report = fs.Duration("report", def.Report, "interval of the report lines")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: backofflab client [flags]

001's client over real HTTP: -clients clients each think Exp(-lambda) then GET
http://ADDR/api with -timeout per attempt, retrying failed attempts as the
strategy says (default: every -simple-backoff-delay, 001's simple backoff).
Each client draws from its own random stream of -seed.
Prints every -report: OK: x req/sec, errors: y req/sec, timedout: z req/sec,
each line counting only what happened since the previous one.

`)
		fs.PrintDefaults()
	}
	return f
}

// config sets p's real lane from the parsed flags and returns the
// clients' configuration and how long they run (0: until interrupted),
// or every error the flags have, joined.
func (f *clientFlags) config(p *scenario.Params) (realexp.ClientConfig, time.Duration, error) {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, f.vf.set(p, realLane, func(r scenario.Param) bool { return !r.Lane })...)
	errs = append(errs, f.strategy(p)...)
	errs = append(errs, f.vf.set(p, realLane, func(r scenario.Param) bool { return r.Lane && r.Name != "strategy" })...)
	lane := &p.Lanes[realLane]
	if _, ok := f.vf.has("max_delay"); !ok && !scenario.Uses(lane.Strategy, "max_delay") {
		lane.MaxDelay = max(lane.MaxDelay, lane.MinDelay) // unused: never in the way
	}
	cfg := realexp.ClientConfigOf(p, realLane)
	cfg.Addr, cfg.Report = *f.addr, *f.report
	run, err := clientRunFor(*f.duration)
	add(err)
	if len(errs) == 0 {
		add(cfg.Validate())
	}
	return cfg, run, errors.Join(errs...)
}

// strategy sets the real lane's strategy: -strategy, else 001's two
// switches. Its defaults fill the lane before the flags that override them.
func (f *clientFlags) strategy(p *scenario.Params) []error {
	var errs []error
	name := p.Lanes[realLane].Strategy
	stratFlag, hasStrategy := f.vf.has("strategy")
	switch {
	case hasStrategy:
		errs = append(errs, f.vf.set(p, realLane, func(r scenario.Param) bool { return r.Name == "strategy" })...)
		name = p.Lanes[realLane].Strategy
		if *f.exp {
			errs = append(errs, fmt.Errorf("-%s and -exponential-backoff conflict: -exponential-backoff means -strategy %s (001's program); give one",
				stratFlag, strategies.NameThinkScaled))
		}
	case *f.exp:
		name = strategies.NameThinkScaled
	}
	lane := &p.Lanes[realLane]
	defaults, ok := strategies.Defaults(name)
	if !ok {
		return append(errs, fmt.Errorf("no strategy %q", name))
	}
	lane.Params = defaults
	given := false
	f.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == "simple-backoff-delay" })
	if !given {
		return errs
	}
	minFlag, hasMin := f.vf.has("min_delay")
	switch {
	case name != strategies.NameFixed:
		errs = append(errs, fmt.Errorf("-simple-backoff-delay is the simple (fixed) backoff's delay, not %s's: use -min_delay", name))
	case hasMin:
		errs = append(errs, fmt.Errorf("-simple-backoff-delay and -%s conflict: they set the same delay, give one", minFlag))
	default:
		errs = append(errs, setRow("min_delay", &lane.MinDelay, "simple-backoff-delay", *f.simple))
	}
	return slices.DeleteFunc(errs, func(err error) bool { return err == nil })
}

// setRow sets *ptr from raw by the vocabulary's row name, an error naming
// the flag when the row refuses it.
func setRow(name string, ptr any, flagName, raw string) error {
	row, _, ok := scenario.Lookup(name)
	if !ok {
		return fmt.Errorf("the vocabulary has no row %q", name)
	}
	return row.Set(ptr, flagName, raw)
}

// clientRunFor reads -duration once: a value of the duration row, or a
// zero duration ("0", "0s"), which runs until interrupted.
func clientRunFor(raw string) (time.Duration, error) {
	var run time.Duration
	err := setRow("duration", &run, "duration", raw)
	if err == nil {
		return run, nil
	}
	if d, perr := time.ParseDuration(raw); perr == nil && d == 0 {
		return 0, nil
	}
	var pe *scenario.ParamError
	if errors.As(err, &pe) {
		pe.Allow = "0 (until interrupted) or " + pe.Allow
	}
	return 0, err
}

// note says on stderr what the flags leave unused, a file limit too low
// for the clients, and what the clients run.
func (f *clientFlags) note(stderr io.Writer, p *scenario.Params, cfg realexp.ClientConfig) {
	name := p.Lanes[realLane].Strategy
	var unused []string
	for _, r := range f.vf.rows {
		if fl, ok := f.vf.has(r.Name); ok && !scenario.Uses(name, r.Name) {
			unused = append(unused, "-"+fl)
		}
	}
	if len(unused) > 0 {
		fmt.Fprintf(stderr, "backofflab client: note: strategy %s does not use %s\n", name, strings.Join(unused, ", "))
	}
	if soft, hard, err := realexp.RaiseFileLimit(); err == nil && soft < uint64(cfg.Clients)+fileHeadroom {
		fmt.Fprintf(stderr, "backofflab client: warning: the open-file limit is %d (hard limit %d): it sustains about %d clients, not %d; raise it (ulimit -Hn) or lower -clients\n",
			soft, hard, max(int64(soft)-fileHeadroom, 0), cfg.Clients)
	}
	fmt.Fprintf(stderr, "backofflab client: %d clients, think %v, timeout %v, strategy %s %s → %s\n",
		cfg.Clients, cfg.Think, cfg.Timeout, name, strategyParams(p, realLane), cfg.Addr)
}

// fileHeadroom is the open files a client process needs besides one
// connection per client.
const fileHeadroom = 100

// strategyParams lists the parameters lane's strategy reads, then the
// limits that differ from their defaults: max_attempts and deadline when
// set, the limiters' switches when on and their parameters when changed.
func strategyParams(p *scenario.Params, lane int) string {
	strategy := p.Lanes[lane].Strategy
	unset := scenario.Params{Lanes: make([]scenario.Lane, lane+1)}
	unset.Lanes[lane].Params, _ = strategies.Defaults(strategy)
	var b []string
	for _, scope := range []scenario.Scope{scenario.ScopeStrategy, scenario.ScopeLimiter} {
		for _, r := range scenario.Table {
			v := r.Value(p, lane)
			switch {
			case r.Scope != scope || r.Name == "strategy":
			case scope == scenario.ScopeStrategy && !scenario.Uses(strategy, r.Name):
			case scope == scenario.ScopeLimiter && v == r.Value(&unset, lane):
			default:
				b = append(b, r.Name+"="+v)
			}
		}
	}
	return "(" + strings.Join(b, " ") + ")"
}
