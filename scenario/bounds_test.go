package scenario

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// serverBounds are a server's caps as web/kit's Limits.Bounds gives them.
var serverBounds = Bounds{Where: "on this server", Max: map[string]float64{"clients": 20_000, "duration": float64(time.Hour)}}

// TestParseWithin: a run read within a program's caps is held to them at
// t = 0 and in every live change, and each error names the range in force
// there, not the table's.
func TestParseWithin(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		param, want string // the one error's parameter and what it says
	}{
		{"clients at t = 0", "clients=30000", "clients", `clients: "30000" is not allowed (allowed: a whole number from 1 to 20000 on this server)`},
		{"clients past the table's range", "clients=2000000", "clients", "a whole number from 1 to 20000 on this server"},
		{"clients malformed", "clients=abc", "clients", "a whole number from 1 to 20000 on this server"},
		{"duration", "duration=2h", "duration", "a duration from 1s to 1h0m0s on this server"},
		{"a change within the table's range", "changes=@1s clients=1000000", "changes",
			`change 1: clients: "1000000" is not allowed (allowed: a whole number from 1 to 20000 on this server)`},
		{"a change past the table's range", "changes=@1s clients=2000000", "changes", "a whole number from 1 to 20000 on this server"},
		{"a later change", "changes=@1s clients=10 @2s stop @3s clients=20001", "changes", "change 3: clients"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ParseWithin(q, serverBounds)
			errs := Errors(err)
			if len(errs) != 1 || errs[0].Name != tc.param || !strings.Contains(errs[0].Error(), tc.want) ||
				strings.Contains(errs[0].Error(), "1000000)") {
				t.Errorf("ParseWithin(%s): %v, want one error of %s saying %q", tc.query, err, tc.param, tc.want)
			}
			// Without caps, the table's range: what the command line allows.
			if _, err := Parse(q); err == nil && strings.Contains(tc.query, "2000000") {
				t.Errorf("Parse(%s) took a value past the table's range", tc.query)
			}
		})
	}
	if p, err := ParseWithin(url.Values{"clients": {"20000"}, "changes": {"@1s clients=20000"}}, serverBounds); err != nil || p.Clients != 20000 {
		t.Errorf("ParseWithin at the caps: %v", err)
	}
}

// TestBoundsErrors: a run whose values were set in code is held to the
// caps at t = 0 and in each live change.
func TestBoundsErrors(t *testing.T) {
	p := Defaults()
	p.Changes = []Change{{At: time.Second, Set: []Assign{{Name: "clients", Value: 1_000_000}}},
		{At: 2 * time.Second, Set: []Assign{{Name: "b.factor", Value: 2.0}}}}
	errs := serverBounds.Errors(&p)
	if len(errs) != 1 || errs[0].Name != "changes" || !strings.Contains(errs[0].Allow, `change 1: clients: "1000000" is not allowed (allowed: a whole number from 1 to 20000 on this server)`) {
		t.Errorf("Errors: %v", errs)
	}
	p.Changes = nil
	p.Clients, p.Duration = 20_001, 2*time.Hour
	if errs := serverBounds.Errors(&p); len(errs) != 2 || errs[0].Name != "clients" || errs[1].Name != "duration" {
		t.Errorf("Errors: %v", errs)
	}
	if errs := (Bounds{}).Errors(&p); len(errs) != 0 {
		t.Errorf("no caps: %v", errs)
	}
}

// TestDurationsFinerThanTheEngine: a duration of any of the vocabulary's
// syntaxes finer than the engine's resolution is refused, naming it,
// where time.ParseDuration would drop its last digits in silence.
func TestDurationsFinerThanTheEngine(t *testing.T) {
	for _, tc := range []struct {
		query, param string
	}{
		{"think=1.5ns", "think"},
		{"a.min_delay=0.0000000001s", "a.min_delay"},
		{"timeout=1.0000000001s", "timeout"},
		{"outage_at=0.0000000000001m", "outage_at"},
		{"outage_for=0.00000000000001h", "outage_for"},
		{"faults=load_spike:30.0000000001s:10s:2", "faults"},
		{"a.tiers=fixed:3:1.0000000001s", "a.tiers"},
		{"changes=@0.0000000001s stop", "changes"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(q)
			errs := Errors(err)
			if len(errs) != 1 || errs[0].Name != tc.param || !strings.Contains(errs[0].Allow, "resolution is 1ns") {
				t.Errorf("Parse(%s): %v, want one error of %s naming the resolution", tc.query, err, tc.param)
			}
		})
	}
	for _, ok := range []string{"1.5s", "0.000000001s", "1.000001ms", "0.5m", "0.1h", "0.0000001m", "1.5µs", "2h45m30.5s", "100ns"} {
		d, err := parseDuration(ok)
		want, _ := time.ParseDuration(ok)
		if err != nil || d != want {
			t.Errorf("parseDuration(%s) = %v, %v; want %v", ok, d, err, want)
		}
	}
}

// TestFinerThanNanoseconds: a number of a duration is refused when its
// value in its unit is not a whole number of nanoseconds, and taken when
// it is, in every unit.
func TestFinerThanNanoseconds(t *testing.T) {
	for s, finer := range map[string]bool{
		"1.5m": false, "0.1h": false, "0.0000000001h": false, "1.000000001s": false, "2.5ms": false, "0.001us": false, "1h0.5m": false, "-1.5s": false,
		"1.0000000001s": true, "0.5ns": true, "1.5ns": true, "0.0001µs": true, "0.000000000001h": true, "1s0.5ns": true, "0.0000000000001m": true,
	} {
		if got := finerThanNanoseconds(s); got != finer {
			t.Errorf("finerThanNanoseconds(%q) = %v, want %v", s, got, finer)
		}
	}
}
