package advise

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// The names of the advice's own parameters, the rows of Table.
const (
	LibraryParam  = "library"
	RecoverParam  = "recover_within"
	AttemptsParam = "attempts_per_request"
	P99Param      = "p99"
	SuccessParam  = "success"
	ErrorsParam   = "errors"
)

// OwnLibrary is the choice of library that is none: the vocabulary's own
// exponential backoff with jitter (the strategy exponential), whose
// snippet is the lane's flags.
const OwnLibrary = "backofflab"

// seedsRow is the seeds parameter as the advice reads it: its one
// definition is scenario.ViewTable's.
var seedsRow = scenario.MustViewParam(scenario.SeedsParam, scenario.ViewAdvise)

// ownRow returns p as a row of the advice's own: of scenario.ScopeView,
// read by the advice alone, with its Default and Max as the advice's.
func ownRow(p scenario.Param) scenario.Param {
	p.Scope = scenario.ScopeView
	p.Views = map[scenario.View]scenario.ViewRange{scenario.ViewAdvise: {Default: p.Default, Max: p.Max}}
	return p
}

// Table lists the advice's own parameters as rows of the scenario's table
// type: the library whose knobs are searched, the goals, and the seeds
// every candidate runs on. Every other parameter of a request is the
// scenario's (scenario.Table), read as "backofflab run" reads it: the
// system, the outage, and in lane a the user's settings today (by
// default the library's defaults). How many runs go at once is not a
// request's: it is Options.Parallel (the command's -parallel, the
// scenario.ViewTable row for scenario.ViewAdvise).
//
// attempts_per_request is the run's attempts per request, the summary's
// amplification (attempts sent / requests begun over the whole run, the
// outage included): without failures every policy sends 1.0 attempt per
// request, so a bound on the steady state alone would bound nothing; the
// run's figure is what a retry policy adds to the server's load.
var Table = []scenario.Param{
	ownRow(scenario.Param{Name: LibraryParam, Type: scenario.TypeEnum, Choices: LibraryNames(), Default: OwnLibrary,
		Help: "the client library whose retry settings to search (its knobs); backofflab: exponential backoff with jitter"}),
	ownRow(scenario.Param{Name: RecoverParam, Type: scenario.TypeDuration, Min: 0, Max: float64(time.Hour), Unit: "s", Default: "10s",
		Help: "goal: answers back to 90 % of the rate before the outage within this long after it ends, on every seed"}),
	ownRow(scenario.Param{Name: AttemptsParam, Type: scenario.TypeFloat, Min: 1, Max: 1000, Unit: "attempts", Default: "1.5",
		Help: "goal: at most this many attempts per request over the run (the summary's amplification, the outage included), on every seed"}),
	ownRow(scenario.Param{Name: SuccessParam, Type: scenario.TypeFloat, Min: 0, Max: 1, Unit: "share", Default: "0.99",
		Help: "goal: at least this share of requests succeed within the patience (the scenario's patience row), on every seed of the ordinary day, the outage and the herd; 0: no goal. 0.99 rather than 0.999: on the landing system's 15 s outage no back-off alone gets 99.9 % of requests answered within 30 s (the requests begun in the outage wait it out), while 99 % still fails a policy that gives up before the outage ends"}),
	ownRow(scenario.Param{Name: P99Param, Type: scenario.TypeDuration, Min: 0, Max: float64(time.Hour), Unit: "s", Default: "1s",
		Help: "goal: the ordinary day's p99 latency per request (first attempt to final answer, waits included) at most this, on every seed; 0: no goal (it no longer judges the ticks after the outage, whose p99 the requests begun during it dominate)"}),
	ownRow(scenario.Param{Name: ErrorsParam, Type: scenario.TypeFloat, Min: 0, Max: 0.5, Unit: "share", Default: "0.01",
		Help: "the ordinary day's share of answers that fail fast with an error, over its whole run (an error_burst): the transient failures retries are for"}),
	seedsRow,
}

// Lookup returns the row of Table called name.
func Lookup(name string) (scenario.Param, bool) {
	i := slices.IndexFunc(Table, func(p scenario.Param) bool { return p.Name == name })
	if i < 0 {
		return scenario.Param{}, false
	}
	return Table[i], true
}

