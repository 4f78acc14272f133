package playground

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/reqhist"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// TestRequestEdges: the bins run 1-2-5 a decade from 1 ms up to the first
// edge at or past both the run's length and the longest latency, and a
// day's run, the longest the vocabulary takes, stays within
// maxRequestBins.
func TestRequestEdges(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name          string
		d, longest    time.Duration
		first, last   time.Duration
		n             int
		boundedByDays bool
	}{
		{"a 2 min run", 120 * time.Second, time.Second, ms, 200 * time.Second, 17, false},
		{"a run of exactly 5 s", 5 * time.Second, 0, ms, 5 * time.Second, 12, false},
		{"a latency past the run's length", 10 * time.Second, 11 * time.Second, ms, 20 * time.Second, 14, false},
		{"a day", 24 * time.Hour, 24 * time.Hour, ms, 100000 * time.Second, maxRequestBins, true},
		{"under 1 ms", time.Second, 0, ms, time.Second, 10, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := requestEdges(nil, tc.d, tc.longest)
			if len(e) != tc.n || e[0] != tc.first || e[len(e)-1] != tc.last {
				t.Fatalf("edges %v: %d from %v to %v, want %d from %v to %v", e, len(e), e[0], e[len(e)-1], tc.n, tc.first, tc.last)
			}
			if len(e) > maxRequestBins {
				t.Errorf("%d bins, more than maxRequestBins = %d", len(e), maxRequestBins)
			}
			for k := 1; k < len(e); k++ {
				if r := float64(e[k]) / float64(e[k-1]); r != 2 && r != 2.5 {
					t.Errorf("edge %v follows %v: a ratio of %g, want 2 or 2.5 (1-2-5)", e[k], e[k-1], r)
				}
			}
			if e[len(e)-1] < max(tc.d, tc.longest) || (len(e) > 1 && e[len(e)-2] >= max(tc.d, tc.longest)) {
				t.Errorf("last edges %v: want the first at or past %v", e[len(e)-2:], max(tc.d, tc.longest))
			}
		})
	}
}

// TestBinCountsByHand: latencies well inside their bins (at least 2 %
// from an edge, past the histogram's resolution) land in the bins one
// counts by hand.
func TestBinCountsByHand(t *testing.T) {
	var h reqhist.Histogram
	ms := time.Millisecond
	for _, v := range []time.Duration{0, ms / 2, 3 * ms / 2, 3 * ms, 3 * ms, 45 * ms, 2500 * ms, 119 * time.Second} {
		h.Record(v)
	}
	edges := requestEdges(nil, 120*time.Second, h.Max())
	got := binCounts(h.CountAtMost, edges, nil)
	// 1 ms, 2, 5, 10, 20, 50, 100, 200, 500, 1 s, 2, 5, 10, 20, 50, 100, 200
	want := []uint64{2, 1, 2, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	if !slices.Equal(got, want) {
		t.Errorf("bins %v, want %v (edges %v)", got, want, edges)
	}
}

// TestRequestsBookkeeping: in runs whose requests succeed, give up,
// are refused by a limiter and time out, each lane's bins add up to the
// requests that ended (the summary's succeeded plus gave up) and its
// successes' bins to its successes, every request counted once; summed
// up to each edge, they are CountAtMost at that edge, of the ended and of
// the successes; and the sentence says the summary's share.
func TestRequestsBookkeeping(t *testing.T) {
	for _, q := range []string{
		"clients=400&duration=40s&outage_at=10s&outage_for=10s&lanes=3&a.strategy=fixed&a.max_attempts=3" +
			"&b.strategy=full_jitter&c.strategy=grpc&patience=2s",
		"clients=200&duration=20s&outage_for=0s&faults=error_burst:0s:20s:0.1&lanes=2&a.strategy=none&b.strategy=exponential&patience=30s",
	} {
		t.Run(q, func(t *testing.T) {
			p := parseParams(t, q)
			sums, reqs, err := simengine.RunRequests(context.Background(), p, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := requestsOf(reqs, sums, p.Duration)
			if len(m.Edges) > maxRequestBins || m.Edges[len(m.Edges)-1] < p.Duration.Seconds() {
				t.Fatalf("edges %v: want at most %d reaching the run's length", m.Edges, maxRequestBins)
			}
			failed := false
			for i, l := range m.Lanes {
				s := sums[i]
				if s.GaveUp > 0 {
					failed = true
				}
				if got, want := sum(l.Ended), uint64(s.Succeeded+s.GaveUp); got != want || want == 0 {
					t.Errorf("lane %d: the bins hold %d requests, want the %d that ended (%d succeeded, %d gave up)", i, got, want, s.Succeeded, s.GaveUp)
				}
				if got := sum(l.OK); got != uint64(s.Succeeded) {
					t.Errorf("lane %d: the successes' bins hold %d, want %d", i, got, s.Succeeded)
				}
				var ended, ok uint64
				for k, e := range m.Edges {
					ended, ok = ended+l.Ended[k], ok+l.OK[k]
					d := time.Duration(e * float64(time.Second))
					if want := reqs[i].Ended.CountAtMost(d); ended != want {
						t.Errorf("lane %d: %d ended up to %v, CountAtMost says %d", i, ended, d, want)
					}
					if want := reqs[i].Succeeded.CountAtMost(d); ok != want {
						t.Errorf("lane %d: %d succeeded up to %v, CountAtMost says %d", i, ok, d, want)
					}
				}
				if l.SucceededWithin != s.SucceededWithin || l.P99 != s.RequestP99 || l.Patience != p.Patience.Seconds() {
					t.Errorf("lane %d: figures %+v, want the summary's", i, l)
				}
				if want := shareText(s.SucceededWithin) + " % succeeded within the patience of"; !strings.HasPrefix(l.Sentence, want) {
					t.Errorf("lane %d: sentence %q, want it to begin %q", i, l.Sentence, want)
				}
			}
			if !failed {
				t.Errorf("no lane gave up a request: the run tests the successes alone")
			}
		})
	}
}

func sum(v []uint64) uint64 {
	var n uint64
	for _, x := range v {
		n += x
	}
	return n
}

func parseParams(t *testing.T, q string) scenario.Params {
	t.Helper()
	vals, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Parse(vals)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestShareText: a share short of all never reads as 100 %.
func TestShareText(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{1, "100"}, {0.99, "99"}, {0.9876543, "98.77"}, {0.99995, "99.995"}, {0.9999999, "99.99999"}, {0, "0"}} {
		if got := shareText(tc.v); got != tc.want {
			t.Errorf("shareText(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestSocketRequests: a session sends the requests chart as the run goes
// and, once it ends, the run's whole: the bins of every lane add up to
// the requests that ended in the same run made headless.
func TestSocketRequests(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	q := "clients=300&duration=20s&outage_at=5s&outage_for=5s&a.strategy=fixed&a.max_attempts=2&b.strategy=full_jitter"
	sums, _, err := simengine.RunRequests(context.Background(), parseParams(t, q), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := dialPage(t, srv, q+"&speed=max")
	p.await("requests", func(m map[string]json.RawMessage) bool {
		var r requestsMsg
		if err := json.Unmarshal(mustJSON(m), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Lanes) != len(sums) {
			return false
		}
		for i, l := range r.Lanes {
			if sum(l.Ended) != uint64(sums[i].Succeeded+sums[i].GaveUp) || sum(l.OK) != uint64(sums[i].Succeeded) {
				return false
			}
		}
		return true
	})
}
