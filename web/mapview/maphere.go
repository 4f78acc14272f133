package mapview

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/sweep"
	"github.com/backofflab/backofflab/web/kit"
)

// mapHere is the cell of the run the map came from: on each axis, the
// value nearest the scenario's own, which the page outlines; and that in
// words, its text alternative. A scenario's value off an axis (beyond half
// a step past its ends) marks no cell, and the words say so.
type mapHere struct {
	X     string `json:"x,omitempty"` // the cell's x value, "" for none
	Y     string `json:"y"`           // its y value, "" for a map of one row
	Words string `json:"words"`
}

// hereOf finds, on the map spec over p, the cell of p's own values.
func hereOf(spec sweep.Spec, p *scenario.Params) mapHere {
	var h mapHere
	var at, off []string
	for i, a := range []sweep.Axis{spec.X, spec.Y} {
		if a.Name == "" {
			continue
		}
		row, lane, ok := scenario.Lookup(a.Name)
		values, qs := a.Values(), a.Quantities()
		if !ok || len(qs) == 0 || len(values) != len(qs) {
			return mapHere{}
		}
		v := fieldValue(row.Field(p, max(lane, 0)))
		said := a.Name + " " + sayValue(row, v)
		j, in := nearest(qs, v, a.Scale == sweep.ScaleLog)
		if !in {
			off = append(off, fmt.Sprintf("%s is off the map (%s to %s)", said, sayValue(row, qs[0]), sayValue(row, qs[len(qs)-1])))
			continue
		}
		at = append(at, said)
		if i == 0 {
			h.X = values[j]
		} else {
			h.Y = values[j]
		}
	}
	if len(off) > 0 {
		h.X, h.Y = "", ""
		h.Words = "This map's scenario: " + strings.Join(off, "; ") + ": no cell is outlined."
		return h
	}
	h.Words = "Outlined on each map: the cell of this map's scenario, " + strings.Join(at, ", ") + "."
	return h
}

// nearest returns the index of the value of qs nearest v, by ratio on a
// log scale, and whether v is within half a step of it (on the map).
func nearest(qs []float64, v float64, log bool) (int, bool) {
	pos := func(x float64) float64 {
		if log {
			return math.Log(max(x, math.SmallestNonzeroFloat64))
		}
		return x
	}
	best, dist := 0, math.Inf(1)
	for i, q := range qs {
		if d := math.Abs(pos(q) - pos(v)); d < dist {
			best, dist = i, d
		}
	}
	if len(qs) < 2 {
		return best, dist == 0
	}
	next := best + 1
	if next == len(qs) {
		next = best - 1
	}
	step := math.Abs(pos(qs[next]) - pos(qs[best]))
	return best, dist <= step/2*(1+1e-9)
}

// sayValue writes v, in row's unit, as the page says it.
func sayValue(row scenario.Param, v float64) string {
	switch row.Type {
	case scenario.TypeDuration:
		return kit.Say(time.Duration(v))
	case scenario.TypeInt:
		return strconv.Itoa(int(math.Round(v)))
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
