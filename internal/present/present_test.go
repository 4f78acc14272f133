package present

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// Cases are the table of testdata/formats.json, which the web package's
// browser test checks static/common.js against too.
type Cases struct {
	Durations []struct {
		Sec  float64 `json:"sec"`
		N    int     `json:"n"`
		Want string  `json:"want"`
	} `json:"durations"`
	Sig []struct {
		V    float64 `json:"v"`
		N    int     `json:"n"`
		Want string  `json:"want"`
	} `json:"sig"`
	Rates []struct {
		V    float64 `json:"v"`
		Want string  `json:"want"`
	} `json:"rates"`
}

func readCases(t *testing.T) Cases {
	t.Helper()
	b, err := os.ReadFile("testdata/formats.json")
	if err != nil {
		t.Fatal(err)
	}
	var c Cases
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("testdata/formats.json: %v", err)
	}
	if len(c.Durations) == 0 || len(c.Sig) == 0 || len(c.Rates) == 0 {
		t.Fatalf("testdata/formats.json lacks a table: %+v", c)
	}
	return c
}

func TestDuration(t *testing.T) {
	for _, tc := range readCases(t).Durations {
		t.Run(tc.Want, func(t *testing.T) {
			if got := Duration(tc.Sec, tc.N); got != tc.Want {
				t.Errorf("Duration(%v, %d) = %q, want %q", tc.Sec, tc.N, got, tc.Want)
			}
		})
	}
}

func TestSig(t *testing.T) {
	for _, tc := range readCases(t).Sig {
		t.Run(tc.Want, func(t *testing.T) {
			if got := Sig(tc.V, tc.N); got != tc.Want {
				t.Errorf("Sig(%v, %d) = %q, want %q", tc.V, tc.N, got, tc.Want)
			}
		})
	}
}

func TestRate(t *testing.T) {
	for _, tc := range readCases(t).Rates {
		t.Run(tc.Want, func(t *testing.T) {
			if got := Rate(tc.V); got != tc.Want {
				t.Errorf("Rate(%v) = %q, want %q", tc.V, got, tc.Want)
			}
		})
	}
}

// TestNotANumber: what is not a number is a dash, never "NaN" in a
// sentence.
func TestNotANumber(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  string
	}{
		{"Duration NaN", Duration(math.NaN(), 3)},
		{"Duration +Inf", Duration(math.Inf(1), 3)},
		{"Sig NaN", Sig(math.NaN(), 3)},
		{"Thousands -Inf", Thousands(math.Inf(-1))},
		{"Rate NaN", Rate(math.NaN())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != "–" {
				t.Errorf("got %q, want –", tc.got)
			}
		})
	}
}
