package web

import (
	"net/url"
	"regexp"
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
		want   string // a regular expression
	}{
		{"001-published", `lane a \(fixed\): baseline 95\.4 ok/s; COLLAPSED`},
		{"001-published", `lane b \(think_scaled\): baseline 95\.4 ok/s; server recovered 1\.6s after the outage`},
		{"grpc", `lane b \(grpc\): baseline [0-9.]+ ok/s; server recovered [0-9.]+s after the outage`},
		{"cancel-on-timeout", `lane a \(fixed\): baseline [0-9.]+ ok/s; COLLAPSED`},
		{"cancel-on-timeout", `lane b \(fixed\): baseline [0-9.]+ ok/s; server recovered [0-9.]+s after the outage`},
		{"baseline", `lane a \(fixed\): baseline 97\.0 ok/s; no outage ended`},
	} {
		if d := byName[tc.preset].Description; !regexp.MustCompile(tc.want).MatchString(d) {
			t.Errorf("%s: description %q does not match %q", tc.preset, d, tc.want)
		}
	}
	// The landing page (no query) shows the storm next to the recovery.
	if byName["001-published"].Query != (state{p: scenario.Defaults(), speed: "1"}).encode() {
		t.Error("001-published is not the default view")
	}
}
