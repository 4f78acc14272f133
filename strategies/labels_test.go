package strategies

import "testing"

// TestEveryStrategyHasALabel: every strategy has its label, in its row of
// table, and Label gives it (the name for a strategy that is not a row).
func TestEveryStrategyHasALabel(t *testing.T) {
	for _, e := range table {
		if e.label == "" || Label(e.name) != e.label {
			t.Errorf("strategy %s has no label", e.name)
		}
	}
	if got := Label("nope"); got != "nope" {
		t.Errorf("Label(nope) = %q, want the name", got)
	}
}
