package web

import (
	"net/url"
	"strings"
	"testing"

	"backofflab/scenario"
)

// TestPresetsSayWhatTheyShow pins what the engine measures for the presets
// whose verdict the page's landing view and the README rely on, and checks
// that every description carries its measured verdict for every lane.
func TestPresetsSayWhatTheyShow(t *testing.T) {
	all := newPresets(DefaultLimits).list()
	if len(all) != len(presetDefs) {
		t.Fatalf("%d presets, want %d", len(all), len(presetDefs))
	}
	byName := map[string]Preset{}
	for _, p := range all {
		byName[p.Name] = p
		q, err := url.ParseQuery(p.Query)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		st, errs := decode(q, DefaultLimits)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", p.Name, errs)
		}
		if !strings.Contains(p.Description, "Measured:") {
			t.Errorf("%s: no measured verdict: %q", p.Name, p.Description)
		}
		for i, l := range st.p.Lanes {
			if want := "lane " + scenario.LaneNames[i:i+1] + " (" + l.Strategy + ")"; !strings.Contains(p.Description, want) {
				t.Errorf("%s: description lacks %q", p.Name, want)
			}
		}
	}
	for _, tc := range []struct {
		preset string
		lane   int
		want   string
	}{
		{"001-published", 0, "lane a (fixed): collapses"},
		{"001-published", 1, "lane b (think_scaled): server back 1.6 s after the outage"},
		{"grpc", 1, "lane b (grpc): server back"},
		{"cancel-on-timeout", 0, "lane a (fixed): collapses"},
		{"cancel-on-timeout", 1, "lane b (fixed): server back"},
		{"baseline", 0, "lane a (fixed): 97.0 ok/s"},
	} {
		if d := byName[tc.preset].Description; !strings.Contains(d, tc.want) {
			t.Errorf("%s: description %q lacks %q", tc.preset, d, tc.want)
		}
	}
	// The landing page (no query) shows the storm next to the recovery.
	if byName["001-published"].Query != (state{p: scenario.Defaults(), speed: "1"}).encode() {
		t.Error("001-published is not the default view")
	}
}
