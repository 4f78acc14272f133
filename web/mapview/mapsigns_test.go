package mapview

import (
	"net/url"
	"testing"

	"github.com/backofflab/backofflab/sweep"
	"github.com/backofflab/backofflab/web/kit"
)

// TestEveryCategoryHasASign: every category a map draws by colour alone
// but a recovery (whose shade is its time) has a sign and a pattern of
// its own, on the lanes' maps and on the difference map, so that no two
// read alike without their colours; a new outcome or difference without
// them fails here, naming it.
func TestEveryCategoryHasASign(t *testing.T) {
	q, _ := url.ParseQuery("x=outage_for&x_from=1s&x_to=2s&x_steps=2")
	v := newMapView(q, nil, kit.Limits{}.WithDefaults())
	if !v.Data.Valid {
		t.Fatalf("not a map: %v", v.General)
	}
	signs, patterns := map[string]string{}, map[string]string{}
	for _, o := range append(v.Data.Outcomes, v.Data.ServerOnly) {
		if o.Name == sweep.OutcomeRecovered {
			continue
		}
		if o.Mark == "" || o.Pattern == "" {
			t.Errorf("the outcome %s has sign %q and pattern %q", o.Name, o.Mark, o.Pattern)
		}
		if other, ok := signs[o.Mark]; ok {
			t.Errorf("the outcomes %s and %s share the sign %q", other, o.Name, o.Mark)
		}
		if other, ok := patterns[o.Pattern]; ok {
			t.Errorf("the outcomes %s and %s share the pattern %q", other, o.Name, o.Pattern)
		}
		signs[o.Mark], patterns[o.Pattern] = o.Name, o.Name
	}
	for pair, marks := range v.Data.DiffMarks {
		seen := map[string]string{}
		for _, c := range v.Data.DiffCats {
			m := marks[c]
			if m == "" {
				t.Errorf("the difference %s of %s has no sign", c, pair)
			}
			if other, ok := seen[m]; ok && pair[0] != pair[2] {
				t.Errorf("the differences %s and %s of %s share the sign %q", other, c, pair, m)
			}
			seen[m] = c
		}
	}
	if got := v.Data.DiffMarks["a/b"][sweep.DiffOnlyB]; got != "b" {
		t.Errorf("only b recovering is marked %q, want b", got)
	}
}
