package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"backofflab/realexp"
	"backofflab/scenario"
	"backofflab/strategies"
)

// runClient is "backofflab client": 001's client population over real HTTP,
// retrying with the strategies the simulator uses.
func runClient(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	def := realexp.DefaultClientConfig()
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", def.Addr, "the server's host:port (or base URL)")
	vf := newVocabFlags(fs)
	vf.add("clients", fmt.Sprint(def.Clients), "clients")
	vf.add("think", "10s; a plain number is seconds, as 001 took it", "lambda", "think")
	vf.add("timeout", def.Timeout.String(), "timeout")
	exp := fs.Bool("exponential-backoff", false,
		"retry as 001's program did: -strategy think_scaled (factor e, jitter 0.1, max_delay 5m)")
	simple := fs.String("simple-backoff-delay", "100ms", "the simple backoff's fixed delay: -strategy fixed's min_delay")
	vf.add("strategy", "fixed; think_scaled with -exponential-backoff", "strategy")
	for _, p := range []string{"min_delay", "max_delay", "factor", "jitter",
		"max_attempts", "deadline", "min_connect_timeout"} {
		vf.add(p, "the strategy's", p)
	}
	duration := fs.String("duration", "0", "how long to run; 0 runs until interrupted")
	vf.add("seed", fmt.Sprint(def.Seed)+"; each client draws from its own stream of it", "seed")
	report := fs.Duration("report", def.Report, "interval of the report lines")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: backofflab client [flags]

001's client over real HTTP: -clients clients each think Exp(-lambda) then GET
http://ADDR/api with -timeout per attempt, retrying failed attempts as the
strategy says (default: every -simple-backoff-delay, 001's simple backoff).
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

	cfg := def
	cfg.Addr, cfg.Report = *addr, *report
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	add(vf.parse("clients", &cfg.Clients))
	add(vf.parse("timeout", &cfg.Timeout))
	add(vf.parse("seed", &cfg.Seed))
	if g, ok := vf.given["think"]; ok {
		add(realexp.ParseSeconds(g.name, "think", g.raw, &cfg.Think))
	}

	// The strategy: -strategy, else 001's two switches.
	name := strategies.NameFixed
	stratFlag, hasStrategy := vf.has("strategy")
	switch {
	case hasStrategy:
		add(vf.parse("strategy", &name))
		if *exp {
			add(fmt.Errorf("-%s and -exponential-backoff conflict: -exponential-backoff means -strategy %s (001's program); give one",
				stratFlag, strategies.NameThinkScaled))
		}
	case *exp:
		name = strategies.NameThinkScaled
	}
	sp, _ := strategies.Defaults(name)
	if given["simple-backoff-delay"] {
		minFlag, hasMin := vf.has("min_delay")
		switch {
		case name != strategies.NameFixed:
			add(fmt.Errorf("-simple-backoff-delay is the simple (fixed) backoff's delay, not %s's: use -min_delay", name))
		case hasMin:
			add(fmt.Errorf("-simple-backoff-delay and -%s conflict: they set the same delay, give one", minFlag))
		default:
			add(realexp.ParseValue("simple-backoff-delay", "min_delay", *simple, &sp.MinDelay))
		}
	}
	add(vf.parse("min_delay", &sp.MinDelay))
	add(vf.parse("max_delay", &sp.MaxDelay))
	add(vf.parse("factor", &sp.Factor))
	add(vf.parse("jitter", &sp.Jitter))
	add(vf.parse("max_attempts", &sp.MaxAttempts))
	add(vf.parse("deadline", &sp.Deadline))
	add(vf.parse("min_connect_timeout", &sp.MinConnectTimeout))
	if _, ok := vf.has("max_delay"); !ok && !strategies.Uses(name, "max_delay") {
		sp.MaxDelay = max(sp.MaxDelay, sp.MinDelay) // unused: never in the way
	}
	cfg.Strategy = sp

	var run time.Duration
	if d, err := time.ParseDuration(*duration); *duration != "0" && (err != nil || d != 0) {
		if err := realexp.ParseValue("duration", "duration", *duration, &run); err != nil {
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
	for _, p := range []string{"min_delay", "max_delay", "factor", "jitter", "max_attempts", "deadline", "min_connect_timeout"} {
		if f, ok := vf.has(p); ok && !scenario.Uses(name, p) {
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
		cfg.Clients, cfg.Think, cfg.Timeout, name, strategyParams(sp), cfg.Addr)

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

// strategyParams lists the parameters strategy p.Strategy reads.
func strategyParams(p strategies.Params) string {
	var b []string
	show := func(name, v string) {
		if strategies.Uses(p.Strategy, name) {
			b = append(b, name+"="+v)
		}
	}
	show("min_delay", p.MinDelay.String())
	show("max_delay", p.MaxDelay.String())
	show("factor", fmt.Sprint(p.Factor))
	show("jitter", fmt.Sprint(p.Jitter))
	show("min_connect_timeout", p.MinConnectTimeout.String())
	if p.MaxAttempts > 0 {
		b = append(b, fmt.Sprint("max_attempts=", p.MaxAttempts))
	}
	if p.Deadline > 0 {
		b = append(b, "deadline="+p.Deadline.String())
	}
	return "(" + strings.Join(b, " ") + ")"
}
