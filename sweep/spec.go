package sweep

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/backofflab/backofflab/scenario"
)

// Spec is a whole sweep: the scenario every cell starts from, its axes and
// its seeds.
type Spec struct {
	// Base is the scenario, in the vocabulary (seed included): what a
	// playground URL holds. An axis's values replace Base's value of its
	// parameter. It is ParseSpec's text of the scenario, for links and
	// Encode: the cells' runs are built from the scenario ParseSpec parsed,
	// which a change to Base does not reach.
	Base url.Values
	// X is the map's x axis; Y its y axis, or the zero Axis for a sweep
	// of one row.
	X, Y Axis
	// Seeds is the number of runs per cell, with the seeds seed, seed+1, …
	// (1: one run).
	Seeds int
	// Seed is the base's seed, the first cell's: read once from Base's
	// seed, so that a cell's seed is not parsed from text again.
	Seed uint64

	// cells is what every cell's scenario is built from, parsed once.
	cells *cells
}

// cells is the typed part of a Spec that its cells share: the base
// scenario and the axes' values. Nothing writes it after ParseSpec.
type cells struct {
	// base is Spec.Base parsed: every cell's scenario before its axes'
	// values and its seed are set.
	base scenario.Params
	// x and y are the axes' values (y's name is "" without a y axis).
	x, y axisValues
}

