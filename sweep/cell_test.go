package sweep

import (
	"context"
	"net/url"
	"reflect"
	"testing"
)

// TestRunCellIsRunsCell: RunCell gives each cell exactly as Run emits it,
// and refuses an index outside the sweep.
func TestRunCellIsRunsCell(t *testing.T) {
	q, _ := url.ParseQuery("x=outage_for&x_from=1s&x_to=20s&x_steps=2&y=clients&y_from=100&y_to=400&y_steps=2&duration=40s")
	s, err := ParseSpec(q, CLILimits)
	if err != nil {
		t.Fatal(err)
	}
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
