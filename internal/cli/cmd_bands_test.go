package cli

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/bands"
	"github.com/backofflab/backofflab/scenario"
)

// TestBandsCSV: a small band's CSV has bands.CSVHeader and one row per
// tick per lane, in tick order, lanes in order within a tick.
func TestBandsCSV(t *testing.T) {
	out := mustRun(t, "bands", "-seeds", "3", "-duration", "5s", "-clients", "100", "-lanes", "3", "-format", "csv")
	if !strings.HasPrefix(out, bands.CSVHeader()) {
		t.Fatalf("CSV does not start with bands.CSVHeader(): %.200q", out)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if h := recs[0]; h[2] != "ok_p5" || h[4] != "ok_p95" || len(h) != 2+3*len(scenario.Columns) {
		t.Errorf("header %v", h)
	}
	if len(recs) != 1+50*3 {
		t.Fatalf("%d rows, want 1 + 50 ticks × 3 lanes", len(recs))
	}
	for i, rec := range recs[1:] {
		if want := "abc"[i%3 : i%3+1]; rec[1] != want {
			t.Fatalf("row %d lane %q, want %q", i+1, rec[1], want)
		}
	}
	if recs[1][0] != "0.1" || recs[150][0] != "5" {
		t.Errorf("first t %s, last t %s", recs[1][0], recs[150][0])
	}
}

// TestBandsJSONAndText: the JSON names its seeds and lanes; the text
// says per lane how many of the seeds collapsed.
func TestBandsJSONAndText(t *testing.T) {
	args := []string{"bands", "-seeds", "2", "-seed", "5", "-duration", "5s", "-clients", "100"}
	var doc struct {
		Seeds  int            `json:"seeds"`
		Params map[string]any `json:"params"`
		Lanes  []struct {
			Outcomes []struct {
				Seed uint64 `json:"seed"`
			} `json:"outcomes"`
		} `json:"lanes"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, append(args, "-format", "json")...)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Seeds != 2 || len(doc.Lanes) != 2 || doc.Lanes[1].Outcomes[1].Seed != 6 || doc.Params["seed"] != 5.0 {
		t.Errorf("json %+v", doc)
	}
	text := mustRun(t, args...)
	if !strings.HasPrefix(text, "2 seeds (5 to 6)") || !strings.Contains(text, "[a fixed] 0 of 2 seeds collapsed") ||
		!strings.Contains(text, "[b exponential]") {
		t.Errorf("text:\n%s", text)
	}
}

// TestBandsBadInput: each bad value is a usage error naming its flag.
func TestBandsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"seeds zero", []string{"-seeds", "0"}, `seeds: "0"`},
		{"seeds above", []string{"-seeds", "101"}, `seeds: "101" is not allowed (allowed: a whole number from 1 to 100)`},
		{"seeds not a number", []string{"-seeds", "many"}, `seeds: "many"`},
		{"store too large", []string{"-seeds", "100", "-duration", "1h", "-lanes", "4"}, `seeds: "100" is not allowed (allowed: a whole number from 1 to 24 for this run`},
		{"parallel", []string{"-parallel", "-1"}, `parallel: "-1"`},
		{"parallel above its range", []string{"-parallel", "10001"}, `parallel: "10001" is not allowed (allowed: a whole number from 0 to 10000)`},
		{"format", []string{"-format", "xml"}, `format: "xml"`},
		{"a scenario value", []string{"-clients", "0"}, `clients: "0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runArgs(t, append([]string{"bands"}, tc.args...)...)
			if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want a usage error with %q", err, tc.want)
			}
		})
	}
}

// TestBandsTextNamesTheFault: the recovery times of a run without an
// outage are said after the fault that disrupts it, as a run's verdict
// says them: after the herd, not after an outage it never had.
func TestBandsTextNamesTheFault(t *testing.T) {
	text := mustRun(t, "bands", "-seeds", "2", "-duration", "20s", "-clients", "200", "-outage", "none", "-faults", "herd:5s:0s:1")
	if !strings.Contains(text, "after the herd (median;") || strings.Contains(text, "outage") {
		t.Errorf("text:\n%s", text)
	}
}
