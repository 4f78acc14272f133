package libconfig

import (
	"slices"
	"testing"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// TestProfiles checks that every library has a profile, that its defaults
// make the lane ToLane makes of them, and that every knob names a field.
func TestProfiles(t *testing.T) {
	var ps []Profile
	var names []string
	for _, p := range Profiles() {
		if !p.Code {
			ps = append(ps, p)
			names = append(names, p.Name)
		}
	}
	if !slices.Equal(names, Names()) {
		t.Fatalf("profiles %v, libraries %v", names, Names())
	}
	for _, p := range ps {
		t.Run(p.Name, func(t *testing.T) {
			lib, _ := Lookup(p.Name)
			c, _, err := lib.Parse([]byte(p.Defaults))
			if err != nil {
				t.Fatal(err)
			}
			l, _, err := ToLane(c)
			if err != nil {
				t.Fatal(err)
			}
			if l != p.Lane {
				t.Errorf("lane %+v, ToLane %+v", p.Lane, l)
			}
			if len(p.Knobs) == 0 {
				t.Errorf("knobs %v: none", p.Knobs)
			}
			for _, k := range p.Knobs {
				if k.Field == "" || k.Param == "" {
					t.Errorf("knob %+v", k)
				}
			}
			t.Logf("%s: %s, knobs %v", p.Name, p.Lane.Strategy, p.Knobs)
		})
	}
	if _, ok := LookupProfile("nope"); ok {
		t.Error("LookupProfile(nope) found one")
	}
}

// TestCodeProfiles checks the profiles of the libraries configured in
// code: each is its exporter's, its defaults are what the exporter writes
// of its lane, and every knob is a lane parameter that changes what the
// exporter writes.
func TestCodeProfiles(t *testing.T) {
	for _, p := range Profiles() {
		if !p.Code {
			continue
		}
		t.Run(p.Name, func(t *testing.T) {
			e, ok := LookupExporter(p.Name)
			if !ok {
				t.Fatalf("no exporter %s", p.Name)
			}
			write := func(l strategies.Params) string {
				t.Helper()
				c, _, err := e.Export(l)
				if err != nil {
					t.Fatalf("export %+v: %v", l, err)
				}
				b, err := c.Marshal()
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			if got := write(p.Lane); got != p.Defaults {
				t.Errorf("defaults %q, the exporter writes %q", p.Defaults, got)
			}
			if len(p.Knobs) == 0 {
				t.Fatal("no knobs")
			}
			for _, k := range p.Knobs {
				row, _, ok := scenario.Lookup(k.Param)
				if !ok || !row.Lane || k.Field == "" {
					t.Errorf("knob %+v: not a lane parameter with a field", k)
					continue
				}
				ps := scenario.Defaults()
				ps.Lanes[0].Params = p.Lane
				old := row.Value(&ps, 0)
				// Another value in the row's range, which Set accepts.
				set := ""
				for _, v := range []string{"3", "0.25", "1.25", "2s", "250ms", "40s"} {
					if v != old && row.Set(row.Field(&ps, 0), "a."+k.Param, v) == nil {
						set = v
						break
					}
				}
				if set == "" {
					t.Fatalf("knob %s: no other value to set", k.Param)
				}
				if write(ps.Lanes[0].Params) == p.Defaults {
					t.Errorf("knob %s (%s): %s → %s leaves the code as it was", k.Param, k.Field, old, set)
				}
			}
		})
	}
}

// TestEveryExporterHasATitle checks that every library and exporter has
// its name in words.
func TestEveryExporterHasATitle(t *testing.T) {
	for _, e := range Exporters() {
		if e.Title == "" || Title(e.Name) != e.Title {
			t.Errorf("exporter %s: no title", e.Name)
		}
	}
	for _, n := range Names() {
		if e, ok := LookupExporter(n); !ok || e.Title == "" {
			t.Errorf("library %s: no title", n)
		}
	}
}
