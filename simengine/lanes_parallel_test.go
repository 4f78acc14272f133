package simengine

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// This file tests the lanes in parallel: a run whose lanes advance each on
// a goroutine of its own has the same ticks, summaries and halts as the
// same run with its lanes one after the other, however its slices fall.

// parallelRun is what a run gave, to compare.
type parallelRun struct {
	ticks []scenario.Tick
	sums  string
	halts string
	rec   scenario.Params
	peak  int64 // the most of the budget the run held at a slice's end
	// faults is the engine's fault state (Down, Downs, Outages, their
	// kinds, OutageAhead) at each target, once reached.
	faults []string

	rounds int // the engine's parallel rounds
}

// The ways runLanesOf runs the lanes: one after the other, in parallel
// rounds of goroutines always, and as SetParallel decides (goroutines when
// a round has the work for them, else the lanes in turn on the caller's).
const (
	oneAfterOther = iota
	alwaysApart
	asSetParallel
)

// runLanesOf runs p within a budget of limit bytes (none for 0), in slices
// of slice events toward targets every of virtual time apart, its lanes as
// way says, and makes each of changes when the run has reached its time at
// the end of a whole step.
func runLanesOf(t *testing.T, p scenario.Params, limit int64, slice int, every time.Duration, way int, changes map[time.Duration]func(*Engine, func(scenario.Tick))) parallelRun {
	t.Helper()
	var mem *budget.Account
	if limit > 0 {
		mem = budget.NewAccount(nil, limit)
	}
	e, err := NewWithBudget(p, mem)
	if err != nil {
		t.Fatalf("NewWithBudget: %v", err)
	}
	e.alwaysParallel = way == alwaysApart
	e.SetParallel(way == asSetParallel)
	var r parallelRun
	emit := func(tk scenario.Tick) { r.ticks = append(r.ticks, tk) }
	held := func() {
		if mem != nil {
			r.peak = max(r.peak, mem.Used())
		}
	}
	for target := every; e.Now() < p.Duration; target = min(p.Duration, target+every) {
		for !e.Step(target, slice, emit) {
			held()
		}
		held()
		// A Step that reached its target within its slice may leave the
		// transitions at the target itself to the next: one more,
		// unbounded, takes them.
		e.Step(target, math.MaxInt, emit)
		r.faults = append(r.faults, fmt.Sprint(e.Now(), e.Down(), e.Downs(), e.Outages(), e.OutageKinds(), e.OutageAhead()))
		if c, ok := changes[e.Now()]; ok {
			c(e, emit)
		}
	}
	r.sums, r.halts, r.rec = simJSON(t, e.Summaries()), simJSON(t, e.Halted()), e.Record()
	r.rounds = e.round.rounds
	e.release()
	if mem != nil && mem.Used() != 0 {
		t.Errorf("the run holds %d bytes of its budget after its release", mem.Used())
	}
	return r
}

