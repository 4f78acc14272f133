package scenario

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"backofflab/strategies"
)

// Kind is the type of a parameter's value.
type Kind int

// The kinds of parameter values.
const (
	KindInt      Kind = iota // a whole number
	KindFloat                // a number
	KindDuration             // a Go duration such as 100ms or 2s
	KindEnum                 // one of Choices
	KindBool                 // true or false
	KindSeed                 // a 64-bit unsigned number
)

// Scope is the part of the experiment that reads a parameter. The real
// experiment's commands take their flags from it, and Uses decides by it
// which lane parameters a strategy reads, so that a new row reaches them
// without a list of names to edit.
type Scope int

// The scopes.
const (
	// ScopeRun is the run as a whole: its length, its ticks, its outage and
	// its seed.
	ScopeRun Scope = iota
	// ScopeClients is the client population, whatever its strategy.
	ScopeClients
	// ScopeServer is the server. A lane parameter of this scope is a server
	// behaviour chosen per lane, as cancel_on_timeout is.
	ScopeServer
	// ScopeStrategy is a lane's retry strategy: its name and its formula's
	// parameters, which only some strategies read (strategies.Uses).
	ScopeStrategy
	// ScopeLimiter is a lane's retry limits, which every strategy that
	// retries obeys: all but none.
	ScopeLimiter
)

// Param describes one parameter of the vocabulary. It is the one place that
// the command line, the page's labels and the validator read.
type Param struct {
	// Name is the vocabulary name; for a lane parameter it is written with
	// the lane's letter in front, as in a.strategy.
	Name string
	// Lane reports whether each lane has its own value.
	Lane bool
	// Scope is the part of the experiment that reads the parameter.
	Scope Scope
	Kind  Kind
	// Min and Max bound numeric values, durations in nanoseconds.
	Min, Max float64
	// Choices lists the values of an enum.
	Choices []string
	// Unit is shown beside the value ("s", "req", …); empty for none.
	Unit string
	// Help is the parameter's meaning in one line.
	Help string

	// field returns a pointer to the value in p (lane i for lane
	// parameters): *int, *float64, *time.Duration, *string, *bool or *uint64.
	field func(p *Params, i int) any
}

func d(v time.Duration) float64 { return float64(v) }

