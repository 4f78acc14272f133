package simengine

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// BenchmarkQueue is the baseline the engine is measured against: the bare
// event queue (the engine's: see BenchmarkQueueCandidates for the others)
// in the hold model (pop the earliest event, schedule it again
// an exponential time later) with as many pending events as the engine has
// clients per lane.
func BenchmarkQueue(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		b.Run(sizeName(n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			q := testQueue(0, n)
			for c := range n {
				q.schedule(int32(c), time.Duration(rng.ExpFloat64()*float64(10*time.Second)))
			}
			b.ResetTimer()
			for b.Loop() {
				e := q.top()
				q.schedule(e.c, e.at+time.Duration(rng.ExpFloat64()*float64(10*time.Second)))
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkState measures the engine's state per client: what New allocates
// for 100 000 clients in two lanes, divided by the clients.
func BenchmarkState(b *testing.B) {
	p := scenariotest.CurveDefaults()
	p.Clients = 100_000
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	for b.Loop() {
		if _, err := New(p); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.TotalAlloc-before)/float64(b.N)/float64(p.Clients), "B/client")
}

// BenchmarkEngine runs whole scenarios: (a) 001's two-lane comparison on
// its latency curve, fixed against think_scaled, (b) 100 000 clients for
// 120 s with lane fixed on that curve, and a million (skipped with
// -short), (c) the worker queue with lanes
// fixed and exponential, and (d) the same with two tiers of three
// attempts behind each lane's clients (layered retries), (e) the queue's
// lanes under open-loop arrivals, 100 a second, and (f) the 100 000
// clients of (b) in two herds, one at once and one of half of them over
// 5 s. It reports events per second, virtual seconds per wall second, and
// the bytes allocated per client over the whole run.
func BenchmarkEngine(b *testing.B) {
	curve := scenario.Defaults()
	curve.ServerModel = "curve"
	curve.Lanes = []scenario.Lane{simLane(strategies.NameFixed), simLane(strategies.NameThinkScaled)}
	big := curve
	big.Clients = 100_000
	big.Lanes = []scenario.Lane{simLane(strategies.NameFixed)}
	huge := big
	huge.Clients = 1_000_000
	queue := curve
	queue.ServerModel = scenario.QueueModel
	queue.Lanes = []scenario.Lane{simLane(strategies.NameFixed), simLane(strategies.NameExponential)}
	tiers := queue
	tiers.Lanes = []scenario.Lane{simLane(strategies.NameFixed), simLane(strategies.NameExponential)}
	for i := range tiers.Lanes {
		tiers.Lanes[i].Tiers = mustTiers("fixed:3:1s,fixed:3:500ms")
	}
	open := queue
	open.Arrival, open.Rate = scenario.ArrivalOpen, 100
	herd := big
	herd.Faults = mustFaults("herd:60s:0s:1,herd:90s:5s:0.5")
	for _, bc := range []struct {
		name string
		p    scenario.Params
	}{
		{"default", curve},
		{"fixed100k", big},
		{"fixed1M", huge},
		{"queue", queue},
		{"tiers", tiers},
		{"open", open},
		{"herd100k", herd},
	} {
		b.Run(bc.name, func(b *testing.B) {
			if testing.Short() && bc.p.Clients >= 1_000_000 {
				b.Skip("a million clients take seconds a run")
			}
			var events int64
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			for b.Loop() {
				e, err := New(bc.p)
				if err != nil {
					b.Fatal(err)
				}
				e.AdvanceTo(bc.p.Duration, nil)
				for _, l := range e.lanes {
					events += l.events
				}
			}
			runtime.ReadMemStats(&ms)
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(events)/sec, "events/s")
			b.ReportMetric(float64(b.N)*bc.p.Duration.Seconds()/sec, "virtual-s/s")
			b.ReportMetric(float64(ms.TotalAlloc-before)/float64(b.N)/float64(bc.p.Clients), "B/client")
		})
	}
}

func sizeName(n int) string {
	if n >= 1000 {
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// BenchmarkQueuedRequest measures what a request queued in the server
// costs, as a storm piles them up: the bytes allocated per request pushed
// into a queue of a million, chunks included, each a microsecond after the
// last, by 20 000 clients that each abandon their previous request as
// they send the next.
func BenchmarkQueuedRequest(b *testing.B) {
	const n, clients = 1 << 20, 20_000
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	prev := make([]uint64, clients)
	for b.Loop() {
		var f fifo
		for k := range n {
			c := int32(k % clients)
			if k >= clients {
				f.abandon(prev[c], c)
			}
			abs, err := f.push(time.Duration(k)*time.Microsecond, c, nil)
			if err != nil {
				b.Fatal(err)
			}
			prev[c] = abs
		}
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.TotalAlloc-before)/float64(b.N)/n, "B/request")
	b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "requests/s")
}

// BenchmarkSlice measures the engine at the worst a page may ask: four
// lanes of 20 000 clients retrying every millisecond, in slices of
// SliceEvents events, as a session runs it. It reports the wall time of a
// slice, the longest a page waits for an answer.
func BenchmarkSlice(b *testing.B) {
	p, e := worstPage(b)
	for b.Loop() {
		if e.Step(p.Duration, SliceEvents, nil) {
			e.Reset()
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*1e3, "ms/slice")
}

// worstPage is the engine of the worst run a page may ask: four lanes of
// 20 000 clients retrying every millisecond, with its scenario.
func worstPage(b *testing.B) (scenario.Params, *Engine) {
	b.Helper()
	p := scenariotest.CurveDefaults()
	p.Clients, p.Think, p.Timeout, p.Tick = 20_000, time.Millisecond, time.Millisecond, 10*time.Millisecond
	p.MaxServerDelay, p.Backlog, p.Duration = 24*time.Hour, 1_000_000, time.Hour
	p.Lanes = nil
	for range scenario.MaxLanes {
		l := scenario.DefaultLane(0)
		l.MinDelay = time.Millisecond
		p.Lanes = append(p.Lanes, l)
	}
	e, err := NewWithBudget(p, budget.NewAccount(nil, 128<<20))
	if err != nil {
		b.Fatal(err)
	}
	return p, e
}

// BenchmarkSummaries measures what a session adds to each slice of
// BenchmarkSlice's run when it asks for the lanes' summaries: the verdicts
// and the figures per request, whose open requests are counted client by
// client.
func BenchmarkSummaries(b *testing.B) {
	p, e := worstPage(b)
	for range 20 {
		e.Step(p.Duration, SliceEvents, nil)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Summaries()
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*1e3, "ms/summaries")
}
