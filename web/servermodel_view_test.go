package web

import (
	"slices"
	"testing"

	"backofflab/scenario"
)

// TestViewServerModel: the server section shows the parameters of the
// chosen model and hides the other models' own, and the page's script gets
// each model's lists from the same rule.
func TestViewServerModel(t *testing.T) {
	for _, tc := range []struct {
		query         string
		shown, hidden []string
	}{
		{"", []string{"server_model", "workers", "service_time", "service_dist", "queue_order", "backlog"}, []string{"server_limit", "server_slope"}},
		{"server_model=curve", []string{"server_model", "server_limit", "server_factor", "server_k", "server_delay", "backlog"}, []string{"server_slope", "workers"}},
		{"server_model=queue", []string{"server_model", "workers", "service_time", "service_dist", "queue_order", "backlog"}, []string{"server_limit", "server_slope"}},
		{"server_model=linear", []string{"server_model", "server_slope", "server_delay", "max_server_delay", "backlog"}, []string{"server_limit", "server_factor", "server_k"}},
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
	ps := newPageState("", scenario.Defaults(), nil)
	for _, m := range ps.Models {
		for _, name := range m.Show {
			if !scenario.ServerUses(m.Name, name) || slices.Contains(m.Hide, name) {
				t.Errorf("model %s shows %s", m.Name, name)
			}
		}
		for _, name := range m.Hide {
			if scenario.ServerUses(m.Name, name) {
				t.Errorf("model %s hides %s, which it reads", m.Name, name)
			}
		}
	}
}