// Table lists every parameter in the order the user interface shows them.
var Table = []Param{
	{Name: "clients", Scope: ScopeClients, Kind: KindInt, Min: 1, Max: 1_000_000, Unit: "clients",
		Help:  "number of clients, each thinking then making one request at a time",
		field: func(p *Params, _ int) any { return &p.Clients }},
	{Name: "think", Scope: ScopeClients, Kind: KindDuration, Min: d(time.Millisecond), Max: d(time.Hour), Unit: "s",
		Help:  "mean think time between a client's requests (exponential; 001's lambda)",
		field: func(p *Params, _ int) any { return &p.Think }},
	{Name: "timeout", Scope: ScopeClients, Kind: KindDuration, Min: d(time.Millisecond), Max: d(time.Hour), Unit: "s",
		Help:  "per-attempt timeout: the client abandons an attempt after it",
		field: func(p *Params, _ int) any { return &p.Timeout }},
	{Name: "server_limit", Scope: ScopeServer, Kind: KindInt, Min: 1, Max: 1_000_000, Unit: "req",
		Help:  "concurrency up to which the server answers in server_delay",
		field: func(p *Params, _ int) any { return &p.ServerLimit }},
	{Name: "server_delay", Scope: ScopeServer, Kind: KindDuration, Min: d(time.Millisecond), Max: d(time.Minute), Unit: "s",
		Help:  "the server's latency while concurrency ≤ server_limit",
		field: func(p *Params, _ int) any { return &p.ServerDelay }},
	{Name: "server_factor", Scope: ScopeServer, Kind: KindFloat, Min: 1, Max: 10,
		Help:  "latency grows ×server_factor per server_k requests over the limit",
		field: func(p *Params, _ int) any { return &p.ServerFactor }},
	{Name: "server_k", Scope: ScopeServer, Kind: KindFloat, Min: 0.1, Max: 1_000_000, Unit: "req",
		Help:  "requests over the limit that multiply latency by server_factor",
		field: func(p *Params, _ int) any { return &p.ServerK }},
	{Name: "max_server_delay", Scope: ScopeServer, Kind: KindDuration, Min: d(time.Millisecond), Max: d(24 * time.Hour), Unit: "s",
		Help:  "cap on the server's latency (001's server overflowed instead)",
		field: func(p *Params, _ int) any { return &p.MaxServerDelay }},
	{Name: "backlog", Scope: ScopeServer, Kind: KindInt, Min: 0, Max: 1_000_000, Unit: "conn",
		Help:  "accept backlog while the server is paused; connects beyond it are dropped",
		field: func(p *Params, _ int) any { return &p.Backlog }},
	{Name: "outage", Scope: ScopeRun, Kind: KindEnum, Choices: []string{OutageNone, OutagePause, OutageCrash, OutagePartition},
		Help:  "pause: frozen, connects queue (SIGSTOP); crash: refused, work lost; partition: all lost",
		field: func(p *Params, _ int) any { return &p.Outage }},
	{Name: "outage_at", Scope: ScopeRun, Kind: KindDuration, Min: 0, Max: d(24 * time.Hour), Unit: "s",
		Help:  "when the scheduled outage starts",
		field: func(p *Params, _ int) any { return &p.OutageAt }},
	{Name: "outage_for", Scope: ScopeRun, Kind: KindDuration, Min: 0, Max: d(24 * time.Hour), Unit: "s",
		Help:  "how long the scheduled outage lasts",
		field: func(p *Params, _ int) any { return &p.OutageFor }},
	{Name: "duration", Scope: ScopeRun, Kind: KindDuration, Min: d(time.Second), Max: d(24 * time.Hour), Unit: "s",
		Help:  "virtual time the run lasts",
		field: func(p *Params, _ int) any { return &p.Duration }},
	{Name: "tick", Scope: ScopeRun, Kind: KindDuration, Min: d(10 * time.Millisecond), Max: d(10 * time.Second), Unit: "s",
		Help:  "virtual time between two ticks of the time series",
		field: func(p *Params, _ int) any { return &p.Tick }},
	{Name: "seed", Scope: ScopeRun, Kind: KindSeed, Min: 0, Max: math.MaxUint64,
		Help:  "random seed: the same seed and parameters give the same run",
		field: func(p *Params, _ int) any { return &p.Seed }},
	{Name: "strategy", Lane: true, Scope: ScopeStrategy, Kind: KindEnum, Choices: strategies.Names(),
		Help:  "retry strategy; its defaults fill the parameters not given",
		field: func(p *Params, i int) any { return &p.Lanes[i].Strategy }},
	{Name: "min_delay", Lane: true, Scope: ScopeStrategy, Kind: KindDuration, Min: d(time.Millisecond), Max: d(time.Hour), Unit: "s",
		Help:  "base delay: the first retry's wait (MinDelay)",
		field: func(p *Params, i int) any { return &p.Lanes[i].MinDelay }},
	{Name: "max_delay", Lane: true, Scope: ScopeStrategy, Kind: KindDuration, Min: d(time.Millisecond), Max: d(24 * time.Hour), Unit: "s",
		Help:  "cap on the wait between retries (MaxDelay)",
		field: func(p *Params, i int) any { return &p.Lanes[i].MaxDelay }},
	{Name: "factor", Lane: true, Scope: ScopeStrategy, Kind: KindFloat, Min: 1, Max: 10,
		Help:  "growth of the wait per retry (Factor)",
		field: func(p *Params, i int) any { return &p.Lanes[i].Factor }},
	{Name: "jitter", Lane: true, Scope: ScopeStrategy, Kind: KindFloat, Min: 0, Max: 1,
		Help:  "random spread of the wait (Jitter)",
		field: func(p *Params, i int) any { return &p.Lanes[i].Jitter }},
	{Name: "max_attempts", Lane: true, Scope: ScopeLimiter, Kind: KindInt, Min: 0, Max: 1_000_000, Unit: "attempts",
		Help:  "most attempts per request, the first included; 0 for no limit",
		field: func(p *Params, i int) any { return &p.Lanes[i].MaxAttempts }},
	{Name: "deadline", Lane: true, Scope: ScopeLimiter, Kind: KindDuration, Min: 0, Max: d(24 * time.Hour), Unit: "s",
		Help:  "give up when the next attempt would start this long after the request began; 0 for none",
		field: func(p *Params, i int) any { return &p.Lanes[i].Deadline }},
	{Name: "min_connect_timeout", Lane: true, Scope: ScopeStrategy, Kind: KindDuration, Min: d(time.Millisecond), Max: d(time.Hour), Unit: "s",
		Help:  "gRPC: the shortest timeout an attempt gets",
		field: func(p *Params, i int) any { return &p.Lanes[i].MinConnectTimeout }},
	{Name: "cancel_on_timeout", Lane: true, Scope: ScopeServer, Kind: KindBool,
		Help:  "the server drops a request when its client times out (deadline propagation)",
		field: func(p *Params, i int) any { return &p.Lanes[i].CancelOnTimeout }},
}

