package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/backofflab/backofflab/realexp"
	"github.com/backofflab/backofflab/scenario"
)

// runServer is "backofflab server": the simulator's server over real
// HTTP, by default the worker queue, as run and the playground have it;
// -server_model curve is 001's server.
func runServer(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	p := scenario.Defaults()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8070", "address to listen on (host:port; port 0 picks a free one)")
	vf := newVocabFlags(fs, func(r scenario.Param) bool { return r.Scope == scenario.ScopeServer }, &p, nil)
	report := fs.Duration("report", time.Second, "interval of the report lines")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: backofflab server [flags]

The simulator's server over real HTTP, GET /api answering "OK" by its
-server_model. The default is the worker queue, as for run and the playground:
-workers serve one request each for a service time of mean -service_time
(-service_dist), the others wait in the -backlog, taken -queue_order, and
connects beyond it are dropped. 001's server is -server_model curve: it answers
after server_delay while at most server_limit requests are inside, then
server_delay×server_factor^((C−limit)/server_k), re-evaluated as the
concurrency C changes, capped at max_server_delay. With -server_model linear,
server_delay + server_slope×C. A flag of another model's parameter (001's
-limit without -server_model curve) is refused. Protections, as the simulator has them: with
-shed_above N a request that finds N inside is answered 503 at once; a queue's
free worker answers 503, rather than serve it, a request that waited longer
than -queue_timeout, or, with -queue_control codel, than -codel_interval, and
only -codel_target (newest first) while the queue has not emptied within
-codel_interval. Prints "concurrency: N, last delay: D" every second. Freeze
it with kill -STOP / kill -CONT or, from this machine, curl -X POST
http://ADDR/control/pause (and /control/resume); GET /control/stats gives JSON
counters (shed and expired count the 503s).

`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := errors.Join(vf.set(&p, realLane, func(scenario.Param) bool { return true })...); err != nil {
		return usageError{err}
	}
	if err := errors.Join(vf.otherModels(&p)...); err != nil {
		return usageError{err}
	}
	cfg := realexp.ServerConfigOf(&p, realLane)
	cfg.ReportEvery = *report
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

// realLane is the lane of the Params that the real commands' flags fill:
// each runs one lane, lane a, whose default strategy is 001's simple
// backoff (fixed).
const realLane = 0

// flagAliases are the flag names 001's programs gave parameters of the
// vocabulary, each defined beside the parameter's own on the command that
// has that parameter: -factor is server_factor on the server, while on the
// client, which has no server_factor, -factor is the strategy's factor.
var flagAliases = map[string]string{
	"limit":             "server_limit",
	"factor":            "server_factor",
	"baseDelay":         "server_delay",
	"cancel-on-timeout": "cancel_on_timeout",
	"lambda":            "think",
}

// inSeconds are the duration parameters whose flags also take a plain
// number of seconds, as 001's -lambda did.
var inSeconds = map[string]bool{"think": true}

// vocabFlags are the flags that set parameters of the vocabulary: one per
// row of the table that the command reads, named as the row (a lane row
// without its letter: each command runs one lane), and one per alias of
// those rows. Values are gathered raw and parsed after the flags, so that
// every error names the flag as it was given.
type vocabFlags struct {
	fs    *flag.FlagSet
	rows  []scenario.Param     // in the table's order
	given map[string]givenFlag // by parameter name
}

type givenFlag struct{ name, raw string }

// newVocabFlags defines on fs the flags of the rows that reads accepts.
// Their help shows each row's default in def (realLane's for a lane row),
// unless shown, when not nil, says it otherwise.
func newVocabFlags(fs *flag.FlagSet, reads func(scenario.Param) bool, def *scenario.Params,
	shown func(scenario.Param) string) *vocabFlags {
	v := &vocabFlags{fs: fs, given: map[string]givenFlag{}}
	for _, r := range scenario.Table {
		if !reads(r) || r.SimOnly {
			continue
		}
		v.rows = append(v.rows, r)
		var names []string
		for alias, param := range flagAliases {
			if param == r.Name {
				names = append(names, alias)
			}
		}
		slices.Sort(names)
		names = append([]string{r.Name}, names...)
		d := r.Value(def, realLane)
		if shown != nil {
			d = shown(r)
		}
		for i, n := range names {
			help := v.help(r, d, rotate(names, i))
			if r.Type == scenario.TypeBool {
				fs.BoolFunc(n, help, v.store(r.Name, n))
			} else {
				fs.Func(n, help, v.store(r.Name, n))
			}
		}
	}
	return v
}

// help describes row r for the flag names: its meaning, range and default.
func (v *vocabFlags) help(r scenario.Param, def string, names []string) string {
	h := fmt.Sprintf("%s (%s; default %s)", r.Help, allowed(r), defaultText(def))
	if len(names) > 1 {
		h += "; same as -" + strings.Join(names[1:], ", -")
	}
	return h
}

// allowed is what a flag of r takes.
func allowed(r scenario.Param) string {
	if inSeconds[r.Name] {
		return r.Allowed() + ", or as many seconds"
	}
	return r.Allowed()
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

// rotate puts names[i] first.
func rotate(names []string, i int) []string {
	return append([]string{names[i]}, append(append([]string(nil), names[:i]...), names[i+1:]...)...)
}

// set stores in p (lane's values for lane rows) the value given for every
// row that only accepts, and returns the bad values' errors, each naming
// its flag as given.
func (v *vocabFlags) set(p *scenario.Params, lane int, only func(scenario.Param) bool) []error {
	var errs []error
	for _, r := range v.rows {
		g, ok := v.given[r.Name]
		if !ok || !only(r) {
			continue
		}
		var err error
		if inSeconds[r.Name] {
			err = realexp.ParseSeconds(g.name, r.Name, g.raw, r.Field(p, lane).(*time.Duration))
		} else {
			err = r.Set(r.Field(p, lane), g.name, g.raw)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// otherModels returns an error for each flag given for a parameter that
// only other server models than p's read: 001's -limit to the worker
// queue would otherwise be silently unused.
func (v *vocabFlags) otherModels(p *scenario.Params) []error {
	var errs []error
	_, modelGiven := v.given["server_model"]
	for _, r := range v.rows {
		if g, ok := v.given[r.Name]; ok {
			errs = appendOtherModel(errs, r.Name, g.name, g.raw, p.ServerModel, modelGiven)
		}
	}
	return errs
}

// appendOtherModel appends to errs an error for the server parameter param,
// given as the flag -flagName raw, unless server_model model reads it or
// every model does; modelGiven says whether -server_model was given, or
// model is the default. It is the one wording of that error for every
// command that takes the server's flags.
func appendOtherModel(errs []error, param, flagName, raw, model string, modelGiven bool) []error {
	var by []string
	for _, m := range scenario.ServerModels {
		if slices.Contains(m.Uses, param) {
			by = append(by, m.Name)
		}
	}
	if len(by) == 0 || slices.Contains(by, model) {
		return errs // every model reads it, or this one does
	}
	if !modelGiven {
		model += " (the default)"
	}
	return append(errs, fmt.Errorf("-%s %s: %s is a parameter of server_model %s, not of %s; give -server_model %s",
		flagName, raw, param, strings.Join(by, " or "), model, by[0]))
}

// has reports whether param was given, and under which flag name.
func (v *vocabFlags) has(param string) (string, bool) {
	g, ok := v.given[param]
	return g.name, ok
}
