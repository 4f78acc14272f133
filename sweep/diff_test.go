package sweep

import "testing"

func TestCompare(t *testing.T) {
	secs := func(v float64) *float64 { return &v }
	rec := func(v float64) PointLane { return PointLane{Outcome: OutcomeRecovered, Recovery: secs(v)} }
	serverOnly := PointLane{Outcome: OutcomeRecovered} // its server back, its service not
	collapsed := PointLane{Outcome: OutcomeCollapsed}
	stopped := PointLane{Outcome: OutcomeStopped}
	none := PointLane{Outcome: OutcomeNoOutage}
	for _, tc := range []struct {
		name   string
		a, b   PointLane
		cat    string
		sooner *float64
		text   string
	}{
		{"b sooner", rec(12.5), rec(2.5), DiffBoth, secs(10), "both recover; b 10 s sooner"},
		{"a sooner", rec(2), rec(902), DiffBoth, secs(-900), "both recover; a 15 min sooner"},
		{"at once", rec(3), rec(3), DiffBoth, secs(0), "both recover, in the same time"},
		{"only a", rec(3), collapsed, DiffOnlyA, nil, "only a recovers"},
		{"only b", stopped, rec(3), DiffOnlyB, nil, "only b recovers"},
		{"a's server alone is back", serverOnly, rec(1), DiffOnlyB, nil, "only b recovers"},
		{"neither", collapsed, serverOnly, DiffNeither, nil, "neither recovers"},
		{"no outage in a", none, rec(1), DiffNoOutage, nil, "no outage"},
		{"no outage in b", collapsed, none, DiffNoOutage, nil, "no outage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Compare("a", "b", tc.a, tc.b)
			if d.Cat != tc.cat || d.Text != tc.text {
				t.Errorf("Compare = %q %q, want %q %q", d.Cat, d.Text, tc.cat, tc.text)
			}
			switch {
			case (d.Sooner == nil) != (tc.sooner == nil):
				t.Errorf("Sooner %v, want %v", d.Sooner, tc.sooner)
			case d.Sooner != nil && *d.Sooner != *tc.sooner:
				t.Errorf("Sooner %v, want %v", *d.Sooner, *tc.sooner)
			}
		})
	}
}

// TestCompareAll: every ordered pair, each lane with itself included,
// each compared in its order.
func TestCompareAll(t *testing.T) {
	secs := 4.0
	rs := []PointLane{{Outcome: OutcomeRecovered, Recovery: &secs}, {Outcome: OutcomeCollapsed}, {Outcome: OutcomeNoOutage}}
	got := CompareAll(rs)
	if len(got) != 9 {
		t.Fatalf("%d comparisons of 3 lanes, want 9: %v", len(got), got)
	}
	for _, tc := range []struct{ key, cat string }{
		{"a/b", DiffOnlyA}, {"b/a", DiffOnlyB}, {"a/a", DiffBoth}, {"b/b", DiffNeither}, {"c/a", DiffNoOutage}, {"b/c", DiffNoOutage},
	} {
		t.Run(tc.key, func(t *testing.T) {
			if d, ok := got[tc.key]; !ok || d.Cat != tc.cat {
				t.Errorf("%s: %+v, want %s", tc.key, d, tc.cat)
			}
		})
	}
	words := AllDiffWords(3)
	if len(words) != 9 || words["c/a"][DiffOnlyA] != "only c recovers" || words["c/a"][DiffOnlyB] != "only a recovers" {
		t.Errorf("AllDiffWords(3) = %v", words)
	}
	for _, cat := range DiffCategories {
		if words["a/b"][cat] == "" {
			t.Errorf("no words for %s", cat)
		}
	}
}
