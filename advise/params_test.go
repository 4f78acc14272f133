package advise

import (
	"errors"
	"math"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// TestParseRequestDefaults: no values at all is the landing system, its
// outage, backofflab's exponential backoff today and the default goals.
func TestParseRequestDefaults(t *testing.T) {
	r, err := ParseRequest(url.Values{}, CLILimits)
	if err != nil {
		t.Fatal(err)
	}
	want := scenario.Defaults()
	if r.Scenario.Clients != want.Clients || r.Scenario.ServerModel != want.ServerModel || r.Scenario.OutageFor != want.OutageFor {
		t.Errorf("scenario = %+v, want the landing system", r.Scenario)
	}
	exp, _ := strategies.Defaults(strategies.NameExponential)
	if len(r.Scenario.Lanes) != 1 || r.Scenario.Lanes[0].Params != exp {
		t.Errorf("lanes = %+v, want one: exponential's defaults", r.Scenario.Lanes)
	}
	if r.Library != OwnLibrary || r.RecoverWithin != 10*time.Second || r.AttemptsPerRequest != 1.5 || r.P99 != time.Second ||
		r.Success != 0.99 || r.Errors != 0.01 || r.Seeds != 5 {
		t.Errorf("request = %+v, want the defaults of Table", r)
	}
}

// TestParseRequestToday: lane a today is the library's profile with the
// values given on top.
func TestParseRequestToday(t *testing.T) {
	for _, c := range []struct {
		name     string
		q        url.Values
		strategy string
		check    func(l scenario.Lane) bool
	}{
		{"grpc's defaults", url.Values{"library": {"grpc"}}, strategies.NameGRPCRetry,
			func(l scenario.Lane) bool { return l.MaxAttempts == 4 && l.MinDelay == 100*time.Millisecond }},
		{"envoy with its circuit breaker", url.Values{"library": {"envoy"}}, strategies.NameEnvoy,
			func(l scenario.Lane) bool {
				return l.EnvoyRetryLimit == strategies.EnvoyMaxRetries && l.MaxAttempts == 2
			}},
		{"envoy with a value on top", url.Values{"library": {"envoy"}, "a.min_delay": {"50ms"}}, strategies.NameEnvoy,
			func(l scenario.Lane) bool {
				return l.MinDelay == 50*time.Millisecond && l.EnvoyRetryLimit == strategies.EnvoyMaxRetries
			}},
		{"backofflab from a fixed interval today", url.Values{"a.strategy": {"fixed"}}, strategies.NameFixed,
			func(l scenario.Lane) bool { return l.MinDelay == 100*time.Millisecond }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := ParseRequest(c.q, CLILimits)
			if err != nil {
				t.Fatal(err)
			}
			if l := r.Scenario.Lanes[0]; len(r.Scenario.Lanes) != 1 || l.Strategy != c.strategy || !c.check(l) {
				t.Errorf("lane a = %+v", r.Scenario.Lanes)
			}
		})
	}
}

// TestParseRequestErrors: every bad value names its parameter, the value
// and what is allowed; nothing is clamped.
func TestParseRequestErrors(t *testing.T) {
	for _, c := range []struct {
		name, param, value, allow string
		q                         url.Values
	}{
		{"unknown library", "library", "hystrix", "one of backofflab, grpc", url.Values{"library": {"hystrix"}}},
		{"negative recovery", "recover_within", "-1s", "a duration from 0s to 1h0m0s", url.Values{"recover_within": {"-1s"}}},
		{"recovery past the run", "recover_within", "105s", "a duration from 0s to 1m20s", url.Values{"recover_within": {"105s"}}},
		{"attempts under one", "attempts_per_request", "0.5", "a number from 1 to 1000", url.Values{"attempts_per_request": {"0.5"}}},
		{"p99 not a duration", "p99", "fast", "a duration from 0s to 1h0m0s", url.Values{"p99": {"fast"}}},
		{"success over one", "success", "1.5", "a number from 0 to 1", url.Values{"success": {"1.5"}}},
		{"errors past half", "errors", "0.6", "a number from 0 to 0.5", url.Values{"errors": {"0.6"}}},
		{"negative errors", "errors", "-0.1", "a number from 0 to 0.5", url.Values{"errors": {"-0.1"}}},
		{"too many seeds", "seeds", "21", "a whole number from 1 to 20", url.Values{"seeds": {"21"}}},
		{"no seeds", "seeds", "0", "a whole number from 1 to 20", url.Values{"seeds": {"0"}}},
		// The fresh check runs seed+seeds to seed+2·seeds−1: from
		// 2^64−6, 4 seeds would need 2^64+1.
		{"fresh seeds past the last", "seeds", "4", "at most 3 from seed 18446744073709551610", url.Values{"seeds": {"4"}, "seed": {"18446744073709551610"}}},
		{"lane b", "b.factor", "3", "lane a only", url.Values{"b.factor": {"3"}}},
		{"more lanes", "lanes", "2", "1 (or nothing)", url.Values{"lanes": {"2"}}},
		{"live changes", "changes", "@30s stop", "no live changes", url.Values{"changes": {"@30s stop"}}},
		{"another library's row", "a.strategy", "fixed", "grpc_retry, gRPC's row", url.Values{"library": {"grpc"}, "a.strategy": {"fixed"}}},
		{"no outage", "outage", "none", "pause, crash or partition", url.Values{"outage": {"none"}}},
		{"a scenario value", "clients", "0", "a whole number from 1 to 1000000", url.Values{"clients": {"0"}}},
		{"a lane value", "a.factor", "20", "a number from 1 to 10", url.Values{"a.factor": {"20"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseRequest(c.q, CLILimits)
			if err == nil {
				t.Fatalf("ParseRequest(%v) = nil error", c.q)
			}
			var pe *scenario.ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v names no parameter", err)
			}
			found := false
			for _, e := range scenario.Errors(err) {
				if e.Name == c.param && (c.value == "" || e.Value == c.value) && strings.Contains(e.Allow, c.allow) {
					found = true
				}
			}
			if !found {
				t.Errorf("error %q: want %s=%q allowed %q", err, c.param, c.value, c.allow)
			}
		})
	}
}

