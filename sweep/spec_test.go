package sweep

import (
	"errors"
	"math"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

func mustQuery(t testing.TB, raw string) url.Values {
	t.Helper()
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

func mustSpec(t testing.TB, raw string) Spec {
	t.Helper()
	s, err := ParseSpec(mustQuery(t, raw), CLILimits)
	if err != nil {
		t.Fatalf("ParseSpec(%s): %v", raw, err)
	}
	return s
}

// TestParseSpecRoundTrip: Encode writes a spec that ParseSpec reads back
// as the same spec, in canonical syntax, whatever syntax it was given in.
func TestParseSpecRoundTrip(t *testing.T) {
	for _, tc := range []struct{ in, canonical string }{
		{"x=clients&x_from=100&x_to=1000",
			"seed=1&seeds=1&x=clients&x_from=100&x_scale=linear&x_steps=16&x_to=1000"},
		{"x=outage_for&x_from=1000ms&x_to=1m&x_steps=32&y=clients&y_from=100&y_to=3000&y_steps=32&y_scale=log&server_model=curve&b.strategy=think_scaled&seeds=3&seed=7",
			"b.strategy=think_scaled&seed=7&seeds=3&server_model=curve&x=outage_for&x_from=1s&x_scale=linear&x_steps=32&x_to=1m0s&y=clients&y_from=100&y_scale=log&y_steps=32&y_to=3000"},
		// The axis's own parameter in the base is replaced by the axis.
		{"x=b.factor&x_from=1.50&x_to=3&clients=500&b.factor=2&duration=300s",
			"clients=500&duration=5m0s&seed=1&seeds=1&x=b.factor&x_from=1.5&x_scale=linear&x_steps=16&x_to=3"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			s := mustSpec(t, tc.in)
			if got := s.Encode().Encode(); got != tc.canonical {
				t.Errorf("Encode:\n got %s\nwant %s", got, tc.canonical)
			}
			back, err := ParseSpec(s.Encode(), CLILimits)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, s) {
				t.Errorf("ParseSpec(Encode()) = %+v, want %+v", back, s)
			}
		})
	}
}

// TestParseSpecErrors: each bad sweep is refused with an error that names
// the parameter at fault, its value and what it allows.
func TestParseSpecErrors(t *testing.T) {
	small := Limits{MaxSteps: 64, MaxSeeds: 10, MaxCells: 4096}
	maxClients := Limits{MaxSteps: 64, MaxSeeds: 10, MaxCells: 4096, Check: func(p scenario.Params) error {
		if p.Clients > 20_000 {
			return &scenario.ParamError{Name: "clients", Value: strconv.Itoa(p.Clients), Allow: "at most 20000 here"}
		}
		return nil
	}}
	const xy = "x=outage_for&x_from=1s&x_to=1m&"
	for _, tc := range []struct {
		name, q    string
		lim        Limits
		param, why string
	}{
		{"no x", "x_from=1&x_to=2", CLILimits, "x", "every sweep needs"},
		{"no x_to", "x=clients&x_from=1", CLILimits, "x_to", "every sweep needs"},
		{"y without its ends", xy + "y=clients", CLILimits, "y_from", "y needs"},
		{"y_from without y", xy + "y_from=3", CLILimits, "y_from", "nothing without y"},
		{"x twice", xy + "y=outage_for&y_from=1s&y_to=2s", CLILimits, "y", "other than x's"},
		{"steps over the limit", xy + "x_steps=65", small, "x_steps", "from 2 to 64"},
		{"steps not a number", xy + "x_steps=many", small, "x_steps", "from 2 to 64"},
		{"seeds over the limit", xy + "seeds=11", small, "seeds", "from 1 to 10"},
		{"seeds 0", xy + "seeds=0", small, "seeds", "from 1 to 10"},
		{"cells over the limit", xy + "x_steps=64&y=clients&y_from=1&y_to=1000&y_steps=64&seeds=2", small, "cells", "at most 4096 cells"},
		{"seeds past the last seed", xy + "seed=18446744073709551615&seeds=2", small, "seeds", "at most 1 from seed"},
		{"a bad base value", xy + "clients=0", CLILimits, "clients", "from 1 to 1000000"},
		{"an unknown base parameter", xy + "speed=4", CLILimits, "speed", "no such parameter"},
		{"a strategy's parameter it does not read", "x=a.factor&x_from=1&x_to=2", CLILimits, "x", "lane a's strategy, fixed, does not read factor"},
		{"a server parameter the model does not read", "x=workers&x_from=1&x_to=60&server_model=curve", CLILimits, "x", "leave workers unread"},
		{"a lane past the lanes", "x=b.factor&x_from=1&x_to=2&lanes=1", CLILimits, "x", "lanes a to a"},
		{"a value the scenario refuses", "x=b.min_delay&x_from=1ms&x_to=1h&x_scale=log", CLILimits, "x_to", "b.max_delay"},
		{"a corner the scenario refuses", "x=b.min_delay&x_from=1ms&x_to=10s&y=b.max_delay&y_from=1m&y_to=1s", CLILimits, "x_to", "b.max_delay"},
		{"a server's own bound", "x=clients&x_from=1000&x_to=30000", maxClients, "x_to", "at most 20000 here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSpec(mustQuery(t, tc.q), tc.lim)
			pes := scenario.Errors(err)
			i := slices.IndexFunc(pes, func(e *scenario.ParamError) bool { return e.Name == tc.param })
			if i < 0 || !strings.Contains(pes[i].Error(), tc.why) {
				t.Fatalf("ParseSpec(%s) = %v, want an error of %s saying %q", tc.q, err, tc.param, tc.why)
			}
			if len(pes) == 0 || errors.Join(errorsOf(pes)...).Error() != err.Error() {
				t.Errorf("the error holds more than parameter errors: %v", err)
			}
		})
	}
}

