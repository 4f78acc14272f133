package bands

import (
	"fmt"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

func TestCaption(t *testing.T) {
	p := scenario.Defaults()
	p.Seed = 7
	r := &Result{Params: p, Seeds: 5, Lanes: []Lane{{Name: "a", Strategy: "fixed", Collapsed: 2}, {Name: "b", Strategy: "exponential"}}}
	for _, tc := range []struct {
		name     string
		lane     int
		averaged bool
		want     string
	}{
		{"some collapsed", 0, false, "Lane a (fixed): throughput, median line and 5–95 % band across 5 seeds (7 to 11); 2 of 5 seeds collapsed."},
		{"averaged, none collapsed", 1, true, "Lane b (exponential): throughput, median line and 5–95 % band across 5 seeds (7 to 11), 1 s averages; 0 of 5 seeds collapsed."},
		{"no such lane", 2, false, ""},
		{"a negative lane", -1, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.Caption(tc.lane, "throughput", tc.averaged); got != tc.want {
				t.Errorf("Caption(%d, %v) =\n%q\nwant\n%q", tc.lane, tc.averaged, got, tc.want)
			}
		})
	}
}

func TestCollapsed(t *testing.T) {
	r := &Result{Seeds: 3, Lanes: []Lane{{Name: "a", Collapsed: 3}}}
	for _, tc := range []struct {
		lane int
		want string
	}{{0, "3 of 3 seeds collapsed"}, {1, ""}, {-1, ""}} {
		t.Run(tc.want, func(t *testing.T) {
			if got := r.Collapsed(tc.lane); got != tc.want {
				t.Errorf("Collapsed(%d) = %q, want %q", tc.lane, got, tc.want)
			}
		})
	}
}

// TestRequests: the request p99 and the share that succeeded within the
// patience across the seeds, by hand: the median is the nearest rank's,
// the ends the least and the greatest, whatever the seeds' order.
func TestRequests(t *testing.T) {
	p := scenario.Defaults()
	p.Patience = 30 * time.Second
	seeds := func(p99s, within []float64) []Outcome {
		out := make([]Outcome, len(p99s))
		for k := range p99s {
			out[k].Summary.RequestP99, out[k].Summary.SucceededWithin = p99s[k], within[k]
		}
		return out
	}
	r := &Result{Params: p, Seeds: 4, Lanes: []Lane{
		{Name: "a", Outcomes: seeds([]float64{2, 0.5, 8, 1}, []float64{0.99, 0.995, 0.9, 1})},
		{Name: "b", Outcomes: seeds([]float64{0.25}, []float64{0.5})},
		{Name: "c"},
	}}
	for _, tc := range []struct {
		lane int
		want string
	}{
		// Sorted p99s 0.5, 1, 2, 8: the median by nearest rank is the
		// 2nd of 4; shares 90, 99, 99.5, 100 %: the 2nd, 99 %.
		{0, "request p99 1 s (median; 0.5 s to 8 s); 99.00 % succeeded within the patience of 30s (median; 90.00 % to 100.00 %)"},
		{1, "request p99 0.25 s (median; 0.25 s to 0.25 s); 50.00 % succeeded within the patience of 30s (median; 50.00 % to 50.00 %)"},
		{2, ""},
		{3, ""},
		{-1, ""},
	} {
		t.Run(fmt.Sprint(tc.lane), func(t *testing.T) {
			if got := r.Requests(tc.lane); got != tc.want {
				t.Errorf("Requests(%d) =\n%q\nwant\n%q", tc.lane, got, tc.want)
			}
		})
	}
}
