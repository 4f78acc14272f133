package sweep

import (
	"context"
	"testing"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/cputime"
)

// benchSweep is 8 cells of the landing view (a worker queue paused at
// 20 s, lane a fixed, lane b exponential, 120 s of virtual time): outages
// of 5 to 30 s for 500 and 2000 clients, storms and recoveries alike.
const benchSweep = "x=outage_for&x_from=5s&x_to=30s&x_steps=4&y=clients&y_from=500&y_to=2000&y_steps=2"

// map001 is 001's map: 32×32 cells of outages of 1 to 60 s by 100 to
// 3000 clients, 001's curve server, lane b retrying as 001's program did.
const map001 = "server_model=curve&b.strategy=think_scaled&x=outage_for&x_from=1s&x_to=60s&x_steps=32&y=clients&y_from=100&y_to=3000&y_steps=32&y_scale=log"

// BenchmarkCells measures cells per second on 1 and then 2 workers, in the
// same benchmark run, and their ratio: the speed-up that running cells on
// two cores gives (2 at best, less when the other core is busy or when one
// slow cell ends the sweep alone).
func BenchmarkCells(b *testing.B) {
	s := mustSpec(b, benchSweep)
	var took [2]time.Duration
	for b.Loop() {
		for w := range took {
			start := time.Now()
			if err := Run(context.Background(), s, Options{Parallel: w + 1}, func(Cell) {}); err != nil {
				b.Fatal(err)
			}
			took[w] += time.Since(start)
		}
	}
	rate := func(d time.Duration) float64 { return float64(b.N*s.Cells()) / d.Seconds() }
	b.ReportMetric(rate(took[0]), "cells/s_1worker")
	b.ReportMetric(rate(took[1]), "cells/s_2workers")
	b.ReportMetric(took[0].Seconds()/took[1].Seconds(), "speedup")
	b.ReportMetric(0, "ns/op") // an op is both sweeps: the rates say more
}

// BenchmarkMap001 runs the map of 001's experiment as published (its curve
// server, lane b retrying as 001's program did): 32 outage lengths from
// 1 s to 1 min by 32 client counts from 100 to 3000 (log), 1024 cells of
// two lanes, 120 s of virtual time each. It takes minutes: run it alone,
// with -benchtime 1x, and -cpuprofile to see where the time goes.
func BenchmarkMap001(b *testing.B) {
	s := mustSpec(b, map001)
	for b.Loop() {
		if err := Run(context.Background(), s, Options{}, func(Cell) {}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*s.Cells())/b.Elapsed().Seconds(), "cells/s")
}

// BenchmarkMap001Cell measures two cells of BenchmarkMap001's map: a dear
// one, where both lanes storm (3000 clients, the longest outage), and the
// cheapest (100 clients, 1 s): the engine's cost follows the events, and a
// storm's thousands of clients retry every 100 ms.
func BenchmarkMap001Cell(b *testing.B) {
	s := mustSpec(b, map001)
	for _, bc := range []struct {
		name string
		cell int
	}{{"storm", s.Cells() - 1}, {"calm", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			k := s.Cell(bc.cell)
			var c Cell
			var err error
			for b.Loop() {
				if c, err = runCell(context.Background(), k, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(c.Lanes[0].Summary.Attempts+c.Lanes[1].Summary.Attempts), "attempts")
		})
	}
}

// BenchmarkEstimate reports how far a map's estimate (EstimateCost, its
// corners measured for up to 250 ms each) is from the CPU time its cells
// take, run one after the other: est/actual, for maps of the three
// server models and a map of long runs.
func BenchmarkEstimate(b *testing.B) {
	for _, bc := range []struct{ name, query string }{
		{"curve", "server_model=curve&x=outage_for&x_from=1s&x_to=60s&x_steps=16&y=clients&y_from=50&y_to=1000&y_steps=16"},
		{"queue", "x=outage_for&x_from=1s&x_to=60s&x_steps=16&y=clients&y_from=100&y_to=3000&y_steps=16"},
		{"landing", "x=b.min_delay&x_from=10ms&x_to=10s&x_scale=log&x_steps=16&y=b.factor&y_from=1&y_to=4&y_steps=16"},
		{"long", "x=outage_for&x_from=10s&x_to=40s&x_steps=2&y=clients&y_from=5000&y_to=20000&y_steps=2&duration=1h&a.strategy=fixed"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := mustSpec(b, bc.query)
			pool := budget.NewPool(8 << 30)
			memory := func() (*budget.Account, error) { return budget.NewAccount(pool, 128<<20), nil }
			for b.Loop() {
				est, err := EstimateCost(context.Background(), s, 250*time.Millisecond, memory)
				if err != nil {
					b.Fatal(err)
				}
				var actual time.Duration
				for i := range s.Cells() {
					mem, _ := memory()
					actual += cputime.Measure(func() { _, err = RunCell(context.Background(), s, i, mem) })
					mem.Close()
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(est.Total())/float64(actual), "est/actual")
				b.ReportMetric(actual.Seconds(), "cpu-s")
			}
		})
	}
}

// BenchmarkCellParams measures what a cell costs before its run: its key
// and its scenario, built from the spec, for each cell of BenchmarkMap001's
// map in turn.
func BenchmarkCellParams(b *testing.B) {
	s := mustSpec(b, map001)
	i := 0
	for b.Loop() {
		if _, err := s.Cell(i).Params(); err != nil {
			b.Fatal(err)
		}
		i = (i + 1) % s.Cells()
	}
}
