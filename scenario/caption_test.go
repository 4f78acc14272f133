package scenario_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// parseQuery parses q as a run's URL query, failing t on a bad value.
func parseQuery(t *testing.T, q string) scenario.Params {
	t.Helper()
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Parse(v)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return p
}

// keys is the shared part every caption of a run at the defaults' shared
// values gives.
const keys = "clients=1000 · think=10s · timeout=2s · server_model=queue · outage=pause · outage_at=20s · outage_for=15s · duration=2m0s · seed=1 · lanes=2"

func TestLaneCaption(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		lane        int
		want        string
	}{
		{"defaults, lane a", "", 0, "backofflab · lane a: fixed interval (fixed) · a.min_delay=100ms · " + keys},
		{"defaults, lane b: the formula's parameters", "", 1,
			"backofflab · lane b: exponential backoff (exponential) · b.min_delay=100ms · b.max_delay=15m0s · b.factor=2 · b.jitter=0.1 · " + keys},
		{"a key parameter changed, one lane", "a.strategy=fixed&a.min_delay=250ms&clients=300", 0,
			"backofflab · lane a: fixed interval (fixed) · a.min_delay=250ms · clients=300 · " +
				strings.TrimSuffix(strings.TrimPrefix(keys, "clients=1000 · "), "2") + "1"},
		{"a limiter on, and shared parameters off their defaults", "lanes=3&b.grpc_throttle=on&arrival=open&rate=50", 1,
			"backofflab · lane b: exponential backoff (exponential) · b.min_delay=100ms · b.max_delay=15m0s · b.factor=2 · b.jitter=0.1 · b.grpc_throttle=on · " +
				strings.TrimSuffix(keys, "2") + "3 · arrival=open · rate=50"},
		{"no such lane", "", 3, ""},
		{"a negative lane", "", -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseQuery(t, tc.query)
			if got := scenario.LaneCaption(&p, tc.lane); got != tc.want {
				t.Errorf("LaneCaption(%q, %d) =\n%q\nwant\n%q", tc.query, tc.lane, got, tc.want)
			}
		})
	}
}

// TestCaptionSkips: what a caller skips (a map's axes) is named nowhere,
// a key parameter included.
func TestCaptionSkips(t *testing.T) {
	p := parseQuery(t, "b.factor=3&arrival=open")
	for _, tc := range []struct {
		name string
		got  []string
		skip string
	}{
		{"a lane's parameter", scenario.LaneParts(&p, 1, "b.factor"), "b.factor="},
		{"a key parameter", scenario.SharedParts(&p, "clients"), "clients="},
		{"a changed shared parameter", scenario.SharedParts(&p, "arrival"), "arrival="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.got) == 0 {
				t.Fatal("nothing named")
			}
			if i := slices.IndexFunc(tc.got, func(s string) bool { return strings.HasPrefix(s, tc.skip) }); i >= 0 {
				t.Errorf("%v names %s", tc.got, tc.got[i])
			}
		})
	}
}

// TestCaptionKeys: every parameter a caption always names is a shared
// parameter of the vocabulary.
func TestCaptionKeys(t *testing.T) {
	for _, n := range scenario.CaptionKeys {
		t.Run(n, func(t *testing.T) {
			if p, _, ok := scenario.Lookup(n); !ok || p.Lane {
				t.Errorf("caption parameter %s is not a shared parameter", n)
			}
		})
	}
}

func TestLaneCaptions(t *testing.T) {
	p := parseQuery(t, "lanes=3")
	got := scenario.LaneCaptions(&p)
	if len(got) != 3 {
		t.Fatalf("%d captions for 3 lanes: %q", len(got), got)
	}
	for i, c := range got {
		if c != scenario.LaneCaption(&p, i) {
			t.Errorf("caption %d is %q, want LaneCaption's", i, c)
		}
	}
}

// TestLaneHeads: a lane's heading is its strategy in words and what else
// sets it apart: a limiter that is on (with its way, for a switch that has
// several), a lane behaviour, and, where two lanes would still read the
// same, the parameters whose values differ.
func TestLaneHeads(t *testing.T) {
	factor, _, _ := scenario.Lookup("factor")
	factorLabel := factor.Label()
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"a.strategy=fixed&b.strategy=fixed&b.grpc_throttle=on", []string{"fixed interval", "fixed interval, gRPC retry throttling"}},
		{"a.strategy=fixed&b.strategy=exponential", []string{"fixed interval", "exponential backoff"}},
		{"a.strategy=fixed&b.strategy=fixed", []string{"fixed interval", "fixed interval"}},
		{"a.strategy=fixed&b.strategy=fixed&b.cancel_on_timeout=true", []string{"fixed interval", "fixed interval, server drops abandoned requests"}},
		{"lanes=3&a.strategy=exponential&b.strategy=exponential&b.breaker=retries&c.strategy=exponential&c.breaker=all",
			[]string{"exponential backoff", "exponential backoff, circuit breaker: retries", "exponential backoff, circuit breaker: all"}},
		{"a.strategy=exponential&a.factor=2.7&b.strategy=exponential&b.factor=1.5",
			[]string{"exponential backoff, " + factorLabel + " 2.7", "exponential backoff, " + factorLabel + " 1.5"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			p := parseQuery(t, tc.query)
			if got := scenario.LaneHeads(&p); !slices.Equal(got, tc.want) {
				t.Errorf("LaneHeads = %q, want %q", got, tc.want)
			}
		})
	}
}
