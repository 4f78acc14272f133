package bands

import (
	"fmt"
	"slices"

	"github.com/backofflab/backofflab/strategies"
)

// caption.go says a band's figures in words for the seed bands page: the
// server writes them and the page shows them as they come, so that the
// page's script keeps no sentence of its own.

// Collapsed says how many of r's seeds lane i collapsed in: "2 of 5
// seeds collapsed"; "" for no such lane.
func (r *Result) Collapsed(i int) string {
	if i < 0 || i >= len(r.Lanes) {
		return ""
	}
	return fmt.Sprintf("%d of %d seeds collapsed", r.Lanes[i].Collapsed, r.Seeds)
}

// Caption says what an exported chart of r's lane i shows, chart being
// the chart's title: the lane and its strategy, the median line and 5–95 %
// band across which seeds, whether they are 1 s averages, and how many
// seeds collapsed. "" for no such lane.
func (r *Result) Caption(i int, chart string, averaged bool) string {
	if i < 0 || i >= len(r.Lanes) {
		return ""
	}
	l := r.Lanes[i]
	avg := ""
	if averaged {
		avg = ", 1 s averages"
	}
	first := r.Params.Seed
	return fmt.Sprintf("Lane %s (%s): %s, median line and 5–95 %% band across %d seeds (%d to %d)%s; %s.",
		l.Name, l.Strategy, chart, r.Seeds, first, first+uint64(max(r.Seeds, 1))-1, avg, r.Collapsed(i))
}

// Requests says what lane i's users saw of its requests one by one across
// r's seeds: the p99 of the latency of the requests that ended, then the
// share that succeeded within the patience, each as its median over the
// seeds (nearest rank) and the least and the greatest a seed had. "" for
// no such lane or one without seeds.
func (r *Result) Requests(i int) string {
	if i < 0 || i >= len(r.Lanes) || len(r.Lanes[i].Outcomes) == 0 {
		return ""
	}
	out := r.Lanes[i].Outcomes
	p99, within := make([]float64, len(out)), make([]float64, len(out))
	for k, o := range out {
		p99[k], within[k] = o.Summary.RequestP99, 100*o.Summary.SucceededWithin
	}
	a, b := spread(p99), spread(within)
	return fmt.Sprintf("request p99 %.3g s (median; %.3g s to %.3g s); %.2f %% succeeded within the patience of %v (median; %.2f %% to %.2f %%)",
		a[1], a[0], a[2], b[1], r.Params.Patience, b[0], b[2])
}

// spread returns the least, the median (nearest rank) and the greatest of
// vals, which it sorts in place.
func spread(vals []float64) [3]float64 {
	slices.Sort(vals)
	return [3]float64{vals[0], strategies.Quantile(vals, 0.5), vals[len(vals)-1]}
}
