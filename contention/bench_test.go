package contention

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/backofflab/backofflab/strategies"
)

// BenchmarkSimulate measures one run at the blog's largest N for each
// strategy: events (messages) per second and bytes per run.
func BenchmarkSimulate(b *testing.B) {
	for _, name := range LineNames() {
		b.Run(name, func(b *testing.B) {
			l, _ := LineOf(name)
			b.ReportAllocs()
			events := 0
			for i := range b.N {
				pol, _ := strategies.New(l.Params)
				res, err := Simulate(context.Background(), 190, pol, DefaultNet, rand.New(rand.NewPCG(1, uint64(i))))
				if err != nil {
					b.Fatal(err)
				}
				events += 2 * (res.Reads + res.Calls)
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkBlogStudy measures the blog's whole study (19 Ns, 5
// strategies, 100 runs) on one worker.
func BenchmarkBlogStudy(b *testing.B) {
	spec := DefaultSpec()
	for range b.N {
		if _, err := Run(context.Background(), spec, Options{Parallel: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*spec.Points()*spec.Seeds)/b.Elapsed().Seconds(), "runs/s")
}
