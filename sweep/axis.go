package sweep

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// An Axis is one swept parameter of the vocabulary.
type Axis struct {
	// Name is a numeric parameter of the scenario (a whole number, a
	// number or a duration), with its lane letter for a lane's:
	// "outage_for", "clients", "b.min_delay", "b.factor".
	Name string
	// From and To are the first and last values, in the parameter's own
	// syntax ("1s", "1m", "100", "1.5").
	From, To string
	// Steps is the number of values, From and To included: 2 or more.
	Steps int
	// Scale is ScaleLinear or ScaleLog.
	Scale string
}

// Values returns the axis's Steps values, From first, in the syntax that
// scenario.Params.Encode writes, rounded to the parameter's resolution:
//
//   - a whole number to the nearest one;
//   - a duration to the millisecond, or to 3 significant digits when that
//     is finer (under 100 ms: 12.3ms, 456µs);
//   - a number to 4 significant digits.
//
// It returns nil for an axis that ParseSpec refuses.
func (a Axis) Values() []string { return a.xValues().text }

// Quantities returns the same values as Values, as numbers in the
// parameter's unit (nanoseconds for a duration), for a page that says
// them in its own words; nil for an axis that ParseSpec refuses.
func (a Axis) Quantities() []float64 { return a.xValues().vals }

// xValues is a's values as the x axis, none for an axis that ParseSpec
// refuses.
func (a Axis) xValues() axisValues {
	r, err := a.resolve('x')
	if err != nil {
		return axisValues{}
	}
	vs, err := r.values('x')
	if err != nil {
		return axisValues{}
	}
	return vs
}

// resolved is an axis whose parameter is known and whose ends are parsed.
type resolved struct {
	Axis
	row      scenario.Param
	lane     int     // the lane of a lane parameter, else 0
	from, to float64 // in the parameter's unit (nanoseconds for a duration)
}

// resolve finds a's parameter and parses its ends and scale; errors name
// the parameters of axis ('x' or 'y').
func (a Axis) resolve(axis byte) (resolved, error) { return a.resolveWithin(axis, scenario.Bounds{}) }

// resolveWithin is resolve with the ends held to b's caps as well as the
// row's range.
func (a Axis) resolveWithin(axis byte, b scenario.Bounds) (resolved, error) {
	r := resolved{Axis: a}
	name := axisParam(axis, kindName)
	row, lane, ok := scenario.Lookup(a.Name)
	if !ok || row.Name == "lanes" || !numeric(row.Type) {
		why, _ := Lookup(name)
		return r, &scenario.ParamError{Name: name, Value: a.Name, Allow: Allowed(why, Limits{})}
	}
	if row.Lane && lane < 0 {
		return r, &scenario.ParamError{Name: name, Value: a.Name, Allow: "a lane letter in front, as in a." + a.Name}
	}
	r.row, r.lane = b.Row(row), max(lane, 0)
	var err error
	if r.from, err = r.parse(axisParam(axis, kindFrom), a.From); err != nil {
		return r, err
	}
	if r.to, err = r.parse(axisParam(axis, kindTo), a.To); err != nil {
		return r, err
	}
	scale := axisParam(axis, kindScale)
	switch a.Scale {
	case ScaleLinear:
	case ScaleLog:
		for _, end := range []struct {
			name, raw string
			v         float64
		}{{axisParam(axis, kindFrom), a.From, r.from}, {axisParam(axis, kindTo), a.To, r.to}} {
			if end.v <= 0 {
				return r, &scenario.ParamError{Name: end.name, Value: end.raw,
					Allow: fmt.Sprintf("a value above 0 on a log scale (%s=%s), within %s's range: %s", scale, ScaleLog, a.Name, row.Allowed())}
			}
		}
	default:
		p, _ := Lookup(scale)
		return r, &scenario.ParamError{Name: scale, Value: a.Scale, Allow: Allowed(p, Limits{})}
	}
	return r, nil
}

func numeric(t scenario.Type) bool {
	return t == scenario.TypeInt || t == scenario.TypeFloat || t == scenario.TypeDuration
}

// parse reads raw, the value of the sweep parameter name, by r's row: its
// syntax and its range.
func (r resolved) parse(name, raw string) (float64, error) {
	ps := scratch()
	ptr := r.row.Field(&ps, r.lane)
	if err := r.row.Set(ptr, name, raw); err != nil {
		pe := err.(*scenario.ParamError)
		pe.Allow += ", the range of " + r.Name
		return 0, pe
	}
	switch v := ptr.(type) {
	case *int:
		return float64(*v), nil
	case *float64:
		return *v, nil
	case *time.Duration:
		return float64(*v), nil
	}
	panic("sweep: not a numeric parameter")
}

