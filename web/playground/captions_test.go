package playground

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/scene"
)

// TestSocketSendsCaptions: hello and params carry each lane's caption as
// scenario.LaneCaption writes it, for the run in effect: the page keeps
// no rule of its own for them.
func TestSocketSendsCaptions(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	for _, tc := range []struct {
		name, query string
		lanes       int
	}{
		{"two lanes", "speed=1&duration=600s", 2},
		{"three lanes, a limiter on", "speed=1&duration=600s&lanes=3&c.aws_quota=on", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := dialPage(t, srv, tc.query)
			hello := p.await("hello", nil)
			want := func(query string) []string {
				t.Helper()
				sc, errs := scene.Decode(mustQuery(t, query), Limits{}.WithDefaults())
				if len(errs) > 0 {
					t.Fatalf("%s: %v", query, errs)
				}
				return scenario.LaneCaptions(&sc.Params)
			}
			got := field[[]string](t, hello, "captions")
			if w := want(field[string](t, hello, "query")); len(got) != tc.lanes || !slices.Equal(got, w) {
				t.Errorf("hello's captions\n%q\nwant\n%q", got, w)
			}
			// A change that applies without a restart (the run is far from
			// its end): params carries the captions of the run as it now is.
			q := mustQuery(t, field[string](t, hello, "query"))
			q.Set("clients", "321")
			p.send(inMsg{Type: "set", Query: q.Encode()})
			params := p.await("params", func(m map[string]json.RawMessage) bool { return field[string](t, m, "query") != "" })
			got = field[[]string](t, params, "captions")
			if w := want(field[string](t, params, "settings")); !slices.Equal(got, w) || !everyHas(got, "clients=321") {
				t.Errorf("params' captions\n%q\nwant\n%q, each naming clients=321", got, w)
			}
		})
	}
}

// everyHas reports whether there are captions and every one of cs
// contains s.
func everyHas(cs []string, s string) bool {
	return len(cs) > 0 && !slices.ContainsFunc(cs, func(c string) bool { return !strings.Contains(c, s) })
}
