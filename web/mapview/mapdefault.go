package mapview

// The map a link without axes opens: the playground's "Phase map of this
// run", and /map alone. Its axes are chosen for the scenario it was given
// (the outage's length across, the clients down, when the scenario reads
// them), and their values are round numbers: a step of 1, 2 or 5 times a
// power of ten, from a multiple of it, so that every cell's value, and so
// every tick of the map, is one a person would have typed.

import (
	"math"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/sweep"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// defaultAxisPrefs are the parameters a default map sweeps, in order of
// preference: x takes the first the scenario reads, y the next. The
// outage's length against the load is the question the project asks.
var defaultAxisPrefs = []string{"outage_for", "clients", "think", "timeout", "service_time"}

// The default map's size on the landing scenario (1 000 clients, 2 min):
// about 10 × 8 cells, a few seconds of two cores. A dearer scenario
// (more clients, a longer run) gets fewer steps, in proportion.
const (
	defaultXSteps, defaultYSteps = 10, 8
	defaultWork                  = 1000 * float64(2*time.Minute) // clients × duration of the landing scenario
	minDefaultSteps              = 3
)

// withDefaultMap returns q with the axes of its scenario's default map
// added, or q as it is when q gives any of the sweep's parameters, when
// its scenario does not read, or when no default map of it is one the
// server accepts (the form then asks for the axes).
func withDefaultMap(q url.Values, lim kit.Limits) url.Values {
	if givesSweep(q) {
		return q
	}
	base := mapScenario(q, false)
	for name := range base {
		if _, ok := scene.SourceOf(name); ok {
			delete(base, name)
		}
	}
	p, err := scenario.Parse(base)
	if err != nil {
		return q
	}
	axes := defaultAxes(&p, lim)
	// A map of one row when the two axes together are refused (a corner
	// past the server's bounds): the x axis alone.
	for _, keep := range []int{len(axes), 1} {
		if keep == 0 || keep > len(axes) {
			continue
		}
		d := kit.CloneValues(q)
		for _, a := range axes[:keep] {
			for name, v := range a {
				d.Set(name, v)
			}
		}
		if _, errs := decodeMap(d, lim); len(errs) == 0 {
			return d
		}
	}
	return q
}

// defaultAxes returns the default map's axes over p, x's first, each as
// the sweep parameters that name it (x, x_from, x_to, x_steps, x_scale).
func defaultAxes(p *scenario.Params, lim kit.Limits) []map[string]string {
	readable := sweep.AxisNames(p)
	var names []string
	for _, name := range defaultAxisPrefs {
		// Without a scheduled outage its length changes nothing.
		if name == "outage_for" && p.Outage == scenario.OutageNone {
			continue
		}
		if slices.Contains(readable, name) && len(names) < 2 {
			names = append(names, name)
		}
	}
	// A dearer run than the landing scenario's gets fewer steps, so that
	// the map's cost stays about the landing map's.
	work := float64(p.Clients) * float64(p.Duration)
	shrink := math.Sqrt(max(work/defaultWork, 1))
	var out []map[string]string
	for i, name := range names {
		letter, target, factor := "x", defaultXSteps, 4.0
		if i == 1 {
			letter, target, factor = "y", defaultYSteps, 2.0
		}
		target = max(minDefaultSteps, int(float64(target)/shrink))
		row, lane, _ := scenario.Lookup(name)
		v := fieldValue(row.Field(p, max(lane, 0)))
		hi := v * factor
		switch name {
		case "clients":
			hi = min(hi, float64(lim.MaxClients))
		case "outage_for":
			// Room after the outage for a recovery to show.
			hi = min(hi, float64(p.Duration-p.OutageAt)/2)
		}
		r, ok := roundRange(row, 0, hi, target)
		if !ok {
			continue
		}
		out = append(out, map[string]string{letter: name, letter + "_from": r.From, letter + "_to": r.To,
			letter + "_steps": r.Steps, letter + "_scale": r.Scale})
	}
	return out
}

// fieldValue is the value of a numeric parameter's field, in its unit
// (nanoseconds for a duration).
func fieldValue(ptr any) float64 {
	switch x := ptr.(type) {
	case *int:
		return float64(*x)
	case *float64:
		return *x
	case *time.Duration:
		return float64(*x)
	}
	return 0
}

// niceStep returns the step of 1, 2 or 5 times a power of ten nearest
// to v (v above 0), by their ratio: 249 gives 200, 400 gives 500.
func niceStep(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	best := p
	for _, m := range []float64{2, 5, 10} {
		if math.Abs(math.Log(m*p/v)) < math.Abs(math.Log(best/v)) {
			best = m * p
		}
	}
	return best
}

// roundRange returns a linear axis of row's parameter over about
// [lo, hi] with about target values, each a multiple of a round step
// (niceStep): the axis starts at the least multiple of the step at or
// above lo and above 0, or at the row's least value when that is above
// 0, and stops at the last multiple at or under hi, within the row's
// range. ok is false when fewer than two values fit.
func roundRange(row scenario.Param, lo, hi float64, target int) (axisSuggestion, bool) {
	hi = min(hi, row.Max)
	lo = max(lo, row.Min)
	if hi <= lo || target < 2 {
		return axisSuggestion{}, false
	}
	step := niceStep((hi - lo) / float64(target))
	// The nearest round step may give up to about 2.5 times the target:
	// the next larger one then.
	for (hi-lo)/step > 2*float64(target) {
		step = niceStep(step * 2.5)
	}
	if row.Type == scenario.TypeInt {
		step = max(step, 1)
	}
	if row.Type == scenario.TypeDuration {
		step = max(step, float64(time.Millisecond))
	}
	from := math.Ceil(lo/step-1e-9) * step
	if from <= 0 {
		from = step
	}
	to := math.Floor(hi/step+1e-9) * step
	n := int(math.Round((to-from)/step)) + 1
	if n < 2 {
		return axisSuggestion{}, false
	}
	format := func(f float64) string {
		switch row.Type {
		case scenario.TypeInt:
			return strconv.Itoa(int(math.Round(f)))
		case scenario.TypeDuration:
			return time.Duration(math.Round(f)).String()
		}
		return strconv.FormatFloat(f, 'g', 6, 64)
	}
	return axisSuggestion{From: format(from), To: format(to), Steps: strconv.Itoa(n), Scale: sweep.ScaleLinear}, true
}
