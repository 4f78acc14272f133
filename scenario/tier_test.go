package scenario_test

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// FuzzTierList: no text makes ParseTiers panic; what it accepts is at most
// MaxTiers tiers, each in range, and writes back as a list that parses to
// the same tiers and writes back the same.
func FuzzTierList(f *testing.F) {
	for _, s := range []string{"", "fixed:3:1s", "fixed:3:1s,fixed:3:500ms", "exponential:10:1h:retry_budget,none:1:1ms:breaker",
		"grpc:2:1000ms,full_jitter:1:2s:aws_quota,decorrelated:9:0.25s:sre_throttle", "fixed:0:1s", "fixed:3:1s,", ":::", "a,b,c,d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := scenario.ParseTiers(s)
		if err != nil {
			return
		}
		if n := strings.Count(s, ",") + 1; len(ts) > scenario.MaxTiers || (s != "" && len(ts) != n) {
			t.Fatalf("%q: %d tiers", s, len(ts))
		}
		for _, tr := range ts {
			if tr.Attempts < 1 || tr.Attempts > scenario.MaxTierAttempts || tr.Timeout < time.Millisecond || tr.Timeout > time.Hour ||
				!slices.Contains(scenario.TierStrategies(), tr.Strategy) ||
				tr.Limiter != "" && !slices.Contains(scenario.TierLimiters(), tr.Limiter) {
				t.Fatalf("%q: tier %+v out of range", s, tr)
			}
		}
		back := scenario.TiersText(ts)
		again, err := scenario.ParseTiers(back)
		if err != nil || !slices.Equal(again, ts) {
			t.Fatalf("%q wrote back as %q: %v, %+v", s, back, err, again)
		}
		if back != scenario.TiersText(again) {
			t.Fatalf("%q: not canonical: %q then %q", s, back, scenario.TiersText(again))
		}
		p := scenario.Defaults()
		p.Lanes[0].Tiers = ts
		if err := p.Validate(); err != nil {
			t.Fatalf("%q: Validate refuses what ParseTiers gave: %v", s, err)
		}
	})
}

// TestTierListErrors: a bad list is refused at the edge: it names the tier
// (the client is tier 1), the field, the value and what the field allows;
// through ParseTiers, and Parse under the lane's parameter name.
func TestTierListErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"fixed:30:1s", `tier 2 ("fixed:30:1s"): attempts "30" is not a whole number from 1 to 10`},
		{"fixed:3:1s,fixed:3:0s", `tier 3 ("fixed:3:0s"): timeout "0s" is not a duration from 1ms to 1h0m0s`},
		{"fixed:3:1s,fixed:3:1s,backoff:3:1s", `tier 4 ("backoff:3:1s"): strategy "backoff" is not one of none, fixed, exponential, truncated, grpc, full_jitter, equal_jitter, decorrelated`},
		{"think_scaled:3:1s", `strategy "think_scaled" is not one of`},
		{"fixed:3:1s:bulkhead", `tier 2 ("fixed:3:1s:bulkhead"): limiter "bulkhead" is not one of grpc_throttle, aws_quota, aws_adaptive, sre_throttle, retry_budget, breaker, envoy_retry_limit`},
		{"fixed:3", `tier 2 ("fixed:3"): want strategy:attempts:timeout or strategy:attempts:timeout:limiter`},
		{"fixed:1:1s,fixed:1:1s,fixed:1:1s,fixed:1:1s", "4 tiers, at most 3 below the client"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := scenario.ParseTiers(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ParseTiers: %v, want %q", err, tc.want)
			}
			_, err = scenario.Parse(url.Values{"b.tiers": {tc.in}})
			pe := scenario.Errors(err)
			if len(pe) != 1 || pe[0].Name != "b.tiers" || pe[0].Value != tc.in || !strings.Contains(pe[0].Allow, tc.want) ||
				!strings.HasSuffix(pe[0].Allow, scenario.TierSyntax) {
				t.Errorf("Parse of b.tiers: %v", err)
			}
		})
	}
}

// TestTiersValidate: typed tiers that ParseTiers would not give are
// refused by Validate under the lane's parameter name, with the error
// ParseTiers gives of their text.
func TestTiersValidate(t *testing.T) {
	fixed := scenario.Tier{Strategy: strategies.NameFixed, Attempts: 3, Timeout: time.Second}
	with := func(f func(*scenario.Tier)) scenario.Tier {
		t := fixed
		f(&t)
		return t
	}
	for _, tc := range []struct {
		name string
		in   []scenario.Tier
		want string
	}{
		{"attempts", []scenario.Tier{with(func(t *scenario.Tier) { t.Attempts = 30 })}, `tier 2 ("fixed:30:1s"): attempts "30" is not a whole number from 1 to 10`},
		{"timeout", []scenario.Tier{fixed, with(func(t *scenario.Tier) { t.Timeout = 0 })}, `tier 3 ("fixed:3:0s"): timeout "0s" is not a duration from 1ms to 1h0m0s`},
		{"strategy", []scenario.Tier{with(func(t *scenario.Tier) { t.Strategy = strategies.NameThinkScaled })}, `strategy "think_scaled" is not one of`},
		{"limiter", []scenario.Tier{with(func(t *scenario.Tier) { t.Limiter = "bulkhead" })}, `tier 2 ("fixed:3:1s:bulkhead"): limiter "bulkhead" is not one of grpc_throttle, aws_quota, aws_adaptive, sre_throttle, retry_budget, breaker, envoy_retry_limit`},
		{"too many", []scenario.Tier{fixed, fixed, fixed, fixed}, "4 tiers, at most 3 below the client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := scenario.Defaults()
			p.Lanes[1].Tiers = tc.in
			pe := scenario.Errors(p.Validate())
			if len(pe) != 1 || pe[0].Name != "b.tiers" || pe[0].Value != scenario.TiersText(tc.in) || !strings.Contains(pe[0].Allow, tc.want) {
				t.Errorf("Validate: %v, want %q", pe, tc.want)
			}
		})
	}
}

