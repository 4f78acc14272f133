package simengine

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// This file tests what bounds a run's cost: the memory budget that halts a
// lane, the bounded slices of Step, the outage history and the per-tick
// latency sample.

// simStorm is a retry storm that never ends: 2000 clients retrying every
// 10 ms with a 50 ms timeout against a server paused for good at 1 s, so
// that every attempt is abandoned in the backlog, then in the server, and
// its queue grows by about 40 000 requests a second. scenario.Lane b retries with
// exponential backoff capped at 10 s, and grows far more slowly.
func simStorm() scenario.Params {
	p := scenariotest.CurveDefaults()
	p.Clients = 2000
	p.Think = 100 * time.Millisecond
	p.Timeout = 50 * time.Millisecond
	p.OutageAt, p.OutageFor = time.Second, 2*time.Second
	p.Duration = 30 * time.Second
	p.MaxServerDelay = 24 * time.Hour
	a := simLane(strategies.NameFixed)
	a.MinDelay = 10 * time.Millisecond
	b := simLane(strategies.NameExponential)
	b.MaxDelay = 10 * time.Second
	p.Lanes = []scenario.Lane{a, b}
	return p
}

// TestBudgetHaltsLane: a lane whose queue outgrows its share of the run's
// budget (half of it, in two lanes) stops with a verdict that says so and
// its ticks carry no values from then on; the other lane runs to the end;
// the budget is never exceeded and all of it comes back. Where the lane
// stops does not depend on the other lane.
func TestBudgetHaltsLane(t *testing.T) {
	p := simStorm()
	const limit = 2 << 20
	pool := budget.NewPool(1 << 30)
	mem := budget.NewAccount(pool, limit)
	e, err := NewWithBudget(p, mem)
	if err != nil {
		t.Fatal(err)
	}
	var ticks []scenario.Tick
	peak := int64(0)
	for !e.Step(p.Duration, 5000, func(tk scenario.Tick) { ticks = append(ticks, tk) }) {
		peak = max(peak, mem.Used())
	}
	if peak > limit || pool.Used() != mem.Used() {
		t.Fatalf("budget used up to %d of %d; pool %d, run %d", peak, limit, pool.Used(), mem.Used())
	}
	halts := e.Halted()
	if halts[0] == nil || halts[1] != nil {
		t.Fatalf("halted lanes %v, want lane a only", halts)
	}
	h := halts[0]
	var ex *budget.ExceededError
	if !errors.As(h.Reason, &ex) || ex.Shared || ex.Limit != limit/2 || ex.Of != limit {
		t.Fatalf("lane a stopped for %v, want its share of the run's budget", h.Reason)
	}
	// What the queue held when it stopped is about what the budget buys:
	// a request costs its gap, two or three bytes at this storm's tens of
	// microseconds apart, beside the clients and the owners of the
	// requests still waited on.
	if h.Queued < limit/8 || h.Queued > limit/2 {
		t.Errorf("lane a stopped at %d queued requests, want %d to %d", h.Queued, limit/8, limit/2)
	}
	t.Logf("lane a stopped at %d queued requests: %.2f B each", h.Queued, float64(limit/2)/float64(h.Queued))
	sums := e.Summaries()
	s := sums[0]
	if !s.Collapsed || !strings.HasPrefix(s.Stopped, "collapsed: stopped at ") ||
		!strings.Contains(s.Stopped, "queued requests") || !strings.Contains(s.Stopped, "the memory budget of a run (2 MiB; 1 MiB a lane)") {
		t.Errorf("lane a's summary: collapsed %v, stopped %q", s.Collapsed, s.Stopped)
	}
	if sums[1].Stopped != "" {
		t.Errorf("lane b stopped: %q", sums[1].Stopped)
	}
	if s.Requests != s.Succeeded+s.GaveUp+s.Open {
		t.Errorf("lane a's bookkeeping: %d requests != %d ok + %d gave up + %d open", s.Requests, s.Succeeded, s.GaveUp, s.Open)
	}
	if len(ticks) != int(p.Duration/p.Tick) {
		t.Fatalf("%d ticks, want %d", len(ticks), p.Duration/p.Tick)
	}
	for _, tk := range ticks {
		a, b := tk.Lanes[0], tk.Lanes[1]
		after := time.Duration(tk.T*float64(time.Second)+0.5) > h.At+p.Tick
		v := a.Values()
		if after && (!a.Halted || !math.IsNaN(v[0]) || !math.IsNaN(v[6])) {
			t.Fatalf("lane a's tick at %v after its stop at %v has values %v", tk.T, h.At, v)
		}
		if b.Halted || math.IsNaN(b.OK) {
			t.Fatalf("lane b's tick at %v has no values", tk.T)
		}
	}
	e.release()
	if mem.Used() != 0 || pool.Used() != 0 {
		t.Errorf("after release: run %d, pool %d", mem.Used(), pool.Used())
	}

	// Lane a beside another lane b: it stops at the same event.
	q := p
	q.Lanes = []scenario.Lane{p.Lanes[0], p.Lanes[0]}
	e2, err := NewWithBudget(q, budget.NewAccount(nil, limit))
	if err != nil {
		t.Fatal(err)
	}
	e2.AdvanceTo(q.Duration, nil)
	if h2 := e2.Halted()[0]; h2 == nil || h2.String() != h.String() {
		t.Errorf("lane a beside another lane b stopped at %v, want %v", h2, h)
	}
}

