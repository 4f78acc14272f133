package strategies

import "testing"

// TestEveryStrategyHasALabel: every strategy has its label, and no label
// is left of a strategy that is gone.
func TestEveryStrategyHasALabel(t *testing.T) {
	names := map[string]bool{}
	for _, n := range Names() {
		names[n] = true
		if labels[n] == "" {
			t.Errorf("strategy %s has no label", n)
		}
	}
	for n := range labels {
		if !names[n] {
			t.Errorf("labels holds %s, which is not a strategy", n)
		}
	}
}
