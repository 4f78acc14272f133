package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
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
	def := realexp.DefaultClientConfig()
	p := scenario.Defaults()
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", def.Addr, "the server's host:port (or base URL)")
	// A lane row's default is the chosen strategy's, not lane a's; the
	// limits' defaults are every strategy's.
	vf := newVocabFlags(fs, clientReads, &p, func(r scenario.Param) string {
		switch {
		case r.Name == "strategy":
			return r.Value(&p, realLane) + "; " + strategies.NameThinkScaled + " with -exponential-backoff"
		case r.Lane && r.Scope != scenario.ScopeLimiter:
			return "the strategy's"
		}
		return r.Value(&p, realLane)
	})
	exp := fs.Bool("exponential-backoff", false,
		"retry as 001's program did: -strategy think_scaled (factor e, jitter 0.1, max_delay 5m)")
	simple := fs.String("simple-backoff-delay", "100ms", "the simple backoff's fixed delay: -strategy fixed's min_delay")
	duration := fs.String("duration", "0", "how long to run; 0 runs until interrupted")
	report := fs.Duration("report", def.Report, "interval of the report lines")
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
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })

	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, vf.set(&p, realLane, func(r scenario.Param) bool { return !r.Lane })...)

	// The strategy: -strategy, else 001's two switches. Its defaults fill
	// the lane before the flags that override them.
	name := p.Lanes[realLane].Strategy
	stratFlag, hasStrategy := vf.has("strategy")
	switch {
	case hasStrategy:
		errs = append(errs, vf.set(&p, realLane, func(r scenario.Param) bool { return r.Name == "strategy" })...)
		name = p.Lanes[realLane].Strategy
		if *exp {
			add(fmt.Errorf("-%s and -exponential-backoff conflict: -exponential-backoff means -strategy %s (001's program); give one",
				stratFlag, strategies.NameThinkScaled))
		}
	case *exp:
		name = strategies.NameThinkScaled
	}
	lane := &p.Lanes[realLane]
	lane.Params, _ = strategies.Defaults(name)
	if given["simple-backoff-delay"] {
		minFlag, hasMin := vf.has("min_delay")
		switch {
		case name != strategies.NameFixed:
			add(fmt.Errorf("-simple-backoff-delay is the simple (fixed) backoff's delay, not %s's: use -min_delay", name))
		case hasMin:
			add(fmt.Errorf("-simple-backoff-delay and -%s conflict: they set the same delay, give one", minFlag))
		default:
			minDelay := scenario.MustLookup("min_delay")
			add(minDelay.Set(&lane.MinDelay, "simple-backoff-delay", *simple))
		}
	}
	errs = append(errs, vf.set(&p, realLane, func(r scenario.Param) bool { return r.Lane && r.Name != "strategy" })...)
	if _, ok := vf.has("max_delay"); !ok && !scenario.Uses(name, "max_delay") {
		lane.MaxDelay = max(lane.MaxDelay, lane.MinDelay) // unused: never in the way
	}
	cfg := realexp.ClientConfigOf(&p, realLane)
	cfg.Addr, cfg.Report = *addr, *report

	var run time.Duration
	if d, err := time.ParseDuration(*duration); *duration != "0" && (err != nil || d != 0) {
		dur := scenario.MustLookup("duration")
		if err := dur.Set(&run, "duration", *duration); err != nil {
			err.(*scenario.ParamError).Allow = "0 (until interrupted) or " + err.(*scenario.ParamError).Allow
			add(err)
		}
	}
	if len(errs) == 0 {
		add(cfg.Validate())
	}
	if err := errors.Join(errs...); err != nil {
		return usageError{err}
	}

	var unused []string
	for _, r := range vf.rows {
		if f, ok := vf.has(r.Name); ok && !scenario.Uses(name, r.Name) {
			unused = append(unused, "-"+f)
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
		cfg.Clients, cfg.Think, cfg.Timeout, name, strategyParams(&p, realLane), cfg.Addr)

	if run > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, run)
		defer cancel()
	}
	_, err := realexp.RunClients(ctx, cfg, func(w realexp.Window) {
		if w.Final && w.Elapsed() < cfg.Report/2 {
			return // a sliver at the end: its rate would mean little
		}
		fmt.Fprintln(stdout, w.Line())
	})
	return err
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
