package scenario_test

import (
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// FuzzFaultList: no text makes ParseFaults panic; what it accepts writes back as
// a list that parses to the same faults, every one in range.
func FuzzFaultList(f *testing.F) {
	for _, s := range []string{"", "pause:1s:2s", "load_spike:60s:10s:3,error_burst:80s:5s:0.5",
		"capacity_drop:0s:1h:0.01", "crash:1s:1s,crash:1s:1s", "latency_spike:1ms:1ns:100", "x:y:z:w", "herd:30s:0s:1,herd:1m:2s:0.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fs, err := scenario.ParseFaults(s)
		if err != nil {
			return
		}
		if len(fs) > scenario.MaxFaults {
			t.Fatalf("%q: %d faults", s, len(fs))
		}
		back := scenario.FaultsText(fs)
		again, err := scenario.ParseFaults(back)
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
		if back != scenario.FaultsText(again) {
			t.Fatalf("%q: not canonical: %q then %q", s, back, scenario.FaultsText(again))
		}
		p := scenario.Defaults()
		p.Outage, p.Faults = scenario.OutageNone, fs
		if err := p.Validate(); err != nil {
			t.Fatalf("%q: Validate refuses what ParseFaults gave: %v", s, err)
		}
	})
}

// TestFaultListErrors: a bad list is refused at the edge, by ParseFaults
// and by Parse under the name faults, saying which fault is bad and why.
func TestFaultListErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"load_spike:1s:1s", "fault 1 (\"load_spike:1s:1s\"): load_spike needs a magnitude m from 1 to 100"},
		{"pause:1s:1s,meteor:1s:1s:1", "fault 2 (\"meteor:1s:1s:1\"): kind \"meteor\" is not one of pause, crash, partition"},
		{"pause:1s:10s,crash:5s:1s", "crash at 5s overlaps pause at 1s: outages may not overlap"},
		{"error_burst:1s:1s:2", "magnitude \"2\" is not a number from 0 to 1"},
		{"pause:25h:1s", "fault 1 (\"pause:25h:1s\"): at \"25h\" is not a duration from 0s to 24h0m0s"},
		{"crash:1s:1s:0.5", "fault 1 (\"crash:1s:1s:0.5\"): crash takes no magnitude"},
		{strings.Repeat("pause:0s:0s,", 20) + "pause:0s:0s", "21 faults, at most 20"},
		{"herd:30s:0s:1.5", "fault 1 (\"herd:30s:0s:1.5\"): magnitude \"1.5\" is not a number from 0 to 1"},
		{"herd:30s:0s:-0.1", "magnitude \"-0.1\" is not a number from 0 to 1"},
		{"herd:30s:0s", "herd needs a magnitude m from 0 to 1"},
		{"herd:30s:-1s:1", "fault 1 (\"herd:30s:-1s:1\"): for \"-1s\" is not a duration from 0s to 24h0m0s"},
		{"herd:30s:25h:1", "for \"25h\" is not a duration from 0s to 24h0m0s"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := scenario.ParseFaults(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseFaults: %v, want %q", err, tc.want)
			}
			_, err = scenario.Parse(url.Values{"faults": {tc.in}, "outage": {"none"}})
			pe := scenario.Errors(err)
			if len(pe) != 1 || pe[0].Name != "faults" || pe[0].Value != tc.in || !strings.Contains(pe[0].Allow, tc.want) ||
				!strings.HasSuffix(pe[0].Allow, scenario.FaultSyntax) {
				t.Errorf("Parse of faults: %v", err)
			}
		})
	}
	p := scenario.Defaults()
	p.Faults = []scenario.Fault{{Kind: scenario.OutageCrash, At: 30 * time.Second, For: 10 * time.Second}} // the default pause lasts from 20 s to 35 s
	err := p.Validate()
	if pe := scenario.Errors(err); len(pe) != 1 || pe[0].Name != "faults" || !strings.Contains(pe[0].Allow, "overlaps pause at 20s") {
		t.Errorf("a crash inside the scheduled pause: %v", err)
	}
}

