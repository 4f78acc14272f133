package libconfig

import (
	"slices"
	"testing"
)

// TestProfiles checks that every library has a profile, that its defaults
// make the lane ToLane makes of them, and that every knob names a field.
func TestProfiles(t *testing.T) {
	ps := Profiles()
	var names []string
	for _, p := range ps {
		names = append(names, p.Name)
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

// TestEveryExporterHasATitle checks that every library and exporter has
// its name in words.
func TestEveryExporterHasATitle(t *testing.T) {
	for _, e := range Exporters() {
		if _, ok := titles[e.Name]; !ok {
			t.Errorf("exporter %s: no title", e.Name)
		}
	}
	for _, n := range Names() {
		if _, ok := titles[n]; !ok {
			t.Errorf("library %s: no title", n)
		}
	}
}
