package web

// The playground's delay chart draws what strategies.RetryDelays
// computes, which "backofflab delays" prints. Run it with:
// go test -run BrowserDelays -v ./web
//
// BACKOFFLAB_SCREENSHOTS=/some/dir keeps a screenshot of the chart there.

import (
	"math"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// TestBrowserDelays opens the lane libconfig/testdata/envoy_route.yaml
// imports (Envoy's back-off from 50 ms to 1 s, 4 attempts, the cluster's
// retry budget) and reads the delay chart's series: its retries, its 5th
// percentile, its 5–95 % band and its median are RetryDelays' for the
// lane, the numbers "backofflab delays -lib envoy" prints.
func TestBrowserDelays(t *testing.T) {
	t.Parallel() // its own server and browser context
	env := &browserEnv{ctx: startBrowser(t)}
	srv, _, _ := serveShell(t, Options{Limits: Limits{RunMemory: 32 << 20}})
	env.base = srv.URL
	const query = "lanes=1&a.strategy=envoy&a.min_delay=50ms&a.max_delay=1s&a.max_attempts=4&a.deadline=15s" +
		"&a.per_try_timeout=2s&a.envoy_retry_limit=budget&a.envoy_max_retries=5&a.envoy_budget_percent=25" +
		"&a.envoy_min_retry_concurrency=10"
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	want, err := strategies.RetryDelays(p.Lanes[0].Params, p.Think, strategies.DelayRetries, strategies.DelayDraws, p.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Retries) != 3 {
		t.Fatalf("RetryDelays gives %d retries, want the lane's 3", len(want.Retries))
	}

	tb := openPage(t, env, query)
	const chart = `window.backofflab.charts()['delay.a']`
	tb.waitTrue("the delay chart draws lane a's retries",
		chart+` && (chart => { const s = chart.getOption().series.find(s => s.id === 'p50'); return s && s.data.length > 0; })(`+chart+`)`)
	got := eval[map[string][]float64](tb, `(() => {
		const o = `+chart+`.getOption();
		const num = v => (v !== null && typeof v === 'object') ? Number(v.value) : Number(v);
		const out = {retry: o.xAxis[0].data.map(num)};
		for (const s of o.series) out[s.id] = s.data.map(num);
		return out;
	})()`)
	for j, r := range want.Retries {
		for _, c := range []struct {
			series string
			want   float64
		}{
			{"retry", float64(r.Retry)},
			{"p5", r.P5.Seconds()},
			{"band", r.P95.Seconds() - r.P5.Seconds()},
			{"p50", r.P50.Seconds()},
		} {
			if j >= len(got[c.series]) {
				t.Errorf("retry %d: the chart's %s has %d points: %v", r.Retry, c.series, len(got[c.series]), got)
				continue
			}
			if g := got[c.series][j]; math.Abs(g-c.want) > 1e-12 {
				t.Errorf("retry %d: the chart's %s is %v, RetryDelays' %v", r.Retry, c.series, g, c.want)
			}
		}
	}
	if n := len(got["p50"]); n != len(want.Retries) {
		t.Errorf("the chart draws %d retries, RetryDelays has %d", n, len(want.Retries))
	}

	if dir := os.Getenv("BACKOFFLAB_SCREENSHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		eval[chromedp.Void](tb, chart+`.getDom().scrollIntoView({block: 'center'})`)
		eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
		b, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("screenshot: %v", err)
		}
		path := filepath.Join(dir, "delays-envoy-route-1280x800.png")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
	}
}
