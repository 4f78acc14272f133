package scenario_test

import (
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// TestServerUses: a model reads its own parameters and every parameter that
// is no model's own; an unknown model reads nothing.
func TestServerUses(t *testing.T) {
	for _, tc := range []struct {
		model, param string
		want         bool
	}{
		{"curve", "server_limit", true},
		{"curve", "server_factor", true},
		{"curve", "server_model", true},
		{"curve", "backlog", true},
		{"curve", "cancel_on_timeout", true},
		{"curve", "clients", true},
		{"nope", "server_limit", false},
		{"queue", "workers", true},
		{"queue", "server_limit", false},
		{"curve", "workers", false},
		{"linear", "service_time", false},
	} {
		if got := scenario.ServerUses(tc.model, tc.param); got != tc.want {
			t.Errorf("ServerUses(%s, %s) = %v, want %v", tc.model, tc.param, got, tc.want)
		}
	}
}

// TestLatencyOf: the default model is the worker queue, which has no
// latency function, 001's curve answers by its Curve, and every model's
// latency never decreases with the concurrency, starts flat up to Flat,
// and saturates at Delay(MaxInt) instead of overflowing.
func TestLatencyOf(t *testing.T) {
	p := scenario.Defaults()
	if lat := scenario.LatencyOf(&p); lat != nil || p.ServerModel != scenario.QueueModel {
		t.Errorf("default model %q answers by %T, want the worker queue (none)", p.ServerModel, lat)
	}
	p.ServerModel = "curve"
	if _, ok := scenario.LatencyOf(&p).(scenario.Curve); !ok {
		t.Errorf("model curve answers by %T, want 001's curve", scenario.LatencyOf(&p))
	}
	for _, m := range scenario.ServerModels {
		if m.Latency == nil {
			continue // a model of another shape: no latency function
		}
		p := scenario.Defaults()
		p.ServerModel = m.Name
		lat := scenario.LatencyOf(&p)
		top := lat.Delay(int(^uint(0) >> 1))
		prev := lat.Delay(0)
		for c := 0; c <= 100_000; c++ {
			d := lat.Delay(c)
			if d < prev || d > top || d < 0 {
				t.Fatalf("%s: Delay(%d) = %v after %v (top %v)", m.Name, c, d, prev, top)
			}
			if c <= lat.Flat() && d != lat.Delay(0) {
				t.Fatalf("%s: Delay(%d) = %v within Flat %d, want %v", m.Name, c, d, lat.Flat(), lat.Delay(0))
			}
			prev = d
		}
	}
}
