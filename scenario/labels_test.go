package scenario

import "testing"

// TestEveryNameHasALabel: every column and every parameter of the
// vocabulary has its label, and no label is left of a name that is gone.
func TestEveryNameHasALabel(t *testing.T) {
	for _, c := range Columns {
		if columnLabels[c] == "" {
			t.Errorf("column %s has no label in columnLabels", c)
		}
	}
	for c := range columnLabels {
		if ColumnLabel(c) == c || !contains(Columns, c) {
			t.Errorf("columnLabels holds %s, which is not a column", c)
		}
	}
	names := map[string]bool{lanesParam.Name: true}
	for _, p := range append([]Param{lanesParam}, Table...) {
		names[p.Name] = true
		if paramLabels[p.Name] == "" {
			t.Errorf("parameter %s has no label in paramLabels", p.Name)
		}
	}
	for n := range paramLabels {
		if !names[n] {
			t.Errorf("paramLabels holds %s, which is not a parameter", n)
		}
	}
	if got := ColumnLabel("nope"); got != "nope" {
		t.Errorf("ColumnLabel(nope) = %q, want the name", got)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