// LibraryNames lists the choices of library: OwnLibrary first, then every
// library whose configuration libconfig reads and writes (its profile
// fixes its knobs, its exporter writes the snippet), in libconfig's order.
func LibraryNames() []string {
	names := []string{OwnLibrary}
	for _, p := range libconfig.Profiles() {
		names = append(names, p.Name)
	}
	return names
}

// LibraryTitle returns a choice of library in words.
func LibraryTitle(name string) string {
	if name == OwnLibrary {
		return "backofflab (exponential backoff with jitter)"
	}
	return libconfig.Title(name)
}

// Limits bound what a request may ask: its seeds, and, when Check is not
// nil, the scenario of every run the advice may make (the request's, and
// the margins' longest outage and highest load), so that a server refuses
// up front a request whose runs exceed its own bounds, with the error of
// the value at fault.
type Limits struct {
	MaxSeeds int
	Check    func(p scenario.Params) error
	// Bounds are the server's caps on a run's values (scenario.Bounds),
	// within which the scenario is read, each error naming the range in
	// force; the zero Bounds are the table's ranges, the command line's.
	Bounds scenario.Bounds
}

// CLILimits are the command line's: the seeds row's largest value.
var CLILimits = Limits{MaxSeeds: int(seedsRow.Max)}

// marginScales are the bounds a margin may search to, the largest
// first: the longest outage is the largest of them whose run the limits
// allow times the request's, and so is the highest load (clients or
// rate).
var marginScales = []float64{32, 16, 8, 4, 2}

// Request is one question to the advice: the system and the outage, the
// user's settings today, the library, the goals and the seeds, parsed
// and checked once by ParseRequest.
type Request struct {
	// Scenario is the system and the outage, with one lane, a: the user's
	// settings today. Every candidate is this scenario with lane a
	// replaced by the candidate's settings.
	Scenario scenario.Params
	// Library is a choice of LibraryNames.
	Library string
	// RecoverWithin is the recovery goal: the service back within it after
	// the outage, on every seed.
	RecoverWithin time.Duration
	// AttemptsPerRequest is the goal on the run's attempts per request
	// (the summary's amplification), on every seed.
	AttemptsPerRequest float64
	// P99 is the goal on the ordinary day's p99 latency per request; 0
	// for none.
	P99 time.Duration
	// Success is the goal on the share of requests that succeed within
	// the scenario's patience, on every scenario of the suite; 0 for none.
	Success float64
	// Errors is the ordinary day's share of answers that fail fast.
	Errors float64
	// Seeds is the number of seeds each candidate runs on: Scenario.Seed,
	// Scenario.Seed+1, …
	Seeds int

	// outageScale and loadScale are the margins' bounds, as multiples of
	// the request's outage and load: the largest of marginScales whose
	// run the limits allow, 1 when none is.
	outageScale, loadScale float64
}

// ParseRequest reads a request from q: the advice's own parameters
// (Table) and the scenario's, within lim. It is the one decode-and-check
// of the command line's flags (gathered as url.Values) and of the /advise
// page's URL. Every bad value is a *scenario.ParamError naming the
// parameter, the value and what is allowed, joined into the returned
// error; nothing is clamped.
//
// Lane a holds the user's settings today: the library's defaults
// (libconfig's profile) with any a.… value given on top; for a library,
// a.strategy, when given, must be the library's own row. Lanes b to d are
// the advice's to fill, and live changes are not read: both are refused.
func ParseRequest(q url.Values, lim Limits) (Request, error) {
	own, base := scenario.SplitOwn(q, func(name string) bool { _, ok := Lookup(name); return ok })
	r, errs := readRequest(own, lim)
	errs = append(errs, checkBaseNames(base)...)
	if len(errs) > 0 {
		return Request{}, joinSorted(errs)
	}

	today, ok := TodayLane(r.Library)
	if !ok { // Set checked the choice
		return Request{}, fmt.Errorf("advise: no lane for library %s", r.Library)
	}
	if s := base.Get("a.strategy"); s != "" && r.Library != OwnLibrary && s != today.Strategy {
		errs = append(errs, &scenario.ParamError{Name: "a.strategy", Value: s,
			Allow: fmt.Sprintf("%s, %s's row (library=%s): lane a is your settings today in that library", today.Strategy, LibraryTitle(r.Library), r.Library)})
		return Request{}, joinSorted(errs)
	}
	sq := libconfig.Query(today, "a")
	if s := base.Get("a.strategy"); s != "" && s != today.Strategy {
		sq = url.Values{} // another row today: its own defaults, as run reads it
	}
	for name, vals := range base {
		sq[name] = vals
	}
	p, err := scenario.ParseWithin(sq, lim.Bounds)
	if err != nil {
		return Request{}, err
	}
	// The canonical scenario, parsed again, is what Query writes: a
	// request round-trips, values a switch leaves unread included.
	if p, err = scenario.Parse(p.Canonical()); err != nil {
		return Request{}, err
	}
	r.Scenario = p

	errs = r.checkOutage(own)
	// The fresh check runs seed+seeds to seed+2·seeds−1.
	if n := uint64(2*r.Seeds - 1); r.Seeds > 0 && p.Seed > math.MaxUint64-n {
		errs = append(errs, &scenario.ParamError{Name: scenario.SeedsParam, Value: strconv.Itoa(r.Seeds),
			Allow: fmt.Sprintf("at most %d from seed %d (the fresh check's last seed is seed+2·seeds−1)", (math.MaxUint64-p.Seed)/2+(math.MaxUint64-p.Seed)%2, p.Seed)})
	}
	if len(errs) == 0 && lim.Check != nil {
		if err := lim.Check(p); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return Request{}, errors.Join(errs...)
	}
	r.setScales(lim)
	return r, nil
}

