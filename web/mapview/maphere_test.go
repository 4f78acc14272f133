package mapview

import (
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/sweep"
)

// TestHereOf: the map outlines the cell nearest its scenario's own values,
// on a log axis by ratio, and says which; a value off an axis marks none,
// and the words say so.
func TestHereOf(t *testing.T) {
	t.Parallel()
	p := scenario.Defaults() // lane b: exponential, min_delay 100ms, factor 2
	for _, tc := range []struct {
		name   string
		x, y   sweep.Axis
		wantX  string
		wantY  string
		saying string
	}{
		{"on both axes", sweep.Axis{Name: "b.min_delay", From: "50ms", To: "800ms", Steps: 5, Scale: sweep.ScaleLog},
			sweep.Axis{Name: "b.factor", From: "1.5", To: "3", Steps: 4, Scale: sweep.ScaleLinear},
			"100ms", "2", "Outlined on each map: the cell of this map's scenario, b.min_delay 100 ms, b.factor 2."},
		{"between two values, the nearer", sweep.Axis{Name: "b.min_delay", From: "60ms", To: "120ms", Steps: 3, Scale: sweep.ScaleLinear},
			sweep.Axis{}, "90ms", "", "b.min_delay 100 ms."},
		{"off the x axis", sweep.Axis{Name: "b.min_delay", From: "1s", To: "5s", Steps: 5, Scale: sweep.ScaleLinear},
			sweep.Axis{Name: "b.factor", From: "1.5", To: "3", Steps: 4, Scale: sweep.ScaleLinear},
			"", "", "b.min_delay 100 ms is off the map (1 s to 5 s): no cell is outlined."},
		{"a shared parameter", sweep.Axis{Name: "clients", From: "500", To: "2000", Steps: 4, Scale: sweep.ScaleLinear},
			sweep.Axis{}, "1000", "", "clients 1000."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := hereOf(sweep.Spec{X: tc.x, Y: tc.y, Seeds: 1}, &p)
			if h.X != tc.wantX || h.Y != tc.wantY || !strings.HasSuffix(h.Words, tc.saying) {
				t.Errorf("hereOf: x %q, y %q, %q; want x %q, y %q, ending %q", h.X, h.Y, h.Words, tc.wantX, tc.wantY, tc.saying)
			}
		})
	}
}
