package scenario_test

import (
	"strings"
	"testing"

	"backofflab/scenario"
)

// FuzzFaultList: no text makes Parse panic; what it accepts writes back as
// a list that parses to the same faults, every one in range.
func FuzzFaultList(f *testing.F) {
	for _, s := range []string{"", "pause:1s:2s", "load_spike:60s:10s:3,error_burst:80s:5s:0.5",
		"capacity_drop:0s:1h:0.01", "crash:1s:1s,crash:1s:1s", "latency_spike:1ms:1ns:100", "x:y:z:w"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fs, err := scenario.FaultList(s).Parse()
		if err != nil {
			return
		}
		if len(fs) > scenario.MaxFaults {
			t.Fatalf("%q: %d faults", s, len(fs))
		}
		back := scenario.FaultListOf(fs)
		again, err := back.Parse()
		if err != nil || len(again) != len(fs) {
			t.Fatalf("%q wrote back as %q: %v", s, back, err)
		}
		for i := range fs {
			if fs[i] != again[i] {
				t.Fatalf("%q: fault %d %+v came back as %+v", s, i, fs[i], again[i])
			}
			if fs[i].At < 0 || fs[i].For < 0 || (!scenario.IsOutage(fs[i].Kind) && fs[i].M < 0) {
				t.Fatalf("%q: fault %+v out of range", s, fs[i])
			}
		}
		if back != scenario.FaultListOf(again) {
			t.Fatalf("%q: not canonical: %q then %q", s, back, scenario.FaultListOf(again))
		}
	})
}

// TestFaultListErrors: a bad list says which fault is bad and why.
func TestFaultListErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"load_spike:1s:1s", "fault 1 (\"load_spike:1s:1s\"): load_spike needs a magnitude m from 1 to 100"},
		{"pause:1s:1s,meteor:1s:1s:1", "fault 2 (\"meteor:1s:1s:1\"): kind \"meteor\" is not one of pause, crash, partition"},
		{"pause:1s:10s,crash:5s:1s", "crash at 5s overlaps pause at 1s: outages may not overlap"},
		{"error_burst:1s:1s:2", "magnitude \"2\" is not a number from 0 to 1"},
	} {
		_, err := scenario.FaultList(tc.in).Parse()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
	p := scenario.Defaults()
	p.Faults = "crash:30s:10s" // the default pause lasts from 20 s to 35 s
	err := p.Validate()
	if pe := scenario.Errors(err); len(pe) != 1 || pe[0].Name != "faults" || !strings.Contains(pe[0].Allow, "overlaps pause at 20s") {
		t.Errorf("a crash inside the scheduled pause: %v", err)
	}
}
