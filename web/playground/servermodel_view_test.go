package playground

import (
	"slices"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// TestViewServerModel: the server section shows the parameters of the
// chosen model and hides the other models' own, and the rules the page's
// script follows (hiddenControls) hide what each switch's value does not
// read, by the same rule.
func TestViewServerModel(t *testing.T) {
	for _, tc := range []struct {
		query         string
		shown, hidden []string
	}{
		{"", []string{"server_model", "workers", "service_time", "service_dist", "queue_order", "backlog", "clients", "think", "queue_control"},
			[]string{"server_limit", "server_slope", "rate", "codel_target", "codel_interval"}},
		{"server_model=curve", []string{"server_model", "server_limit", "server_factor", "server_k", "server_delay", "backlog"}, []string{"server_slope", "workers"}},
		{"server_model=linear", []string{"server_model", "server_slope", "server_delay", "max_server_delay", "backlog"}, []string{"server_limit", "server_factor", "server_k", "workers"}},
		{"queue_control=codel", []string{"queue_control", "codel_target", "codel_interval"}, []string{"server_limit"}},
		{"server_model=curve&queue_control=codel", []string{"server_limit"}, []string{"queue_control", "codel_target", "codel_interval"}},
		{"server_model=queue&arrival=open", []string{"workers", "service_time", "service_dist", "queue_order", "backlog", "rate", "arrival"},
			[]string{"server_limit", "server_delay", "server_slope", "clients", "think"}},
	} {
		v := newView(pageFor(t, tc.query))
		ctl := map[string]paramCtl{}
		for _, g := range v.Groups {
			for _, c := range g.Controls {
				ctl[c.Name] = c
			}
		}
		for _, name := range tc.shown {
			if c, ok := ctl[name]; !ok || c.Hidden {
				t.Errorf("%q: %s hidden or missing", tc.query, name)
			}
		}
		for _, name := range tc.hidden {
			if c, ok := ctl[name]; !ok || !c.Hidden {
				t.Errorf("%q: %s shown or missing", tc.query, name)
			}
		}
	}
	for _, sw := range scenario.Switches() {
		row, _, _ := scenario.Lookup(sw)
		for _, choice := range row.Choices {
			name := sw
			if row.Lane {
				name = "a." + sw
			}
			p := pageFor(t, name+"="+choice).Scenario.Params
			hidden := hiddenControls(p)
			for _, param := range scenario.Table {
				if param.Lane != row.Lane || param.Name == sw {
					continue
				}
				ctl := param.Name
				if row.Lane {
					ctl = "a." + param.Name
				}
				if !scenario.Reads(sw, choice, param.Name) && !slices.Contains(hidden, ctl) {
					t.Errorf("%s=%s shows %s", sw, choice, ctl)
				}
			}
			for _, ctl := range hidden {
				base, lane := ctl, ""
				if len(ctl) > 2 && ctl[1] == '.' {
					base, lane = ctl[2:], ctl[:1]
				}
				if lane == "a" && row.Lane && scenario.Uses(p.Lanes[0].Strategy, base) && scenario.Reads(sw, choice, base) && scenario.ReadsLaneParam(&p, 0, base) {
					t.Errorf("%s=%s hides %s, which it reads", sw, choice, ctl)
				}
				if lane == "" && !row.Lane && scenario.ReadsParam(&p, base) {
					t.Errorf("%s=%s hides %s, which it reads", sw, choice, ctl)
				}
			}
		}
	}
}

// TestViewLimiterSwitches: a limiter's parameters show on a lane while its
// switch is on there, and only if the lane's strategy retries.
func TestViewLimiterSwitches(t *testing.T) {
	v := newView(pageFor(t, "a.strategy=fixed&a.grpc_throttle=on&b.strategy=fixed&c.strategy=none&c.grpc_throttle=on&lanes=3"))
	hidden := map[string]bool{}
	for _, lp := range v.Panels {
		for _, c := range lp.Controls {
			hidden[c.Name] = c.Hidden
		}
	}
	for name, want := range map[string]bool{
		"a.grpc_throttle": false, "a.grpc_max_tokens": false, "a.grpc_token_ratio": false, "a.sre_k": true, "a.breaker_probes": true,
		"b.grpc_throttle": false, "b.grpc_max_tokens": true,
		"c.grpc_throttle": true, "c.grpc_max_tokens": true, // strategy none retries not
	} {
		if got, ok := hidden[name]; !ok || got != want {
			t.Errorf("%s hidden %v (found %v), want %v", name, got, ok, want)
		}
	}
}
