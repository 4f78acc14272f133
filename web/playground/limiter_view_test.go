package playground

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// TestLimiterURLRoundTrips: a URL that turns limiters on and sets their
// parameters decodes to those values, and its canonical query decodes to
// the same run (every value it reads; lane b's strategy none reads no
// limiter, so the link leaves them out) and is its own canonical query;
// the lane panels show the limiters' controls with those
// values, hidden in a lane of strategy none, which reads no limiter; and
// they survive a change of strategy on the page.
func TestLimiterURLRoundTrips(t *testing.T) {
	raw := "a.strategy=exponential&a.grpc_throttle=on&a.grpc_token_ratio=0.25&a.aws_quota=on&a.aws_timeout_cost=12" +
		"&a.breaker=retries&a.breaker_open_for=30s&a.breaker_threshold=25" +
		"&b.strategy=none&b.sre_throttle=on&b.sre_k=1.1&b.retry_budget=on&b.budget_percent=10&b.budget_ttl=5s"
	q, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatal(err)
	}
	sc, errs := scene.Decode(q, kit.DefaultLimits)
	if len(errs) != 0 {
		t.Fatalf("decode: %v", errs)
	}
	a, b := sc.Params.Lanes[0], sc.Params.Lanes[1]
	if a.GRPCThrottle != strategies.LimiterOn || a.GRPCTokenRatio != 0.25 || a.GRPCMaxTokens != 10 ||
		a.AWSQuota != strategies.LimiterOn || a.AWSTimeoutCost != 12 || a.AWSRetryCost != strategies.DefaultAWSRetryCost ||
		a.Breaker != strategies.BreakerRetries || a.BreakerOpenFor != 30*time.Second || a.BreakerThreshold != 25 ||
		a.SREThrottle != strategies.LimiterOff || a.RetryBudget != strategies.LimiterOff {
		t.Errorf("lane a decoded as %+v", a.Params)
	}
	if b.SREThrottle != strategies.LimiterOn || b.SREK != 1.1 || b.RetryBudget != strategies.LimiterOn ||
		b.BudgetPercent != 10 || b.BudgetTTL != 5*time.Second || b.Breaker != strategies.LimiterOff {
		t.Errorf("lane b decoded as %+v", b.Params)
	}
	q2, err := url.ParseQuery(sc.Query())
	if err != nil {
		t.Fatal(err)
	}
	sc2, errs := scene.Decode(q2, kit.DefaultLimits)
	if d1, d2 := scenario.Diff(&sc.Params, &sc2.Params), scenario.Diff(&sc2.Params, &sc.Params); len(errs) != 0 || len(d1) != 0 || len(d2) != 0 {
		t.Errorf("the canonical query decodes to another run: %v, %v (%v)", d1, d2, errs)
	}
	if sc2.Query() != sc.Query() {
		t.Errorf("the canonical query %q encodes as %q", sc.Query(), sc2.Query())
	}
	if strings.Contains(sc.Query(), "b.sre_k") {
		t.Errorf("the canonical query %q holds a limiter of lane b, whose strategy none reads none", sc.Query())
	}

	v := newView(pageFor(t, raw))
	ctl := map[string]paramCtl{}
	for _, c := range allControls(v) {
		ctl[c.Name] = c
	}
	for name, want := range map[string]string{
		"a.grpc_throttle": "on", "a.grpc_token_ratio": "0.25", "a.aws_timeout_cost": "12", "a.breaker": "retries",
		"a.breaker_open_for": "30", "a.sre_throttle": "off", "b.sre_throttle": "on", "b.sre_k": "1.1",
		"b.budget_percent": "10", "b.budget_ttl": "5",
	} {
		c, ok := ctl[name]
		if !ok || c.Value != want {
			t.Errorf("%s shows %q (present: %v), want %q", name, c.Value, ok, want)
			continue
		}
		if hidden := name[0] == 'b'; c.Hidden != hidden {
			t.Errorf("%s hidden=%v, want %v (lane b's strategy is none)", name, c.Hidden, hidden)
		}
	}
	keep := newPageData("", sc.Params, nil).Keep
	for _, param := range scenario.Table {
		if param.Scope == scenario.ScopeLimiter && !slices.Contains(keep, param.Name) {
			t.Errorf("%s is dropped when the lane's strategy changes", param.Name)
		}
	}
}
