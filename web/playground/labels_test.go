package playground

import (
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// TestLabelsReachThePage: the page gets every label from Go, and shows it
// beside the vocabulary name: each control, each chart series (in the
// script's chart specs) and each strategy (its menu, its lane's head).
func TestLabelsReachThePage(t *testing.T) {
	v := newView(pageFor(t, "a.strategy=think_scaled"))
	for _, c := range allControls(v) {
		if c.Label == "" {
			t.Errorf("control %s has no label", c.Name)
		}
	}
	doc := render(t, pageFor(t, "a.strategy=think_scaled"))
	var heads, plains []string
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		if _, ok := attrOf(n, "data-lane-strategy"); ok {
			heads = append(heads, textOf(n))
		}
		if c, _ := attrOf(n, "class"); c == "plain" {
			plains = append(plains, textOf(n))
		}
	})
	if len(heads) == 0 || heads[0] != "the 2014 program: waits scaled by think time" {
		t.Errorf("lane heads %q", heads)
	}
	if !containsAll(plains, "minimum delay", "attempt timeout") {
		t.Errorf("control labels %q lack minimum delay and attempt timeout", plains)
	}

	b, err := json.Marshal(v.Data)
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Charts []struct {
			ID     string `json:"id"`
			Series []struct {
				Name  string `json:"name"`
				Label string `json:"label"`
			} `json:"series"`
		} `json:"charts"`
		Strategies []strategyInfo `json:"strategies"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	for _, k := range st.Charts {
		for _, s := range k.Series {
			if s.Label == "" || s.Label == s.Name {
				t.Errorf("chart %s: series %s has label %q", k.ID, s.Name, s.Label)
			}
			if k.ID == "backoff" && s.Name == "in_backoff" && s.Label != scenario.ColumnLabel("in_backoff") {
				t.Errorf("in_backoff's label %q", s.Label)
			}
		}
	}
	if len(st.Strategies) != len(strategies.Names()) {
		t.Fatalf("%d strategies", len(st.Strategies))
	}
	for _, s := range st.Strategies {
		if s.Label != strategies.Label(s.Name) || !strings.HasSuffix(s.Title, "("+s.Name+")") {
			t.Errorf("strategy %s: label %q, title %q", s.Name, s.Label, s.Title)
		}
	}
}

func containsAll(xs []string, want ...string) bool {
	for _, w := range want {
		found := false
		for _, x := range xs {
			found = found || x == w
		}
		if !found {
			return false
		}
	}
	return true
}
