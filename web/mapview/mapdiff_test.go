package mapview

import (
	"testing"

	"github.com/backofflab/backofflab/sweep"
)

// TestMapPointDiffs: a point compares its lanes by what its seeds add up
// to (the lane's outcome and median recovery), every ordered pair, so
// that the page draws the difference of any two lanes without a rule of
// its own.
func TestMapPointDiffs(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	lane := func(name, outcome string, rec *float64) sweep.LaneResult {
		l := sweep.LaneResult{Lane: name, Outcome: outcome}
		l.Summary.ServiceRecoveredAfter = rec
		l.Summary.Collapsed = outcome == sweep.OutcomeCollapsed
		return l
	}
	cells := []sweep.Cell{
		{CellKey: sweep.CellKey{Index: 0}, Lanes: []sweep.LaneResult{lane("a", sweep.OutcomeRecovered, f(8)), lane("b", sweep.OutcomeRecovered, f(2)), lane("c", sweep.OutcomeCollapsed, nil)}},
		{CellKey: sweep.CellKey{Index: 1}, Lanes: []sweep.LaneResult{lane("a", sweep.OutcomeRecovered, f(10)), lane("b", sweep.OutcomeRecovered, f(4)), lane("c", sweep.OutcomeCollapsed, nil)}},
	}
	pt := newMapPoint(0, 0, cells)
	if len(pt.Diffs) != 9 {
		t.Fatalf("%d comparisons of 3 lanes, want 9: %v", len(pt.Diffs), pt.Diffs)
	}
	for _, tc := range []struct{ key, cat, text string }{
		// a's median recovery 9 s, b's 3 s.
		{"a/b", sweep.DiffBoth, "both recover; b 6 s sooner"},
		{"b/a", sweep.DiffBoth, "both recover; b 6 s sooner"},
		{"a/c", sweep.DiffOnlyA, "only a recovers"},
		{"c/b", sweep.DiffOnlyB, "only b recovers"},
		{"c/c", sweep.DiffNeither, "neither recovers"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			d := pt.Diffs[tc.key]
			if d.Cat != tc.cat || d.Text != tc.text {
				t.Errorf("%s: %q %q, want %q %q", tc.key, d.Cat, d.Text, tc.cat, tc.text)
			}
		})
	}
	if s := pt.Diffs["b/a"].Sooner; s == nil || *s != -6 {
		t.Errorf("b/a: a recovered %v s sooner than b, want -6", ptrStr(s))
	}
}
