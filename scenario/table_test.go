package scenario_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// The helpers of this file carry a "tbl" prefix so that they cannot clash
// with those of the package's other external test files.

// tblParse parses the query string raw and fails the test on an error.
func tblParse(t *testing.T, raw string) scenario.Params {
	t.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("url.ParseQuery(%q): %v", raw, err)
	}
	p, err := scenario.Parse(q)
	if err != nil {
		t.Fatalf("Parse(%q): %v", raw, err)
	}
	return p
}

// tblParseErr parses the query string raw, fails the test unless Parse
// reports an error, and returns that error's parameter errors.
func tblParseErr(t *testing.T, raw string) (error, []*scenario.ParamError) {
	t.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatalf("url.ParseQuery(%q): %v", raw, err)
	}
	p, err := scenario.Parse(q)
	if err == nil {
		t.Fatalf("Parse(%q) = %+v, nil; want an error", raw, p)
	}
	pes := scenario.Errors(err)
	if len(pes) == 0 {
		t.Fatalf("Parse(%q): error %q holds no *ParamError", raw, err)
	}
	return err, pes
}

// tblLookup returns the parameter name (with or without a lane letter).
func tblLookup(t *testing.T, name string) (scenario.Param, int) {
	t.Helper()
	param, lane, ok := scenario.Lookup(name)
	if !ok {
		t.Fatalf("Lookup(%q): no such parameter", name)
	}
	return param, lane
}

// tblFullName returns param's name for lane i ("a.factor"), or its bare name
// for a parameter shared by every lane.
func tblFullName(param scenario.Param, i int) string {
	if !param.Lane {
		return param.Name
	}
	return scenario.LaneNames[i:i+1] + "." + param.Name
}

// tblCheckParamError checks that pe is the error of value raw for the
// parameter name and that its text says the name, the value and allow.
func tblCheckParamError(t *testing.T, pe *scenario.ParamError, name, raw, allow string) {
	t.Helper()
	if pe.Name != name {
		t.Errorf("ParamError.Name = %q, want %q", pe.Name, name)
	}
	if pe.Value != raw {
		t.Errorf("ParamError.Value = %q, want %q", pe.Value, raw)
	}
	msg := pe.Error()
	for _, want := range []string{name, strconv.Quote(raw), allow} {
		if !strings.Contains(msg, want) {
			t.Errorf("error text %q does not contain %q", msg, want)
		}
	}
}

// tblInRange reports whether param's value in p (lane i) is inside the
// range Table gives it; the reason when it is not.
func tblInRange(p *scenario.Params, param scenario.Param, i int) (string, bool) {
	v := param.Value(p, i)
	var f float64
	switch param.Type {
	case scenario.TypeEnum:
		return v, slices.Contains(param.Choices, v)
	case scenario.TypeBool:
		_, err := strconv.ParseBool(v)
		return v, err == nil
	case scenario.TypeSeed:
		_, err := strconv.ParseUint(v, 10, 64)
		return v, err == nil
	case scenario.TypeInt:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return v, false
		}
		f = float64(n)
	case scenario.TypeFloat:
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return v, false
		}
		f = x
	case scenario.TypeDuration:
		d, err := time.ParseDuration(v)
		if err != nil {
			return v, false
		}
		f = float64(d)
	case scenario.TypeFaults:
		_, err := scenario.ParseFaults(v)
		return v, err == nil
	case scenario.TypeTiers:
		_, err := scenario.ParseTiers(v)
		return v, err == nil
	default:
		return fmt.Sprintf("%s: unknown type %d", v, param.Type), false
	}
	return fmt.Sprintf("%s, allowed %s", v, param.Allowed()), f >= param.Min && f <= param.Max && !math.IsNaN(f)
}

// tblCheckRanges fails the test for every value of p outside its range.
func tblCheckRanges(t *testing.T, p *scenario.Params) {
	t.Helper()
	if n := len(p.Lanes); n < 1 || n > scenario.MaxLanes {
		t.Fatalf("%d lanes, want 1 to %d", n, scenario.MaxLanes)
	}
	for _, param := range scenario.Table {
		lanes := 1
		if param.Lane {
			lanes = len(p.Lanes)
		}
		for i := range lanes {
			if why, ok := tblInRange(p, param, i); !ok {
				t.Errorf("%s out of range: %s", tblFullName(param, i), why)
			}
		}
	}
	for i, l := range p.Lanes {
		if l.MaxDelay < l.MinDelay {
			t.Errorf("lane %c: max_delay %v < min_delay %v", scenario.LaneNames[i], l.MaxDelay, l.MinDelay)
		}
	}
}

// tblRoundTrip checks that Parse(p.Encode()) deep-equals p.
func tblRoundTrip(t *testing.T, p scenario.Params) {
	t.Helper()
	q := p.Encode()
	got, err := scenario.Parse(q)
	if err != nil {
		t.Fatalf("Parse(Encode()) of %+v: %v\nquery: %s", p, err, q.Encode())
	}
	if !reflect.DeepEqual(got, p) {
		t.Fatalf("Parse(Encode()) changed the parameters:\n got %+v\nwant %+v\nquery: %s", got, p, q.Encode())
	}
}

func TestParseEmptyIsDefaults(t *testing.T) {
	got, err := scenario.Parse(url.Values{})
	if err != nil {
		t.Fatalf("Parse({}): %v", err)
	}
	if want := scenario.Defaults(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse({}) = %+v\nwant Defaults() = %+v", got, want)
	}
	if err := scenario.Defaults().Validate(); err != nil {
		t.Errorf("Defaults().Validate(): %v", err)
	}
}

