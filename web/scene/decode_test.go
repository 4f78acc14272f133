package scene

import (
	"net/url"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/kit"
)

// realCurve is the server model of the real lanes' tests: 001's curve.
const realCurve = "server_model=curve"

func TestDecodeRealLane(t *testing.T) {
	for _, tc := range []struct {
		query      string
		real       string // the real lane when valid
		lanes      int
		bad, allow string // the error's parameter and a part of its allowed range
	}{
		{query: "b.source=real", real: "b", lanes: 2},
		{query: "b.source=sim&a.source=sim", lanes: 2},
		{query: "c.source=real", real: "c", lanes: 3}, // the highest lane letter sets lanes
		{query: "b.source=real&speed=1&clients=2000&outage=pause", real: "b", lanes: 2},
		{query: "a.source=real&outage=none&lanes=1", real: "a", lanes: 1},
		{query: "lanes=2&c.source=real", bad: "c.source", allow: "lanes a to b only"},
		{query: "b.source=fake", bad: "b.source", allow: "one of sim, real"},
		{query: "a.source=real&b.source=real", bad: "b.source", allow: "at most one lane may be real (lane a is)"},
		{query: "b.source=real&speed=20", bad: "speed", allow: "1 while a lane is real"},
		{query: "b.source=real&speed=max", bad: "speed", allow: "1 while a lane is real"},
		{query: "b.source=real&clients=2001", bad: "clients", allow: "from 1 to 2000 while a lane is real"},
		{query: "b.source=real&outage=crash", bad: "outage", allow: "none or pause while a lane is real"},
		{query: "b.source=real&outage=partition", bad: "outage", allow: "the real server can only pause"},
		{query: "e.source=real", bad: "e.source", allow: "no such parameter"},
		{query: "b.source=real&arrival=open", bad: "arrival", allow: "closed while a lane is real"},
		{query: "b.source=real&rate=5", real: "b", lanes: 2}, // rate is not read in a closed loop
		{query: "b.source=real&server_model=linear", real: "b", lanes: 2},
		{query: "b.source=real&server_model=curve", real: "b", lanes: 2},
		// The server's protections are the real server's too.
		{query: "b.source=real&server_model=curve&shed_above=100", real: "b", lanes: 2},
		{query: "b.source=real&shed_above=300&queue_timeout=500ms", real: "b", lanes: 2},
		{query: "b.source=real&queue_control=codel&codel_target=10ms&codel_interval=200ms", real: "b", lanes: 2},
		{query: "b.source=real&shed_above=-1", bad: "shed_above", allow: "from 0 to 1000000"},
	} {
		q, _ := url.ParseQuery(tc.query)
		st, errs := Decode(q, kit.DefaultLimits)
		if tc.bad != "" {
			if len(errs) != 1 || errs[0].Name != tc.bad || !strings.Contains(errs[0].Allow, tc.allow) {
				t.Errorf("%s: errors %v, want one naming %s with %q", tc.query, errs, tc.bad, tc.allow)
			}
			continue
		}
		if len(errs) > 0 || st.Real != tc.real || len(st.Params.Lanes) != tc.lanes {
			t.Errorf("%s: real %q, %d lanes, errors %v; want real %q, %d lanes", tc.query, st.Real, len(st.Params.Lanes), errs, tc.real, tc.lanes)
			continue
		}
		// The canonical query round-trips, the real lane included.
		enc := st.Query()
		if has := strings.Contains(enc, ".source="); has != (tc.real != "") {
			t.Errorf("%s: canonical query %q", tc.query, enc)
		}
		q2, _ := url.ParseQuery(enc)
		st2, errs := Decode(q2, kit.DefaultLimits)
		if len(errs) > 0 || st2.Query() != enc || st2.Real != st.Real {
			t.Errorf("%s: %q decodes to %q (real %q), errors %v", tc.query, enc, st2.Query(), st2.Real, errs)
		}
	}

	// A page's URL with real-lane mistakes keeps the real lane and drops
	// the values that do not fit it, each with its message.
	q, _ := url.ParseQuery(realCurve + "&b.source=real&speed=20&clients=5000&outage=crash")
	st, errs := DecodeLenient(q, kit.DefaultLimits)
	if st.Real != "b" || st.Speed.Text != "1" || st.Params.Clients != 1000 || st.Params.Outage != scenario.OutagePause || len(errs) != 3 {
		t.Errorf("lenient: real %q speed %s clients %d outage %s, errors %v", st.Real, st.Speed.Text, st.Params.Clients, st.Params.Outage, errs)
	}

	// The headless export refuses a real lane.
	q, _ = url.ParseQuery(realCurve + "&b.source=real")
	if _, errs := DecodeScenario(q, kit.DefaultLimits); len(errs) != 1 || errs[0].Name != "b.source" ||
		!strings.Contains(errs[0].Error(), "real lanes run live only; export from the page") {
		t.Errorf("export of a real lane: %v", errs)
	}
}

func TestDecodeLenientKeepsGoodValues(t *testing.T) {
	q, _ := url.ParseQuery("clients=500&a.factor=abc&b.strategy=grpc&think=-1s&speed=2")
	st, errs := DecodeLenient(q, kit.DefaultLimits)
	if st.Params.Clients != 500 || st.Params.Lanes[1].Strategy != "grpc" || st.Speed.Text != "2" {
		t.Errorf("good values lost: clients %d, b %s, speed %s", st.Params.Clients, st.Params.Lanes[1].Strategy, st.Speed.Text)
	}
	if st.Params.Think != scenario.Defaults().Think {
		t.Errorf("bad think kept: %v", st.Params.Think)
	}
	names := map[string]bool{}
	for _, e := range errs {
		names[e.Name] = true
	}
	if !names["a.factor"] || !names["think"] || len(errs) != 2 {
		t.Errorf("errors %v, want a.factor and think", errs)
	}
}
