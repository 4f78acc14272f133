package scene

import (
	"testing"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/kit"
)

// FuzzDecode feeds the playground's decoding of a URL, a set message or
// an export request arbitrary queries (kit.ParseQuery, then decode within
// a server's limits): it never panics; every error names a parameter; a
// state it accepts is within the server's bounds, at t = 0 and in every
// live change, and its canonical query decodes to the same state. The
// bounds it enforces are the vocabulary's (each value's range, at most
// four lanes, the changes' MaxChanges and MaxChangesText, the faults' and
// tiers' own) within the server's (clients, duration).
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"", "clients=300&duration=5s&outage=none",
		"lanes=4&duration=10m&changes=%401s%20clients%3D1000000",
		"changes=%401s+clients%3D3000&clients=10", "b.source=real&clients=100", "speed=max&a.strategy=grpc",
		"b.factor=abc", "clients=2000000", "changes=%400.0000000001s+stop", "d.source=sim&lanes=2",
		"faults=load_spike:30s:10s:2&a.tiers=fixed:3:1s", "duration=2h", "=1", "speed=0",
	} {
		f.Add(s)
	}
	lim := kit.Limits{MaxClients: 2000, MaxDuration: 600e9}.WithDefaults()
	f.Fuzz(func(t *testing.T, raw string) {
		q, qerrs := kit.ParseQuery(raw)
		st, errs := Decode(q, lim)
		for _, e := range append(qerrs, errs...) {
			if e.Name == "" || e.Allow == "" {
				t.Fatalf("decode(%q): error %q names no parameter or what is allowed", raw, e.Error())
			}
		}
		if len(qerrs)+len(errs) > 0 {
			return
		}
		if es := lim.Bounds().Errors(&st.Params); len(es) > 0 {
			t.Fatalf("decode(%q) accepted a run past the server's bounds: %v", raw, es[0])
		}
		for _, c := range st.Params.Changes {
			for _, a := range c.Set {
				if row, _, _ := scenario.Lookup(a.Name); row.Name == "clients" && a.Value.(int) > lim.MaxClients {
					t.Fatalf("decode(%q) accepted a change to %v clients", raw, a.Value)
				}
			}
		}
		enc := st.Query()
		q2, qerrs2 := kit.ParseQuery(enc)
		st2, errs2 := Decode(q2, lim)
		if len(qerrs2)+len(errs2) > 0 {
			t.Fatalf("decode(%q) wrote %q, which does not decode: %v %v", raw, enc, qerrs2, errs2)
		}
		if enc2 := st2.Query(); enc2 != enc {
			t.Fatalf("decode(%q) wrote %q, then %q", raw, enc, enc2)
		}
	})
}