// TestParseRequestFreshSeedsFit: the most seeds a request may ask from
// near the last seed are those whose fresh check fits, and no fewer.
func TestParseRequestFreshSeedsFit(t *testing.T) {
	r, err := ParseRequest(url.Values{"seeds": {"3"}, "seed": {"18446744073709551610"}}, CLILimits)
	if err != nil {
		t.Fatal(err)
	}
	if last := r.Scenario.Seed + uint64(2*r.Seeds-1); last != math.MaxUint64 {
		t.Errorf("the fresh check's last seed %d, want the last there is", last)
	}
}

// TestParseRequestCheck: a server's own bounds see the request's run,
// and bound the margins: each searches as far as the largest of 32, 16,
// 8, 4 and 2 times the request's value whose run the limits allow.
func TestParseRequestCheck(t *testing.T) {
	lim := Limits{MaxSeeds: 20, Check: func(p scenario.Params) error {
		if p.Clients > 3000 {
			return &scenario.ParamError{Name: "clients", Value: strconv.Itoa(p.Clients), Allow: "at most 3000 here"}
		}
		return nil
	}}
	for _, c := range []struct {
		clients string
		scale   float64
	}{{"100", 16}, {"300", 8}, {"500", 4}, {"1000", 2}, {"2000", 1}} {
		r, err := ParseRequest(url.Values{"clients": {c.clients}}, lim)
		if err != nil || r.loadScale != c.scale || r.outageScale != 32 {
			t.Errorf("%s clients: scales %g and %g, %v; want load %g, outage 32", c.clients, r.loadScale, r.outageScale, err, c.scale)
		}
	}
	_, err := ParseRequest(url.Values{"clients": {"4000"}}, lim)
	if es := scenario.Errors(err); len(es) != 1 || es[0].Name != "clients" || es[0].Value != "4000" {
		t.Errorf("4000 clients: %v", err)
	}
	lim.MaxSeeds = 3
	_, err = ParseRequest(url.Values{"seeds": {"4"}}, lim)
	if es := scenario.Errors(err); len(es) != 1 || es[0].Allow != "a whole number from 1 to 3" {
		t.Errorf("4 seeds of 3: %v", err)
	}
}

// TestRequestQueryRoundTrip: Query is read back by ParseRequest as the
// same request, and is canonical (a second trip writes the same text).
func TestRequestQueryRoundTrip(t *testing.T) {
	for _, q := range []url.Values{
		{},
		{"library": {"envoy"}, "a.min_delay": {"50ms"}, "seeds": {"3"}},
		{"library": {"grpc"}, "recover_within": {"20s"}, "attempts_per_request": {"2"}, "p99": {"500ms"}, "seed": {"7"}},
		{"success": {"0.95"}, "errors": {"0.03"}, "p99": {"0s"}},
		{"server_model": {"curve"}, "a.strategy": {"fixed"}, "rate": {"50"}},
		{"arrival": {"open"}, "rate": {"80"}, "outage": {"crash"}, "outage_for": {"10s"}, "library": {"polly"}},
		{"a.strategy": {"fixed"}, "a.min_delay": {"100ms"}},
	} {
		t.Run(scenario.EncodeQuery(q), func(t *testing.T) {
			r, err := ParseRequest(q, CLILimits)
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseRequest(r.Query(), CLILimits)
			if err != nil {
				t.Fatalf("ParseRequest(%s): %v", scenario.EncodeQuery(r.Query()), err)
			}
			if !reflect.DeepEqual(back, r) {
				t.Errorf("round trip of %s:\n got %+v\nwant %+v", scenario.EncodeQuery(r.Query()), back, r)
			}
			if a, b := scenario.EncodeQuery(r.Query()), scenario.EncodeQuery(back.Query()); a != b {
				t.Errorf("Query not canonical: %s then %s", a, b)
			}
		})
	}
}
