package contention

import (
	"strings"
	"testing"

	"github.com/backofflab/backofflab/strategies"
)

// TestConclusion: the study's one line names, at its largest N, the
// strategy with the fewest calls, the one that finished first, and how
// many times the fewest calls the most were.
func TestConclusion(t *testing.T) {
	t.Parallel()
	pt := func(s string, n int, calls, secs float64) Point {
		return Point{Strategy: s, Clients: n, Runs: 20, Calls: Stat{Mean: calls}, Time: Stat{Mean: secs}}
	}
	for _, tc := range []struct {
		name   string
		points []Point
		want   string
	}{
		{"none", nil, ""},
		{"one finishes first, another works least", []Point{
			pt(strategies.NameFixed, 10, 60, 0.01), pt(strategies.NameFullJitter, 10, 30, 0.2), // a smaller N does not count
			pt(strategies.NameFixed, 100, 5050, 0.05), pt(strategies.NameFullJitter, 100, 1800, 3.5), pt(strategies.NameEqualJitter, 100, 2100, 1.2),
		}, "At 100 clients (means over 20 runs), {full_jitter} did the least work, 1800 calls; {fixed} finished first, in 0.05 s, but made 2.8× as many calls."},
		{"the fastest is not the busiest", []Point{
			pt(strategies.NameFixed, 100, 5050, 0.5), pt(strategies.NameFullJitter, 100, 1800, 3.5), pt(strategies.NameExponential, 100, 2100, 0.2),
		}, "At 100 clients (means over 20 runs), {full_jitter} did the least work, 1800 calls; {exponential} finished first, in 0.2 s; {fixed} made 2.8× as many calls."},
		{"one does both", []Point{
			pt(strategies.NameDecorrelated, 50, 400, 0.8), pt(strategies.NameExponential, 50, 700, 12),
		}, "At 50 clients (means over 20 runs), {decorrelated} did the least work, 400 calls, and finished first, in 0.8 s; {exponential} made 1.8× as many calls."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Conclusion(tc.points)
			want := tc.want
			// The lines' words are strategies.Label's: the test reads them
			// rather than keeping a copy.
			for _, s := range []string{strategies.NameFixed, strategies.NameFullJitter, strategies.NameDecorrelated, strategies.NameExponential} {
				l, _ := LineOf(s)
				want = strings.ReplaceAll(want, "{"+s+"}", l.Label())
			}
			if got != want {
				t.Errorf("Conclusion:\n got %q\nwant %q", got, want)
			}
		})
	}
}

// TestPointWorkSumsToSpecWork: a study's points' Work adds up to its
// Spec.Work, the unit its stream's time left is reckoned in.
func TestPointWorkSumsToSpecWork(t *testing.T) {
	t.Parallel()
	spec := DefaultSpec()
	var sum float64
	for _, n := range spec.Ns {
		for range spec.Strategies {
			sum += Point{Clients: n, Runs: spec.Seeds}.Work()
		}
	}
	if sum != spec.Work() {
		t.Errorf("the points' work %v, the spec's %v", sum, spec.Work())
	}
}
