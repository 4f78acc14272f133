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
		{"landing", `lane a \(fixed\): baseline 95\.3 ok/s; COLLAPSED`},
		{"landing", `lane b \(exponential\): baseline 95\.3 ok/s; server recovered 25\.1s after the outage, service recovered 21\.8s after the outage`},
		// 001's text backoff storms on 001's server too; its program's
		// backoff recovers there (its first retries come tens of seconds
		// later).
		{"001-text-on-curve", `lane a \(exponential\): baseline 95\.4 ok/s; COLLAPSED`},
		{"001-text-on-curve", `lane b \(think_scaled\): baseline 95\.4 ok/s; server recovered 1\.6s after the outage`},
		{"001-text", `lane a \(exponential\): baseline 95\.4 ok/s; COLLAPSED`},
		{"001-text", `lane b \(exponential\): baseline 95\.4 ok/s; COLLAPSED`},
		{"grpc", `lane b \(grpc\): baseline [0-9.]+ ok/s; server recovered [0-9.]+s after the outage`},
		{"cancel-on-timeout", `lane a \(fixed\): baseline [0-9.]+ ok/s; COLLAPSED`},
		{"cancel-on-timeout", `lane b \(fixed\): baseline [0-9.]+ ok/s; server recovered [0-9.]+s after the outage`},
		{"baseline", `lane a \(fixed\): baseline 97\.0 ok/s; no outage ended`},
		// Shedding turns fixed's storm on 001's curve into a recovery.
		{"queue-timeout", `lane a \(fixed\): baseline 95\.3 ok/s; server recovered 4\.0s after the outage`},
		{"load-shedding", `lane a \(fixed\): baseline 95\.4 ok/s; server recovered 1\.8s after the outage, service recovered 0\.0s after the outage; peak concurrency 100;`},
	} {
		if d := byName[tc.preset].Description; !regexp.MustCompile(tc.want).MatchString(d) {
			t.Errorf("%s: description %q does not match %q", tc.preset, d, tc.want)
		}
	}
	// The landing page (no query) shows the storm next to the recovery,
	// and is a preset too.
	if byName["landing"].Query != (state{p: scenario.Defaults(), speed: "1"}).encode() {
		t.Error("the landing preset is not the default view")
	}
	// 001's experiment as published is one click away: the first preset.
	if all[0].Name != "001-published" {
		t.Errorf("first preset %s, want 001-published", all[0].Name)
	}
}