func TestParallelLanesMatchSequential(t *testing.T) {
	t.Parallel()
	four := simSmall()
	four.Lanes = []scenario.Lane{simLane(strategies.NameFixed), simLane(strategies.NameExponential),
		simLane(strategies.NameThinkScaled), simLane(strategies.NameFixed)}
	four.Lanes[3].CancelOnTimeout = true
	tiers := simSmall()
	for i := range tiers.Lanes {
		tiers.Lanes[i].Tiers = mustTiers("fixed:3:1s,fixed:3:500ms")
	}
	tiers.ServerModel = scenario.QueueModel
	faults := simSmall()
	faults.Faults = mustFaults("latency_spike:4s:3s:3,error_burst:8s:2s:0.5,crash:18s:2s")
	open := simSmall()
	open.Arrival, open.Rate = scenario.ArrivalOpen, 150
	herds := simSmall()
	herds.Faults = mustFaults("herd:4s:0s:1,herd:12s:2s:0.5")
	openHerd := open
	openHerd.Faults = mustFaults("herd:4s:2s:1,herd:12s:3s:0.5")
	storm := simStorm()
	storm.Duration = 6 * time.Second
	storm4 := storm
	storm4.Lanes = []scenario.Lane{storm.Lanes[0], storm.Lanes[1], storm.Lanes[0], storm.Lanes[0]}
	storm4.Lanes[3].MinDelay = 15 * time.Millisecond
	live := map[time.Duration]func(*Engine, func(scenario.Tick)){
		3 * time.Second:  setChange(func(p *scenario.Params) { p.Clients = 500; p.Lanes[1].Factor = 1.5 }),
		5 * time.Second:  outageChange(scenario.ChangeStop),
		6 * time.Second:  setChange(func(p *scenario.Params) { p.Faults = mustFaults("load_spike:6s:4s:2") }),
		8 * time.Second:  outageChange(scenario.ChangeResume),
		20 * time.Second: setChange(func(p *scenario.Params) { p.Clients = 200 }),
	}
	for _, tc := range []struct {
		name    string
		p       scenario.Params
		limit   int64
		slice   int
		every   time.Duration // between two Step targets
		changes map[time.Duration]func(*Engine, func(scenario.Tick))
	}{
		{"two lanes, whole steps", simSmall(), 0, 1 << 30, 50 * time.Millisecond, nil},
		{"two lanes, small slices", simSmall(), 0, 97, 50 * time.Millisecond, nil},
		{"four lanes, small slices", four, 0, 211, 50 * time.Millisecond, nil},
		{"tiers", tiers, 0, 1000, 50 * time.Millisecond, nil},
		{"faults", faults, 0, 333, 50 * time.Millisecond, nil},
		// Each lane takes the faults' starts and ends at its own time.
		{"faults, one target", faults, 0, 1 << 30, faults.Duration, nil},
		{"faults, one target, small slices", faults, 0, 997, faults.Duration, nil},
		{"faults, targets apart", faults, 0, 1 << 30, 3 * time.Second, nil},
		{"open loop", open, 64 << 20, 500, 50 * time.Millisecond, nil},
		// Each lane releases a herd's wave at its own time.
		{"herds, one target, small slices", herds, 0, 997, herds.Duration, nil},
		{"herds, targets apart", herds, 0, 1 << 30, 3 * time.Second, nil},
		{"open loop's herds", openHerd, 64 << 20, 500, 50 * time.Millisecond, nil},
		{"live changes", simSmall(), 0, 301, 50 * time.Millisecond, live},
		{"four lanes, live changes", four, 0, 1 << 20, 50 * time.Millisecond, live},
		// The budget binds: each lane halts where its share of it ends,
		// wherever the targets and the slices fall.
		{"four lanes, one target, small slices", four, 0, 500, four.Duration, nil},
		{"storm within a budget, one target", storm, 1 << 20, 3000, storm.Duration, nil},
		{"storm within a budget", storm, 1 << 20, 5000, 100 * time.Millisecond, nil},
		{"storm within a budget, small slices", storm, 1 << 20, 61, 100 * time.Millisecond, nil},
		{"four lanes' storm within a budget", storm4, 2 << 20, 20000, 100 * time.Millisecond, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seq := runLanesOf(t, tc.p, tc.limit, tc.slice, tc.every, oneAfterOther, tc.changes)
			par := runLanesOf(t, tc.p, tc.limit, tc.slice, tc.every, alwaysApart, tc.changes)
			auto := runLanesOf(t, tc.p, tc.limit, tc.slice, tc.every, asSetParallel, tc.changes)
			for _, o := range []struct {
				name string
				run  parallelRun
			}{{"parallel", par}, {"as SetParallel decides", auto}} {
				simSameTicks(t, o.name+" against one after the other", seq.ticks, o.run.ticks)
				if seq.sums != o.run.sums {
					t.Errorf("summaries differ:\none after the other %s\n%s %s", seq.sums, o.name, o.run.sums)
				}
				if a, b := strings.Join(seq.faults, "\n"), strings.Join(o.run.faults, "\n"); a != b {
					t.Errorf("fault states at the targets differ:\none after the other\n%s\n%s\n%s", a, o.name, b)
				}
				if seq.halts != o.run.halts {
					t.Errorf("halts differ:\none after the other %s\n%s %s", seq.halts, o.name, o.run.halts)
				}
				if a, b := scenario.ChangesText(seq.rec.Changes), scenario.ChangesText(o.run.rec.Changes); a != b {
					t.Errorf("records differ:\none after the other %s\n%s %s", a, o.name, b)
				}
			}
			t.Logf("%d rounds; halts %s", par.rounds, par.halts)
			if par.rounds == 0 {
				t.Error("no stretch of the run went parallel")
			}
			if tc.limit > 0 && par.peak > tc.limit {
				t.Errorf("the parallel run held %d bytes, over its budget of %d", par.peak, tc.limit)
			}
		})
	}
}