// TestBudgetRefusesRun: a run whose initial state does not fit is refused
// with the budget it would exceed, and takes nothing.
func TestBudgetRefusesRun(t *testing.T) {
	p := scenariotest.CurveDefaults()
	p.Clients = 100_000
	pool := budget.NewPool(1 << 20)
	mem := budget.NewAccount(pool, 1<<30)
	_, err := NewWithBudget(p, mem)
	var ex *budget.ExceededError
	if !errors.As(err, &ex) || !ex.Shared {
		t.Fatalf("NewWithBudget: %v, want the pool's ExceededError", err)
	}
	if mem.Used() != 0 || pool.Used() != 0 {
		t.Errorf("a refused run holds %d (pool %d)", mem.Used(), pool.Used())
	}
}

// TestBudgetSharedPool: two runs drawing on one pool that holds less than
// both need: a lane halts on the pool's budget, not its own.
func TestBudgetSharedPool(t *testing.T) {
	p := simStorm()
	p.Lanes = p.Lanes[:1]
	pool := budget.NewPool(4 << 20)
	first, second := budget.NewAccount(pool, 64<<20), budget.NewAccount(pool, 64<<20)
	e1, err := NewWithBudget(p, first)
	if err != nil {
		t.Fatal(err)
	}
	e2, err := NewWithBudget(p, second)
	if err != nil {
		t.Fatal(err)
	}
	e1.AdvanceTo(p.Duration, nil)
	e2.AdvanceTo(p.Duration, nil)
	h := e2.Halted()[0]
	var ex *budget.ExceededError
	if h == nil || !errors.As(h.Reason, &ex) || !ex.Shared {
		t.Fatalf("second run's lane: %v, want halted on the pool", h)
	}
	if s := e2.Summaries()[0].Stopped; !strings.Contains(s, "the server's memory budget (4 MiB, shared by every page and export)") {
		t.Errorf("verdict %q", s)
	}
	if pool.Used() > pool.Max() {
		t.Errorf("pool used %d of %d", pool.Used(), pool.Max())
	}
}

// TestStepSlices: Step in slices of any size gives the ticks and verdicts
// of one AdvanceTo, and no slice processes more than it was given.
func TestStepSlices(t *testing.T) {
	p := simSmall()
	_, want := simRun(t, p)
	for _, n := range []int{1, 7, 1000, 65536} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			e := simNew(t, p)
			var got []scenario.Tick
			for {
				before, ticks := e.events(), len(got)
				done := e.Step(p.Duration, n, func(tk scenario.Tick) { got = append(got, tk) })
				if d := e.events() - before; d > int64(n) {
					t.Fatalf("a slice of %d events processed %d", n, d)
				}
				if k := len(got) - ticks; k > n/(tickCost*len(p.Lanes))+1 {
					t.Fatalf("a slice of %d events emitted %d ticks", n, k)
				}
				if done {
					break
				}
			}
			simSameTicks(t, "sliced", want, got)
		})
	}
}