// lanesParam is the parameter that sets the number of lanes. It stands apart
// from Table because it decides how the lane parameters are read.
var lanesParam = Param{Name: "lanes", Scope: ScopeRun, Kind: KindInt, Min: 1, Max: MaxLanes, Unit: "lanes",
	Help: "number of lanes, each with its own strategy (default: the highest lane letter given, else 2)"}

// Lookup returns the parameter with the given name, with or without a lane
// letter ("clients", "a.factor" or "factor"), and the lane index or -1.
func Lookup(name string) (Param, int, bool) {
	if name == lanesParam.Name {
		return lanesParam, -1, true
	}
	lane := -1
	if len(name) > 2 && name[1] == '.' {
		lane = strings.IndexByte(LaneNames, name[0])
		if lane < 0 {
			return Param{}, -1, false
		}
		name = name[2:]
	}
	for _, p := range Table {
		if p.Name == name && (p.Lane == (lane >= 0) || lane < 0) {
			return p, lane, true
		}
	}
	return Param{}, -1, false
}

// Uses reports whether a lane whose strategy is strategy reads the parameter
// param (a name without a lane letter): the formula's parameters that
// strategies.Uses names, the limits unless the strategy is none (which never
// retries), the strategy itself, and every parameter of the other scopes,
// which no strategy decides. It is false for an unknown strategy or
// parameter.
func Uses(strategy, param string) bool {
	i := slices.IndexFunc(Table, func(p Param) bool { return p.Name == param })
	if _, ok := strategies.Defaults(strategy); !ok || i < 0 {
		return false
	}
	switch p := Table[i]; {
	case p.Name == "strategy":
		return true
	case p.Scope == ScopeStrategy:
		return strategies.Uses(strategy, param)
	case p.Scope == ScopeLimiter:
		return strategy != strategies.NameNone
	}
	return true
}

// ParamError reports a bad value for one parameter.
type ParamError struct {
	Name  string // the vocabulary name, with its lane letter
	Value string // the value as given
	Allow string // what the parameter accepts
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%s: %q is not allowed (allowed: %s)", e.Name, e.Value, e.Allow)
}

// Allowed describes the values p accepts, for error messages and help.
func (p Param) Allowed() string {
	switch p.Kind {
	case KindEnum:
		return "one of " + strings.Join(p.Choices, ", ")
	case KindBool:
		return "true or false"
	case KindSeed:
		return fmt.Sprintf("a whole number from 0 to %d", uint64(math.MaxUint64))
	case KindDuration:
		return fmt.Sprintf("a duration from %v to %v", time.Duration(p.Min), time.Duration(p.Max))
	case KindInt:
		return fmt.Sprintf("a whole number from %d to %d", int64(p.Min), int64(p.Max))
	}
	return fmt.Sprintf("a number from %s to %s", fmtFloat(p.Min), fmtFloat(p.Max))
}

// Set parses raw, the value given for the parameter (or flag) called name,
// and stores it in ptr (*int, *float64, *time.Duration, *string, *bool or
// *uint64), checking p's range or choices. A bad value is a *ParamError
// naming name, raw and what p allows.
func (p Param) Set(ptr any, name, raw string) error {
	bad := &ParamError{Name: name, Value: raw, Allow: p.Allowed()}
	inRange := func(v float64) bool { return v >= p.Min && v <= p.Max }
	switch v := ptr.(type) {
	case *int:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || !inRange(float64(n)) {
			return bad
		}
		*v = int(n)
	case *float64:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil || !inRange(f) {
			return bad
		}
		*v = f
	case *time.Duration:
		t, err := time.ParseDuration(raw)
		if err != nil || !inRange(float64(t)) {
			return bad
		}
		*v = t
	case *string:
		for _, c := range p.Choices {
			if raw == c {
				*v = c
				return nil
			}
		}
		return bad
	case *bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return bad
		}
		*v = b
	case *uint64:
		n, err := strconv.ParseUint(raw, 10, 64)
		if err != nil {
			return bad
		}
		*v = n
	default:
		panic(fmt.Sprintf("simengine: Param.Set into %T", ptr))
	}
	return nil
}

