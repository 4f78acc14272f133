package simengine

import (
	"math"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// TestModelLinear checks the linear server against the closed loop solved
// by hand. With latency R = server_delay + server_slope × C, Little's law
// C = X·R and the clients' loop X = clients / (think + R), R solves
// R = b / (1 − s·X): for 1000 clients thinking 10 s, b = 100 ms and
// s = 4 ms, X ≈ 98.4 ok/s, R ≈ 0.165 s and C ≈ 16.2, where a flat 100 ms
// server would hold 9.9.
func TestModelLinear(t *testing.T) {
	t.Parallel()
	p := scenariotest.CurveDefaults()
	p.ServerModel, p.ServerSlope = "linear", 4*time.Millisecond
	p.Outage = scenario.OutageNone
	p.Duration = 300 * time.Second
	p.Lanes = []scenario.Lane{simLane(strategies.NameFixed)}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}

	// The fixed point, by bisection on X over (0, 1/s).
	b, s, z, n := p.ServerDelay.Seconds(), p.ServerSlope.Seconds(), p.Think.Seconds(), float64(p.Clients)
	lo, hi := 0.0, 1/s
	for range 100 {
		x := (lo + hi) / 2
		if x*(z+b/(1-s*x)) < n {
			lo = x
		} else {
			hi = x
		}
	}
	x := lo
	r := b / (1 - s*x)
	wantC := x * r

	for _, seed := range []uint64{1, 2} {
		p.Seed = seed
		_, ticks := simRun(t, p)
		win := simWindow(simSeries(ticks, 0), 10, 300)
		ok := simMean(win, func(lt scenario.LaneTick) float64 { return lt.OK })
		conc := simMean(win, func(lt scenario.LaneTick) float64 { return float64(lt.Concurrency) })
		lat := simMean(win, func(lt scenario.LaneTick) float64 { return lt.ServerLatency })
		t.Logf("seed %d: ok/s %.2f (formula %.2f), concurrency %.2f (%.2f), latency %.3f s (%.3f)", seed, ok, x, conc, wantC, lat, r)
		if math.Abs(ok-x) > 0.03*x {
			t.Errorf("seed %d: %.2f ok/s, want %.2f ± 3 %%", seed, ok, x)
		}
		if math.Abs(conc-wantC) > 0.1*wantC {
			t.Errorf("seed %d: mean concurrency %.2f, want %.2f ± 10 %%", seed, conc, wantC)
		}
		// The latency the server shows is its formula at the concurrency shown.
		for _, lt := range win {
			if want := b + s*float64(lt.Concurrency); math.Abs(lt.ServerLatency-want) > 1e-9 {
				t.Fatalf("t=%v: latency %v s at concurrency %d, want %v", lt.T, lt.ServerLatency, lt.Concurrency, want)
			}
		}
	}
}
