package playground

import (
	"slices"
	"testing"

	"github.com/backofflab/backofflab/bands"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/kit"
)

// TestRulesPreset: the current preset is the one whose run the page shows
// at any speed, and none once a value differs from it.
func TestRulesPreset(t *testing.T) {
	presets := []presetKey{{"one", keyOf(t, "lanes=1")}, {"real", keyOf(t, "b.source=real")}}
	for _, tc := range []struct{ query, want string }{
		{"lanes=1", "one"},
		{"lanes=1&speed=50", "one"},
		{"lanes=1&speed=max", "one"},
		{"lanes=1&clients=500", ""},
		{"lanes=2", ""},
		{"b.source=real", "real"},
		{"b.source=real&speed=1", "real"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			in := pageFor(t, tc.query)
			if got := rulesOf(in.Scenario.Params, in.Scenario, in.Query, presets).Preset; got != tc.want {
				t.Errorf("preset %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRulesLinks: a run's links to the other views are the kit's, of the
// run's canonical query, and the page renders them as the rules say.
func TestRulesLinks(t *testing.T) {
	for _, query := range []string{"", "lanes=3&clients=500&b.strategy=grpc&speed=20"} {
		t.Run(query, func(t *testing.T) {
			in := pageFor(t, query)
			want := viewLinks{Map: "/map?" + in.Query, Bands: kit.BandsLink(in.Query, bands.DefaultSeeds), Advise: kit.AdviseLink(in.Query)}
			v := newView(in)
			if v.Data.Rules.Links != want || v.Links != want {
				t.Errorf("links %+v (page %+v), want %+v", v.Data.Rules.Links, v.Links, want)
			}
		})
	}
}

// TestRulesHidden: the rules hide what the view renders hidden, no more
// and no less, every lane's panel included.
func TestRulesHidden(t *testing.T) {
	for _, query := range []string{"", "server_model=curve", "arrival=open&b.grpc_throttle=on", "lanes=3&c.strategy=grpc&a.breaker=all"} {
		t.Run(query, func(t *testing.T) {
			v := newView(pageFor(t, query))
			var rendered []string
			for _, c := range allControls(v) {
				if c.Hidden {
					rendered = append(rendered, c.Name)
				}
			}
			hidden := v.Data.Rules.Hidden
			slices.Sort(rendered)
			hidden = slices.Sorted(slices.Values(hidden))
			if !slices.Equal(rendered, hidden) || len(hidden) == 0 {
				t.Errorf("rules hide %q, the page %q", hidden, rendered)
			}
		})
	}
}

// TestRulesInMessages: hello and params carry the run's rules, and hello
// the engine's count of outage windows, which the page keeps as many of.
func TestRulesInMessages(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	live := dialPage(t, srv, "server_model=curve&speed=20")
	hello := live.await("hello", nil)
	if n := field[int](t, hello, "max_outages"); n != simengine.MaxOutages {
		t.Errorf("hello's max_outages %d, want %d", n, simengine.MaxOutages)
	}
	r := field[pageRules](t, hello, "rules")
	if !slices.Contains(r.Hidden, "workers") || slices.Contains(r.Hidden, "server_limit") {
		t.Errorf("hello's rules for a curve server hide %q", r.Hidden)
	}
	// A live change (the strategy's factor) answers params; its rules
	// follow the run, its links the changed query.
	live.send(inMsg{Type: "set", Query: "server_model=curve&b.factor=3&speed=20"})
	params := live.await("params", nil)
	r = field[pageRules](t, params, "rules")
	if !slices.Contains(r.Hidden, "workers") || slices.Contains(r.Hidden, "server_limit") {
		t.Errorf("params' rules for a curve server hide %q", r.Hidden)
	}
	if r.Links.Map != "/map?"+field[string](t, params, "query") {
		t.Errorf("params' map link %q for query %q", r.Links.Map, field[string](t, params, "query"))
	}
	// A refused set: the rules of what the controls hold.
	live.send(inMsg{Type: "set", Query: "server_model=queue&clients=-1&speed=20"})
	r = field[pageRules](t, live.await("rules", nil), "rules")
	if slices.Contains(r.Hidden, "workers") || !slices.Contains(r.Hidden, "server_limit") {
		t.Errorf("a refused set's rules for a queue server hide %q", r.Hidden)
	}
}

// TestPresetKeysAsMeasured: the keys a session names its preset by, which
// it reads without running the presets, are the measured presets' own.
func TestPresetKeysAsMeasured(t *testing.T) {
	ps := newPresets(kit.DefaultLimits)
	if got, want := ps.keys(), keysOf(ps.list()); !slices.Equal(got, want) {
		t.Errorf("session keys %v, measured %v", got, want)
	}
}