// TestFaultsValidate: typed faults that ParseFaults would not give are
// refused by Validate with the error ParseFaults gives of their text.
func TestFaultsValidate(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name string
		in   []scenario.Fault
		want string
	}{
		{"kind", []scenario.Fault{{Kind: "meteor", At: s, For: s, M: 1}}, `fault 1 ("meteor:1s:1s:1"): kind "meteor" is not one of`},
		{"at", []scenario.Fault{{Kind: scenario.OutagePause, At: -s, For: s}}, `fault 1 ("pause:-1s:1s"): at "-1s" is not a duration from 0s to 24h0m0s`},
		{"for", []scenario.Fault{{Kind: scenario.OutagePause, For: 25 * time.Hour}}, `for "25h0m0s" is not a duration from 0s to 24h0m0s`},
		{"magnitude", []scenario.Fault{{Kind: scenario.FaultErrorBurst, For: s, M: 2}}, `fault 1 ("error_burst:0s:1s:2"): magnitude "2" is not a number from 0 to 1`},
		{"NaN", []scenario.Fault{{Kind: scenario.FaultLoadSpike, For: s, M: math.NaN()}}, `magnitude "NaN" is not a number from 1 to 100`},
		{"outage magnitude", []scenario.Fault{{Kind: scenario.OutageCrash, For: s, M: 1}}, `fault 1 ("crash:0s:1s"): crash takes no magnitude`},
		{"overlap", []scenario.Fault{{Kind: scenario.OutagePause, At: s, For: 10 * s}, {Kind: scenario.OutageCrash, At: 5 * s, For: s}},
			"crash at 5s overlaps pause at 1s: outages may not overlap"},
		{"too many", make([]scenario.Fault, scenario.MaxFaults+1), "21 faults, at most 20"},
		{"herd's magnitude", []scenario.Fault{{Kind: scenario.FaultHerd, At: s, M: 2}}, `fault 1 ("herd:1s:0s:2"): magnitude "2" is not a number from 0 to 1`},
		{"herd's window", []scenario.Fault{{Kind: scenario.FaultHerd, At: s, For: -s, M: 1}}, `fault 1 ("herd:1s:-1s:1"): for "-1s" is not a duration from 0s to 24h0m0s`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := scenario.Defaults()
			p.Outage, p.Faults = scenario.OutageNone, tc.in
			pe := scenario.Errors(p.Validate())
			if len(pe) != 1 || pe[0].Name != "faults" || pe[0].Value != scenario.FaultsText(tc.in) || !strings.Contains(pe[0].Allow, tc.want) {
				t.Errorf("Validate: %v, want %q", pe, tc.want)
			}
		})
	}
}

// TestAllFaults: AllFaults reads p and nothing else: the scheduled outage
// first, then p.Faults, in a slice of its own, p unchanged; and Clone
// copies the faults and tiers, so that a change to the copy's leaves p's.
func TestAllFaults(t *testing.T) {
	p := scenario.Defaults()
	p.Faults = []scenario.Fault{
		{Kind: scenario.FaultLoadSpike, At: 60 * time.Second, For: 10 * time.Second, M: 3},
		{Kind: scenario.OutageCrash, At: 90 * time.Second, For: time.Second},
	}
	p.Lanes[0].Tiers = []scenario.Tier{{Strategy: "fixed", Attempts: 3, Timeout: time.Second}}
	before := p.Encode().Encode()
	want := append([]scenario.Fault{{Kind: scenario.OutagePause, At: 20 * time.Second, For: 15 * time.Second}}, p.Faults...)
	got := scenario.AllFaults(&p)
	if !slices.Equal(got, want) {
		t.Fatalf("AllFaults = %+v, want %+v", got, want)
	}
	got[1].M = 50
	if p.Faults[0].M != 3 || p.Encode().Encode() != before {
		t.Errorf("a change to AllFaults' slice reached p: %+v", p.Faults)
	}
	p.Outage = scenario.OutageNone
	if got := scenario.AllFaults(&p); !slices.Equal(got, p.Faults) {
		t.Errorf("without the scheduled outage: %+v, want %+v", got, p.Faults)
	}

	c := p.Clone()
	c.Faults[0].M = 7
	c.Lanes[0].Tiers[0].Attempts = 9
	if p.Faults[0].M != 3 || p.Lanes[0].Tiers[0].Attempts != 3 {
		t.Errorf("Clone shares the faults or tiers: %+v, %+v", p.Faults, p.Lanes[0].Tiers)
	}
}

// TestHerdInAnOpenLoop: an open loop's herd brings its window's arrivals
// to its start, so a herd of 0s there would do nothing: it is refused,
// naming the faults, the herd and the range its window takes, by Parse (a
// URL's or the flags' path) and by Validate (a program's own values), and
// only in an open loop.
func TestHerdInAnOpenLoop(t *testing.T) {
	const want = `fault 2 ("herd:30s:0s:1"): for 0s is not a duration from 1ns to 24h0m0s: in an open loop a herd's wave is the arrivals of its window`
	faults := "load_spike:10s:1s:2,herd:30s:0s:1"
	_, err := scenario.Parse(url.Values{"arrival": {"open"}, "faults": {faults}})
	if pe := scenario.Errors(err); len(pe) != 1 || pe[0].Name != "faults" || pe[0].Value != faults || pe[0].Allow != want {
		t.Errorf("Parse: %v, want faults=%s refused: %s", err, faults, want)
	}
	p := scenario.Defaults()
	p.Arrival, p.Faults = scenario.ArrivalOpen, []scenario.Fault{{Kind: scenario.FaultLoadSpike, At: 10 * time.Second, For: time.Second, M: 2}, {Kind: scenario.FaultHerd, At: 30 * time.Second, M: 1}}
	if pe := scenario.Errors(p.Validate()); len(pe) != 1 || pe[0].Name != "faults" || pe[0].Allow != want {
		t.Errorf("Validate: %v, want %s", pe, want)
	}
	if err := p.ValidateChanged("arrival"); err == nil {
		t.Errorf("ValidateChanged(arrival) took an open loop's herd of 0s")
	}
	for _, ok := range []url.Values{
		{"arrival": {"open"}, "faults": {"herd:30s:2s:1"}},
		{"arrival": {"closed"}, "faults": {"herd:30s:0s:1"}},
	} {
		if _, err := scenario.Parse(ok); err != nil {
			t.Errorf("Parse(%v): %v", ok, err)
		}
	}
}
