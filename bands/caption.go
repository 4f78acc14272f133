package bands

import "fmt"

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
