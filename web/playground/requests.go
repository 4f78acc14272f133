package playground

import (
	"fmt"
	"time"

	"github.com/backofflab/backofflab/internal/present"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// The requests chart bins each lane's request latencies (from the first
// attempt to the final answer, waits included) 1-2-5 per decade: the
// first bin holds those up to requestBinLow, each next one those above
// the previous edge up to its own, and the last edge is the first at or
// past both the run's length and the longest latency recorded. Coarse
// bins read at a glance and keep the message small whatever the run: a
// run is at most a day long, so a lane has at most maxRequestBins bins.
const requestBinLow = time.Millisecond

// requestBinSteps are the edges of a decade, as multiples of its first.
var requestBinSteps = [...]time.Duration{1, 2, 5}

// maxRequestBins bounds a lane's bins: the edges from 1 ms to 100 000 s
// (past a day, the longest run the vocabulary takes, and so past any
// latency a run records), three a decade.
const maxRequestBins = 3*8 + 1

// requestEdges returns the bins' upper edges for a run of length d whose
// longest latency so far is longest: 1 ms, 2 ms, 5 ms, 10 ms, … up to the
// first edge at or past both. It appends to edges[:0].
func requestEdges(edges []time.Duration, d, longest time.Duration) []time.Duration {
	top := max(d, longest)
	edges = edges[:0]
	for decade := requestBinLow; ; decade *= 10 {
		for _, m := range requestBinSteps {
			e := decade * m
			edges = append(edges, e)
			if e >= top {
				return edges
			}
		}
	}
}

// requestsMsg is every lane's requests chart: the latency of each request
// that ended, binned (requestEdges), the successes apart, with the
// percentiles and the patience the chart marks. It is sent with the summaries, when a lane's requests
// ended since the last one, so at most once a slice of the run.
type requestsMsg struct {
	Type string `json:"type"` // "requests"
	// Edges are the bins' upper edges in seconds, shared by the lanes:
	// bin k holds the latencies above Edges[k−1] (from 0 for the first)
	// and at most Edges[k], each latency counted by the value that stands
	// for it in its histogram (reqhist.Histogram.CountAtMost).
	Edges []float64      `json:"edges"`
	Lanes []laneRequests `json:"lanes"`
}

// laneRequests is one lane's requests chart. A lane whose requests are
// not counted one by one (a running real lane) has no bins.
type laneRequests struct {
	// Ended counts, per bin, every request that ended (succeeded, given
	// up by its policy, refused by a limiter or a breaker, abandoned with
	// its client), and OK those that succeeded, each from its own
	// histogram (simengine.Requests): the chart draws the successes over
	// the whole, so what shows of the whole above them failed.
	Ended []uint64 `json:"ended"`
	OK    []uint64 `json:"ok"`
	// P50, P99 and P999 are the percentiles of every request that ended,
	// in seconds; Patience and SucceededWithin are the summary's
	// (scenario.Summary): the patience in seconds, and the share of the
	// requests that succeeded within it.
	P50             float64 `json:"p50"`
	P99             float64 `json:"p99"`
	P999            float64 `json:"p999"`
	Patience        float64 `json:"patience"`
	SucceededWithin float64 `json:"succeeded_within"`
	// OpenPastPatience counts the requests still open that their users
	// gave up on, which SucceededWithin counts as failed.
	OpenPastPatience int64 `json:"open_past_patience"`
	// Sentence says the chart's figures in words, the share that
	// succeeded within the patience first, for its subtitle and its
	// label for a screen reader.
	Sentence string `json:"sentence"`
}

// binCounts counts a histogram's values in the bins of edges, given its
// CountAtMost (reqhist.Histogram's): bin k holds atMost(edges[k]) −
// atMost(edges[k−1]), so the bins add up to atMost at every edge and,
// when the last edge is at or past the histogram's longest value, to
// every value it holds. It appends to bins[:0].
func binCounts(atMost func(time.Duration) uint64, edges []time.Duration, bins []uint64) []uint64 {
	bins = bins[:0]
	var below uint64
	for _, e := range edges {
		n := atMost(e)
		bins = append(bins, n-below)
		below = n
	}
	return bins
}

// laneRequestsOf is lane r's chart, its figures those of its summary s.
// A nil r (a lane that does not count its requests) has no bins.
func laneRequestsOf(r *simengine.Requests, edges []time.Duration, s *scenario.Summary) laneRequests {
	l := laneRequests{Ended: []uint64{}, OK: []uint64{}, Patience: s.Patience, SucceededWithin: s.SucceededWithin,
		OpenPastPatience: s.OpenPastPatience, P50: s.RequestP50, P99: s.RequestP99, P999: s.RequestP999}
	l.Sentence = requestsSentence(r, s)
	if r != nil {
		l.Ended = binCounts(r.Ended.CountAtMost, edges, l.Ended)
		l.OK = binCounts(r.Succeeded.CountAtMost, edges, l.OK)
	}
	return l
}

// requestsOf is the requests message of lanes' requests (nil for a lane
// that does not count them) and their summaries, for a run of length d.
func requestsOf(reqs []*simengine.Requests, sums []scenario.Summary, d time.Duration) requestsMsg {
	var longest time.Duration
	for _, r := range reqs {
		if r != nil {
			longest = max(longest, r.Ended.Max())
		}
	}
	edges := requestEdges(make([]time.Duration, 0, maxRequestBins), d, longest)
	m := requestsMsg{Type: "requests", Edges: make([]float64, len(edges))}
	for k, e := range edges {
		m.Edges[k] = e.Seconds()
	}
	for i, r := range reqs {
		m.Lanes = append(m.Lanes, laneRequestsOf(r, edges, &sums[i]))
	}
	return m
}

// requestsSentence says lane r's requests chart in words, its figures
// those of its summary s: the share that succeeded within the patience
// (with the requests still open past it, which count as failed), then the
// percentiles the chart marks.
func requestsSentence(r *simengine.Requests, s *scenario.Summary) string {
	switch {
	case r == nil:
		return "a real lane's requests are not timed one by one"
	case r.Ended.Count() == 0 && s.OpenPastPatience == 0:
		return "no request has ended yet"
	}
	out := fmt.Sprintf("%s %% succeeded within the patience of %s", shareText(s.SucceededWithin), present.Duration(s.Patience, 3))
	if s.OpenPastPatience > 0 {
		out += fmt.Sprintf(" (%s still open past it count as failed)", present.Thousands(float64(s.OpenPastPatience)))
	}
	if r.Ended.Count() == 0 {
		return out
	}
	return out + fmt.Sprintf("; p50 %s, p99 %s, p99.9 %s", present.Duration(s.RequestP50, 3),
		present.Duration(s.RequestP99, 3), present.Duration(s.RequestP999, 3))
}

// shareText writes a share as a percentage of four significant digits,
// more where those would round a share short of all up to 100: 99.995 %
// must not read as every request.
func shareText(v float64) string {
	for n := 4; ; n++ {
		if t := present.Sig(100*v, n); v >= 1 || t != "100" || n == 17 {
			return t
		}
	}
}
