// Package sweep runs a phase map: one whole simulation per cell of a grid
// over two numeric parameters of the vocabulary (and per seed), on a fixed
// number of goroutines, and reports each cell's outcome per lane. A cell is
// exactly the single run that scenario.Parse(cell.Query()) describes, so a
// cell of a map opens as a playground link and reruns byte for byte with
// "backofflab run".
//
// A sweep's own parameters (x, x_from, …, seeds) are the rows of Table:
// the command line's flags, ParseSpec and the page read them. The cells of
// a sweep can be split into shards (Shard) that run apart, on other
// machines, and whose CSV parts Merge joins into what the whole sweep
// writes.
package sweep

import (
	"github.com/backofflab/backofflab/scenario"
)

// The scales of an axis.
const (
	ScaleLinear = "linear" // evenly spaced values
	ScaleLog    = "log"    // evenly spaced logarithms: a constant ratio between neighbours
)

// Scales are the values an axis's _scale parameter accepts.
var Scales = []string{ScaleLinear, ScaleLog}

// kind is what a row of Table sets.
type kind int

const (
	kindName kind = iota
	kindFrom
	kindTo
	kindSteps
	kindScale
	kindSeeds
)

// role is what the sweep does with a row of Table: the axis it belongs to
// ('x' or 'y', 0 for seeds) and what it sets.
type role struct {
	axis byte
	kind kind
}

// seedsRow is the seeds parameter as a sweep reads it: its one definition,
// shared with the bands and the contention study, is scenario.ViewTable's.
var seedsRow = scenario.MustViewParam(scenario.SeedsParam, scenario.ViewMap)

// seedParam and strategyParam are the vocabulary's rows this package reads
// by name: a name that is gone fails at the package's start.
var (
	seedParam     = scenario.MustLookup("seed")
	strategyParam = scenario.MustLookup("strategy")
)

// ownRow returns p as a row of a sweep's own: of scenario.ScopeView, read by
// the sweep alone, with its Default and Max as the sweep's range.
func ownRow(p scenario.Param) scenario.Param {
	p.Scope = scenario.ScopeView
	p.Views = map[scenario.View]scenario.ViewRange{scenario.ViewMap: {Default: p.Default, Max: p.Max}}
	return p
}

// Table lists a sweep's own parameters, x's first, as rows of the
// scenario's table type. Every other parameter of a sweep is the
// scenario's (scenario.Table): the base of every cell. A row's Default is
// "" for x, x_from and x_to, which every sweep needs, and for y, whose
// absence makes a sweep of one row (y_from and y_to are then not read).
var Table = []scenario.Param{
	ownRow(scenario.Param{Name: "x", Type: scenario.TypeText,
		Help: "the parameter along the map's x axis, such as outage_for, clients, b.min_delay"}),
	ownRow(scenario.Param{Name: "x_from", Type: scenario.TypeText,
		Help: "x's first value, in the parameter's own syntax (1s, 100, 1.5)"}),
	ownRow(scenario.Param{Name: "x_to", Type: scenario.TypeText,
		Help: "x's last value; below x_from, the axis runs downwards"}),
	ownRow(scenario.Param{Name: "x_steps", Type: scenario.TypeInt, Min: 2, Max: maxSteps, Default: "16",
		Help: "the values of x, x_from and x_to included"}),
	ownRow(scenario.Param{Name: "x_scale", Type: scenario.TypeEnum, Choices: Scales, Default: ScaleLinear,
		Help: "linear: evenly spaced values; log: a constant ratio between neighbours (x_from and x_to above 0)"}),
	ownRow(scenario.Param{Name: "y", Type: scenario.TypeText,
		Help: "the parameter along the map's y axis, as x; none (the default): a sweep of one row"}),
	ownRow(scenario.Param{Name: "y_from", Type: scenario.TypeText,
		Help: "y's first value, in the parameter's own syntax"}),
	ownRow(scenario.Param{Name: "y_to", Type: scenario.TypeText,
		Help: "y's last value; below y_from, the axis runs downwards"}),
	ownRow(scenario.Param{Name: "y_steps", Type: scenario.TypeInt, Min: 2, Max: maxSteps, Default: "16",
		Help: "the values of y, y_from and y_to included"}),
	ownRow(scenario.Param{Name: "y_scale", Type: scenario.TypeEnum, Choices: Scales, Default: ScaleLinear,
		Help: "linear or log, as x_scale"}),
	seedsRow,
}

