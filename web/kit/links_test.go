package kit

import (
	"net/url"
	"testing"
)

// TestAdviseLink: the advice's link from a playground's query keeps the
// system, the outage and lane a, and leaves out the other lanes, the
// lane count and the playground's own parameters.
func TestAdviseLink(t *testing.T) {
	got := AdviseLink("clients=300&server_model=curve&outage_for=20s&lanes=2&a.strategy=fixed&a.min_delay=50ms&b.strategy=exponential&b.factor=3&speed=max&a.source=sim&changes=%4010s+b.factor%3D2")
	want := url.Values{"clients": {"300"}, "server_model": {"curve"}, "outage_for": {"20s"}, "a.strategy": {"fixed"}, "a.min_delay": {"50ms"}}
	if got != "/advise?"+want.Encode() {
		t.Errorf("AdviseLink = %s, want /advise?%s", got, want.Encode())
	}
}
