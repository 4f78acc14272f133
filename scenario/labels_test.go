package scenario

import (
	"slices"
	"strings"
	"testing"
)

// TestEveryNameHasALabel: every column and every parameter of the
// vocabulary has its label in its row.
func TestEveryNameHasALabel(t *testing.T) {
	for _, c := range columnTable {
		if c.label == "" || ColumnLabel(c.name) != c.label {
			t.Errorf("column %s has no label in columnTable", c.name)
		}
	}
	if !slices.Equal(Columns, columnNames()) {
		t.Errorf("Columns = %v, want columnTable's names %v", Columns, columnNames())
	}
	for _, p := range append([]Param{lanesParam}, Table...) {
		if p.label == "" {
			t.Errorf("parameter %s has no label in its row", p.Name)
		}
	}
	if got := ColumnLabel("nope"); got != "nope" {
		t.Errorf("ColumnLabel(nope) = %q, want the name", got)
	}
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
	for _, p := range Table {
		for c := range p.choiceLabels {
			if !slices.Contains(p.Choices, c) {
				t.Errorf("%s's choiceLabels hold %s, which is not a choice", p.Name, c)
			}
		}
	}
}