// roles gives the role of each row of Table, by name.
var roles = map[string]role{
	"x": {'x', kindName}, "x_from": {'x', kindFrom}, "x_to": {'x', kindTo}, "x_steps": {'x', kindSteps}, "x_scale": {'x', kindScale},
	"y": {'y', kindName}, "y_from": {'y', kindFrom}, "y_to": {'y', kindTo}, "y_steps": {'y', kindSteps}, "y_scale": {'y', kindScale},
	scenario.SeedsParam: {0, kindSeeds},
}

// maxSteps is the most values of an axis on the command line.
const maxSteps = 1000

// Limits bound what a sweep may cost: the steps of each axis, the seeds per
// cell and the cells in all (x_steps × y_steps × seeds). Every bound is
// one: a zero field allows nothing, never everything.
type Limits struct {
	MaxSteps, MaxSeeds, MaxCells int
	// Check, when not nil, is called with the parameters of the sweep's
	// extreme cells (every value of each axis, and the four corners), so
	// that a server can refuse a sweep whose runs exceed its own bounds
	// (clients, duration) with the error of the value at fault.
	Check func(p scenario.Params) error
	// Bounds are the server's caps on a run's values (scenario.Bounds):
	// the base scenario is read within them and the axes' ends are held
	// to them, each error naming the range in force. The zero Bounds are
	// the table's ranges, the command line's.
	Bounds scenario.Bounds
}

// CLILimits are the command line's: generous, since a sweep there runs on
// the user's own cores or cluster, and the largest values of Table's
// rows. A cluster sweep of 1000 × 1000 cells and 10 seeds is 10 million
// runs.
var CLILimits = Limits{MaxSteps: maxSteps, MaxSeeds: int(seedsRow.Max), MaxCells: 100_000_000}

// Allowed describes the values the row p of Table accepts under lim, for
// error messages and help.
func Allowed(p scenario.Param, lim Limits) string {
	switch roles[p.Name].kind {
	case kindName:
		return "a numeric parameter of the scenario (a whole number, a number or a duration), with its lane letter for a lane's"
	case kindFrom, kindTo:
		return "a value of the parameter " + string(roles[p.Name].axis) + " names, in its range"
	case kindSteps:
		p.Max = float64(lim.MaxSteps)
	case kindSeeds:
		p.Max = float64(lim.MaxSeeds)
	}
	return p.Allowed()
}

// Lookup returns the row of Table called name.
func Lookup(name string) (scenario.Param, bool) {
	for _, p := range Table {
		if p.Name == name {
			return p, true
		}
	}
	return scenario.Param{}, false
}

// axisParam returns the name of axis's parameter of kind k ("x_from").
func axisParam(axis byte, k kind) string {
	for _, p := range Table {
		if r := roles[p.Name]; r.axis == axis && r.kind == k {
			return p.Name
		}
	}
	panic("sweep: no such parameter")
}

// AxisNames returns the names an axis may take over the scenario p: every
// numeric parameter of the vocabulary that p reads, a lane's with its
// letter for each of p's lanes, in the order of scenario.Table. A page
// offers them as the choices of x and y.
func AxisNames(p *scenario.Params) []string {
	var names []string
	for _, row := range scenario.Table {
		if !numeric(row.Type) {
			continue
		}
		lanes := []string{""}
		if row.Lane {
			lanes = lanes[:0]
			for i := range p.Lanes {
				lanes = append(lanes, scenario.LaneNames[i:i+1]+".")
			}
		}
		for _, prefix := range lanes {
			name := prefix + row.Name
			r, err := Axis{Name: name, From: row.Value(p, 0), To: row.Value(p, 0), Scale: ScaleLinear}.resolve('x')
			if err == nil && read('x', r, p) == nil {
				names = append(names, name)
			}
		}
	}
	return names
}
