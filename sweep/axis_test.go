package sweep

import (
	"slices"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// TestAxisValues: linear and log spacing, each type's rounding, and the
// syntax scenario.Params.Encode writes.
func TestAxisValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		axis Axis
		want []string
	}{
		{"linear ints", Axis{"clients", "100", "1000", 4, ScaleLinear}, []string{"100", "400", "700", "1000"}},
		{"ints round to the nearest", Axis{"clients", "1", "10", 4, ScaleLinear}, []string{"1", "4", "7", "10"}},
		{"log ints", Axis{"clients", "100", "10000", 3, ScaleLog}, []string{"100", "1000", "10000"}},
		{"log ints rounded", Axis{"clients", "1", "100", 4, ScaleLog}, []string{"1", "5", "22", "100"}},
		{"downwards", Axis{"clients", "1000", "100", 4, ScaleLinear}, []string{"1000", "700", "400", "100"}},
		// 1 s to 1 min in thirds: 20.667 s to the millisecond.
		{"durations to the millisecond", Axis{"outage_for", "1s", "1m", 4, ScaleLinear}, []string{"1s", "20.667s", "40.333s", "1m0s"}},
		// 1 ms ×10^(1/3): 2.154 ms to 3 significant digits, 464.159 ms to the millisecond.
		{"log durations", Axis{"b.min_delay", "1ms", "1s", 7, ScaleLog}, []string{"1ms", "3.16ms", "10ms", "31.6ms", "100ms", "316ms", "1s"}},
		{"durations under 1ms", Axis{"server_slope", "100µs", "200µs", 4, ScaleLinear}, []string{"100µs", "133µs", "167µs", "200µs"}},
		{"zero duration", Axis{"outage_for", "0s", "3s", 4, ScaleLinear}, []string{"0s", "1s", "2s", "3s"}},
		{"floats to 4 digits", Axis{"b.factor", "1", "2", 4, ScaleLinear}, []string{"1", "1.333", "1.667", "2"}},
		{"log floats", Axis{"b.jitter", "0.001", "1", 4, ScaleLog}, []string{"0.001", "0.01", "0.1", "1"}},
		{"ends in any syntax", Axis{"outage_for", "1000ms", "0.05m", 2, ScaleLinear}, []string{"1s", "3s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.axis.Values()
			if !slices.Equal(got, tc.want) {
				t.Errorf("%+v: values %q, want %q", tc.axis, got, tc.want)
			}
			// Each value is one scenario.Parse reads back as itself.
			for _, v := range got {
				p, err := scenario.Parse(map[string][]string{tc.axis.Name: {v}})
				if err != nil {
					t.Fatalf("%s=%s: %v", tc.axis.Name, v, err)
				}
				row, lane, _ := scenario.Lookup(tc.axis.Name)
				if back := row.Value(&p, max(lane, 0)); back != v {
					t.Errorf("%s=%s encodes back as %s", tc.axis.Name, v, back)
				}
			}
		})
	}
}

// TestAxisErrors: every refused axis names the sweep parameter at fault and
// says what it allows.
func TestAxisErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		axis      Axis
		param     string
		allowPart string
	}{
		{"unknown parameter", Axis{"nosuch", "1", "2", 2, ScaleLinear}, "x", "numeric parameter"},
		{"an enum", Axis{"outage", "1", "2", 2, ScaleLinear}, "x", "numeric parameter"},
		{"the seed", Axis{"seed", "1", "2", 2, ScaleLinear}, "x", "numeric parameter"},
		{"lanes", Axis{"lanes", "1", "2", 2, ScaleLinear}, "x", "numeric parameter"},
		{"a lane parameter without its letter", Axis{"factor", "1", "2", 2, ScaleLinear}, "x", "lane letter"},
		{"from out of range", Axis{"clients", "0", "10", 2, ScaleLinear}, "x_from", "from 1 to 1000000, the range of clients"},
		{"to out of range", Axis{"b.factor", "1", "11", 2, ScaleLinear}, "x_to", "from 1 to 10, the range of b.factor"},
		{"bad syntax", Axis{"outage_for", "1", "2s", 2, ScaleLinear}, "x_from", "a duration"},
		{"log from 0", Axis{"outage_for", "0s", "2s", 2, ScaleLog}, "x_from", "above 0 on a log scale"},
		{"log to 0", Axis{"b.jitter", "0.5", "0", 2, ScaleLog}, "x_to", "above 0 on a log scale"},
		{"bad scale", Axis{"clients", "1", "2", 2, "cubic"}, "x_scale", "one of linear, log"},
		{"repeats", Axis{"clients", "1", "3", 4, ScaleLinear}, "x_steps", "values 2 and 3 of clients both round to 2"},
		{"one step", Axis{"clients", "1", "3", 1, ScaleLinear}, "x_steps", "from 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.axis.resolve('x')
			if err == nil {
				_, err = r.values('x')
			}
			pes := scenario.Errors(err)
			if len(pes) != 1 {
				t.Fatalf("%+v: error %v, want one parameter error", tc.axis, err)
			}
			if pes[0].Name != tc.param || !strings.Contains(pes[0].Allow, tc.allowPart) {
				t.Errorf("%+v: %v, want an error of %s saying %q", tc.axis, err, tc.param, tc.allowPart)
			}
			if tc.axis.Values() != nil {
				t.Errorf("Values of a refused axis: %q", tc.axis.Values())
			}
		})
	}
}

// TestRound: the resolution of each type, at the boundaries between the
// millisecond and 3 significant digits.
func TestRound(t *testing.T) {
	for _, tc := range []struct {
		typ     scenario.Type
		in, out float64
	}{
		{scenario.TypeInt, 2.5, 3},
		{scenario.TypeInt, 2.49, 2},
		{scenario.TypeDuration, 123_456_789, 123_000_000}, // 123.456789 ms → 123 ms
		{scenario.TypeDuration, 1_234_567_890, 1_235_000_000},
		{scenario.TypeDuration, 12_345_678, 12_300_000}, // 12.3 ms
		{scenario.TypeDuration, 99_949_000, 99_900_000},
		{scenario.TypeDuration, 1_234, 1_230},
		{scenario.TypeDuration, 3, 3},
		{scenario.TypeFloat, 1.23456, 1.235},
		{scenario.TypeFloat, 123456, 123500},
		{scenario.TypeFloat, 0.000123456, 0.0001235},
	} {
		if got := round(tc.typ, tc.in); got != tc.out {
			t.Errorf("round(%v, %v) = %v, want %v", tc.typ, tc.in, got, tc.out)
		}
	}
}
