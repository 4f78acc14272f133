package playground

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// TestTiersControlAndChart: a lane's tiers are a text box in its panel,
// shown whatever its strategy, and the tiers' chart shows for the lanes
// that have tiers only.
func TestTiersControlAndChart(t *testing.T) {
	in := pageFor(t, "lanes=3&a.tiers=fixed:3:1000ms,fixed:3:500ms&b.strategy=none&c.tiers=")
	v := newView(in)
	var spec scene.ChartSpec
	for _, k := range v.Specs {
		if k.ID == "tiers" {
			spec = k
		}
	}
	if spec.OnlyWith != "tiers" || spec.ID != v.Specs[len(v.Specs)-1].ID {
		t.Fatalf("the tiers' chart is %+v, want the last row, only with tiers", spec)
	}
	for i, lp := range v.Panels {
		var c paramCtl
		for _, x := range lp.Controls {
			if x.Base == "tiers" {
				c = x
			}
		}
		want := ""
		if i == 0 {
			want = "fixed:3:1s,fixed:3:500ms" // canonical
		}
		if c.Type != "tiers" || c.Hidden || c.Value != want || !strings.Contains(c.Allowed, "strategy:attempts:timeout") {
			t.Errorf("lane %s: tiers control %+v, want a shown text box of %q", lp.Letter, c, want)
		}
		if hidden := lp.hidesChart(spec); hidden != (i != 0) {
			t.Errorf("lane %s: the tiers' chart hidden = %v", lp.Letter, hidden)
		}
		for _, k := range v.Specs[:len(v.Specs)-1] {
			if lp.hidesChart(k) {
				t.Errorf("lane %s hides the %s chart", lp.Letter, k.ID)
			}
		}
	}
	var b strings.Builder
	if err := playground(in).Render(t.Context(), &b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		`data-chart="tiers" data-lane="a" role="img" aria-label="lane a: attempts per second each tier sends`,
		`data-chart="tiers" data-lane="b" role="img" aria-label="lane b: attempts per second each tier sends: the clients (tier 1), then each inner tier; the bottom tier&#39;s reach the server" hidden`,
		`class="num wide text" name="a.tiers" data-param="a.tiers" data-type="tiers"`,
		`inputmode="text" value="fixed:3:1s,fixed:3:500ms"`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(html, `data-chart="tiers" data-lane="a" role="img" aria-label="lane a: attempts per second each tier sends: the clients (tier 1), then each inner tier; the bottom tier&#39;s reach the server" hidden`) {
		t.Errorf("lane a's tiers' chart is hidden")
	}
}

// TestTiersDecode: a bad tiers value is refused on every path with the
// tier, field, value and range (the URL and a WebSocket set read decode),
// and a real lane refuses tiers, which only the simulator implements.
func TestTiersDecode(t *testing.T) {
	for _, tc := range []struct{ query, bad, allow string }{
		{"a.tiers=fixed:3:1s,fixed:0:1s", "a.tiers", `tier 3 ("fixed:0:1s"): attempts "0" is not a whole number from 1 to 10`},
		{"b.tiers=fixed:3:1s:bulkhead", "b.tiers", `limiter "bulkhead" is not one of grpc_throttle`},
		{"b.source=real&b.tiers=fixed:3:1s", "b.tiers", "empty on the real lane (the real experiment does not implement another)"},
	} {
		q, _ := url.ParseQuery(realCurve + "&" + tc.query)
		_, errs := scene.Decode(q, kit.DefaultLimits)
		if len(errs) != 1 || errs[0].Name != tc.bad || !strings.Contains(errs[0].Allow, tc.allow) {
			t.Errorf("%s: errors %v, want one naming %s with %q", tc.query, errs, tc.bad, tc.allow)
		}
	}
	// The simulated lane beside a real one may have tiers.
	q, _ := url.ParseQuery(realCurve + "&b.source=real&a.tiers=fixed:3:1s")
	if sc, errs := scene.Decode(q, kit.DefaultLimits); len(errs) != 0 || scenario.TiersText(sc.Params.Lanes[0].Tiers) != "fixed:3:1s" {
		t.Errorf("tiers on the simulated lane beside a real one: %v", errs)
	}
}

// TestTiersSocket: a page that sets a lane's tiers over the socket gets
// the run restarted with them (the number of tiers changed), ticks whose
// tier columns are the tiers' offered load, and a verdict that says how
// many server attempts each request cost; a bad value gets an error naming
// the parameter.
func TestTiersSocket(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	p := dialPage(t, srv, "clients=100&duration=20s&speed=max&outage=crash&outage_at=0s&outage_for=20s&lanes=1")
	p.await("hello", nil)
	p.send(inMsg{Type: "set", Query: "clients=100&duration=20s&speed=max&outage=crash&outage_at=0s&outage_for=20s&lanes=1&" +
		"a.max_attempts=3&a.tiers=fixed:3:1s,fixed:3:1s"})
	hello := p.await("hello", nil)
	if q := field[string](t, hello, "query"); !strings.Contains(q, "a.tiers=fixed%3A3%3A1s,fixed%3A3%3A1s") {
		t.Fatalf("hello query %q", q)
	}
	t2, t3 := 1+indexOfColumn(t, "t2_attempts"), 1+indexOfColumn(t, "t3_attempts")
	// The tick and the summary may come in either order (a fast run ends
	// before a slow reader looks), so both are looked for in one pass.
	tickOK := func(m map[string]json.RawMessage) bool {
		var ticks [][]*float64
		json.Unmarshal(m["ticks"], &ticks)
		for _, r := range ticks {
			if r[t3] != nil && r[t2] != nil && *r[t3] > 0 && *r[t2] > 0 {
				return true
			}
		}
		return false
	}
	sumOK := func(m map[string]json.RawMessage) bool {
		var v []scenario.Verdict
		json.Unmarshal(m["verdicts"], &v)
		return len(v) == 1 && strings.Contains(v[0].Details, "Its 3 layers of retries sent ") && strings.Contains(v[0].Details, " attempts to the server per request")
	}
	var sawTick bool
	var sum map[string]json.RawMessage
	deadline := time.After(30 * time.Second)
	for !sawTick || sum == nil {
		select {
		case m, open := <-p.msgs:
			if !open {
				t.Fatal("socket closed while waiting for the tiers' tick and summary")
			}
			switch string(m["type"]) {
			case `"tick"`:
				sawTick = sawTick || tickOK(m)
			case `"summary"`:
				if sum == nil && sumOK(m) {
					sum = m
				}
			}
		case <-deadline:
			t.Fatalf("after 30 s: a tick with tier columns %v, a summary with the tiers' words %v", sawTick, sum != nil)
		}
	}
	var lanes []scenario.Summary
	if err := json.Unmarshal(sum["lanes"], &lanes); err != nil || len(lanes[0].TierAttempts) != 2 || lanes[0].BottomAmplification <= 1 {
		t.Errorf("summary %s: %v", sum["lanes"], err)
	}
	p.send(inMsg{Type: "set", Query: "lanes=1&a.tiers=fixed:3:1s,fixed:3"})
	e := p.await("error", nil)
	if field[string](t, e, "param") != "a.tiers" || !strings.Contains(field[string](t, e, "message"), `tier 3 ("fixed:3")`) {
		t.Errorf("error %v", e)
	}
}

// indexOfColumn returns name's index in scenario.Columns.
func indexOfColumn(t *testing.T, name string) int {
	t.Helper()
	for i, c := range scenario.Columns {
		if c == name {
			return i
		}
	}
	t.Fatalf("no column %s", name)
	return -1
}