// ParseSpec reads a sweep from q: the sweep's own parameters (Table) and
// the scenario's (scenario.Table), within lim. The spec it returns holds
// its values in canonical syntax (the axes' ends, the base's values as
// scenario.Params.Encode writes them). Every bad value is
// reported, each as a *scenario.ParamError naming the parameter, the
// value and what is allowed, joined into the returned error. Every value of
// each axis must make a scenario that scenario.Parse accepts with the other
// axis's first value (and the four corners of the map are checked too), and
// a lane parameter must be one its lane's strategy reads: a map whose
// cells would all be alike is refused.
func ParseSpec(q url.Values, lim Limits) (Spec, error) {
	own, base := scenario.SplitOwn(q, func(name string) bool { _, ok := Lookup(name); return ok })
	s, errs := readOwn(own, lim)
	if len(errs) > 0 {
		return Spec{}, joinSorted(errs)
	}

	// The axes' parameters and ends, then the base: the scenario without
	// the axes' parameters, in canonical syntax; then whether the base
	// reads the axes' parameters, and their values.
	rx, err := s.X.resolveWithin('x', lim.Bounds)
	errs = appendErr(errs, err)
	var ry resolved
	if s.Y.Name != "" {
		ry, err = s.Y.resolveWithin('y', lim.Bounds)
		errs = appendErr(errs, err)
		if s.Y.Name == s.X.Name {
			errs = append(errs, &scenario.ParamError{Name: "y", Value: s.Y.Name, Allow: "a parameter other than x's"})
		}
	}
	// The axes set their parameters' values cell by cell: a value the
	// scenario gives them too is left out, but it must be one (a link
	// from the playground carries its own), not a malformed one dropped
	// in silence.
	for _, name := range []string{s.X.Name, s.Y.Name} {
		errs = appendErr(errs, checkGiven(base, name, lim))
	}
	delete(base, s.X.Name)
	delete(base, s.Y.Name)
	p, err := scenario.ParseWithin(base, lim.Bounds)
	errs = appendErr(errs, err)
	if len(errs) > 0 {
		return Spec{}, joinSorted(errs)
	}
	s.Base = canonical(base, &p)
	s.Seed = p.Seed
	s.cells = &cells{base: p}
	if n := uint64(s.Seeds - 1); p.Seed > math.MaxUint64-n {
		errs = append(errs, &scenario.ParamError{Name: "seeds", Value: strconv.Itoa(s.Seeds),
			Allow: fmt.Sprintf("at most %d from seed %d (the last seed is seed+seeds−1)", math.MaxUint64-p.Seed+1, p.Seed)})
	}
	for _, ax := range []struct {
		axis byte
		r    resolved
		vals *axisValues
	}{{'x', rx, &s.cells.x}, {'y', ry, &s.cells.y}} {
		if ax.r.Name == "" {
			continue
		}
		err := read(ax.axis, ax.r, &p)
		if err == nil {
			*ax.vals, err = ax.r.values(ax.axis)
		}
		errs = appendErr(errs, err)
	}
	if cells := s.Cells(); cells > lim.MaxCells || cells < 0 {
		value := fmt.Sprintf("%d×%d×%d = %d", s.X.Steps, s.ySteps(), s.Seeds, cells)
		errs = append(errs, &scenario.ParamError{Name: "cells", Value: value,
			Allow: fmt.Sprintf("at most %d cells (x_steps × y_steps × seeds)", lim.MaxCells)})
	}
	if len(errs) > 0 {
		return Spec{}, joinSorted(errs)
	}
	s.X.From, s.X.To = s.X.canonical(s.X.From), s.X.canonical(s.X.To)
	if s.Y.Name != "" {
		s.Y.From, s.Y.To = s.Y.canonical(s.Y.From), s.Y.canonical(s.Y.To)
	}
	if err := s.checkCells(lim); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// readOwn reads a sweep's own parameters, own: its axes, unresolved, and
// its seeds; an error for each one missing or out of range.
func readOwn(own url.Values, lim Limits) (Spec, []error) {
	var s Spec
	var errs []error
	// An empty value is none, as a form's empty field sends it: y= is a
	// sweep of one row.
	get := func(name string) (string, bool) {
		if v := own[name]; len(v) > 0 && v[len(v)-1] != "" {
			return v[len(v)-1], true
		}
		p, _ := Lookup(name)
		return p.Default, p.Default != ""
	}
	steps := func(name string, max int) int {
		raw, _ := get(name)
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > max || (name != "seeds" && n < 2) {
			p, _ := Lookup(name)
			errs = append(errs, &scenario.ParamError{Name: name, Value: raw, Allow: Allowed(p, lim)})
			return 0
		}
		return n
	}
	axis := func(a byte) Axis {
		var ax Axis
		ax.Name, _ = get(axisParam(a, kindName))
		ax.From, _ = get(axisParam(a, kindFrom))
		ax.To, _ = get(axisParam(a, kindTo))
		ax.Scale, _ = get(axisParam(a, kindScale))
		ax.Steps = steps(axisParam(a, kindSteps), lim.MaxSteps)
		return ax
	}
	for _, name := range []string{"x", "x_from", "x_to"} {
		if _, ok := get(name); !ok {
			errs = append(errs, &scenario.ParamError{Name: name, Value: "", Allow: "a value: every sweep needs x, x_from and x_to"})
		}
	}
	s.X = axis('x')
	if _, ok := get("y"); ok {
		s.Y = axis('y')
		for _, name := range []string{"y_from", "y_to"} {
			if _, ok := get(name); !ok {
				errs = append(errs, &scenario.ParamError{Name: name, Value: "", Allow: "a value: y needs y_from and y_to"})
			}
		}
	} else {
		for _, p := range Table {
			if roles[p.Name].axis == 'y' && own.Get(p.Name) != "" {
				errs = append(errs, &scenario.ParamError{Name: p.Name, Value: own.Get(p.Name), Allow: "nothing without y, the parameter along the y axis"})
			}
		}
	}
	s.Seeds = steps("seeds", lim.MaxSeeds)
	return s, errs
}

// checkGiven reports the error of the value that the scenario base gives
// the axis's parameter name, if it gives one: the axis sets the value
// cell by cell, but a malformed one is not dropped in silence.
func checkGiven(base url.Values, name string, lim Limits) error {
	v, ok := base[name]
	if !ok || name == "" {
		return nil
	}
	_, lane, known := scenario.Lookup(name)
	if !known {
		return nil
	}
	one := url.Values{name: v}
	if lane >= 0 {
		one.Set("lanes", strconv.Itoa(scenario.MaxLanes))
	}
	_, err := scenario.ParseWithin(one, lim.Bounds)
	return err
}

// read reports whether the base scenario p reads the axis's parameter: a
// strategy's parameter must be one its lane's strategy uses, a server
// model's one its model reads.
func read(axis byte, r resolved, p *scenario.Params) error {
	name := axisParam(axis, kindName)
	if r.row.Lane && r.lane >= len(p.Lanes) {
		return &scenario.ParamError{Name: name, Value: r.Name,
			Allow: fmt.Sprintf("a parameter of lanes a to %c (lanes=%d)", scenario.LaneNames[len(p.Lanes)-1], len(p.Lanes))}
	}
	if r.row.Lane && !scenario.Uses(p.Lanes[r.lane].Strategy, r.row.Name) {
		return &scenario.ParamError{Name: name, Value: r.Name,
			Allow: fmt.Sprintf("a parameter the scenario reads: lane %c's strategy, %s, does not read %s",
				scenario.LaneNames[r.lane], p.Lanes[r.lane].Strategy, r.row.Name)}
	}
	if !scenario.ReadsLaneParam(p, r.lane, r.row.Name) {
		return &scenario.ParamError{Name: name, Value: r.Name,
			Allow: fmt.Sprintf("a parameter the scenario reads: its switches (server_model=%s, arrival=%s, the limiters) leave %s unread",
				p.ServerModel, p.Arrival, r.Name)}
	}
	return nil
}

// checkCells parses the cells at every value of each axis (with the other
// axis's first value) and at the map's corners, which is where a bound
// between two parameters (a lane's min_delay under its max_delay) or
// lim.Check breaks first; an error names the axis's end at fault.
func (s Spec) checkCells(lim Limits) error {
	ny := s.ySteps()
	type at struct{ x, y int }
	var cells []at
	for x := range s.X.Steps {
		cells = append(cells, at{x, 0})
	}
	for y := 1; y < ny; y++ {
		cells = append(cells, at{0, y})
	}
	cells = append(cells, at{s.X.Steps - 1, ny - 1}, at{s.X.Steps - 1, 0}, at{0, ny - 1})
	for _, c := range cells {
		key := s.Cell(s.index(c.x, c.y, 0))
		p, err := key.Params()
		if err == nil && lim.Check != nil {
			err = lim.Check(p)
		}
		if err == nil {
			continue
		}
		// The first cell is both axes' first values; a cell further along
		// one axis blames that axis's span, up to its last value.
		name, value := axisParam('x', kindTo), s.X.To
		switch {
		case c.x == 0 && c.y == 0:
			name, value = axisParam('x', kindFrom), s.X.From
		case c.x == 0:
			name, value = axisParam('y', kindTo), s.Y.To
		}
		where := s.X.Name + "=" + key.XValue
		if s.Y.Name != "" {
			where += ", " + s.Y.Name + "=" + key.YValue
		}
		return &scenario.ParamError{Name: name, Value: value,
			Allow: fmt.Sprintf("values whose runs the scenario accepts; at %s: %v", where, strings.ReplaceAll(err.Error(), "\n", "; "))}
	}
	return nil
}

// canonical returns the given parameters of base with the values p holds
// for them, in scenario.Params.Encode's syntax, and the seed.
func canonical(base url.Values, p *scenario.Params) url.Values {
	out := url.Values{}
	for name := range base {
		param, lane, _ := scenario.Lookup(name)
		if param.Name == "lanes" {
			out.Set(name, strconv.Itoa(len(p.Lanes)))
			continue
		}
		out.Set(name, param.Value(p, max(lane, 0)))
	}
	out.Set("seed", seedParam.Value(p, 0))
	return out
}

func appendErr(errs []error, err error) []error {
	if err != nil {
		errs = append(errs, err)
	}
	return errs
}

// joinSorted joins parameter errors ordered by name, as scenario.Parse
// does, so that messages are stable.
func joinSorted(errs []error) error {
	var pes []*scenario.ParamError
	for _, e := range errs {
		pes = append(pes, scenario.Errors(e)...)
	}
	slices.SortStableFunc(pes, func(a, b *scenario.ParamError) int { return strings.Compare(a.Name, b.Name) })
	out := make([]error, len(pes))
	for i, e := range pes {
		out[i] = e
	}
	return errors.Join(out...)
}

// Encode writes s so that ParseSpec(s.Encode(), lim) gives s back: the
// base's parameters, every parameter of Table for x and seeds, and y's when
// s has a y axis. Its Encode() is the sweep's canonical query, the one that
// tells the parts of a sharded sweep apart.
func (s Spec) Encode() url.Values {
	q := url.Values{}
	for name, vals := range s.Base {
		q[name] = slices.Clone(vals)
	}
	for _, p := range Table {
		a := s.X
		if roles[p.Name].axis == 'y' {
			if s.Y.Name == "" {
				continue
			}
			a = s.Y
		}
		var v string
		switch roles[p.Name].kind {
		case kindName:
			v = a.Name
		case kindFrom:
			v = a.canonical(a.From)
		case kindTo:
			v = a.canonical(a.To)
		case kindSteps:
			v = strconv.Itoa(a.Steps)
		case kindScale:
			v = a.Scale
		case kindSeeds:
			v = strconv.Itoa(s.Seeds)
		}
		q.Set(p.Name, v)
	}
	return q
}

// canonical writes raw, a value of a's parameter, as scenario.Params.Encode
// does; raw as it is when it is not one.
func (a Axis) canonical(raw string) string {
	r, err := a.resolve('x')
	if err != nil {
		return raw
	}
	v, err := r.parse("x_from", raw)
	if err != nil {
		return raw
	}
	s, err := r.format(v, "x_from")
	if err != nil {
		return raw
	}
	return s
}

// ySteps is the number of rows: Y's steps, or 1 without a y axis.
func (s Spec) ySteps() int {
	if s.Y.Name == "" {
		return 1
	}
	return s.Y.Steps
}

// Cells returns the number of cells: x_steps × y_steps × seeds (one run
// each).
func (s Spec) Cells() int { return s.X.Steps * s.ySteps() * s.Seeds }

// index is the cell index of x, y and the seed's offset: seeds vary
// fastest, then x, then y.
func (s Spec) index(x, y, seed int) int { return (y*s.X.Steps+x)*s.Seeds + seed }

// CellKey says which run a cell is.
type CellKey struct {
	// Index is the cell's place among the sweep's cells, from 0: seeds
	// vary fastest, then x, then y.
	Index int
	// X and Y are the cell's steps along the axes, from 0 (Y is 0 without
	// a y axis).
	X, Y int
	// Seed is the run's seed: the base's seed plus the cell's seed offset.
	Seed uint64
	// XValue and YValue are the axes' values there, in the syntax of
	// scenario.Params.Encode ("" for YValue without a y axis).
	XValue, YValue string

	base         url.Values // shared: never written
	xName, yName string
	cells        *cells // shared: never written
}

// Cell returns the key of cell i, 0 ≤ i < s.Cells().
func (s Spec) Cell(i int) CellKey {
	seed := i % s.Seeds
	r := i / s.Seeds
	k := CellKey{Index: i, X: r % s.X.Steps, Y: r / s.X.Steps, base: s.Base, xName: s.X.Name, yName: s.Y.Name, cells: s.cells}
	k.Seed = s.Seed + uint64(seed)
	k.XValue = s.cells.x.text[k.X]
	if s.Y.Name != "" {
		k.YValue = s.cells.y.text[k.Y]
	}
	return k
}

// Params returns the scenario of the cell's single run: the spec's base,
// parsed once by ParseSpec, with the axes' values and the cell's seed set
// in their fields, never written as text and parsed again. It equals
// scenario.Parse(k.Query()), errors included: each value is checked
// against its row of scenario.Table, and the checks between parameters
// (a lane's delays, the faults' spacing) are made, so that a bad value is
// a *scenario.ParamError naming the parameter, the value and its range.
// k must come from a Spec that ParseSpec returned.
func (k CellKey) Params() (scenario.Params, error) {
	c := k.cells
	p := c.base.Clone()
	p.Seed = k.Seed
	c.x.set(&p, k.X)
	names := []string{c.x.name}
	if c.y.name != "" {
		c.y.set(&p, k.Y)
		names = append(names, c.y.name)
	}
	// The base's other values passed scenario.Parse in ParseSpec.
	if err := p.ValidateChanged(names...); err != nil {
		return scenario.Params{}, err
	}
	return p, nil
}

// Query returns the parameters of the cell's single run: the base with
// the axes' values and the cell's seed, as a playground link's query holds
// them. scenario.Parse(k.Query()) is the cell's run.
func (k CellKey) Query() url.Values {
	q := url.Values{}
	for name, vals := range k.base {
		q[name] = slices.Clone(vals)
	}
	q.Set(k.xName, k.XValue)
	if k.yName != "" {
		q.Set(k.yName, k.YValue)
	}
	q.Set("seed", strconv.FormatUint(k.Seed, 10))
	return q
}
