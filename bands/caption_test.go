package bands

import (
	"testing"

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
