package scenario

import (
	"slices"
	"strings"
	"testing"
)

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

// TestEveryChoiceReads: a choice of an enum parameter that is a snake_case
// name has words for the page's menu, and no words are left of a choice
// that is gone.
func TestEveryChoiceReads(t *testing.T) {
	for _, p := range Table {
		for _, c := range p.Choices {
			if p.Name != "strategy" && strings.Contains(c, "_") && ChoiceLabel(p.Name, c) == c {
				t.Errorf("%s's choice %s has no words in choiceLabels", p.Name, c)
			}
		}
	}
	for param, m := range choiceLabels {
		row, _, ok := Lookup(param)
		for c := range m {
			if !ok || !slices.Contains(row.Choices, c) {
				t.Errorf("choiceLabels holds %s=%s, which is not a choice", param, c)
			}
		}
	}
}