// TestTierListRoundTrip: a lane's tiers go through Encode and Parse, and
// Map, as any parameter does, in their canonical text.
func TestTierListRoundTrip(t *testing.T) {
	p := scenario.Defaults()
	const a, b = "fixed:3:1s,exponential:2:500ms:retry_budget", "grpc:10:1h0m0s:breaker,none:1:1ms,full_jitter:4:2s:aws_quota"
	var err error
	if p.Lanes[0].Tiers, err = scenario.ParseTiers(a); err != nil {
		t.Fatal(err)
	}
	if p.Lanes[1].Tiers, err = scenario.ParseTiers(b); err != nil {
		t.Fatal(err)
	}
	back, err := scenario.Parse(p.Encode())
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Lanes {
		if !reflect.DeepEqual(back.Lanes[i], p.Lanes[i]) {
			t.Errorf("lane %d came back as %+v, want %+v", i, back.Lanes[i], p.Lanes[i])
		}
	}
	if got := p.Map()["b.tiers"]; got != b {
		t.Errorf("Map()[b.tiers] = %v", got)
	}
	if got := scenario.Defaults().Map()["a.tiers"]; got != "" {
		t.Errorf("the default tiers are %q, want none", got)
	}
}

// TestTierParams: a tier reads its lane's delays under its own strategy,
// its attempts as max_attempts, no deadline, and its one limiter on with
// that limiter's defaults, every other off, whatever the lane's.
func TestTierParams(t *testing.T) {
	lane, _ := strategies.Defaults(strategies.NameExponential)
	lane.MinDelay, lane.MaxDelay, lane.Factor, lane.Jitter = 250*time.Millisecond, 3*time.Second, 1.5, 0.3
	lane.MaxAttempts, lane.Deadline, lane.GRPCThrottle, lane.Breaker = 7, time.Minute, strategies.LimiterOn, strategies.BreakerRetries
	lane.BudgetPercent = 99
	for _, lim := range append([]string{""}, scenario.TierLimiters()...) {
		t.Run("limiter="+lim, func(t *testing.T) {
			tr := scenario.Tier{Strategy: strategies.NameFixed, Attempts: 4, Timeout: time.Second, Limiter: lim}
			got := tr.Params(lane)
			want, _ := strategies.Defaults(strategies.NameFixed)
			want.MinDelay, want.MaxDelay, want.Factor, want.Jitter = lane.MinDelay, lane.MaxDelay, lane.Factor, lane.Jitter
			want.MaxAttempts = 4
			switch lim {
			case "grpc_throttle":
				want.GRPCThrottle = strategies.LimiterOn
			case "aws_quota":
				want.AWSQuota = strategies.LimiterOn
			case "sre_throttle":
				want.SREThrottle = strategies.LimiterOn
			case "retry_budget":
				want.RetryBudget = strategies.LimiterOn
			case "breaker":
				want.Breaker = strategies.BreakerAll
			case "aws_adaptive":
				want.AWSAdaptive = strategies.LimiterOn
			case "envoy_retry_limit":
				want.EnvoyRetryLimit = strategies.EnvoyMaxRetries
			case "":
			default:
				t.Fatalf("a limiter the test does not know: %s", lim)
			}
			if got != want {
				t.Errorf("Params = %+v\nwant %+v", got, want)
			}
			pol, err := strategies.New(got)
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, l := range pol.Limiters() {
				kinds = append(kinds, fmt.Sprintf("%T", l))
			}
			if n := len(kinds); n != 1+min(1, len(lim)) {
				t.Errorf("limits %v, want max_attempts and the tier's limiter", kinds)
			}
		})
	}
	if got, want := scenario.TierLimiters(), []string{"grpc_throttle", "aws_quota", "aws_adaptive", "sre_throttle", "retry_budget", "breaker", "envoy_retry_limit"}; !slices.Equal(got, want) {
		t.Errorf("TierLimiters() = %v, want %v", got, want)
	}
}

// TestTiersRow: tiers is a lane row of the server's scope (every strategy,
// none included, reads it), which only the simulator implements.
func TestTiersRow(t *testing.T) {
	row, _, ok := scenario.Lookup("a.tiers")
	if !ok || !row.Lane || !row.SimOnly || row.Type != scenario.TypeTiers || row.Allowed() != scenario.TierSyntax {
		t.Fatalf("a.tiers: %+v", row)
	}
	for _, s := range strategies.Names() {
		if !scenario.Uses(s, "tiers") {
			t.Errorf("strategy %s does not read tiers", s)
		}
	}
}
