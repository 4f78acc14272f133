package sweep

import (
	"context"
	"net/url"
	"reflect"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// TestRunCellIsRunsCell: RunCell gives each cell exactly as Run emits it,
// and refuses an index outside the sweep.
func TestRunCellIsRunsCell(t *testing.T) {
	s := mustSpec(t, "x=outage_for&x_from=1s&x_to=20s&x_steps=2&y=clients&y_from=100&y_to=400&y_steps=2&duration=40s")
	want := make([]Cell, s.Cells())
	if err := Run(context.Background(), s, Options{Parallel: 2}, func(c Cell) { want[c.Index] = c }); err != nil {
		t.Fatal(err)
	}
	for i := range s.Cells() {
		got, err := RunCell(context.Background(), s, i, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("cell %d: RunCell gives %+v, Run %+v", i, got, want[i])
		}
	}
	for _, i := range []int{-1, s.Cells()} {
		if _, err := RunCell(context.Background(), s, i, nil); err == nil {
			t.Errorf("RunCell(%d) of %d cells: no error", i, s.Cells())
		}
	}
}

// TestCellParamsAreTheQuerysRun: each cell's scenario, built from the typed
// base, is the one its query describes, for axes of each type, lane
// parameters, both delays of a lane and an outage beside faults.
func TestCellParamsAreTheQuerysRun(t *testing.T) {
	for _, raw := range []string{
		small,
		"x=b.factor&x_from=1.1&x_to=3.7&x_steps=7&y=b.jitter&y_from=0.01&y_to=1&y_steps=5&y_scale=log&b.strategy=exponential&seeds=2&seed=99",
		"x=b.min_delay&x_from=1ms&x_to=10s&x_steps=5&x_scale=log&y=b.max_delay&y_from=20s&y_to=1m&y_steps=3",
		"x=outage_for&x_from=1s&x_to=9s&x_steps=3&outage_at=5s&faults=load_spike:30s:5s:3&duration=60s",
		"x=clients&x_from=10&x_to=1000&x_steps=9&x_scale=log&lanes=3&c.strategy=none",
	} {
		t.Run(raw, func(t *testing.T) {
			s := mustSpec(t, raw)
			for i := range s.Cells() {
				k := s.Cell(i)
				got, err := k.Params()
				if err != nil {
					t.Fatalf("cell %d: %v", i, err)
				}
				want, err := scenario.Parse(k.Query())
				if err != nil {
					t.Fatalf("cell %d: %v", i, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("cell %d: Params() = %+v,\nscenario.Parse(Query()) = %+v", i, got, want)
				}
			}
		})
	}
}

// TestCellParamsReadNoText: a cell's scenario is built from the base that
// ParseSpec parsed once, not from text: with the spec's Base text spoilt
// afterwards, every cell's scenario is still the one it was.
func TestCellParamsReadNoText(t *testing.T) {
	s := mustSpec(t, small)
	want := make([]scenario.Params, s.Cells())
	for i := range want {
		var err error
		if want[i], err = s.Cell(i).Params(); err != nil {
			t.Fatal(err)
		}
	}
	s.Base = url.Values{"clients": {"lots"}, "duration": {"1.5"}}
	for i := range s.Cells() {
		got, err := s.Cell(i).Params()
		if err != nil {
			t.Fatalf("cell %d went through text: %v", i, err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("cell %d: %+v, want %+v", i, got, want[i])
		}
	}
}
