package sweep

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/parallel"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// The outcomes of a lane in a cell.
const (
	// OutcomeRecovered: after the outage the service or the server came
	// back (the summary says which and when).
	OutcomeRecovered = "recovered"
	// OutcomeCollapsed: an outage ended and neither came back by the end.
	OutcomeCollapsed = "collapsed"
	// OutcomeNoOutage: no outage ended before the run's end.
	OutcomeNoOutage = "no_outage"
	// OutcomeStopped: the lane outgrew its memory budget and stopped.
	OutcomeStopped = "stopped"
)

// Outcomes are the outcomes a lane may have, in the order a legend shows
// them.
var Outcomes = []string{OutcomeRecovered, OutcomeCollapsed, OutcomeNoOutage, OutcomeStopped}

// OutcomeOf returns the outcome of a lane whose run ended with s.
func OutcomeOf(s scenario.Summary) string {
	switch {
	case s.Stopped != "":
		return OutcomeStopped
	case s.ServerRecoveredAfter != nil || s.ServiceRecoveredAfter != nil:
		return OutcomeRecovered
	case s.Collapsed:
		return OutcomeCollapsed
	}
	return OutcomeNoOutage
}

// LaneResult is one lane's result in a cell.
type LaneResult struct {
	Lane     string           `json:"lane"` // the lane's letter
	Strategy string           `json:"strategy"`
	Outcome  string           `json:"outcome"` // one of Outcomes
	Summary  scenario.Summary `json:"summary"`
}

// Cell is one cell's run: which run it is and each lane's result.
type Cell struct {
	CellKey
	Lanes []LaneResult
}

// Shard is the part of a sweep that one process runs: cell i belongs to
// shard K of N when i % N == K. K counts from 0, as Kubernetes'
// JOB_COMPLETION_INDEX does. The zero Shard is the whole sweep.
type Shard struct{ K, N int }

// ParseShard reads a shard written "k/n", n ≥ 1 and 0 ≤ k < n. It never
// returns the zero Shard, the whole sweep: "0/0" is refused, as any n
// below 1 is, and the whole sweep is "0/1" or no shard at all.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	sh := Shard{}
	var errK, errN error
	sh.K, errK = strconv.Atoi(k)
	sh.N, errN = strconv.Atoi(n)
	if !ok || errK != nil || errN != nil || sh.N < 1 || sh.validate() != nil {
		return Shard{}, &scenario.ParamError{Name: "shard", Value: s, Allow: shardAllowed}
	}
	return sh, nil
}

const shardAllowed = "k/n with n ≥ 1 and 0 ≤ k < n, such as 0/4: the cells i with i % n = k"

// String writes sh as ParseShard reads it.
func (sh Shard) String() string { return fmt.Sprintf("%d/%d", sh.K, sh.norm().N) }

func (sh Shard) norm() Shard {
	if sh.N == 0 {
		return Shard{0, 1}
	}
	return sh
}

func (sh Shard) validate() error {
	if sh.N < 0 || sh.K < 0 || (sh.N == 0 && sh.K != 0) || (sh.N > 0 && sh.K >= sh.N) {
		return &scenario.ParamError{Name: "shard", Value: fmt.Sprintf("%d/%d", sh.K, sh.N), Allow: shardAllowed}
	}
	return nil
}

// Cells returns how many of a sweep's cells, of cells in all, are sh's.
func (sh Shard) Cells(cells int) int {
	sh = sh.norm()
	if cells <= sh.K {
		return 0
	}
	return (cells-sh.K-1)/sh.N + 1
}

// Index returns the index of sh's j-th cell.
func (sh Shard) Index(j int) int {
	sh = sh.norm()
	return sh.K + j*sh.N
}

// Options say how a sweep runs.
type Options struct {
	// Parallel is the number of simulations at once, the -parallel flag
	// (scenario.ParallelParam); 0 or less: one per CPU (parallel.Workers).
	// It is not the queue model's workers, the servers inside one run.
	Parallel int
	// Shard is the part of the sweep to run; the zero Shard runs it all.
	Shard Shard
	// Memory returns the budget of one cell's run, given back when the
	// run ends; nil: unbounded. A lane that outgrows it stops (its outcome
	// is OutcomeStopped); a run whose first state does not fit in a budget
	// of its own stops all its lanes, while one that does not fit in a
	// shared pool ends the sweep with the pool's *budget.ExceededError.
	Memory func() *budget.Account
}

// Run runs every cell of o.Shard's part of s, o.Parallel at a time (by
// parallel.Do), and calls emit with each cell as it ends: one call at a
// time, in the order the cells end, which is not their index order. It
// returns when every run it started has returned: at the end, at the
// first error, or promptly after ctx is done (with ctx's error).
func Run(ctx context.Context, s Spec, o Options, emit func(Cell)) error {
	if err := o.Shard.validate(); err != nil {
		return err
	}
	if s.X.Steps < 2 || s.Seeds < 1 || (s.Y.Name != "" && s.Y.Steps < 2) {
		return errors.New("sweep: a Spec that ParseSpec did not return")
	}
	var mu sync.Mutex
	return parallel.Do(ctx, o.Parallel, o.Shard.Cells(s.Cells()), func(ctx context.Context, j int) error {
		c, err := runCell(ctx, s.Cell(o.Shard.Index(j)), o.Memory)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		emit(c)
		return nil
	})
}

// runCell runs the cell k: the single run k.Params gives.
func runCell(ctx context.Context, k CellKey, memory func() *budget.Account) (Cell, error) {
	p, err := k.Params()
	if err != nil {
		return Cell{}, fmt.Errorf("cell %d: %w", k.Index, err)
	}
	var mem *budget.Account
	if memory != nil {
		mem = memory()
		defer mem.Close()
	}
	sums, err := simengine.RunWithBudget(ctx, p, mem, nil)
	if exceeded := (*budget.ExceededError)(nil); errors.As(err, &exceeded) && !exceeded.Shared {
		sums = make([]scenario.Summary, len(p.Lanes))
		for i := range sums {
			sums[i] = scenario.Summary{Collapsed: true, Stopped: "collapsed: its first state does not fit in " + exceeded.Error()}
		}
	} else if err != nil {
		return Cell{}, err
	}
	c := Cell{CellKey: k, Lanes: make([]LaneResult, len(sums))}
	for i, s := range sums {
		c.Lanes[i] = LaneResult{Lane: scenario.LaneNames[i : i+1], Strategy: p.Lanes[i].Strategy, Outcome: OutcomeOf(s), Summary: s}
	}
	return c, nil
}
