package simengine

import (
	"context"
	"net/url"
	"testing"
	"time"

	"backofflab/scenario"
)

// TestMeasureCost: a pilot that ends within its limit is measured whole;
// one that does not stops at its first slice past the limit, even when
// its first tick is far away: a storm of four lanes of 20 000 clients
// retrying every millisecond takes minutes of work to reach its first
// 10 s tick, which a pilot that waited for Engine.Now to move would run.
func TestMeasureCost(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		limit       time.Duration
		whole       bool
		slices      int // 0: any
	}{
		{"ends within its limit", "clients=100&duration=10s&lanes=1", time.Hour, true, 0},
		{"a storm of coarse ticks stops at its limit",
			"server_model=curve&lanes=4&a.strategy=fixed&b.strategy=fixed&c.strategy=fixed&d.strategy=fixed" +
				"&clients=20000&duration=1h&timeout=1ms&think=1ms&a.min_delay=1ms&b.min_delay=1ms&c.min_delay=1ms&d.min_delay=1ms" +
				"&tick=10s&max_server_delay=24h&backlog=1000000",
			time.Nanosecond, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			p, err := scenario.Parse(q)
			if err != nil {
				t.Fatal(err)
			}
			c, err := MeasureCost(context.Background(), p, nil, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if c.Whole != tc.whole || c.Time <= 0 || tc.slices > 0 && c.Slices != tc.slices {
				t.Errorf("cost %+v, want whole %v, a time, and %d slices", c, tc.whole, tc.slices)
			}
		})
	}
}
