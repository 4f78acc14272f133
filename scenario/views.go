package scenario

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Tool is a program that runs a study: many runs of one scenario (a phase
// map, a band) or of the contention study's own model. The rows of
// StudyTable say which tools read them.
type Tool int

// The tools.
const (
	ToolSweep      Tool = iota // "backofflab map" and the /map page
	ToolBands                  // "backofflab bands" and the /bands page
	ToolContention             // "backofflab contention" and the /contention page
	ToolAdvise                 // "backofflab advise" and the /advise page
)

// String returns the tool's command name.
func (t Tool) String() string {
	switch t {
	case ToolSweep:
		return "map"
	case ToolBands:
		return "bands"
	case ToolContention:
		return "contention"
	case ToolAdvise:
		return "advise"
	}
	return "tool(" + strconv.Itoa(int(t)) + ")"
}

// ToolRange is what one tool takes of a study row: its default, in the
// syntax Set reads, and its largest value on the command line (a server
// may allow less).
type ToolRange struct {
	Default string
	Max     float64
}

// The names of the study rows, for the programs that read them by name.
const (
	SeedsParam    = "seeds"
	ParallelParam = "parallel"
)

// StudyTable lists the parameters that several tools share, each defined
// once. A row's Tools says which tools read it, with each one's default
// and largest value; Study returns the row as one tool reads it. The
// scenario's own rows (Table) are the base of every run of a sweep or a
// band, and no tool reads them differently.
//
// seeds is the number of runs of one setting, each on its own random
// stream (seed, seed+1, …). Its default and largest value differ by tool
// because what a tool does with them differs. A phase map's cell is
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
var StudyTable = []Param{
	{Name: SeedsParam, Scope: ScopeStudy, Type: TypeInt, Min: 1, Unit: "seeds",
		Help: "runs of each setting (a map's cell, a band, a point of the contention study), each a whole run on its own random stream (a map's and a band's are those of seed, seed+1, …)",
		Tools: map[Tool]ToolRange{
			ToolSweep:      {Default: "1", Max: 1000},
			ToolBands:      {Default: "20", Max: 100},
			ToolContention: {Default: "100", Max: 10_000},
			ToolAdvise:     {Default: "5", Max: 20},
		}},
	{Name: ParallelParam, Scope: ScopeStudy, Type: TypeInt, Min: 0, Unit: "runs",
		Help: "runs at once on this machine, 0 for one per CPU; it changes no result, unlike workers, the queue model's servers",
		Tools: map[Tool]ToolRange{
			ToolSweep:      {Default: "0", Max: 10_000},
			ToolBands:      {Default: "0", Max: 10_000},
			ToolContention: {Default: "0", Max: 256},
			ToolAdvise:     {Default: "0", Max: 10_000},
		}},
}

// Aliases maps an old name of a study parameter to its name, per tool:
// the old names that a URL or a script in the wild may still use. A tool
// reads an alias as the name it stands for; giving both is an error.
var Aliases = map[Tool]map[string]string{
	ToolContention: {"runs": SeedsParam},
}

// Study returns the row of StudyTable called name as tool reads it: Max
// and Default are the tool's. It is false when tool does not read name.
func Study(name string, tool Tool) (Param, bool) {
	i := slices.IndexFunc(StudyTable, func(p Param) bool { return p.Name == name })
	if i < 0 {
		return Param{}, false
	}
	p := StudyTable[i]
	r, ok := p.Tools[tool]
	if !ok {
		return Param{}, false
	}
	p.Max, p.Default = r.Max, r.Default
	p.Tools = map[Tool]ToolRange{tool: r}
	return p, true
}

// MustStudy is Study for a name the tool is known to read, such as a
// package's own parameter; it panics otherwise, at the package's start.
func MustStudy(name string, tool Tool) Param {
	p, ok := Study(name, tool)
	if !ok {
		panic(fmt.Sprintf("scenario: %s reads no study parameter %s", tool, name))
	}
	return p
}

// FlagHelp is the one line a command's flag for the study row p (as
// Study returns it, or a tool's own row) shows: its meaning, what it accepts, and its default.
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

// SplitOwn splits q into a tool's own parameters, those whose names own
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

// Unalias returns q with each old name of Aliases for tool written as the
// name it stands for, and, for each name it wrote, the old name q gave,
// so that an error can name the parameter as the user spelt it. q itself
// is left as it was. An old name given beside its new one is a
// *ParamError: which value to take would be a guess.
func Unalias(q url.Values, tool Tool) (url.Values, map[string]string, error) {
	out := maps.Clone(q)
	given := map[string]string{}
	var errs []error
	for _, old := range slices.Sorted(maps.Keys(Aliases[tool])) {
		vals, ok := q[old]
		if !ok {
			continue
		}
		name := Aliases[tool][old]
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