// TestParallelChangeReplays: changes made to parallel lanes between
// slices that stopped short, with lanes apart, come where a replay of the
// run's Record, one lane after the other, takes them, tick for tick.
func TestParallelChangeReplays(t *testing.T) {
	t.Parallel()
	p := simSmall()
	p.Lanes = append(p.Lanes, simLane(strategies.NameThinkScaled))
	e := simNew(t, p)
	e.alwaysParallel = true
	var live []scenario.Tick
	emit := func(tk scenario.Tick) { live = append(live, tk) }
	changes := []func(*Engine, func(scenario.Tick)){
		setChange(func(p *scenario.Params) { p.Lanes[1].Factor = 1.1 }),
		outageChange(scenario.ChangeStop),
		setChange(func(p *scenario.Params) { p.Clients = 200; p.Lanes[0].Jitter = 0.5 }),
		outageChange(scenario.ChangeResume),
	}
	slices := 0
	for !e.Step(p.Duration, 1301, emit) {
		if slices++; slices%3 == 0 && len(changes) > 0 {
			changes[0](e, emit)
			changes = changes[1:]
		}
	}
	if len(changes) > 0 {
		t.Fatalf("%d changes left unmade after %d slices", len(changes), slices)
	}
	re, replay := simRun(t, e.Record())
	simSameTicks(t, "replay", live, replay)
	if a, b := simJSON(t, e.Summaries()), simJSON(t, re.Summaries()); a != b {
		t.Errorf("summaries differ:\nlive   %s\nreplay %s", a, b)
	}
}

// TestParallelSettle: Outage and Set made straight on an engine whose
// parallel lanes stand apart bring them to one time, and the run goes on
// with every tick once, in order, its lanes' books in order.
func TestParallelSettle(t *testing.T) {
	t.Parallel()
	p := simSmall()
	p.Lanes = append(p.Lanes, simLane(strategies.NameThinkScaled))
	e := simNew(t, p)
	e.alwaysParallel = true
	var ticks []scenario.Tick
	emit := func(tk scenario.Tick) { ticks = append(ticks, tk) }
	slices := 0
	for !e.Step(p.Duration, 997, emit) {
		switch slices++; slices {
		case 5:
			e.Outage(true)
		case 9:
			q := e.Params()
			q.Clients = 450
			if err := e.Set(q); err != nil {
				t.Fatalf("Set: %v", err)
			}
		case 14:
			e.Outage(false)
		}
		at := e.lanes[0].now
		for _, l := range e.lanes {
			at = min(at, l.now)
		}
		if at < e.Now() {
			t.Fatalf("slice %d: a lane at %v, behind Now %v", slices, at, e.Now())
		}
	}
	if slices < 14 {
		t.Fatalf("the run took %d slices, want at least 14", slices)
	}
	simCheck(t, e, "at the end", nil)
	if want := int(p.Duration / p.Tick); len(ticks) != want {
		t.Fatalf("%d ticks, want %d", len(ticks), want)
	}
	for k, tk := range ticks {
		if want := (time.Duration(k+1) * p.Tick).Seconds(); tk.T != want {
			t.Fatalf("tick %d at %v s, want %v", k, tk.T, want)
		}
	}
}

