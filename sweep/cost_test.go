package sweep

import (
	"context"
	"testing"
	"time"
)

// TestEstimateAddsUp: the cells' estimates add up to the total, and a
// cell at a corner costs what that corner measured.
func TestEstimateAddsUp(t *testing.T) {
	for _, tc := range []struct {
		name  string
		query string
	}{
		{"x only", "x=clients&x_from=100&x_to=400&x_steps=4"},
		{"x and y", "x=clients&x_from=100&x_to=400&x_steps=4&y=duration&y_from=10s&y_to=40s&y_steps=3&seeds=2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSpec(t, tc.query)
			e := Estimate{spec: s, corners: [2][2]time.Duration{{1 * time.Second, 3 * time.Second}, {5 * time.Second, 11 * time.Second}}}
			if s.Y.Name == "" {
				e.corners[1] = e.corners[0]
			}
			var sum time.Duration
			for i := range s.Cells() {
				sum += e.Cell(i)
			}
			if d := sum - e.Total(); d < -time.Millisecond || d > time.Millisecond {
				t.Errorf("the cells add up to %v, Total says %v", sum, e.Total())
			}
			last := s.Cells() - 1
			if got, want := e.Cell(last), e.corners[1][1]; got != want {
				t.Errorf("the last cell costs %v, want its corner's %v", got, want)
			}
		})
	}
}

// TestEstimateCostMeasures: the corners of a short sweep run to their
// end; with a limit of nothing, a long run is extrapolated instead.
func TestEstimateCostMeasures(t *testing.T) {
	const short = "x=clients&x_from=100&x_to=200&x_steps=2"
	s := mustSpec(t, short+"&duration=30s")
	e, err := EstimateCost(context.Background(), s, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Whole || e.Total() <= 0 {
		t.Errorf("a short sweep: Whole %v, Total %v; want its corners run whole, at a cost", e.Whole, e.Total())
	}
	s = mustSpec(t, short+"&duration=1h")
	e, err = EstimateCost(context.Background(), s, time.Nanosecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Whole || e.Total() <= 0 {
		t.Errorf("an hour cut short: Whole %v, Total %v; want it extrapolated", e.Whole, e.Total())
	}
}
