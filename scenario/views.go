package scenario

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// View is a many-run view: a command and its page that run many whole
// simulations of one scenario (the phase map, the seed bands, the advice)
// or of the contention study's own model. The rows of ViewTable say which
// views read them.
type View int

// The views.
const (
	ViewMap        View = iota // "backofflab map" and the /map page
	ViewBands                  // "backofflab bands" and the /bands page
	ViewContention             // "backofflab contention" and the /contention page
	ViewAdvise                 // "backofflab advise" and the /advise page
)

// String returns the view's command name.
func (t View) String() string {
	switch t {
	case ViewMap:
		return "map"
	case ViewBands:
		return "bands"
	case ViewContention:
		return "contention"
	case ViewAdvise:
		return "advise"
	}
	return "view(" + strconv.Itoa(int(t)) + ")"
}

// ViewRange is what one view takes of a many-run row: its default, in the
// syntax Set reads, and its largest value on the command line (a server
// may allow less).
type ViewRange struct {
	Default string
	Max     float64
}

// The names of the study rows, for the programs that read them by name.
const (
	SeedsParam    = "seeds"
	ParallelParam = "parallel"
)

// ViewTable lists the parameters that several views share, each defined
// once. A row's Views says which views read it, with each one's default
// and largest value; ViewParam returns the row as one view reads it. The
// scenario's own rows (Table) are the base of every run of a sweep or a
// band, and no view reads them differently.
//
// seeds is the number of runs of one setting, each on its own random
// stream (seed, seed+1, …). Its default and largest value differ by view
// because what a view does with them differs. A phase map's cell is
// read beside its neighbours, which already show a setting's spread, so a
// map takes one seed per cell by default, and its cost is seeds × cells
// (up to 1000 seeds a cell on the command line; sweep.Limits bounds the
// product). A band's 5–95 % quantiles need about 20 seeds before the
// nearest rank separates them from the extremes, and the band stores
// every seed's time series, so at most 100. The contention study's 100
// seeds a point are its original simulator's (100 runs at each N), and up
// to 10 000 put a mean's standard error at 1 % of the runs' spread. The
// advice runs every candidate setting on each of its seeds and counts a
// goal as met only when every seed meets it, so its cost is seeds ×
// candidates and its answer must come within seconds: 5 seeds by
// default, at most 20 (a setting that holds on 20 seeds is what the seed
// bands then show). The contention study called them runs: each of its runs has its own random
// stream, so they are seeds, and runs is kept as an alias (Aliases).
//
// parallel is how many runs go at once on this machine: it is not the
// queue model's workers, the servers inside one run, whose name it once
// shared. 0, the default, is one per CPU. Its largest value is far above
// any machine's cores for a sweep and a band, where a larger number is a
// typo; for the contention study it is 256 because every run at once holds
// its clients' state, about 400 MB at 256 runs of the study's largest N.
var ViewTable = []Param{
	{Name: SeedsParam, Scope: ScopeView, Type: TypeInt, Min: 1, Unit: "seeds",
		Help: "runs of each setting (a map's cell, a band, a point of the contention study), each a whole run on its own random stream (a map's and a band's are those of seed, seed+1, …)",
		Views: map[View]ViewRange{
			ViewMap:        {Default: "1", Max: 1000},
			ViewBands:      {Default: "20", Max: 100},
			ViewContention: {Default: "100", Max: 10_000},
			ViewAdvise:     {Default: "5", Max: 20},
		}},
	{Name: ParallelParam, Scope: ScopeView, Type: TypeInt, Min: 0, Unit: "runs",
		Help: "runs at once on this machine, 0 for one per CPU; it changes no result, unlike workers, the queue model's servers",
		Views: map[View]ViewRange{
			ViewMap:        {Default: "0", Max: 10_000},
			ViewBands:      {Default: "0", Max: 10_000},
			ViewContention: {Default: "0", Max: 256},
			ViewAdvise:     {Default: "0", Max: 10_000},
		}},
}

// Aliases maps an old name of a many-run parameter to its name, per view:
// the old names that a URL or a script in the wild may still use. A view
// reads an alias as the name it stands for; giving both is an error.
var Aliases = map[View]map[string]string{
	ViewContention: {"runs": SeedsParam},
}

// ViewParam returns the row of ViewTable called name as view reads it: Max
// and Default are the view's. It is false when view does not read name.
func ViewParam(name string, view View) (Param, bool) {
	i := slices.IndexFunc(ViewTable, func(p Param) bool { return p.Name == name })
	if i < 0 {
		return Param{}, false
	}
	p := ViewTable[i]
	r, ok := p.Views[view]
	if !ok {
		return Param{}, false
	}
	p.Max, p.Default = r.Max, r.Default
	p.Views = map[View]ViewRange{view: r}
	return p, true
}

// MustViewParam is ViewParam for a name the view is known to read, such as a
// package's own parameter; it panics otherwise, at the package's start.
func MustViewParam(name string, view View) Param {
	p, ok := ViewParam(name, view)
	if !ok {
		panic(fmt.Sprintf("scenario: %s reads no many-run parameter %s", view, name))
	}
	return p
}

// FlagHelp is the one line a command's flag for the many-run row p (as
// ViewParam returns it, or a view's own row) shows: its meaning, what it accepts, and its default.
func (p Param) FlagHelp() string {
	if p.Type == TypeText { // its help says its syntax
		return fmt.Sprintf("%s (default %s)", p.Help, p.Default)
	}
	return fmt.Sprintf("%s (%s; default %s)", p.Help, p.Allowed(), p.Default)
}

// WithMax returns p with its largest value lowered to most, for a server
// that allows less than the command line; most above p.Max changes
// nothing.
func (p Param) WithMax(most int) Param {
	p.Max = min(p.Max, float64(most))
	return p
}

// SplitOwn splits q into a view's own parameters, those whose names own
// reports true for, and the rest, the scenario's; both hold q's own
// value slices.
func SplitOwn(q url.Values, own func(name string) bool) (mine, base url.Values) {
	mine, base = url.Values{}, url.Values{}
	for name, vals := range q {
		if own(name) {
			mine[name] = vals
		} else {
			base[name] = vals
		}
	}
	return mine, base
}

// Unalias returns q with each old name of Aliases for view written as the
// name it stands for, and, for each name it wrote, the old name q gave,
// so that an error can name the parameter as the user spelt it. q itself
// is left as it was. An old name given beside its new one is a
// *ParamError: which value to take would be a guess.
func Unalias(q url.Values, view View) (url.Values, map[string]string, error) {
	out := maps.Clone(q)
	given := map[string]string{}
	var errs []error
	for _, old := range slices.Sorted(maps.Keys(Aliases[view])) {
		vals, ok := q[old]
		if !ok {
			continue
		}
		name := Aliases[view][old]
		if _, both := q[name]; both {
			errs = append(errs, &ParamError{Name: old, Value: strings.Join(vals, ","),
				Allow: fmt.Sprintf("nothing beside %s, its new name: give %s alone", name, name)})
			continue
		}
		delete(out, old)
		out[name] = vals
		given[name] = old
	}
	return out, given, joinSorted(errs)
}