// TestParallelEventsDoNotAllocate: with the lanes in parallel, a second of
// a run past its start allocates little more than its ten ticks, as one
// lane after the other does (TestEventsDoNotAllocate): a round's
// goroutines and kept ticks cost a few allocations, not one an event.
func TestParallelEventsDoNotAllocate(t *testing.T) {
	testrace.SkipUnder(t, detectorAllocates)
	p := scenariotest.CurveDefaults()
	p.Duration = time.Hour
	e := simNew(t, p)
	e.alwaysParallel = true
	simAdvance(t, e, 5*time.Second)
	at := 5 * time.Second
	allocs := testing.AllocsPerRun(20, func() {
		at += time.Second
		e.AdvanceTo(at, func(scenario.Tick) {})
	})
	if allocs > 40 {
		t.Errorf("%.0f allocations a virtual second, want about the ticks' 10", allocs)
	}
	if e.round.rounds == 0 {
		t.Error("no round went parallel")
	}
}

// BenchmarkParallelLanes runs two-lane scenarios, each lane on a goroutine
// of its own, as a command's run goes (Engine.finish): (a) 001's
// comparison on its latency curve, fixed against think_scaled, (b) the
// landing view's worker queue, fixed against exponential, and (c) lanes of
// equal work, 001's fixed lane twice, of 1 000 and 10 000 clients; for
// these, two_engines is the machine's own bound: two one-lane engines, on
// two goroutines when there are two cores. Run with GOMAXPROCS=1 and then
// 2 in the environment (go test's -cpu flag leaves GOMAXPROCS as it was),
// its events per second on one core and on two give the lanes' gain (on
// one core the lanes go one after the other: SetParallel needs two); on
// two, lanes-gain is the same gain measured in the lanes' CPU time, which
// a busy machine does not blur, and rounds/op how often the lanes were
// handed to the cores.
func BenchmarkParallelLanes(b *testing.B) {
	curve := scenario.Defaults()
	curve.ServerModel = "curve"
	curve.Lanes = []scenario.Lane{simLane(strategies.NameFixed), simLane(strategies.NameThinkScaled)}
	queue := curve
	queue.ServerModel = scenario.QueueModel
	queue.Lanes = []scenario.Lane{simLane(strategies.NameFixed), simLane(strategies.NameExponential)}
	twice := curve
	twice.Lanes = []scenario.Lane{simLane(strategies.NameFixed), simLane(strategies.NameFixed)}
	twice10k := twice
	twice10k.Clients = 10_000
	for _, bc := range []struct {
		name  string
		p     scenario.Params
		equal bool // the lanes are the same: two one-lane engines are the bound
	}{
		{"001", curve, false},
		{"landing", queue, false},
		// Lanes of equal work: 001's fixed lane twice. The others'
		// lanes are unequal (fixed's storm is 4.6 and 3 times the other
		// lane's events), which bounds their gain on two cores to 1.22
		// and 1.33.
		{"001_fixed_twice", twice, true},
		{"001_fixed_twice_10k", twice10k, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var events int64
			rounds := 0
			// run runs the scenario once, as a command's run goes
			// (within a budget), its rounds timed or not.
			run := func(timed bool) *Engine {
				e, err := newEngine(bc.p, budget.NewAccount(nil, 1<<30), true)
				if err != nil {
					b.Fatal(err)
				}
				e.round.timed = timed
				if err := e.finish(b.Context(), nil); err != nil {
					b.Fatal(err)
				}
				return e
			}
			for b.Loop() {
				e := run(false)
				for _, l := range e.lanes {
					events += l.events
				}
				rounds += e.round.rounds
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(events)/sec, "events/s")
			b.ReportMetric(float64(b.N)*bc.p.Duration.Seconds()/sec, "virtual-s/s")
			b.ReportMetric(float64(rounds)/float64(b.N), "rounds/op")
			// Timing the rounds ties each lane's goroutine to its thread
			// (cputime.Measure), which costs the scheduler thread switches:
			// one more run, outside the benchmark's time, measures it.
			if e := run(true); e.round.path > 0 {
				// The lanes' CPU time in the rounds that went parallel
				// over that of the longest lane of each: the gain two
				// free cores give those rounds, however busy the
				// machine is now.
				b.ReportMetric(float64(e.round.work)/float64(e.round.path), "lanes-gain")
			}
		})
		if !bc.equal {
			continue
		}
		b.Run(bc.name+"/two_engines", func(b *testing.B) {
			one := bc.p
			one.Lanes = one.Lanes[:1]
			run := func() {
				e, err := NewWithBudget(one, budget.NewAccount(nil, 1<<29))
				if err != nil {
					b.Error(err)
					return
				}
				if err := e.finish(b.Context(), nil); err != nil {
					b.Error(err)
				}
			}
			for b.Loop() {
				var wg sync.WaitGroup
				if runtime.GOMAXPROCS(0) > 1 {
					wg.Go(run)
				} else {
					run()
				}
				run()
				wg.Wait()
			}
		})
	}
}

