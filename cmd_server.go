package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"backofflab/realexp"
	"backofflab/scenario"
)

// runServer is "backofflab server": 001's server over real HTTP.
func runServer(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	def := realexp.DefaultServerConfig()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8070", "address to listen on (host:port; port 0 picks a free one)")
	vf := newVocabFlags(fs)
	vf.add("server_limit", fmt.Sprint(def.Limit), "limit", "server_limit")
	vf.add("server_factor", fmt.Sprint(def.Factor), "factor", "server_factor")
	vf.add("server_delay", def.Base.String(), "baseDelay", "server_delay")
	vf.add("server_k", fmt.Sprint(def.K), "server_k")
	vf.add("max_server_delay", def.Max.String(), "max_server_delay")
	vf.add("backlog", fmt.Sprint(def.Backlog), "backlog")
	vf.addBool("cancel_on_timeout", "cancel-on-timeout", "cancel_on_timeout")
	report := fs.Duration("report", time.Second, "interval of the report lines")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: backofflab server [flags]

001's server over real HTTP: GET /api answers "OK" after server_delay while at
most server_limit requests are inside, then server_delay×server_factor^((C−limit)/server_k),
re-evaluated as the concurrency C changes, capped at max_server_delay. Prints
"concurrency: N, last delay: D" every second. Freeze it with kill -STOP / kill -CONT
or, from this machine, curl -X POST http://ADDR/control/pause (and /control/resume);
GET /control/stats gives JSON counters.

`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	cfg := def
	cfg.ReportEvery = *report
	errs := []error{
		vf.parse("server_limit", &cfg.Limit),
		vf.parse("server_factor", &cfg.Factor),
		vf.parse("server_delay", &cfg.Base),
		vf.parse("server_k", &cfg.K),
		vf.parse("max_server_delay", &cfg.Max),
		vf.parse("backlog", &cfg.Backlog),
		vf.parse("cancel_on_timeout", &cfg.CancelOnTimeout),
	}
	if err := errors.Join(errs...); err != nil {
		return usageError{err}
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return usageError{&scenario.ParamError{Name: "addr", Value: *addr, Allow: "host:port, such as 127.0.0.1:8070"}}
	}
	realexp.RaiseFileLimit() // each request inside holds a connection
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "backofflab server: listening on http://%s (GET /api; POST /control/pause, /control/resume; GET /control/stats)\n", ln.Addr())
	return realexp.NewServer(cfg).Run(ctx, ln, stdout)
}

// vocabFlags are flags that set parameters of the vocabulary, some under two
// names (001's and the vocabulary's). Values are gathered raw and parsed
// after the flags, so that every error names the flag as it was given.
type vocabFlags struct {
	fs    *flag.FlagSet
	given map[string]givenFlag // by vocabulary name
}

type givenFlag struct{ name, raw string }

func newVocabFlags(fs *flag.FlagSet) *vocabFlags {
	return &vocabFlags{fs: fs, given: map[string]givenFlag{}}
}

// help describes param for the flag names: its meaning, range and default.
func (v *vocabFlags) help(param, def string, names []string) string {
	p, _, _ := scenario.Lookup(param)
	h := fmt.Sprintf("%s (%s", p.Help, p.Allowed())
	if def != "" {
		h += "; default " + def
	}
	h += ")"
	if len(names) > 1 {
		h += "; same as -" + strings.Join(names[1:], ", -")
	}
	return h
}

// store returns a flag function recording raw for param under name.
func (v *vocabFlags) store(param, name string) func(string) error {
	return func(raw string) error {
		if g, ok := v.given[param]; ok && g.name != name {
			return fmt.Errorf("-%s was given too: they set the same parameter, give one", g.name)
		}
		v.given[param] = givenFlag{name, raw}
		return nil
	}
}

// add defines the flags names for param; def is the default shown.
func (v *vocabFlags) add(param, def string, names ...string) {
	for i, n := range names {
		v.fs.Func(n, v.help(param, def, rotate(names, i)), v.store(param, n))
	}
}

// addBool is add for a boolean parameter, which defaults to false.
func (v *vocabFlags) addBool(param string, names ...string) {
	for i, n := range names {
		v.fs.BoolFunc(n, v.help(param, "false", rotate(names, i)), v.store(param, n))
	}
}

// rotate puts names[i] first.
func rotate(names []string, i int) []string {
	return append([]string{names[i]}, append(append([]string(nil), names[:i]...), names[i+1:]...)...)
}

// parse stores param's value, if one was given, in dst.
func (v *vocabFlags) parse(param string, dst any) error {
	g, ok := v.given[param]
	if !ok {
		return nil
	}
	return realexp.ParseValue(g.name, param, g.raw, dst)
}

// has reports whether param was given, and under which flag name.
func (v *vocabFlags) has(param string) (string, bool) {
	g, ok := v.given[param]
	return g.name, ok
}