// scratch returns parameters with every lane, to parse and format values
// of any row through the scenario's own code.
func scratch() scenario.Params {
	ps := scenario.Defaults()
	for len(ps.Lanes) < scenario.MaxLanes {
		ps.Lanes = append(ps.Lanes, scenario.DefaultLane(len(ps.Lanes)))
	}
	return ps
}

// value returns the axis's i-th value, rounded, in the parameter's unit.
func (r resolved) value(i int) float64 {
	var v float64
	switch t := float64(i) / float64(r.Steps-1); {
	case i == 0:
		v = r.from
	case i == r.Steps-1:
		v = r.to
	case r.Scale == ScaleLog:
		v = r.from * math.Exp(math.Log(r.to/r.from)*t)
	default:
		v = r.from + (r.to-r.from)*t
	}
	return round(r.row.Type, v)
}

// round rounds v, a value of a parameter of type t, to its resolution (see
// Axis.Values).
func round(t scenario.Type, v float64) float64 {
	switch t {
	case scenario.TypeInt:
		return math.Round(v)
	case scenario.TypeDuration:
		if v == 0 {
			return 0
		}
		res := min(float64(time.Millisecond), math.Pow(10, math.Floor(math.Log10(math.Abs(v)))-2))
		res = max(res, 1)
		return math.Round(math.Round(v/res) * res)
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return f
}

// format writes v, a value of r's parameter, as scenario.Params.Encode
// does, and checks it against the parameter's range (an error names the
// sweep parameter name).
func (r resolved) format(v float64, name string) (string, error) {
	ps := scratch()
	ptr := r.row.Field(&ps, r.lane)
	store(ptr, v)
	if err := r.row.Check(ptr, name); err != nil {
		return "", err
	}
	return r.row.Value(&ps, r.lane), nil
}

// store writes v, a value in a numeric parameter's unit, at ptr, the
// parameter's field (*int, *float64 or *time.Duration); v is already
// rounded to the parameter's resolution.
func store(ptr any, v float64) {
	switch p := ptr.(type) {
	case *int:
		*p = int(v)
	case *float64:
		*p = v
	case *time.Duration:
		*p = time.Duration(v)
	default:
		panic(fmt.Sprintf("sweep: a numeric parameter's field is a %T", ptr))
	}
}

// axisValues are an axis's values, worked out once for every cell.
type axisValues struct {
	// name is the axis's parameter, as scenario.Lookup reads it.
	name string
	// vals are the values in the parameter's unit, rounded (see
	// Axis.Values); text the same as scenario.Params.Encode writes them.
	vals []float64
	text []string
}

// set stores the axis's i-th value in p, the scenario of a cell: p must
// have the parameter's lane, as ParseSpec checks.
func (a *axisValues) set(p *scenario.Params, i int) {
	row, lane, _ := scenario.Lookup(a.name)
	store(row.Field(p, max(lane, 0)), a.vals[i])
}

// values returns every value of the axis, or an error naming the axis's
// _steps parameter when two neighbours round to the same value.
func (r resolved) values(axis byte) (axisValues, error) {
	steps := axisParam(axis, kindSteps)
	if r.Steps < 2 {
		p, _ := Lookup(steps)
		return axisValues{}, &scenario.ParamError{Name: steps, Value: strconv.Itoa(r.Steps), Allow: Allowed(p, Limits{MaxSteps: math.MaxInt32})}
	}
	out := axisValues{name: r.Name, vals: make([]float64, r.Steps), text: make([]string, r.Steps)}
	for i := range r.Steps {
		v := r.value(i)
		s, err := r.format(v, axisParam(axis, kindFrom))
		if err != nil {
			return axisValues{}, err
		}
		if i > 0 && s == out.text[i-1] {
			return axisValues{}, &scenario.ParamError{Name: steps, Value: strconv.Itoa(r.Steps),
				Allow: fmt.Sprintf("fewer steps: values %d and %d of %s both round to %s (the resolution of %s: %s)",
					i, i+1, r.Name, s, r.Name, resolution(r.row.Type))}
		}
		out.vals[i], out.text[i] = v, s
	}
	return out, nil
}

// resolution says in words how values of type t are rounded.
func resolution(t scenario.Type) string {
	switch t {
	case scenario.TypeInt:
		return "whole numbers"
	case scenario.TypeDuration:
		return "the millisecond, or 3 significant digits under 100ms"
	}
	return "4 significant digits"
}