// TestRunParallelMatchesRun: a command's run, its lanes apart in rounds as
// long as runAhead allows and taking the faults each at its own time, has
// the same ticks and summaries as the same run one lane after the other.
func TestRunParallelMatchesRun(t *testing.T) {
	t.Parallel()
	faults := simSmall()
	faults.Faults = mustFaults("latency_spike:4s:3s:3,error_burst:8s:2s:0.5,crash:18s:2s,load_spike:25s:5s:2")
	faults.Lanes = append(faults.Lanes, simLane(strategies.NameFixed))
	herds := simSmall()
	herds.Faults = mustFaults("herd:4s:0s:1,crash:8s:1s,herd:12s:2s:0.5")
	herds.Lanes = append(herds.Lanes, simLane(strategies.NameFixed))
	storm := simStorm()
	storm.Duration = 6 * time.Second
	changes := simSmall()
	cs, err := scenario.ParseChanges("@3s clients=500 @5s stop @8s resume @9s faults=load_spike:9s:4s:2")
	if err != nil {
		t.Fatal(err)
	}
	changes.Changes = cs
	built := simStorm()
	built.Clients, built.Duration = parallelWork, 2*time.Second // its lanes built each on a goroutine
	for _, tc := range []struct {
		name  string
		p     scenario.Params
		limit int64
	}{
		{"faults", faults, 0},
		{"herds", herds, 0},
		{"lanes built apart", built, 0},
		{"storm within a budget", storm, 1 << 20},
		{"live changes", changes, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			account := func() *budget.Account {
				if tc.limit > 0 {
					return budget.NewAccount(nil, tc.limit)
				}
				return nil
			}
			var seqTicks, parTicks []scenario.Tick
			seq, err := RunWithBudget(t.Context(), tc.p, account(), func(tk scenario.Tick) { seqTicks = append(seqTicks, tk) })
			if err != nil {
				t.Fatal(err)
			}
			// RunParallel's engine, its lanes apart on any machine.
			e, err := newEngine(tc.p, account(), true)
			if err != nil {
				t.Fatal(err)
			}
			e.alwaysParallel = true
			if err := e.finish(t.Context(), func(tk scenario.Tick) { parTicks = append(parTicks, tk) }); err != nil {
				t.Fatal(err)
			}
			seqSums, parSums := simJSON(t, seq), simJSON(t, e.Summaries())
			e.release()
			if e.round.rounds == 0 {
				t.Error("no round went parallel")
			}
			t.Logf("%d rounds", e.round.rounds)
			simSameTicks(t, "RunParallel against RunWithBudget", seqTicks, parTicks)
			if seqSums != parSums {
				t.Errorf("summaries differ:\nRunWithBudget %s\nRunParallel   %s", seqSums, parSums)
			}
		})
	}
}