// readRequest reads the advice's own parameters, own, within lim: every
// field of a Request but its Scenario.
func readRequest(own url.Values, lim Limits) (Request, []error) {
	var errs []error
	r := Request{}
	set := func(ptr any, name string) {
		p, _ := Lookup(name)
		raw := p.Default
		if v := own[name]; len(v) > 0 {
			raw = v[len(v)-1]
		}
		if name == scenario.SeedsParam {
			p = p.WithMax(lim.MaxSeeds)
		}
		if err := p.Set(ptr, name, raw); err != nil {
			errs = append(errs, err)
		}
	}
	set(&r.Library, LibraryParam)
	set(&r.RecoverWithin, RecoverParam)
	set(&r.AttemptsPerRequest, AttemptsParam)
	set(&r.P99, P99Param)
	set(&r.Success, SuccessParam)
	set(&r.Errors, ErrorsParam)
	set(&r.Seeds, scenario.SeedsParam)
	return r, errs
}

// checkBaseNames refuses the scenario's parameters in base that the
// advice fills itself: lanes other than 1, live changes, and any lane's
// but a's.
func checkBaseNames(base url.Values) []error {
	var errs []error
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range base {
			if !yield(k) {
				return
			}
		}
	}) {
		_, lane, ok := scenario.Lookup(name)
		switch {
		case name == "lanes" && base.Get(name) != "1":
			errs = append(errs, &scenario.ParamError{Name: name, Value: base.Get(name),
				Allow: "1 (or nothing): the advice runs lane a, your settings today, and its candidates, one lane at a time"})
		case name == "changes":
			errs = append(errs, &scenario.ParamError{Name: name, Value: base.Get(name),
				Allow: "nothing: the advice's runs have no live changes"})
		case ok && lane > 0:
			errs = append(errs, &scenario.ParamError{Name: name, Value: base.Get(name),
				Allow: "lane a only: lane a is your settings today, the advice fills the others"})
		}
	}
	return errs
}

// checkOutage checks r's scenario has an outage to survive, and time
// after it for r's recovery; own gives the recovery's value as written.
func (r *Request) checkOutage(own url.Values) []error {
	var errs []error
	p := &r.Scenario
	if p.Outage == scenario.OutageNone {
		errs = append(errs, &scenario.ParamError{Name: "outage", Value: p.Outage,
			Allow: "pause, crash or partition: the outage the settings must survive"})
	} else if p.OutageFor <= 0 {
		errs = append(errs, &scenario.ParamError{Name: "outage_for", Value: p.OutageFor.String(),
			Allow: "above 0s: the outage the settings must survive"})
	}
	after := p.Duration - p.OutageAt - p.OutageFor - scenario.RecoveryWindow
	if after < 0 {
		errs = append(errs, &scenario.ParamError{Name: "duration", Value: p.Duration.String(),
			Allow: fmt.Sprintf("at least %v: outage_at + outage_for + the %v a recovery must hold", p.OutageAt+p.OutageFor+scenario.RecoveryWindow, scenario.RecoveryWindow)})
	} else if r.RecoverWithin > after {
		raw := r.RecoverWithin.String()
		if v := own[RecoverParam]; len(v) > 0 {
			raw = v[len(v)-1]
		}
		errs = append(errs, &scenario.ParamError{Name: RecoverParam, Value: raw,
			Allow: fmt.Sprintf("a duration from 0s to %v: the run's time after the outage (duration − outage_at − outage_for) less the %v a recovery must hold", after, scenario.RecoveryWindow)})
	}
	return errs
}

