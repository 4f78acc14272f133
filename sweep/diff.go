package sweep

import (
	"github.com/backofflab/backofflab/internal/present"
	"github.com/backofflab/backofflab/scenario"
)

// diff.go compares two lanes at a point of a map, for the map of their
// difference: the one place the rule lives, and the words that say it,
// which the page shows as they come.

// The ways lane b (the second of a comparison) may differ from lane a.
const (
	DiffBoth     = "both"      // both recovered: by how much sooner is Diff.Sooner
	DiffOnlyA    = "only_a"    // only a recovered
	DiffOnlyB    = "only_b"    // only b recovered
	DiffNeither  = "neither"   // neither recovered
	DiffNoOutage = "no_outage" // one of them had no outage: nothing to compare
)

// DiffCategories are the ways two lanes may differ but DiffBoth (which a
// map shades by Diff.Sooner instead), in a legend's order.
var DiffCategories = []string{DiffOnlyA, DiffOnlyB, DiffNeither, DiffNoOutage}

// PointLane is what a comparison reads of a lane at a point: its outcome
// (one of Outcomes) and the time its service took to recover after the
// outage, in seconds, nil when it did not (its server may have).
type PointLane struct {
	Outcome  string
	Recovery *float64
}

// recovered reports whether the lane's service came back.
func (r PointLane) recovered() bool { return r.Outcome == OutcomeRecovered && r.Recovery != nil }

// Diff is how lane b did against lane a at a point.
type Diff struct {
	Cat string `json:"cat"` // one of DiffBoth and DiffCategories
	// Sooner is, when both recovered, how many seconds sooner b's service
	// recovered than a's (negative: a's sooner).
	Sooner *float64 `json:"sooner,omitempty"`
	// Text says it in words, the lanes named by their letters.
	Text string `json:"text"`
}

// Compare says how lane b (letter lb, result rb) did against lane a
// (letter la, result ra).
func Compare(la, lb string, ra, rb PointLane) Diff {
	words := DiffWords(la, lb)
	cat := DiffNeither
	switch {
	case ra.Outcome == OutcomeNoOutage || rb.Outcome == OutcomeNoOutage:
		cat = DiffNoOutage
	case ra.recovered() && rb.recovered():
		s := *ra.Recovery - *rb.Recovery
		d := Diff{Cat: DiffBoth, Sooner: &s}
		switch {
		case s > 0:
			d.Text = "both recover; " + lb + " " + present.Duration(s, 3) + " sooner"
		case s < 0:
			d.Text = "both recover; " + la + " " + present.Duration(-s, 3) + " sooner"
		default:
			d.Text = "both recover, in the same time"
		}
		return d
	case rb.recovered():
		cat = DiffOnlyB
	case ra.recovered():
		cat = DiffOnlyA
	}
	return Diff{Cat: cat, Text: words[cat]}
}

// DiffWords say each of DiffCategories of lane b against lane a in
// words, by category: "only a recovers".
func DiffWords(la, lb string) map[string]string {
	return map[string]string{
		DiffOnlyA:    "only " + la + " recovers",
		DiffOnlyB:    "only " + lb + " recovers",
		DiffNeither:  "neither recovers",
		DiffNoOutage: "no outage",
	}
}

// CompareAll compares every lane of a point with every lane, itself
// included (a page may choose the same lane twice), by "a/b": lane b
// against lane a. rs are the lanes' results in lane order.
func CompareAll(rs []PointLane) map[string]Diff {
	n := min(len(rs), len(scenario.LaneNames))
	out := make(map[string]Diff, n*n)
	for a := range n {
		for b := range n {
			la, lb := scenario.LaneNames[a:a+1], scenario.LaneNames[b:b+1]
			out[la+"/"+lb] = Compare(la, lb, rs[a], rs[b])
		}
	}
	return out
}

// AllDiffWords are DiffWords of every ordered pair of n lanes, by "a/b".
func AllDiffWords(n int) map[string]map[string]string {
	n = min(max(n, 0), len(scenario.LaneNames))
	out := make(map[string]map[string]string, n*n)
	for a := range n {
		for b := range n {
			la, lb := scenario.LaneNames[a:a+1], scenario.LaneNames[b:b+1]
			out[la+"/"+lb] = DiffWords(la, lb)
		}
	}
	return out
}