// events counts the events e's lanes processed.
func (e *Engine) events() int64 {
	var n int64
	for _, l := range e.lanes {
		n += l.events
	}
	return n
}

// TestStepSettle: a change between two slices applies at one time in every
// lane, however far each got.
func TestStepSettle(t *testing.T) {
	p := simSmall()
	p.Outage = scenario.OutageNone
	e := simNew(t, p)
	for !e.Step(5*time.Second, 3000, nil) {
	}
	// Slices of 3001 events stop inside some lane sooner or later.
	for k := 0; e.lanes[0].now == e.lanes[1].now; k++ {
		if k == 1000 || e.Step(p.Duration, 3001, nil) {
			t.Fatalf("both lanes at %v: no slice stopped inside one", e.lanes[0].now)
		}
	}
	e.Outage(true)
	for i, l := range e.lanes {
		if l.now != e.Now() {
			t.Errorf("lane %d at %v, the engine at %v", i, l.now, e.Now())
		}
	}
	if o := e.Outages(); len(o) != 1 || o[0][0] != e.Now() {
		t.Errorf("outages %v, want one from %v", o, e.Now())
	}
	simCheck(t, e, "after the settled outage", nil)
}

// TestOutageHistoryBounded: a page that toggles the server thousands of
// times leaves the run its latest MaxOutages outages.
func TestOutageHistoryBounded(t *testing.T) {
	p := simSmall()
	p.Outage = scenario.OutageNone
	e := simNew(t, p)
	const n = 1000
	for k := range n {
		e.AdvanceTo(time.Duration(k+1)*time.Millisecond, nil)
		e.Outage(k%2 == 0)
	}
	o := e.Outages()
	if len(o) != MaxOutages || e.OutagesDropped() != n/2-MaxOutages {
		t.Fatalf("%d outages kept, %d dropped; want %d and %d", len(o), e.OutagesDropped(), MaxOutages, n/2-MaxOutages)
	}
	if e.OutageCount() != n/2 {
		t.Errorf("OutageCount() = %d, want every outage so far, %d", e.OutageCount(), n/2)
	}
	if last := o[len(o)-1]; last != [2]time.Duration{(n - 1) * time.Millisecond, n * time.Millisecond} {
		t.Errorf("the latest outage is %v", last)
	}
}

// TestLatencySample: past maxLat successes in a tick, the lane keeps a
// uniform sample of maxLat latencies.
func TestLatencySample(t *testing.T) {
	p := scenariotest.CurveDefaults()
	l := newLane(&p, 0, nil)
	const n = 10 * maxLat
	for k := range n {
		l.latency(time.Duration(k))
	}
	if len(l.lat) != maxLat {
		t.Fatalf("kept %d latencies, want %d", len(l.lat), maxLat)
	}
	// A uniform sample of 0..n-1 has mean n/2, with a standard error of
	// n/sqrt(12·maxLat) ≈ 0.0011·n.
	var sum float64
	late := 0
	for _, d := range l.lat {
		sum += float64(d)
		if d >= n/2 {
			late++
		}
	}
	if mean := sum / maxLat; math.Abs(mean-n/2) > 0.01*n {
		t.Errorf("sample mean %.0f, want %d ± 1%%", mean, n/2)
	}
	if late < maxLat*45/100 || late > maxLat*55/100 {
		t.Errorf("%d of %d sampled from the second half", late, maxLat)
	}
}

// TestCurveCacheBounded: a curve so flat that it never reaches its cap
// keeps at most maxOver levels and still answers exactly.
func TestCurveCacheBounded(t *testing.T) {
	p := scenariotest.CurveDefaults()
	p.ServerFactor, p.ServerK = 1.0001, 1_000_000
	c := newCurve(&p)
	for _, n := range []int{10, 1000, maxOver, maxOver + 31, 5_000_000} {
		if got, want := c.delay(n), c.lat.Delay(n); got != want {
			t.Errorf("delay(%d) = %v, want %v", n, got, want)
		}
	}
	if len(c.over) > maxOver {
		t.Errorf("the cache holds %d levels, more than %d", len(c.over), maxOver)
	}
}