// format writes the value at ptr the way set reads it back.
func format(ptr any) string {
	switch v := ptr.(type) {
	case *int:
		return strconv.Itoa(*v)
	case *float64:
		return fmtFloat(*v)
	case *time.Duration:
		return v.String()
	case *string:
		return *v
	case *bool:
		return strconv.FormatBool(*v)
	case *uint64:
		return strconv.FormatUint(*v, 10)
	}
	panic(fmt.Sprintf("simengine: no format for %T", ptr))
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Value returns p's value in ps (lane i for a lane parameter) as text.
func (p Param) Value(ps *Params, i int) string { return format(p.field(ps, i)) }

// Parse reads parameters from query values (a URL's query, or flags gathered
// by name). Values not given keep their defaults; a lane whose strategy is
// given starts from that strategy's defaults. The number of lanes is the
// value of lanes, else the highest lane letter given, else 2. Every bad value
// is reported, each as a *ParamError joined into the returned error.
func Parse(q url.Values) (Params, error) {
	p := Defaults()
	var errs []error
	lanes, highest := 0, -1
	for name, vals := range q {
		param, lane, ok := Lookup(name)
		switch {
		case !ok:
			errs = append(errs, &ParamError{Name: name, Value: strings.Join(vals, ","), Allow: "no such parameter"})
		case param.Name == lanesParam.Name:
			if err := param.Set(&lanes, name, last(vals)); err != nil {
				errs = append(errs, err)
			}
		case param.Lane && lane < 0:
			errs = append(errs, &ParamError{Name: name, Value: last(vals),
				Allow: "a lane letter in front, as in a." + name})
		default:
			highest = max(highest, lane)
		}
	}
	if lanes == 0 {
		lanes = len(p.Lanes)
		if highest >= 0 {
			lanes = highest + 1
		}
	}
	p.Lanes = make([]Lane, lanes)
	for i := range p.Lanes {
		p.Lanes[i] = DefaultLane(i)
		name := LaneNames[i:i+1] + ".strategy"
		if raw, ok := q[name]; ok {
			var s string
			if err := Table[indexOf("strategy")].Set(&s, name, last(raw)); err != nil {
				errs = append(errs, err)
				continue
			}
			def, _ := strategies.Defaults(s)
			p.Lanes[i].Params = def
		}
	}
	for name, vals := range q {
		param, lane, ok := Lookup(name)
		if !ok || param.Name == lanesParam.Name || (param.Lane && lane < 0) {
			continue
		}
		if lane >= len(p.Lanes) {
			errs = append(errs, &ParamError{Name: name, Value: last(vals),
				Allow: fmt.Sprintf("lanes a to %c only (lanes=%d)", LaneNames[len(p.Lanes)-1], len(p.Lanes))})
			continue
		}
		if param.Name == "strategy" { // read above, before the lane's defaults
			continue
		}
		if err := param.Set(param.field(&p, lane), name, last(vals)); err != nil {
			errs = append(errs, err)
		}
	}
	for i, l := range p.Lanes {
		if l.MaxDelay < l.MinDelay {
			errs = append(errs, &ParamError{Name: LaneNames[i:i+1] + ".max_delay", Value: l.MaxDelay.String(),
				Allow: fmt.Sprintf("at least %c.min_delay (%v)", LaneNames[i], l.MinDelay)})
		}
	}
	if len(errs) > 0 {
		sortErrors(errs)
		return Params{}, errors.Join(errs...)
	}
	return p, nil
}

// Encode writes every parameter of p, so that Parse(p.Encode()) equals p.
func (p Params) Encode() url.Values {
	q := url.Values{}
	q.Set(lanesParam.Name, strconv.Itoa(len(p.Lanes)))
	for _, param := range Table {
		if !param.Lane {
			q.Set(param.Name, param.Value(&p, 0))
			continue
		}
		for i := range p.Lanes {
			q.Set(LaneNames[i:i+1]+"."+param.Name, param.Value(&p, i))
		}
	}
	return q
}

// Validate checks every value of p against the table, as Parse would.
func (p Params) Validate() error {
	if n := len(p.Lanes); n < 1 || n > MaxLanes {
		return errors.Join(&ParamError{Name: lanesParam.Name, Value: strconv.Itoa(n), Allow: lanesParam.Allowed()})
	}
	_, err := Parse(p.Encode())
	return err
}

func last(vals []string) string {
	if len(vals) == 0 {
		return ""
	}
	return vals[len(vals)-1]
}

func indexOf(name string) int {
	for i, p := range Table {
		if p.Name == name {
			return i
		}
	}
	panic("simengine: no parameter " + name)
}

// sortErrors orders parameter errors by name, so messages are stable
// whatever the order of the map they came from.
func sortErrors(errs []error) {
	slices.SortStableFunc(errs, func(a, b error) int {
		return strings.Compare(a.(*ParamError).Name, b.(*ParamError).Name)
	})
}

// Errors returns the parameter errors inside err, which Parse returned.
func Errors(err error) []*ParamError {
	var out []*ParamError
	var walk func(error)
	walk = func(e error) {
		switch e := e.(type) {
		case *ParamError:
			out = append(out, e)
		case interface{ Unwrap() []error }:
			for _, e := range e.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}