func TestTableDefaultsInRange(t *testing.T) {
	def := scenario.Defaults()
	// A lane parameter's default depends on the lane's strategy: check the
	// four default lanes (lanes=4) and every strategy's defaults.
	def4 := tblParse(t, "lanes=4")
	for _, param := range scenario.Table {
		t.Run(param.Name, func(t *testing.T) {
			if param.Help == "" {
				t.Errorf("no Help")
			}
			if param.Type == scenario.TypeEnum && len(param.Choices) == 0 {
				t.Errorf("an enum with no choices")
			}
			if param.Type != scenario.TypeEnum && param.Type != scenario.TypeBool && param.Min > param.Max {
				t.Errorf("Min %v > Max %v", param.Min, param.Max)
			}
			if a := param.Allowed(); a == "" {
				t.Errorf("Allowed() is empty")
			}
			p := &def
			lanes := 1
			if param.Lane {
				p, lanes = &def4, len(def4.Lanes)
			}
			for i := range lanes {
				name := tblFullName(param, i)
				if why, ok := tblInRange(p, param, i); !ok {
					t.Errorf("default of %s out of its range: %s", name, why)
				}
				// The default, given explicitly, parses back to itself.
				v := param.Value(p, i)
				q := url.Values{name: {v}}
				if param.Lane {
					q.Set("lanes", "4")
				}
				got, err := scenario.Parse(q)
				if err != nil {
					t.Errorf("Parse(%s=%s), the default: %v", name, v, err)
					continue
				}
				if back := param.Value(&got, i); back != v {
					t.Errorf("Parse(%s=%s) reads back %q", name, v, back)
				}
				if !reflect.DeepEqual(got, *p) {
					t.Errorf("Parse(%s=%s), the default, changed the parameters:\n got %+v\nwant %+v", name, v, got, *p)
				}
			}
		})
	}
	for _, s := range strategies.Names() {
		t.Run("strategy="+s, func(t *testing.T) {
			p := tblParse(t, "a.strategy="+s)
			tblCheckRanges(t, &p)
			want, ok := strategies.Defaults(s)
			if !ok {
				t.Fatalf("strategies.Defaults(%q): unknown", s)
			}
			if p.Lanes[0].Params != want {
				t.Errorf("lane a = %+v, want %s's defaults %+v", p.Lanes[0].Params, s, want)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	cases := []struct {
		name  string
		param string
		lane  int
		ok    bool
	}{
		{"clients", "clients", -1, true},
		{"lanes", "lanes", -1, true},
		{"a.factor", "factor", 0, true},
		{"d.cancel_on_timeout", "cancel_on_timeout", 3, true},
		{"factor", "factor", -1, true}, // found; Parse asks for the letter
		{"e.factor", "", -1, false},
		{"a.clients", "", -1, false},
		{"foo", "", -1, false},
		{"", "", -1, false},
		{"a.", "", -1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			param, lane, ok := scenario.Lookup(c.name)
			if ok != c.ok || param.Name != c.param || lane != c.lane {
				t.Errorf("Lookup(%q) = %q, %d, %v; want %q, %d, %v", c.name, param.Name, lane, ok, c.param, c.lane, c.ok)
			}
		})
	}
}

// TestMustLookup: MustLookup finds what Lookup finds without a lane letter,
// and panics for a name Lookup does not find or finds in a lane.
func TestMustLookup(t *testing.T) {
	for _, name := range []string{"clients", "lanes", "factor", "a.factor", "foo", ""} {
		t.Run(name, func(t *testing.T) {
			want, lane, ok := scenario.Lookup(name)
			ok = ok && lane < 0
			defer func() {
				if r := recover(); (r != nil) == ok {
					t.Errorf("MustLookup(%q) panicked %v, want a panic %v", name, r, !ok)
				}
			}()
			if got := scenario.MustLookup(name); got.Name != want.Name {
				t.Errorf("MustLookup(%q) = %s, want %s", name, got.Name, want.Name)
			}
		})
	}
}

// TestValueOfEveryLookup: every name Lookup finds has a Value, the value
// Encode writes for it; lanes, which no field of Params holds, included.
func TestValueOfEveryLookup(t *testing.T) {
	p, err := scenario.Parse(url.Values{"lanes": {"3"}, "b.strategy": {"full_jitter"}})
	if err != nil {
		t.Fatal(err)
	}
	enc := p.Encode()
	for name := range enc {
		t.Run(name, func(t *testing.T) {
			param, lane, ok := scenario.Lookup(name)
			if !ok {
				t.Fatalf("Encode writes %s, which Lookup does not find", name)
			}
			if got, want := param.Value(&p, max(lane, 0)), enc.Get(name); got != want {
				t.Errorf("Value = %q, Encode wrote %q", got, want)
			}
		})
	}
	if _, ok := enc["lanes"]; !ok {
		t.Fatal("Encode writes no lanes: the test misses the row without a field")
	}
}

// tblValue is a raw value and the canonical text Param.Value gives it back as.
type tblValue struct{ raw, want string }

// tblGoodValues returns values that param accepts, derived from its range.
func tblGoodValues(param scenario.Param) []tblValue {
	switch param.Type {
	case scenario.TypeInt:
		lo, hi := int64(param.Min), int64(param.Max)
		mid := lo + (hi-lo)/2
		return []tblValue{
			{strconv.FormatInt(lo, 10), strconv.FormatInt(lo, 10)},
			{strconv.FormatInt(hi, 10), strconv.FormatInt(hi, 10)},
			{strconv.FormatInt(mid, 10), strconv.FormatInt(mid, 10)},
			{"+" + strconv.FormatInt(hi, 10), strconv.FormatInt(hi, 10)},
		}
	case scenario.TypeFloat:
		f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		mid := param.Min + (param.Max-param.Min)/3
		return []tblValue{
			{f(param.Min), f(param.Min)},
			{f(param.Max), f(param.Max)},
			{f(mid), f(mid)},
			{strconv.FormatFloat(param.Max, 'e', 3, 64), f(param.Max)},
			{f(math.Nextafter(param.Min, math.Inf(1))), f(math.Nextafter(param.Min, math.Inf(1)))},
		}
	case scenario.TypeDuration:
		lo, hi := time.Duration(param.Min), time.Duration(param.Max)
		mid := lo + (hi-lo)/3
		return []tblValue{
			{lo.String(), lo.String()},
			{hi.String(), hi.String()},
			{mid.String(), mid.String()},
			{fmt.Sprintf("%dns", int64(hi)), hi.String()},
		}
	case scenario.TypeEnum:
		var vs []tblValue
		for _, c := range param.Choices {
			vs = append(vs, tblValue{c, c})
		}
		return vs
	case scenario.TypeBool:
		return []tblValue{{"true", "true"}, {"false", "false"}, {"1", "true"}, {"0", "false"}, {"TRUE", "true"}}
	case scenario.TypeSeed:
		return []tblValue{{"0", "0"}, {"1", "1"}, {"18446744073709551615", "18446744073709551615"}, {"42", "42"}}
	case scenario.TypeFaults:
		// Apart from the default outage (20 s to 35 s); written back in
		// the canonical form.
		return []tblValue{
			{"", ""},
			{"load_spike:60s:10s:3", "load_spike:1m0s:10s:3"},
			{"crash:40s:5s,error_burst:0s:1h:0.5,latency_spike:50s:10s:2,capacity_drop:50s:20s:0.5",
				"crash:40s:5s,error_burst:0s:1h0m0s:0.5,latency_spike:50s:10s:2,capacity_drop:50s:20s:0.5"},
			{"pause:0s:20s,partition:35s:1s", "pause:0s:20s,partition:35s:1s"},
		}
	case scenario.TypeTiers:
		// Written back in the canonical form.
		return []tblValue{
			{"", ""},
			{"fixed:3:1s", "fixed:3:1s"},
			{"fixed:3:1000ms,exponential:10:0.5s:retry_budget", "fixed:3:1s,exponential:10:500ms:retry_budget"},
			{"none:1:1ms,grpc:2:1h:breaker,decorrelated:1:90s:grpc_throttle", "none:1:1ms,grpc:2:1h0m0s:breaker,decorrelated:1:1m30s:grpc_throttle"},
		}
	}
	return nil
}

// tblBadValues returns values that param must reject, derived from its range.
func tblBadValues(param scenario.Param) map[string]string {
	bad := map[string]string{
		"empty":     "",
		"malformed": "abc",
		"NaN":       "NaN",
		"Inf":       "Inf",
		"-Inf":      "-Inf",
		"space":     " 1",
	}
	switch param.Type {
	case scenario.TypeInt:
		bad["below"] = strconv.FormatInt(int64(param.Min)-1, 10)
		bad["above"] = strconv.FormatInt(int64(param.Max)+1, 10)
		bad["fraction"] = "1.5"
		bad["exponent"] = "1e3"
		bad["huge"] = "99999999999999999999999"
	case scenario.TypeFloat:
		bad["below"] = strconv.FormatFloat(math.Nextafter(param.Min, math.Inf(-1)), 'g', -1, 64)
		bad["above"] = strconv.FormatFloat(math.Nextafter(param.Max, math.Inf(1)), 'g', -1, 64)
		bad["far_above"] = strconv.FormatFloat(param.Max*1000+1, 'g', -1, 64)
		bad["comma"] = "1,5"
	case scenario.TypeDuration:
		bad["below"] = (time.Duration(param.Min) - 1).String()
		bad["above"] = (time.Duration(param.Max) + 1).String()
		bad["no_unit"] = "10"
		bad["unknown_unit"] = "10parsecs"
	case scenario.TypeEnum:
		bad["unknown"] = "bogus"
		bad["upper"] = strings.ToUpper(param.Choices[len(param.Choices)-1])
	case scenario.TypeBool:
		bad["yes"] = "yes"
		bad["two"] = "2"
	case scenario.TypeSeed:
		bad["below"] = "-1"
		bad["above"] = "18446744073709551616"
		bad["fraction"] = "1.5"
	case scenario.TypeFaults:
		delete(bad, "empty") // no fault at all
		bad["unknown_kind"] = "meteor:1s:1s:2"
		bad["no_magnitude"] = "load_spike:1s:1s"
		bad["magnitude_of_an_outage"] = "pause:1s:1s:2"
		bad["magnitude_below"] = "capacity_drop:1s:1s:0"
		bad["magnitude_above"] = "error_burst:1s:1s:1.5"
		bad["magnitude_NaN"] = "load_spike:1s:1s:NaN"
		bad["negative_at"] = "load_spike:-1s:1s:2"
		bad["too_long"] = "load_spike:1s:25h:2"
		bad["overlapping_outages"] = "pause:40s:10s,crash:45s:10s"
		bad["herd_above_one"] = "herd:1s:0s:1.5"
		bad["herd_negative_window"] = "herd:1s:-1s:1"
		bad["trailing_comma"] = "load_spike:1s:1s:2,"
		bad["too_many"] = strings.Repeat("load_spike:1s:1s:2,", scenario.MaxFaults) + "load_spike:1s:1s:2"
	case scenario.TypeTiers:
		delete(bad, "empty") // no tier at all
		bad["unknown_strategy"] = "backoff:3:1s"
		bad["think_scaled"] = "think_scaled:3:1s"
		bad["no_timeout"] = "fixed:3"
		bad["attempts_zero"] = "fixed:0:1s"
		bad["attempts_above"] = "fixed:11:1s"
		bad["attempts_fraction"] = "fixed:1.5:1s"
		bad["timeout_zero"] = "fixed:3:0s"
		bad["timeout_above"] = "fixed:3:61m"
		bad["timeout_no_unit"] = "fixed:3:1"
		bad["unknown_limiter"] = "fixed:3:1s:bulkhead"
		bad["limiter_off"] = "fixed:3:1s:off"
		bad["five_fields"] = "fixed:3:1s:breaker:all"
		bad["trailing_comma"] = "fixed:3:1s,"
		bad["too_many"] = "fixed:3:1s,fixed:3:1s,fixed:3:1s,fixed:3:1s"
	}
	return bad
}

// tblParamsUnderTest returns every parameter with the name to give it: lane
// parameters on lane a and on lane d (which makes four lanes), and lanes.
func tblParamsUnderTest(t *testing.T) []struct {
	name  string
	param scenario.Param
	lane  int
} {
	t.Helper()
	var out []struct {
		name  string
		param scenario.Param
		lane  int
	}
	add := func(name string) {
		param, lane := tblLookup(t, name)
		out = append(out, struct {
			name  string
			param scenario.Param
			lane  int
		}{name, param, max(lane, 0)})
	}
	add("lanes")
	for _, param := range scenario.Table {
		if !param.Lane {
			add(param.Name)
			continue
		}
		add("a." + param.Name)
		add("d." + param.Name)
	}
	return out
}

func TestParseGoodValues(t *testing.T) {
	for _, pu := range tblParamsUnderTest(t) {
		for _, v := range tblGoodValues(pu.param) {
			t.Run(pu.name+"="+v.raw, func(t *testing.T) {
				q := url.Values{pu.name: {v.raw}}
				// Keep max_delay ≥ min_delay whatever the other one is.
				switch pu.param.Name {
				case "min_delay":
					q.Set(pu.name[:2]+"max_delay", "24h")
				case "max_delay":
					q.Set(pu.name[:2]+"min_delay", "1ms")
				}
				p, err := scenario.Parse(q)
				if err != nil {
					t.Fatalf("Parse(%s): %v", q.Encode(), err)
				}
				if pu.name == "lanes" {
					if got := strconv.Itoa(len(p.Lanes)); got != v.want {
						t.Fatalf("%d lanes, want %s", len(p.Lanes), v.want)
					}
					return
				}
				if got := pu.param.Value(&p, pu.lane); got != v.want {
					t.Errorf("%s reads back %q, want %q", pu.name, got, v.want)
				}
				tblCheckRanges(t, &p)
				tblRoundTrip(t, p)
			})
		}
	}
}

func TestParseBadValues(t *testing.T) {
	for _, pu := range tblParamsUnderTest(t) {
		bad := tblBadValues(pu.param)
		keys := make([]string, 0, len(bad))
		for k := range bad {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			raw := bad[k]
			t.Run(pu.name+"/"+k, func(t *testing.T) {
				_, pes := tblParseErr(t, url.Values{pu.name: {raw}}.Encode())
				if len(pes) != 1 {
					t.Fatalf("%d parameter errors, want 1: %v", len(pes), pes)
				}
				tblCheckParamError(t, pes[0], pu.name, raw, pu.param.Allowed())
			})
		}
	}
}

func TestParseBadNames(t *testing.T) {
	cases := []struct {
		name, query string
		param, raw  string
		allow       string // what the error text must say is allowed
	}{
		{"lane_param_without_letter", "factor=2", "factor", "2", "a.factor"},
		{"lane_enum_without_letter", "strategy=grpc", "strategy", "grpc", "a.strategy"},
		{"unknown_name", "foo=1", "foo", "1", "no such parameter"},
		{"lane_letter_e", "e.factor=2", "e.factor", "2", "no such parameter"},
		{"lane_letter_on_shared_param", "a.clients=5", "a.clients", "5", "no such parameter"},
		{"lane_beyond_lanes_1", "lanes=1&b.factor=2", "b.factor", "2", "lanes a to a only (lanes=1)"},
		{"lane_beyond_lanes_3", "lanes=3&d.jitter=0.5", "d.jitter", "0.5", "lanes a to c only (lanes=3)"},
		{"strategy_beyond_lanes", "lanes=1&b.strategy=grpc", "b.strategy", "grpc", "lanes a to a only (lanes=1)"},
		{"bad_strategy_beyond_lanes", "lanes=1&b.strategy=bogus", "b.strategy", "bogus", "lanes a to a"},
		{"lanes_zero", "lanes=0", "lanes", "0", "a whole number from 1 to 4"},
		{"lanes_five", "lanes=5", "lanes", "5", "a whole number from 1 to 4"},
		{"max_below_min", "a.max_delay=50ms", "a.max_delay", "50ms", "a.min_delay (100ms)"},
		{"max_below_given_min", "c.min_delay=2s&c.max_delay=1s", "c.max_delay", "1s", "c.min_delay (2s)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, pes := tblParseErr(t, c.query)
			if len(pes) != 1 {
				t.Fatalf("%d parameter errors, want 1: %v", len(pes), pes)
			}
			tblCheckParamError(t, pes[0], c.param, c.raw, c.allow)
		})
	}
}

// TestDelayOrderOtherSide: the error of a lane's delays out of order names
// max_delay, and carries the same error from min_delay's side, for a caller
// that knows the user set min_delay; an error of one parameter has none.
func TestDelayOrderOtherSide(t *testing.T) {
	for _, c := range []struct {
		name, query           string
		param, raw, allow     string
		other, otherRaw, oAll string // "" for no other side
	}{
		{"min_above_default_max", "b.strategy=exponential&b.min_delay=1h", "b.max_delay", "15m0s", "at least b.min_delay (1h0m0s)",
			"b.min_delay", "1h0m0s", "a duration from 1ms to b.max_delay (15m0s)"},
		{"both_given", "a.min_delay=2s&a.max_delay=1s", "a.max_delay", "1s", "at least a.min_delay (2s)",
			"a.min_delay", "2s", "a duration from 1ms to a.max_delay (1s)"},
		{"one_parameter", "a.factor=0", "a.factor", "0", "a number from", "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, pes := tblParseErr(t, c.query)
			if len(pes) != 1 {
				t.Fatalf("%d parameter errors, want 1: %v", len(pes), pes)
			}
			tblCheckParamError(t, pes[0], c.param, c.raw, c.allow)
			o := pes[0].Other
			switch {
			case c.other == "" && o != nil:
				t.Errorf("an error of one parameter has another side: %v", o)
			case c.other == "":
			case o == nil:
				t.Errorf("%v: no other side", pes[0])
			default:
				tblCheckParamError(t, o, c.other, c.otherRaw, c.oAll)
				if o.Other != nil {
					t.Errorf("the other side has a side of its own: %v", o.Other)
				}
			}
		})
	}
}

func TestParseManyErrorsSorted(t *testing.T) {
	query := "timeout=x&foo=1&clients=0&b.jitter=2&a.factor=abc&factor=3&outage=soon&seed=-1"
	want := []string{"a.factor", "b.jitter", "clients", "factor", "foo", "outage", "seed", "timeout"}
	// Parse ranges over a map: repeat so that any order it meets is sorted.
	for range 20 {
		err, pes := tblParseErr(t, query)
		var names []string
		for _, pe := range pes {
			names = append(names, pe.Name)
		}
		if !slices.Equal(names, want) {
			t.Fatalf("errors for %v, want %v (sorted by name)", names, want)
		}
		// The joined text lists them in the same order, one a line.
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != len(want) {
			t.Fatalf("error text has %d lines, want %d:\n%s", len(lines), len(want), err)
		}
		for i, l := range lines {
			if !strings.HasPrefix(l, want[i]+":") {
				t.Errorf("line %d of the error is %q, want it to start with %q", i, l, want[i]+":")
			}
		}
		var pe *scenario.ParamError
		if !errors.As(err, &pe) || pe.Name != want[0] {
			t.Errorf("errors.As finds %v, want the error of %s", pe, want[0])
		}
	}
}

func TestParseLanes(t *testing.T) {
	grpc, _ := strategies.Defaults("fixed") // the limiters' defaults, every strategy's
	grpc.Strategy, grpc.MinDelay, grpc.MaxDelay = "grpc", time.Second, 120*time.Second
	grpc.Factor, grpc.Jitter, grpc.MinConnectTimeout = 1.6, 0.2, 20*time.Second
	cases := []struct {
		name       string
		query      string
		strategies []string
		check      func(t *testing.T, p scenario.Params)
	}{
		{"none_given", "", []string{"fixed", "exponential"}, nil},
		{"only_c", "c.factor=3", []string{"fixed", "exponential", "full_jitter"},
			func(t *testing.T, p scenario.Params) {
				if p.Lanes[2].Factor != 3 {
					t.Errorf("c.factor = %v, want 3", p.Lanes[2].Factor)
				}
			}},
		{"only_d", "d.cancel_on_timeout=true", []string{"fixed", "exponential", "full_jitter", "think_scaled"},
			func(t *testing.T, p scenario.Params) {
				if !p.Lanes[3].CancelOnTimeout || p.Lanes[0].CancelOnTimeout {
					t.Errorf("cancel_on_timeout = %v, want only d's true", p.Lanes)
				}
			}},
		{"lanes_1", "lanes=1", []string{"fixed"}, nil},
		{"lanes_4", "lanes=4", []string{"fixed", "exponential", "full_jitter", "think_scaled"}, nil},
		{"lanes_wins_over_letters", "lanes=3&a.factor=3", []string{"fixed", "exponential", "full_jitter"},
			func(t *testing.T, p scenario.Params) {
				if p.Lanes[0].Factor != 3 {
					t.Errorf("a.factor = %v, want 3", p.Lanes[0].Factor)
				}
			}},
		// Only lane a given: the highest letter is a, so one lane.
		{"grpc_defaults", "a.strategy=grpc", []string{"grpc"},
			func(t *testing.T, p scenario.Params) {
				if p.Lanes[0].Params != grpc {
					t.Errorf("lane a = %+v, want grpc's defaults %+v", p.Lanes[0].Params, grpc)
				}
			}},
		{"grpc_overridden", "a.factor=2&a.strategy=grpc&a.jitter=0&a.max_delay=1m",
			[]string{"grpc"},
			func(t *testing.T, p scenario.Params) {
				want := grpc
				want.Factor, want.Jitter, want.MaxDelay = 2, 0, time.Minute
				if p.Lanes[0].Params != want {
					t.Errorf("lane a = %+v, want %+v", p.Lanes[0].Params, want)
				}
			}},
		{"grpc_on_a_with_b", "a.strategy=grpc&b.jitter=0.5", []string{"grpc", "exponential"},
			func(t *testing.T, p scenario.Params) {
				if p.Lanes[0].Params != grpc {
					t.Errorf("lane a = %+v, want grpc's defaults %+v", p.Lanes[0].Params, grpc)
				}
				if p.Lanes[1].Jitter != 0.5 || p.Lanes[1].Factor != 2 || p.Lanes[1].MaxDelay != 15*time.Minute {
					t.Errorf("lane b = %+v, want exponential's defaults with jitter 0.5", p.Lanes[1].Params)
				}
			}},
		{"strategy_on_b_keeps_a", "b.strategy=exponential&b.factor=2.7", []string{"fixed", "exponential"},
			func(t *testing.T, p scenario.Params) {
				a, _ := strategies.Defaults("fixed")
				if p.Lanes[0].Params != a {
					t.Errorf("lane a = %+v, want fixed's defaults", p.Lanes[0].Params)
				}
				if p.Lanes[1].Factor != 2.7 || p.Lanes[1].MinDelay != 100*time.Millisecond {
					t.Errorf("lane b = %+v, want exponential's defaults with factor 2.7", p.Lanes[1].Params)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Parse ranges over a map: repeat to meet several orders.
			for range 10 {
				p := tblParse(t, c.query)
				var got []string
				for _, l := range p.Lanes {
					got = append(got, l.Strategy)
				}
				if !slices.Equal(got, c.strategies) {
					t.Fatalf("lanes %v, want %v", got, c.strategies)
				}
				for i, l := range p.Lanes {
					if c.check == nil {
						if want := scenario.DefaultLane(i); !reflect.DeepEqual(l, want) {
							t.Errorf("lane %c = %+v, want DefaultLane(%d) = %+v", scenario.LaneNames[i], l, i, want)
						}
					}
				}
				if c.check != nil {
					c.check(t, p)
				}
			}
		})
	}
}

func TestEncodeParseRoundTrip(t *testing.T) {
	grpc, _ := strategies.Defaults("grpc")
	exp, _ := strategies.Defaults("exponential")
	none, _ := strategies.Defaults("none")
	dec, _ := strategies.Defaults("decorrelated")

	four := scenario.Defaults()
	four.Clients = 777
	four.ServerFactor = 1.0000001
	four.ServerK = 0.1
	four.Think = 1500 * time.Millisecond
	four.Timeout = time.Hour
	four.Seed = math.MaxUint64
	four.Outage = scenario.OutageCrash
	four.OutageAt = 1500 * time.Millisecond
	four.OutageFor = time.Hour + 2*time.Minute + 3*time.Second + 4005006 // 1h2m3.004005006s
	four.Backlog = 0
	four.Lanes = []scenario.Lane{
		{Params: grpc, CancelOnTimeout: true},
		{Params: exp},
		{Params: none},
		{Params: dec, CancelOnTimeout: true},
	}
	four.Lanes[1].Factor = 1.0000001
	four.Lanes[1].Jitter = 1.0 / 3
	four.Lanes[1].MaxDelay = 1500 * time.Millisecond
	four.Lanes[1].MaxAttempts = 1_000_000
	four.Lanes[1].Deadline = time.Hour + 2*time.Minute + 3*time.Second + 4005006
	four.Lanes[2].MinDelay = time.Millisecond
	four.Lanes[2].MaxDelay = time.Millisecond
	four.Lanes[3].MinConnectTimeout = 1234567891 * time.Nanosecond

	one := scenario.Defaults()
	one.Lanes = one.Lanes[:1]
	one.Seed = 0
	one.Outage = scenario.OutagePartition
	one.ServerFactor = 10
	one.Lanes[0].Jitter = 5e-324 // the smallest float above 0
	one.Lanes[0].Factor = 9.999999999999998
	one.OutageAt, one.OutageFor, one.Backlog = 0, 0, 0

	three := scenario.Defaults()
	three.Lanes = append(three.Lanes, scenario.DefaultLane(2))
	three.Outage = scenario.OutageNone
	three.Duration = 24 * time.Hour
	three.Tick = 10 * time.Millisecond
	three.Lanes[2].Strategy = "think_scaled" // a strategy with another's parameters

	limited := scenario.Defaults()
	limited.Lanes[0].GRPCThrottle, limited.Lanes[0].GRPCMaxTokens, limited.Lanes[0].GRPCTokenRatio = strategies.LimiterOn, 0.001, 1000
	limited.Lanes[0].AWSQuota, limited.Lanes[0].AWSQuotaTokens, limited.Lanes[0].AWSNoRetryIncrement = strategies.LimiterOn, 1_000_000, 0
	limited.Lanes[0].Breaker, limited.Lanes[0].BreakerThreshold = strategies.BreakerRetries, 33.3
	limited.Lanes[1].SREThrottle, limited.Lanes[1].SREK, limited.Lanes[1].SREWindow = strategies.LimiterOn, 1.1, 90*time.Second
	limited.Lanes[1].RetryBudget, limited.Lanes[1].BudgetPercent, limited.Lanes[1].BudgetMinPerSec = strategies.LimiterOn, 0, 0
	limited.Lanes[1].Breaker, limited.Lanes[1].BreakerOpenFor, limited.Lanes[1].BreakerProbes = strategies.BreakerAll, 1500*time.Millisecond, 1

	cases := []struct {
		name string
		p    scenario.Params
	}{
		{"defaults", scenario.Defaults()},
		{"limiters", limited},
		{"four_lanes", four},
		{"one_lane", one},
		{"three_lanes", three},
		{"grpc_lane", tblParse(t, "a.strategy=grpc&b.strategy=truncated")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tblRoundTrip(t, c.p)
			if err := c.p.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
			// Encode writes every parameter, and lanes.
			q := c.p.Encode()
			want := 1 // lanes
			for _, param := range scenario.Table {
				if param.Lane {
					want += len(c.p.Lanes)
				} else {
					want++
				}
			}
			if len(q) != want {
				t.Errorf("Encode has %d values, want %d: %v", len(q), want, q)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(scenario.Defaults().Encode().Encode())
	for _, s := range []string{
		"",
		"clients=200&duration=30s",
		"lanes=4&a.strategy=grpc&b.strategy=exponential&b.factor=2.7&c.strategy=none&d.cancel_on_timeout=1",
		"c.factor=3",
		"lanes=1&b.factor=2",
		"lanes=1&b.strategy=grpc",
		"a.max_delay=50ms",
		"factor=2&foo=1&e.factor=2&clients=0&seed=-1",
		"server_factor=NaN&jitter=Inf&a.jitter=-0&think=-1s",
		"a.strategy=grpc&a.factor=1.0000001&timeout=1h2m3.004005006s&seed=18446744073709551615",
		"lanes=&lanes=3&a.min_delay=1h&a.max_delay=1h",
		"outage=crash&outage_at=0s&outage_for=0&backlog=0&tick=10ms",
		"a.jitter=0x1p-2&b.factor=1e0&clients=+5&server_k=.1",
		"%zz=1&a.b.c=1&a.=2&.factor=3",
		"a.tiers=fixed:3:1s,fixed:3:500ms&b.tiers=exponential:2:1000ms:retry_budget&c.tiers=fixed:11:1s",
		"a.tiers=none:1:1ms,grpc:10:1h:breaker,full_jitter:1:2s:aws_quota&tiers=fixed:1:1s",
		"a.tiers=fixed:1:0100s",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		// ParseQuery keeps the pairs it could read when it reports an error.
		q, _ := url.ParseQuery(raw)
		p, err := scenario.Parse(q)
		if err != nil {
			pes := scenario.Errors(err)
			if len(pes) == 0 {
				t.Fatalf("Parse(%q): error %q holds no *ParamError", raw, err)
			}
			if !slices.IsSortedFunc(pes, func(a, b *scenario.ParamError) int { return strings.Compare(a.Name, b.Name) }) {
				t.Errorf("Parse(%q): errors not sorted by name: %v", raw, err)
			}
			for _, pe := range pes {
				if !strings.Contains(pe.Error(), pe.Name) {
					t.Errorf("Parse(%q): error %q does not name %q", raw, pe.Error(), pe.Name)
				}
			}
			return
		}
		tblCheckRanges(t, &p)
		tblCheckGiven(t, q, &p)
		tblRoundTrip(t, p)
	})
}

// tblCheckGiven checks that every value q gives is one of p's parameters,
// on one of p's lanes, and holds the value given (its last one).
func tblCheckGiven(t *testing.T, q url.Values, p *scenario.Params) {
	t.Helper()
	for name, vals := range q {
		param, lane, ok := scenario.Lookup(name)
		if !ok || (param.Lane && lane < 0) {
			t.Errorf("Parse accepted %s=%q, which is no parameter", name, vals)
			continue
		}
		raw := vals[len(vals)-1]
		if name == "lanes" {
			if n, err := strconv.Atoi(strings.TrimPrefix(raw, "+")); err != nil || n != len(p.Lanes) {
				t.Errorf("lanes=%q but %d lanes", raw, len(p.Lanes))
			}
			continue
		}
		if lane >= len(p.Lanes) {
			t.Errorf("Parse accepted %s=%q but made only %d lanes", name, raw, len(p.Lanes))
			continue
		}
		got := param.Value(p, max(lane, 0))
		same := got == raw
		switch param.Type {
		case scenario.TypeInt:
			a, err1 := strconv.ParseInt(raw, 10, 64)
			b, err2 := strconv.ParseInt(got, 10, 64)
			same = err1 == nil && err2 == nil && a == b
		case scenario.TypeSeed:
			a, err1 := strconv.ParseUint(raw, 10, 64)
			b, err2 := strconv.ParseUint(got, 10, 64)
			same = err1 == nil && err2 == nil && a == b
		case scenario.TypeFloat:
			a, err1 := strconv.ParseFloat(raw, 64)
			b, err2 := strconv.ParseFloat(got, 64)
			same = err1 == nil && err2 == nil && a == b
		case scenario.TypeDuration:
			a, err1 := time.ParseDuration(raw)
			b, err2 := time.ParseDuration(got)
			same = err1 == nil && err2 == nil && a == b
		case scenario.TypeBool:
			a, err1 := strconv.ParseBool(raw)
			b, err2 := strconv.ParseBool(got)
			same = err1 == nil && err2 == nil && a == b
		case scenario.TypeTiers:
			// A tier's time reads back in Go's canonical form (0100s is 1m40s).
			a, err1 := scenario.ParseTiers(raw)
			b, err2 := scenario.ParseTiers(got)
			same = err1 == nil && err2 == nil && reflect.DeepEqual(a, b)
		case scenario.TypeFaults:
			a, err1 := scenario.ParseFaults(raw)
			b, err2 := scenario.ParseFaults(got)
			same = err1 == nil && err2 == nil && reflect.DeepEqual(a, b)
		}
		if !same {
			t.Errorf("%s=%q reads back as %q", name, raw, got)
		}
	}
}

func TestParamsMap(t *testing.T) {
	p := tblParse(t, "lanes=3&a.strategy=grpc&a.cancel_on_timeout=true&clients=250&seed=18446744073709551615")
	m := p.Map()
	// Every encoded name is in the map, and nothing else.
	q := p.Encode()
	if len(m) != len(q) {
		t.Errorf("Map has %d keys, Encode %d", len(m), len(q))
	}
	for name := range q {
		if _, ok := m[name]; !ok {
			t.Errorf("Map lacks %q", name)
		}
	}
	for _, param := range scenario.Table {
		if param.Lane {
			if _, ok := m["a."+param.Name]; !ok {
				t.Errorf("Map lacks a.%s", param.Name)
			}
		}
	}
	want := map[string]any{
		"lanes":                 json.Number("3"),
		"clients":               json.Number("250"),
		"server_factor":         json.Number("1.05"),
		"seed":                  json.Number("18446744073709551615"),
		"think":                 "10s",
		"max_server_delay":      "1h0m0s",
		"outage":                "pause",
		"a.strategy":            "grpc",
		"a.factor":              json.Number("1.6"),
		"a.max_attempts":        json.Number("0"),
		"a.min_delay":           "1s",
		"a.min_connect_timeout": "20s",
		"a.cancel_on_timeout":   true,
		"b.cancel_on_timeout":   false,
		"c.strategy":            "full_jitter",
	}
	for k, v := range want {
		if got := m[k]; got != v {
			t.Errorf("Map[%q] = %#v (%T), want %#v (%T)", k, got, got, v, v)
		}
	}
	// Each value's type follows its parameter's type.
	for k, v := range m {
		param, _, ok := scenario.Lookup(k)
		if !ok {
			t.Errorf("Map key %q is no parameter", k)
			continue
		}
		var ok2 bool
		switch param.Type {
		case scenario.TypeInt, scenario.TypeFloat, scenario.TypeSeed:
			_, ok2 = v.(json.Number)
		case scenario.TypeBool:
			_, ok2 = v.(bool)
		case scenario.TypeDuration, scenario.TypeEnum, scenario.TypeFaults, scenario.TypeTiers:
			_, ok2 = v.(string)
		}
		if !ok2 {
			t.Errorf("Map[%q] is %T, not of type %d", k, v, param.Type)
		}
	}
	// It marshals as JSON numbers, strings and bools.
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatalf("json.Marshal(Map()): %v", err)
	}
	for _, frag := range []string{`"lanes":3`, `"seed":18446744073709551615`, `"a.factor":1.6`,
		`"think":"10s"`, `"a.cancel_on_timeout":true`} {
		if !strings.Contains(string(b), frag) {
			t.Errorf("JSON %s lacks %s", b, frag)
		}
	}
}

// TestScopes: the rows listed keep their scopes, every shared row shows in
// the page's group of its scope, the rows that strategies' formulas read are
// all ScopeStrategy, so that Uses asks strategies.Uses about every one of
// them, and the server models read server rows only.
func TestScopes(t *testing.T) {
	want := map[string]scenario.Scope{
		"outage": scenario.ScopeRun, "outage_at": scenario.ScopeRun, "outage_for": scenario.ScopeRun,
		"duration": scenario.ScopeRun, "tick": scenario.ScopeRun, "seed": scenario.ScopeRun,
		"clients": scenario.ScopeClients, "think": scenario.ScopeClients, "timeout": scenario.ScopeClients,
		"server_limit": scenario.ScopeServer, "server_delay": scenario.ScopeServer, "server_factor": scenario.ScopeServer,
		"server_k": scenario.ScopeServer, "max_server_delay": scenario.ScopeServer, "backlog": scenario.ScopeServer,
		"cancel_on_timeout": scenario.ScopeServer,
		"strategy":          scenario.ScopeStrategy, "min_delay": scenario.ScopeStrategy, "max_delay": scenario.ScopeStrategy,
		"factor": scenario.ScopeStrategy, "jitter": scenario.ScopeStrategy, "min_connect_timeout": scenario.ScopeStrategy,
		"max_attempts": scenario.ScopeLimiter, "deadline": scenario.ScopeLimiter,
	}
	for _, param := range scenario.Table {
		if w, ok := want[param.Name]; ok && param.Scope != w {
			t.Errorf("%s: scope %d, want %d", param.Name, param.Scope, w)
		}
		group := map[scenario.Scope]string{scenario.ScopeClients: scenario.GroupClients, scenario.ScopeServer: scenario.GroupServer}[param.Scope]
		if !param.Lane && group != "" && param.Group != group {
			t.Errorf("%s: group %q, want %q for its scope", param.Name, param.Group, group)
		}
		if (param.Scope == scenario.ScopeStrategy || param.Scope == scenario.ScopeLimiter) && !param.Lane {
			t.Errorf("%s: a strategy's or limiter's parameter shared by every lane", param.Name)
		}
		for _, m := range scenario.ServerModels {
			if slices.Contains(m.Uses, param.Name) && param.Scope != scenario.ScopeServer {
				t.Errorf("server model %s reads %s, a row of scope %d", m.Name, param.Name, param.Scope)
			}
		}
		for _, s := range strategies.Names() {
			if strategies.Uses(s, param.Name) && param.Scope != scenario.ScopeStrategy {
				t.Errorf("strategy %s's formula reads %s, a row of scope %d", s, param.Name, param.Scope)
			}
		}
	}
}

// TestLimiterRows: every limiter's switch is an enum whose default, its
// first choice, is off, and it and its parameters are lane rows of
// ScopeLimiter that the real client implements, whose help names where
// the default comes from; turning a switch on through the URL builds its
// limiter, and a switch of a lane of strategy none builds nothing.
func TestLimiterRows(t *testing.T) {
	switches := map[string]string{ // switch: the limiter's type
		"grpc_throttle": "*strategies.GRPCThrottle", "aws_quota": "*strategies.AWSQuota",
		"sre_throttle": "*strategies.SREThrottle", "retry_budget": "*strategies.RetryBudget",
		"breaker": "*strategies.Breaker", "envoy_retry_limit": "*strategies.EnvoyRetryLimit",
		"aws_adaptive": "*strategies.AWSAdaptive",
	}
	sources := []string{"gRFC A6", "AWS SDKs'", "aws-sdk-go-v2", "SRE book's", "Finagle's", "resilience4j's", "Envoy's"}
	def := scenario.Defaults()
	for _, param := range scenario.Table {
		if param.Scope != scenario.ScopeLimiter || param.Name == "max_attempts" || param.Name == "deadline" {
			continue
		}
		if !param.Lane || param.SimOnly {
			t.Errorf("%s: want a lane row the real client implements", param.Name)
		}
		if _, ok := switches[param.Name]; ok {
			if param.Type != scenario.TypeEnum || param.Choices[0] != strategies.LimiterOff || param.Value(&def, 0) != strategies.LimiterOff {
				t.Errorf("%s: a switch must be an enum whose first choice and default is off: %v", param.Name, param.Choices)
			}
			continue
		}
		if !slices.ContainsFunc(sources, func(src string) bool { return strings.Contains(param.Help, src) }) {
			t.Errorf("%s: help %q names no source of its default", param.Name, param.Help)
		}
	}
	for sw, typ := range switches {
		param, _ := tblLookup(t, sw)
		for _, on := range param.Choices[1:] {
			p := tblParse(t, "a.strategy=fixed&b.strategy=none&a."+sw+"="+on+"&b."+sw+"="+on)
			for lane, want := range []int{1, 0} {
				pol, err := strategies.New(p.Lanes[lane].Params)
				if err != nil {
					t.Fatalf("%s=%s: %v", sw, on, err)
				}
				var got []string
				for _, l := range pol.Limiters() {
					got = append(got, fmt.Sprintf("%T", l))
				}
				if len(got) != want || want == 1 && got[0] != typ {
					t.Errorf("lane %d, %s=%s: limits %v, want %d %s", lane, sw, on, got, want, typ)
				}
			}
		}
	}
}

func TestUses(t *testing.T) {
	for _, s := range strategies.Names() {
		for _, param := range scenario.Table {
			want := true
			switch param.Scope {
			case scenario.ScopeStrategy:
				want = param.Name == "strategy" || strategies.Uses(s, param.Name)
			case scenario.ScopeLimiter:
				want = s != strategies.NameNone
			}
			if got := scenario.Uses(s, param.Name); got != want {
				t.Errorf("Uses(%q, %q) = %v, want %v", s, param.Name, got, want)
			}
		}
	}
	for _, c := range []struct{ strategy, param string }{
		{"fixed", "max_attempts"}, {"fixed", "deadline"}, {"grpc", "min_connect_timeout"},
		{"none", "cancel_on_timeout"}, {"none", "strategy"}, {"none", "clients"},
	} {
		if !scenario.Uses(c.strategy, c.param) {
			t.Errorf("Uses(%q, %q) = false", c.strategy, c.param)
		}
	}
	for _, c := range []struct{ strategy, param string }{
		{"none", "max_attempts"}, {"none", "deadline"}, {"none", "min_delay"}, {"fixed", "factor"},
		{"think_scaled", "min_delay"}, {"linear", "min_delay"}, {"linear", "strategy"}, {"fixed", "lanes"},
		{"fixed", "a.min_delay"}, {"fixed", ""},
	} {
		if scenario.Uses(c.strategy, c.param) {
			t.Errorf("Uses(%q, %q) = true", c.strategy, c.param)
		}
	}
}

// tblEncode is Encode, except that past MaxLanes lanes it writes the lanes
// that have a letter and the number of lanes given: Encode has no letter for
// a fifth lane.
func tblEncode(p scenario.Params) url.Values {
	if len(p.Lanes) <= scenario.MaxLanes {
		return p.Encode()
	}
	n := len(p.Lanes)
	p.Lanes = p.Lanes[:scenario.MaxLanes]
	q := p.Encode()
	q.Set("lanes", strconv.Itoa(n))
	return q
}

// TestValidateAgreesWithParse: Validate checks the typed values; it reports
// what Parse reports of the same values written as text, error for error.
func TestValidateAgreesWithParse(t *testing.T) {
	exp, _ := strategies.Defaults("exponential")
	cases := []struct {
		name string
		edit func(p *scenario.Params)
		want []string // the names of the errors, sorted
	}{
		{"defaults", func(*scenario.Params) {}, nil},
		{"four_lanes", func(p *scenario.Params) {
			p.Lanes = []scenario.Lane{scenario.DefaultLane(0), scenario.DefaultLane(1), scenario.DefaultLane(2), scenario.DefaultLane(3)}
		}, nil},
		{"edges", func(p *scenario.Params) {
			p.Clients, p.ServerFactor, p.Backlog, p.OutageAt, p.Seed = 1_000_000, 10, 0, 0, math.MaxUint64
			p.Lanes[0].MinDelay, p.Lanes[0].MaxDelay = time.Hour, time.Hour
		}, nil},
		{"nan_floats", func(p *scenario.Params) {
			p.ServerFactor, p.ServerK, p.Lanes[1].Jitter = math.NaN(), math.Inf(1), math.NaN()
			p.Lanes[0].Factor = math.Inf(-1)
		}, []string{"a.factor", "b.jitter", "server_factor", "server_k"}},
		{"ints_out_of_range", func(p *scenario.Params) {
			p.Clients, p.ServerLimit, p.Backlog, p.Lanes[1].MaxAttempts = 0, 1_000_001, -1, -5
		}, []string{"b.max_attempts", "backlog", "clients", "server_limit"}},
		{"durations_out_of_range", func(p *scenario.Params) {
			p.Think, p.Duration, p.Tick, p.Lanes[0].Deadline, p.Lanes[1].MinConnectTimeout = 0, 48*time.Hour, -time.Second, -1, time.Hour+1
		}, []string{"a.deadline", "b.min_connect_timeout", "duration", "think", "tick"}},
		{"unknown_enums", func(p *scenario.Params) {
			p.Outage, p.Lanes[1].Strategy = "soon", "linear"
		}, []string{"b.strategy", "outage"}},
		{"empty_enum", func(p *scenario.Params) { p.Lanes[0].Strategy = "" }, []string{"a.strategy"}},
		{"max_below_min", func(p *scenario.Params) {
			p.Lanes[1] = scenario.Lane{Params: exp}
			p.Lanes[1].MinDelay, p.Lanes[1].MaxDelay = 2*time.Minute, time.Minute
		}, []string{"b.max_delay"}},
		// A bad delay is reported once: not again as out of order, neither
		// with its own value (Validate) nor with the default Parse keeps.
		{"bad_min_delay_above_max", func(p *scenario.Params) {
			p.Lanes[0].MinDelay, p.Lanes[0].MaxDelay = 2*time.Hour, time.Hour
		}, []string{"a.min_delay"}},
		{"bad_min_delay_max_below_default", func(p *scenario.Params) {
			p.Lanes[0].MinDelay, p.Lanes[0].MaxDelay = 0, 50*time.Millisecond
		}, []string{"a.min_delay"}},
		{"bad_max_delay_below_min", func(p *scenario.Params) {
			p.Lanes[0].MaxDelay = 0
		}, []string{"a.max_delay"}},
		{"too_many_lanes", func(p *scenario.Params) {
			for i := range 3 {
				p.Lanes = append(p.Lanes, scenario.DefaultLane(i))
			}
		}, []string{"lanes"}},
		{"too_many_lanes_and_bad_values", func(p *scenario.Params) {
			p.Lanes = append(p.Lanes, scenario.DefaultLane(2), scenario.DefaultLane(3), scenario.DefaultLane(0))
			p.Lanes[3].Jitter, p.Clients = 2, 0
		}, []string{"clients", "d.jitter", "lanes"}},
		{"no_lanes", func(p *scenario.Params) { p.Lanes = nil }, []string{"lanes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := scenario.Defaults()
			c.edit(&p)
			verr := p.Validate()
			q := tblEncode(p)
			_, perr := scenario.Parse(q)
			if (verr == nil) != (perr == nil) || verr != nil && verr.Error() != perr.Error() {
				t.Fatalf("Validate and Parse(Encode) disagree:\nValidate: %v\nParse:    %v\nquery: %s", verr, perr, q.Encode())
			}
			if n := len(p.Lanes); n >= 1 && n <= scenario.MaxLanes {
				// The values that differ from the defaults' are the ones
				// ValidateChanged is told of.
				def := scenario.Defaults().Encode()
				var changed []string
				for name, v := range q {
					if name != "lanes" && !slices.Equal(v, def[name]) {
						changed = append(changed, name)
					}
				}
				if cerr := p.ValidateChanged(changed...); fmt.Sprint(cerr) != fmt.Sprint(verr) {
					t.Errorf("ValidateChanged(%v) and Validate disagree:\nValidateChanged: %v\nValidate:        %v", changed, cerr, verr)
				}
			}
			var names []string
			for _, pe := range scenario.Errors(verr) {
				names = append(names, pe.Name)
			}
			if !slices.Equal(names, c.want) {
				t.Errorf("Validate reports %v, want %v:\n%v", names, c.want, verr)
			}
		})
	}
}

// TestCheck: Check names a bad typed value as Encode writes it, with what
// the row allows, and agrees with Set, which keeps the value it had.
func TestCheck(t *testing.T) {
	for _, param := range scenario.Table {
		t.Run(param.Name, func(t *testing.T) {
			p := scenario.Defaults()
			ptr := param.Field(&p, 0)
			def := param.Value(&p, 0)
			if err := param.Check(ptr, "-flag"); err != nil {
				t.Errorf("the default: %v", err)
			}
			for _, v := range tblGoodValues(param) {
				if err := param.Set(ptr, "-flag", v.raw); err != nil {
					t.Errorf("Set(%q): %v", v.raw, err)
				}
				if err := param.Check(ptr, "-flag"); err != nil {
					t.Errorf("Check after Set(%q): %v", v.raw, err)
				}
			}
			p = scenario.Defaults()
			ptr = param.Field(&p, 0)
			for _, raw := range tblBadValues(param) {
				if err := param.Set(ptr, "-flag", raw); err == nil {
					t.Errorf("Set(%q) accepted it", raw)
				}
				if got := param.Value(&p, 0); got != def {
					t.Errorf("Set(%q) failed but changed the value to %q", raw, got)
				}
			}
			var bad []func()
			switch v := ptr.(type) {
			case *int:
				bad = []func(){func() { *v = int(param.Min) - 1 }, func() { *v = int(param.Max) + 1 }}
			case *float64:
				bad = []func(){
					func() { *v = math.NaN() }, func() { *v = math.Inf(1) },
					func() { *v = math.Nextafter(param.Min, math.Inf(-1)) },
					func() { *v = math.Nextafter(param.Max, math.Inf(1)) },
				}
			case *time.Duration:
				bad = []func(){func() { *v = time.Duration(param.Min) - 1 }, func() { *v = time.Duration(param.Max) + 1 }}
			case *string:
				bad = []func(){func() { *v = "bogus" }, func() { *v = "" }}
			case *bool:
				*v = true
			case *uint64:
				*v = math.MaxUint64
			case *[]scenario.Fault:
				bad = []func(){
					func() { *v = []scenario.Fault{{Kind: "meteor", At: time.Second, For: time.Second, M: 2}} },
					func() { *v = []scenario.Fault{{Kind: scenario.FaultLoadSpike, At: time.Second, For: time.Second}} },
				}
			case *[]scenario.Tier:
				bad = []func(){
					func() { *v = []scenario.Tier{{Strategy: "fixed", Attempts: 11, Timeout: time.Second}} },
					func() {
						*v = []scenario.Tier{{Strategy: "fixed", Attempts: 3, Timeout: time.Second, Limiter: "bulkhead"}}
					},
				}
			default:
				t.Fatalf("a field of type %T", ptr)
			}
			if len(bad) == 0 {
				if err := param.Check(ptr, "-flag"); err != nil {
					t.Errorf("%s: %v", param.Value(&p, 0), err)
				}
			}
			for _, set := range bad {
				set()
				shown := param.Value(&p, 0)
				var pe *scenario.ParamError
				if err := param.Check(ptr, "-flag"); !errors.As(err, &pe) {
					t.Errorf("Check(%s) = %v, want a *ParamError", shown, err)
					continue
				}
				// A list's error says first which of its items is bad.
				if pe.Name != "-flag" || pe.Value != shown || !strings.HasSuffix(pe.Allow, param.Allowed()) {
					t.Errorf("Check(%s) = %+v, want -flag, %q, %q", shown, *pe, shown, param.Allowed())
				}
				if err := param.Set(param.Field(&scenario.Params{Lanes: make([]scenario.Lane, 1)}, 0), "-flag", shown); err == nil {
					t.Errorf("Set(%q) accepts what Check refuses", shown)
				}
			}
		})
	}
}

// TestValidateChangedNames: a name that is not one of the parameters' is
// an error naming it, and the values not named are not checked.
func TestValidateChangedNames(t *testing.T) {
	p := scenario.Defaults()
	p.Clients = 0 // bad, but not named
	for _, tc := range []struct{ name, want string }{
		{"nosuch", "nosuch"},
		{"lanes", "lanes"},
		{"factor", "factor"},     // a lane's, without its letter
		{"c.factor", "c.factor"}, // a lane p does not have
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := scenario.Errors(p.ValidateChanged(tc.name))
			if len(errs) != 1 || errs[0].Name != tc.want || !strings.Contains(errs[0].Allow, "2 lanes") {
				t.Errorf("ValidateChanged(%q) = %v, want one error naming %s", tc.name, errs, tc.want)
			}
		})
	}
	if err := p.ValidateChanged("think", "b.factor"); err != nil {
		t.Errorf("ValidateChanged of good values: %v", err)
	}
}

// TestValidateLane: a program with one lane has its values checked under
// its flags' names, the rows of its scopes only.
func TestValidateLane(t *testing.T) {
	p := scenario.Defaults()
	p.Lanes[1].Jitter = 2                                               // lane b, checked
	p.Lanes[0].Jitter = 3                                               // lane a, not asked
	p.ServerK = 0                                                       // ScopeServer
	p.Lanes[1].MinDelay, p.Lanes[1].MaxDelay = time.Minute, time.Second // out of order
	p.Tick = 0                                                          // ScopeRun, not asked
	p.Lanes[1].MaxAttempts = -1                                         // ScopeLimiter
	err := p.ValidateLane(1, scenario.ScopeStrategy, scenario.ScopeLimiter, scenario.ScopeServer)
	var names []string
	for _, pe := range scenario.Errors(err) {
		names = append(names, pe.Name)
	}
	if want := []string{"jitter", "max_attempts", "max_delay", "server_k"}; !slices.Equal(names, want) {
		t.Fatalf("errors for %v, want %v:\n%v", names, want, err)
	}
	if !strings.Contains(err.Error(), `max_delay: "1s" is not allowed (allowed: at least min_delay (1m0s))`) {
		t.Errorf("the delays' order is not named as a flag would be: %v", err)
	}
	if err := p.ValidateLane(1, scenario.ScopeClients); err != nil {
		t.Errorf("ScopeClients: %v", err)
	}
	if err := p.ValidateLane(1, scenario.ScopeServer); len(scenario.Errors(err)) != 1 {
		t.Errorf("ScopeServer alone: %v, want server_k's error only", err)
	}
}

// TestParseGRPCTokenRatioTruncated: a token ratio of more than three
// decimals is a valid value, read back as given, and the throttle it
// builds adds its first three decimals per success, as gRPC does.
func TestParseGRPCTokenRatioTruncated(t *testing.T) {
	p := tblParse(t, "a.grpc_throttle=on&a.grpc_token_ratio=0.5466")
	if got := p.Lanes[0].GRPCTokenRatio; got != 0.5466 {
		t.Fatalf("grpc_token_ratio reads back %v, want 0.5466", got)
	}
	pol, err := strategies.New(p.Lanes[0].Params)
	if err != nil {
		t.Fatalf("strategies.New: %v", err)
	}
	var g *strategies.GRPCThrottle
	for _, l := range pol.Limiters() {
		if x, ok := l.(*strategies.GRPCThrottle); ok {
			g = x
		}
	}
	if g == nil {
		t.Fatalf("grpc_throttle=on built no GRPCThrottle: %v", pol.Limiters())
	}
	var s strategies.State
	for range int(p.Lanes[0].GRPCMaxTokens) {
		g.Record(&s, 0, strategies.Error)
	}
	g.Record(&s, 0, strategies.Success)
	if got := g.Tokens(); got != 0.546 {
		t.Errorf("an empty bucket holds %v after a success, want 0.546", got)
	}
}
