package playground

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// TestLibraryPresets recomputes each library preset's run: its
// description carries each lane's verdict as the engine words it, and its
// chips each lane's brief; every library has one preset per server.
func TestLibraryPresets(t *testing.T) {
	ps := newPresets(kit.DefaultLimits)
	libs := ps.library()
	if want := len(libconfig.Names()) * len(libraryServers); len(libs) != want {
		t.Fatalf("%d library presets, want %d", len(libs), want)
	}
	views := libraryViews(libs, kit.DefaultLimits)
	for _, v := range views {
		if len(v.Presets) != len(libraryServers) {
			t.Errorf("%s: %d presets", v.Name, len(v.Presets))
		}
	}
	for _, p := range libs {
		t.Run(p.Name, func(t *testing.T) {
			q, err := url.ParseQuery(p.Query)
			if err != nil {
				t.Fatal(err)
			}
			sc, errs := scene.Decode(q, kit.DefaultLimits)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			sums, err := simengine.Run(context.Background(), sc.Params, func(scenario.Tick) {})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Outcomes) != len(sums) {
				t.Fatalf("%d outcomes, %d lanes", len(p.Outcomes), len(sums))
			}
			for i, s := range sums {
				v := s.Verdict(scenario.Finished)
				if want := "lane " + scenario.LaneNames[i:i+1] + " (" + sc.Params.Lanes[i].Strategy + "): " + v.Text; !strings.Contains(p.Description, want) {
					t.Errorf("description %q lacks %q", p.Description, want)
				}
				if p.Outcomes[i].Brief != v.Brief || p.Outcomes[i].Tone != v.Tone {
					t.Errorf("lane %d's chip %+v, verdict %q %q", i, p.Outcomes[i], v.Brief, v.Tone)
				}
			}
		})
	}
}
