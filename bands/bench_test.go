package bands

import (
	"context"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// BenchmarkRun measures a band of the landing view with 20 seeds on every
// core: seeds simulated per second and the memory the band keeps.
func BenchmarkRun(b *testing.B) {
	p := scenario.Defaults()
	const seeds = 20
	for b.Loop() {
		if _, err := Run(context.Background(), p, seeds, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(seeds*b.N)/b.Elapsed().Seconds(), "seeds/s")
	b.ReportMetric(float64(Bytes(p, seeds))/(1<<20), "MiB-kept")
}
