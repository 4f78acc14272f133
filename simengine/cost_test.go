package simengine

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
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

// TestMeasureCostCountsChanges: a pilot that stops before a live change
// to twenty times the clients is extrapolated at the load the change
// brings, not the first clients': its estimate is at least half the run's
// measured whole (the first clients' rate alone gives about a fifth).
func TestMeasureCostCountsChanges(t *testing.T) {
	q := url.Values{"lanes": {"1"}, "clients": {"500"}, "duration": {"10m"}, "think": {"1s"},
		"changes": {"@8m clients=10000"}}
	p, err := scenario.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := MeasureCost(context.Background(), p, nil, time.Hour)
	if err != nil || !whole.Whole {
		t.Fatalf("whole run: %+v, %v", whole, err)
	}
	pilot, err := MeasureCost(context.Background(), p, nil, time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	if pilot.Whole || pilot.Time < whole.Time/2 {
		t.Errorf("a pilot of %d slices estimated %v, the whole run took %v: the change to 10000 clients at 8m is not counted",
			pilot.Slices, pilot.Time, whole.Time)
	}
}

// TestWorkShare: the share of a run's load put on by a virtual time
// follows its live changes of the load.
func TestWorkShare(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		at          time.Duration
		want        float64
	}{
		{"no change", "duration=100s", 50 * time.Second, 0.5},
		{"ten times the clients halfway", "duration=100s&clients=100&changes=@50s clients=1000", 50 * time.Second, 1.0 / 11},
		{"think halved halfway", "duration=100s&think=2s&changes=@50s think=1s", 75 * time.Second, 2.0 / 3},
		{"open loop's rate", "duration=100s&arrival=open&rate=10&changes=@50s rate=30", 50 * time.Second, 0.25},
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
			if got := workShare(&p, tc.at); got < tc.want-1e-9 || got > tc.want+1e-9 {
				t.Errorf("workShare at %v = %v, want %v", tc.at, got, tc.want)
			}
		})
	}
}
