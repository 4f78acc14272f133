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
	"fmt"
	"strings"

	"backofflab/scenario"
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

// Param is one of a sweep's own parameters: a row of Table.
type Param struct {
	// Name is the parameter's name on the command line and in the URL.
	Name string
	// Axis is 'x' or 'y' for an axis's parameter, 0 for seeds.
	Axis byte
	// Default is the value taken when none is given; "" for x, x_from
	// and x_to, which every sweep needs, and for y, whose absence makes
	// a sweep of one row (y_from and y_to are then not read).
	Default string
	// Help is the parameter's meaning in one line.
	Help string

	kind kind
}

// Table lists a sweep's own parameters, x's first. Every other parameter
// of a sweep is the scenario's (scenario.Table): the base of every cell.
var Table = []Param{
	{Name: "x", Axis: 'x', kind: kindName,
		Help: "the parameter along the map's x axis, such as outage_for, clients, b.min_delay"},
	{Name: "x_from", Axis: 'x', kind: kindFrom,
		Help: "x's first value, in the parameter's own syntax (1s, 100, 1.5)"},
	{Name: "x_to", Axis: 'x', kind: kindTo,
		Help: "x's last value; below x_from, the axis runs downwards"},
	{Name: "x_steps", Axis: 'x', kind: kindSteps, Default: "16",
		Help: "the values of x, x_from and x_to included"},
	{Name: "x_scale", Axis: 'x', kind: kindScale, Default: ScaleLinear,
		Help: "linear: evenly spaced values; log: a constant ratio between neighbours (x_from and x_to above 0)"},
	{Name: "y", Axis: 'y', kind: kindName,
		Help: "the parameter along the map's y axis, as x; none (the default): a sweep of one row"},
	{Name: "y_from", Axis: 'y', kind: kindFrom,
		Help: "y's first value, in the parameter's own syntax"},
	{Name: "y_to", Axis: 'y', kind: kindTo,
		Help: "y's last value; below y_from, the axis runs downwards"},
	{Name: "y_steps", Axis: 'y', kind: kindSteps, Default: "16",
		Help: "the values of y, y_from and y_to included"},
	{Name: "y_scale", Axis: 'y', kind: kindScale, Default: ScaleLinear,
		Help: "linear or log, as x_scale"},
	{Name: "seeds", kind: kindSeeds, Default: "1",
		Help: "runs per cell, with the seeds seed, seed+1, …"},
}

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
}

// CLILimits are the command line's: generous, since a sweep there runs on
// the user's own cores or cluster. A cluster sweep of 1000 × 1000 cells
// and 10 seeds is 10 million runs.
var CLILimits = Limits{MaxSteps: 1000, MaxSeeds: 1000, MaxCells: 100_000_000}

// Allowed describes the values p accepts under lim, for error messages and
// help.
func (p Param) Allowed(lim Limits) string {
	switch p.kind {
	case kindName:
		return "a numeric parameter of the scenario (a whole number, a number or a duration), with its lane letter for a lane's"
	case kindFrom, kindTo:
		return "a value of the parameter " + string(p.Axis) + " names, in its range"
	case kindSteps:
		return fmt.Sprintf("a whole number from 2 to %d", lim.MaxSteps)
	case kindScale:
		return "one of " + strings.Join(Scales, ", ")
	}
	return fmt.Sprintf("a whole number from 1 to %d", lim.MaxSeeds)
}

// Lookup returns the row of Table called name.
func Lookup(name string) (Param, bool) {
	for _, p := range Table {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// axisParam returns the name of axis's parameter of kind k ("x_from").
func axisParam(axis byte, k kind) string {
	for _, p := range Table {
		if p.Axis == axis && p.kind == k {
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