// setScales sets the bounds r's margins may search to: the largest of
// marginScales whose scaled run lim allows.
func (r *Request) setScales(lim Limits) {
	p := r.Scenario
	allowed := func(x scenario.Params) bool {
		return x.Validate() == nil && (lim.Check == nil || lim.Check(x) == nil)
	}
	r.outageScale, r.loadScale = 1, 1
	for _, k := range slices.Backward(marginScales) {
		if allowed(outageScaled(p, k)) {
			r.outageScale = max(r.outageScale, k)
		}
		if allowed(loadScaled(p, k)) {
			r.loadScale = max(r.loadScale, k)
		}
	}
}

// TodayLane returns the lane a library's defaults make (libconfig's
// profile), or for OwnLibrary the vocabulary's exponential backoff with
// its defaults: the user's settings today when the request gives none.
func TodayLane(library string) (strategies.Params, bool) {
	if library == OwnLibrary {
		return strategies.Defaults(strategies.NameExponential)
	}
	prof, ok := libconfig.LookupProfile(library)
	return prof.Lane, ok
}

// Query returns r as a query that ParseRequest reads back as r: the
// scenario's canonical values (scenario.Params.Canonical, lane a today's)
// and the advice's own values that differ from their defaults.
func (r Request) Query() url.Values {
	q := r.Scenario.Canonical()
	// Canonical leaves out lane a's strategy when it is the playground's
	// lane a's (fixed); here a missing one is the library's.
	if q.Get("a.strategy") == "" {
		q.Set("a.strategy", r.Scenario.Lanes[0].Strategy)
		q.Del("lanes")
	}
	for _, row := range Table {
		var v string
		switch row.Name {
		case LibraryParam:
			v = r.Library
		case RecoverParam:
			v = r.RecoverWithin.String()
		case AttemptsParam:
			v = strconv.FormatFloat(r.AttemptsPerRequest, 'g', -1, 64)
		case P99Param:
			v = r.P99.String()
		case SuccessParam:
			v = strconv.FormatFloat(r.Success, 'g', -1, 64)
		case ErrorsParam:
			v = strconv.FormatFloat(r.Errors, 'g', -1, 64)
		case scenario.SeedsParam:
			v = strconv.Itoa(r.Seeds)
		}
		if v != row.Default {
			q.Set(row.Name, v)
		}
	}
	return q
}

// loadParam is the parameter of p's load: clients, or for an open loop
// rate.
func loadParam(p *scenario.Params) string {
	if p.Arrival == scenario.ArrivalOpen {
		return "rate"
	}
	return "clients"
}

// outageScaled returns p with its outage k times as long and its run as
// much longer, so that the time after the outage stays what it was.
func outageScaled(p scenario.Params, k float64) scenario.Params {
	return withOutage(p, time.Duration(float64(p.OutageFor)*k))
}

// withOutage returns p with an outage lasting d and the time after it
// kept.
func withOutage(p scenario.Params, d time.Duration) scenario.Params {
	p = p.Clone()
	p.Duration += d - p.OutageFor
	p.OutageFor = d
	return p
}

// loadScaled returns p with k times its load: its clients, or for an open
// loop its rate.
func loadScaled(p scenario.Params, k float64) scenario.Params {
	p = p.Clone()
	if p.Arrival == scenario.ArrivalOpen {
		p.Rate = math.Round(p.Rate*k*100) / 100
	} else {
		p.Clients = int(math.Round(float64(p.Clients) * k))
	}
	return p
}

// joinSorted joins parameter errors ordered by name, so that messages are
// stable whatever the order of the query they came from.
func joinSorted(errs []error) error {
	slices.SortStableFunc(errs, func(a, b error) int {
		var pa, pb *scenario.ParamError
		errors.As(a, &pa)
		errors.As(b, &pb)
		if pa == nil || pb == nil {
			return 0
		}
		return strings.Compare(pa.Name, pb.Name)
	})
	return errors.Join(errs...)
}