func errorsOf(pes []*scenario.ParamError) []error {
	out := make([]error, len(pes))
	for i, e := range pes {
		out[i] = e
	}
	return out
}

// TestSpecSeed: ParseSpec reads the base's seed once into Spec.Seed, the
// largest ones included, and a cell's seed is that plus its offset.
func TestSpecSeed(t *testing.T) {
	for _, tc := range []struct {
		seed string
		want uint64
	}{
		{"", 1}, // the scenario's default
		{"0", 0},
		{"10", 10},
		{"18446744073709551613", math.MaxUint64 - 2},
	} {
		t.Run(tc.seed, func(t *testing.T) {
			q := "x=clients&x_from=100&x_to=200&x_steps=2&seeds=3"
			if tc.seed != "" {
				q += "&seed=" + tc.seed
			}
			s := mustSpec(t, q)
			if s.Seed != tc.want {
				t.Fatalf("Seed = %d, want %d", s.Seed, tc.want)
			}
			for i := range s.Cells() {
				if got, want := s.Cell(i).Seed, tc.want+uint64(i%3); got != want {
					t.Errorf("Cell(%d).Seed = %d, want %d", i, got, want)
				}
			}
		})
	}
}

// TestCells: index i and (X, Y, seed) map one to one, seeds fastest, then
// x, then y; each cell's query is the base with the axes' values and its
// seed.
func TestCells(t *testing.T) {
	s := mustSpec(t, "x=outage_for&x_from=1s&x_to=4s&x_steps=4&y=clients&y_from=100&y_to=300&y_steps=3&seeds=2&seed=10&duration=30s")
	if s.Cells() != 4*3*2 {
		t.Fatalf("Cells() = %d, want 24", s.Cells())
	}
	xs, ys := s.X.Values(), s.Y.Values()
	seen := map[[3]int]bool{}
	for i := range s.Cells() {
		k := s.Cell(i)
		if k.Index != i {
			t.Errorf("Cell(%d).Index = %d", i, k.Index)
		}
		want := (k.Y*4+k.X)*2 + int(k.Seed-10)
		if want != i || seen[[3]int{k.X, k.Y, int(k.Seed)}] {
			t.Errorf("Cell(%d) = x %d, y %d, seed %d", i, k.X, k.Y, k.Seed)
		}
		seen[[3]int{k.X, k.Y, int(k.Seed)}] = true
		if k.XValue != xs[k.X] || k.YValue != ys[k.Y] {
			t.Errorf("Cell(%d) values %s, %s, want %s, %s", i, k.XValue, k.YValue, xs[k.X], ys[k.Y])
		}
		q := k.Query()
		wantQ := url.Values{"duration": {"30s"}, "outage_for": {xs[k.X]}, "clients": {ys[k.Y]}, "seed": {strconv.FormatUint(k.Seed, 10)}}
		if q.Encode() != wantQ.Encode() {
			t.Errorf("Cell(%d).Query() = %s, want %s", i, q.Encode(), wantQ.Encode())
		}
		q.Set("duration", "1s") // a caller's change must not reach the spec
	}
	if got := s.Cell(0).Query().Get("duration"); got != "30s" {
		t.Errorf("a cell's query shares the spec's base: duration %s", got)
	}
	one := mustSpec(t, "x=clients&x_from=100&x_to=200&x_steps=2&y=&y_from=&y_steps=")
	if one.Cells() != 2 || one.Cell(1).YValue != "" || one.Cell(1).Query().Has("") {
		t.Errorf("a sweep of one row: %d cells, cell 1 %+v", one.Cells(), one.Cell(1))
	}
}

// TestAxisNames: the choices of an axis are the numeric parameters the
// scenario reads, and ParseSpec accepts each of them.
func TestAxisNames(t *testing.T) {
	p, err := scenario.Parse(url.Values{"server_model": {"curve"}, "b.strategy": {"think_scaled"}})
	if err != nil {
		t.Fatal(err)
	}
	names := AxisNames(&p)
	for _, want := range []string{"clients", "outage_for", "server_limit", "a.min_delay", "b.factor", "b.jitter"} {
		if !slices.Contains(names, want) {
			t.Errorf("AxisNames lacks %s: %q", want, names)
		}
	}
	for _, not := range []string{"workers", "rate", "a.factor", "seed", "lanes", "outage", "c.factor"} {
		if slices.Contains(names, not) {
			t.Errorf("AxisNames has %s, which the scenario does not read or is not numeric", not)
		}
	}
	for _, name := range names {
		q := p.Encode()
		q.Set("x", name)
		row, lane, _ := scenario.Lookup(name)
		q.Set("x_from", row.Value(&p, max(lane, 0)))
		q.Set("x_to", row.Value(&p, max(lane, 0)))
		q.Set("x_steps", "2")
		_, err := ParseSpec(q, CLILimits)
		// From = To repeats: the error must be the steps', not the name's.
		if pes := scenario.Errors(err); len(pes) != 1 || pes[0].Name != "x_steps" {
			t.Errorf("x=%s: %v, want only x_steps refused (its two values equal)", name, err)
		}
	}
}
