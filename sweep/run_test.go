package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// small is a sweep whose cells run in a few milliseconds each: a
// thousand clients, 60 s of virtual time, an outage of 1 to 20 s at 5 s,
// after which lane a (fixed) recovers or storms.
const small = "clients=1000&duration=60s&outage_at=5s&x=outage_for&x_from=1s&x_to=20s&x_steps=4&y=b.min_delay&y_from=10ms&y_to=1s&y_steps=3&y_scale=log&seeds=2"

// runAll runs s's shard sh and returns its cells by index, failing the test
// on a cell emitted twice, emitted while another emit ran, or of another
// shard.
func runAll(t *testing.T, s Spec, o Options) map[int]Cell {
	t.Helper()
	cells := map[int]Cell{}
	var inEmit atomic.Int32
	err := Run(context.Background(), s, o, func(c Cell) {
		if inEmit.Add(1) != 1 {
			t.Error("emit called while another emit ran")
		}
		defer inEmit.Add(-1)
		sh := o.Shard.norm()
		if _, dup := cells[c.Index]; dup || c.Index%sh.N != sh.K {
			t.Errorf("cell %d emitted twice, or not of shard %v", c.Index, sh)
		}
		cells[c.Index] = c
	})
	if err != nil {
		t.Fatal(err)
	}
	return cells
}

// TestCellIsTheSingleRun: a cell's lanes are the summaries of the run that
// scenario.Parse(cell.Query()) describes, byte for byte in JSON, run alone
// with simengine.Run.
func TestCellIsTheSingleRun(t *testing.T) {
	s := mustSpec(t, small)
	cells := runAll(t, s, Options{Parallel: 2})
	for _, i := range []int{0, 7, 13, s.Cells() - 1} {
		c := cells[i]
		p, err := scenario.Parse(c.Query())
		if err != nil {
			t.Fatal(err)
		}
		sums, err := simengine.Run(context.Background(), p, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(sums) != len(c.Lanes) {
			t.Fatalf("cell %d: %d lanes, the run %d", i, len(c.Lanes), len(sums))
		}
		for l, sum := range sums {
			want, _ := json.Marshal(sum)
			got, _ := json.Marshal(c.Lanes[l].Summary)
			if !bytes.Equal(got, want) {
				t.Errorf("cell %d lane %s:\n got %s\nwant %s", i, c.Lanes[l].Lane, got, want)
			}
			if c.Lanes[l].Strategy != p.Lanes[l].Strategy || c.Lanes[l].Outcome != OutcomeOf(sum) {
				t.Errorf("cell %d lane %d: %+v", i, l, c.Lanes[l])
			}
		}
	}
	// The map is not flat: its cells' outcomes differ, so that a cell
	// answered with another's run would show.
	outcomes := map[string]int{}
	for _, c := range cells {
		outcomes[c.Lanes[0].Outcome]++
	}
	if len(outcomes) < 2 {
		t.Errorf("every cell's lane a has the same outcome: %v", outcomes)
	}
}

// TestRunEmitsEveryCellOnce: every cell of a sweep is emitted exactly once,
// whole or split into shards, whatever the number of workers, and the
// shards' cells together are the sweep's.
func TestRunEmitsEveryCellOnce(t *testing.T) {
	// Bookkeeping needs many cells, not long ones.
	s := mustSpec(t, "clients=50&duration=10s&outage_at=2s&x=outage_for&x_from=1s&x_to=5s&x_steps=5&y=clients&y_from=10&y_to=50&y_steps=5&seeds=3")
	for _, n := range []int{0, 1, 3, 7, 30} {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%d shards %d workers", n, workers), func(t *testing.T) {
				all := map[int]Cell{}
				for k := range max(n, 1) {
					sh := Shard{K: k, N: n}
					part := runAll(t, s, Options{Parallel: workers, Shard: sh})
					if len(part) != sh.Cells(s.Cells()) {
						t.Errorf("shard %v: %d cells, want %d", sh, len(part), sh.Cells(s.Cells()))
					}
					for i, c := range part {
						if _, dup := all[i]; dup {
							t.Errorf("cell %d in two shards", i)
						}
						all[i] = c
					}
				}
				if len(all) != s.Cells() {
					t.Errorf("%d cells emitted, want %d", len(all), s.Cells())
				}
			})
		}
	}
}

// TestRunCancel: a cancel stops every worker within their cells, which
// take far longer: Run returns the cancel, no cell ends, every cell's
// memory is given back and nothing is left running (goleak, TestMain).
// How soon after the cancel Run returns is BenchmarkRunCancel's measure.
func TestRunCancel(t *testing.T) {
	err, emitted, held := cancelStorms(t)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v, want context.Canceled", err)
	}
	if emitted != 0 {
		t.Errorf("%d cells of an hour of 20000 clients ended before the cancel cut them", emitted)
	}
	if held != 0 {
		t.Errorf("%d bytes of the cells' memory still held after Run returned", held)
	}
}