// TestCurveCacheExact: the cache answers what the latency says at every
// level, below, at and past the level where 001's curve reaches its cap.
func TestCurveCacheExact(t *testing.T) {
	p := scenariotest.CurveDefaults()
	c := newCurve(&p)
	for _, n := range []int{0, 31, 3000, 3300, 40000, 1000, 29, 30, 5000} {
		if got, want := c.delay(n), c.lat.Delay(n); got != want {
			t.Errorf("delay(%d) = %v, want %v", n, got, want)
		}
	}
	if !c.capped || c.top != p.MaxServerDelay {
		t.Errorf("capped %v at %v, want the cache to stop at max_server_delay %v", c.capped, c.top, p.MaxServerDelay)
	}
}

// TestRunStopsWhenCancelled: a run whose context ends stops within a slice,
// its lanes one after the other or apart. The storm is of 20 clients: lanes
// apart emit their first tick only once their first round (runAhead ticks)
// is done, and 2000 clients' round ran for minutes under -race before the
// cancel could come.
func TestRunStopsWhenCancelled(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(context.Context, scenario.Params, *budget.Account, func(scenario.Tick)) ([]scenario.Summary, error)
	}{
		{"sequential", RunWithBudget},
		{"parallel", RunParallel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := simStorm()
			p.Clients = 20
			p.Duration = time.Hour
			p.Lanes = append(p.Lanes, p.Lanes[0])
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ticks := 0
			_, err := tc.run(ctx, p, nil, func(scenario.Tick) {
				if ticks++; ticks == 50 {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("run: %v, want context.Canceled", err)
			}
			if total := int(p.Duration / p.Tick); ticks >= total {
				t.Errorf("the run went on to its end (%d ticks) after the cancel", ticks)
			}
		})
	}
}

// TestLanesApartStopWhenDone: lanes advancing apart in a round without a
// bound on its events stop within SliceEvents events each once the run's
// done is closed, short of the round's target.
func TestLanesApartStopWhenDone(t *testing.T) {
	p := simStorm()
	p.Duration = time.Hour
	p.Lanes = append(p.Lanes, p.Lanes[0])
	e := simNew(t, p)
	e.alwaysParallel = true
	done := make(chan struct{})
	close(done)
	e.done = done
	e.openRound()
	n := math.MaxInt
	if e.runRound(p.Duration, &n, true) {
		t.Fatal("the round reached the run's end with its done closed")
	}
	for k, l := range e.lanes {
		if a := e.round.lanes[k]; a.events > SliceEvents+tickCost*len(a.pend) {
			t.Errorf("lane %d processed %d events (%d ticks) after done, want at most a slice (%d)", k, a.events, len(a.pend), SliceEvents)
		}
		if l.now >= p.Duration {
			t.Errorf("lane %d reached %v", k, l.now)
		}
	}
}

// TestEventsDoNotAllocate: a second of 001's run, about a thousand events a
// lane, allocates little more than its ten ticks: no event allocates.
func TestEventsDoNotAllocate(t *testing.T) {
	testrace.SkipUnder(t, detectorAllocates)
	p := scenariotest.CurveDefaults()
	p.Duration = time.Hour
	checkEventsDoNotAllocate(t, p)
}

// detectorAllocates is why a test that counts allocations skips under
// -race: the detector allocates on its own.
const detectorAllocates = "the race detector allocates on its own"

// checkEventsDoNotAllocate checks that a second of p's run, past its
// start, allocates little more than its ten ticks. Its callers skip under
// -race (detectorAllocates).
func checkEventsDoNotAllocate(t *testing.T, p scenario.Params) {
	t.Helper()
	e := simNew(t, p)
	simAdvance(t, e, 5*time.Second) // past the start's growth
	at := 5 * time.Second
	allocs := testing.AllocsPerRun(20, func() {
		at += time.Second
		e.AdvanceTo(at, func(scenario.Tick) {})
	})
	if allocs > 40 {
		t.Errorf("%.0f allocations a virtual second, want about the ticks' 10", allocs)
	}
}