// BenchmarkRunCancel measures how long Run takes to return once its
// context is cancelled with both workers deep in storming cells: the
// engine looks at the context between slices of events.
func BenchmarkRunCancel(b *testing.B) {
	var total time.Duration
	for b.Loop() {
		_, _, _ = cancelStorms(b)
		total += lastCancelTook
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-return")
}

// lastCancelTook is how long cancelStorms' Run took to return after its
// cancel; only BenchmarkRunCancel reads it.
var lastCancelTook time.Duration

// cancelStorms starts a sweep of storming cells on two workers, cancels it
// once both are running their cells (their state is in memory), and
// returns Run's error, the cells emitted and the bytes still held.
func cancelStorms(tb testing.TB) (err error, emitted int32, held int64) {
	tb.Helper()
	s := mustSpec(tb, "clients=20000&duration=1h&x=outage_for&x_from=10s&x_to=60s&x_steps=8")
	pool := budget.NewPool(1 << 40)
	var runs atomic.Int32
	memory := func() *budget.Account {
		runs.Add(1)
		return budget.NewAccount(pool, 1<<36)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	var n atomic.Int32
	go func() {
		done <- Run(ctx, s, Options{Parallel: 2, Memory: memory}, func(Cell) { n.Add(1) })
	}()
	testwait.Eventually(tb, "both workers running a cell", func() bool { return runs.Load() == 2 && pool.Used() > 0 })
	cancelled := time.Now()
	cancel()
	err = <-done
	lastCancelTook = time.Since(cancelled)
	return err, n.Load(), pool.Used()
}

// TestRunMemory: a lane that outgrows its cell's budget stops, and its
// outcome says so; a run whose first state does not fit stops all its
// lanes; a shared pool that is taken ends the sweep with its error.
func TestRunMemory(t *testing.T) {
	s := mustSpec(t, "server_model=curve&clients=2000&duration=60s&x=outage_for&x_from=10s&x_to=20s&x_steps=2")
	for _, tc := range []struct {
		name   string
		memory func() *budget.Account
		lane   [2]string // lane a's and b's outcome in the last cell
		err    bool
	}{
		// Each lane's share of 480 KiB, 240 KiB, holds lane b's peak
		// (between 208 and 224 KiB) but not lane a's storm's (between
		// 256 and 272 KiB).
		{"growing", func() *budget.Account { return budget.NewAccount(nil, 480<<10) }, [2]string{OutcomeStopped, OutcomeCollapsed}, false},
		{"first state", func() *budget.Account { return budget.NewAccount(nil, 1<<10) }, [2]string{OutcomeStopped, OutcomeStopped}, false},
		{"pool", func() *budget.Account { return budget.NewAccount(budget.NewPool(1<<10), 1<<30) }, [2]string{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var last Cell
			err := Run(context.Background(), s, Options{Parallel: 1, Memory: tc.memory}, func(c Cell) {
				if c.Index == 1 {
					last = c
				}
			})
			var exceeded *budget.ExceededError
			if tc.err {
				if !errors.As(err, &exceeded) || !exceeded.Shared {
					t.Errorf("Run returned %v, want the pool's budget.ExceededError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for l, want := range tc.lane {
				if got := last.Lanes[l]; got.Outcome != want || (want == OutcomeStopped) != (got.Summary.Stopped != "") {
					t.Errorf("lane %s: %s (%q), want %s", got.Lane, got.Outcome, got.Summary.Stopped, want)
				}
			}
		})
	}
}

// TestOutcomeOf: each outcome from the summary that gives it.
func TestOutcomeOf(t *testing.T) {
	sec := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		s    scenario.Summary
		want string
	}{
		{scenario.Summary{ServerRecoveredAfter: sec(1), ServiceRecoveredAfter: sec(2)}, OutcomeRecovered},
		{scenario.Summary{ServiceRecoveredAfter: sec(2)}, OutcomeRecovered},
		{scenario.Summary{ServerRecoveredAfter: sec(1)}, OutcomeRecovered},
		{scenario.Summary{Collapsed: true}, OutcomeCollapsed},
		{scenario.Summary{Collapsed: true, Stopped: "collapsed: stopped at …"}, OutcomeStopped},
		{scenario.Summary{}, OutcomeNoOutage},
	} {
		if got := OutcomeOf(tc.s); got != tc.want {
			t.Errorf("OutcomeOf(%+v) = %s, want %s", tc.s, got, tc.want)
		}
	}
}

// TestShard: ParseShard's syntax and its errors, and each shard's cells.
func TestShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		ok   bool
	}{
		{"0/1", Shard{0, 1}, true}, {"3/7", Shard{3, 7}, true}, {"7/7", Shard{}, false},
		{"-1/3", Shard{}, false}, {"1/0", Shard{}, false}, {"1", Shard{}, false}, {"a/b", Shard{}, false},
		{"0/0", Shard{}, false}, {"0/-1", Shard{}, false}, {"0/", Shard{}, false}, {"/1", Shard{}, false},
	} {
		got, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v", tc.in, got, err)
		}
		if err != nil && (scenario.Errors(err)[0].Name != "shard" || !strings.Contains(err.Error(), "n ≥ 1 and 0 ≤ k < n")) {
			t.Errorf("ParseShard(%q): %v does not name shard and its range", tc.in, err)
		}
	}
	for _, tc := range []struct {
		sh          Shard
		cells, want int
	}{
		{Shard{}, 10, 10}, {Shard{0, 3}, 10, 4}, {Shard{1, 3}, 10, 3}, {Shard{2, 3}, 10, 3}, {Shard{6, 7}, 5, 0}, {Shard{4, 7}, 5, 1},
	} {
		if got := tc.sh.Cells(tc.cells); got != tc.want {
			t.Errorf("%v.Cells(%d) = %d, want %d", tc.sh, tc.cells, got, tc.want)
		}
	}
}
