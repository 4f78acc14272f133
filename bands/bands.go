// Package bands runs one scenario with many seeds and says how sure one
// run is: per lane, each tick column's median and 5–95 % band across the
// seeds over time, and how many seeds collapsed.
//
// Seed i of a band is the run of the scenario with seed p.Seed+i, exactly
// as "backofflab run" simulates it alone: every seed is a whole
// simengine.RunWithBudget on a goroutine of its own (internal/parallel), and
// its ticks are kept, as float32, until every seed is done, since a
// quantile across seeds needs every seed's value at the same tick. That
// store, with the bands, is bounded (Options.MaxCells, Cells) and may be
// drawn from a memory budget (Options.Store).
//
// The quantiles are the project's one definition, the nearest-rank method
// of strategies.Quantile, taken over the seeds that have a value at that
// tick: with n values sorted x[0] ≤ … ≤ x[n−1], the q-quantile is
// x[⌈q·n⌉−1] (x[0] for q·n ≤ 1). Every edge of a band is thus one seed's
// real value, never an interpolation between two runs. A seed has no value
// (NaN) where its lane had stopped for want of memory, or where a
// percentile column had no success in the tick; a tick where no seed has a
// value has NaN quantiles.
package bands

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/parallel"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/strategies"
)

// seedsRow is the seeds parameter as a band reads it: its one definition,
// shared with the sweep and the contention study, is scenario.ViewTable's.
var seedsRow = scenario.MustViewParam(scenario.SeedsParam, scenario.ViewBands)

// MaxSeeds is the most seeds one band runs (seedsRow's largest value).
var MaxSeeds = int(seedsRow.Max)

// DefaultMaxCells is Options.MaxCells' default: 4 million lane-ticks kept
// ((seeds + 3) × lanes × ticks, see Cells), 16 columns of float32 each,
// 256 MiB. The landing view with 100 seeds takes 247 200 of them.
const DefaultMaxCells = 4_000_000

// cellBytes is what one lane-tick takes: a float32 per column.
var cellBytes = int64(len(scenario.Columns)) * 4

// bandCells is how many lane-ticks a band keeps besides its seeds':
// its three quantiles of every column.
const bandCells = 3

// Cells returns how many lane-ticks a band of p with seeds seeds keeps
// until its Result is dropped: every seed's, and its three quantiles',
// (seeds + 3) × lanes × ticks, of 16 float32 columns each.
func Cells(p scenario.Params, seeds int) int64 {
	return int64(seeds+bandCells) * int64(len(p.Lanes)) * int64(TicksOf(p))
}

// Bytes returns the memory a band of p with seeds seeds keeps: Cells
// lane-ticks of 64 bytes.
func Bytes(p scenario.Params, seeds int) int64 { return Cells(p, seeds) * cellBytes }

// Quantiles are the levels of a band, in the order of Band's series: the
// band's lower edge, its median and its upper edge.
var Quantiles = [3]float64{0.05, 0.50, 0.95}

// QuantileNames name Quantiles in the CSV header and the JSON keys.
var QuantileNames = [3]string{"p5", "p50", "p95"}

// The band's own parameter beside the scenario's vocabulary, read by the
// bands command's flag, the /bands URL and the page's control: its name,
// default and meaning, those of seedsRow (its range is 1 to MaxSeeds).
var (
	SeedsParam   = seedsRow.Name
	DefaultSeeds = mustAtoi(seedsRow.Default)
	SeedsHelp    = seedsRow.Help
)

func mustAtoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic("bands: " + err.Error())
	}
	return n
}

// ParseSeeds reads a seeds value, or returns an error naming the seeds
// parameter, its value and its range.
func ParseSeeds(s string) (int, error) {
	var n int
	if err := seedsRow.Set(&n, SeedsParam, s); err != nil {
		return 0, err
	}
	return n, nil
}

// Options configure Run. The zero value runs on every core, each seed
// without a memory bound, with the default store bound.
type Options struct {
	// Parallel is how many seeds run at once, the -parallel flag
	// (scenario.ParallelParam; parallel.Workers: 0 means one per core).
	// It is not the queue model's workers, the servers inside one run.
	Parallel int
	// Memory returns the memory budget of one seed's simulation; nil
	// means none (simengine.RunWithBudget with a nil budget). Each call
	// returns a fresh budget, closed when that seed's run ends; calls may
	// come from several goroutines at once.
	Memory func() (*budget.Account, error)
	// Store, if not nil, is charged Bytes before any seed runs, and given
	// back when Run returns: a caller that keeps the Result longer
	// charges its own budget instead.
	Store *budget.Account
	// Progress, if not nil, is called after each seed has finished, with
	// the number finished so far, one call at a time.
	Progress func(done int)
	// MaxCells bounds Cells, the lane-ticks a band keeps; 0 means
	// DefaultMaxCells.
	MaxCells int64
}

// TooLargeError is Run's refusal of a band whose lane-ticks kept, (seeds
// + 3) × lanes × ticks (Cells), would pass Options.MaxCells.
type TooLargeError struct {
	Seeds, Lanes, Ticks int
	Max                 int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("(%d seeds + 3) × %d lanes × %d ticks = %d lane-ticks to keep, above the %d allowed; use fewer seeds, lanes or a shorter duration or longer tick",
		e.Seeds, e.Lanes, e.Ticks, int64(e.Seeds+bandCells)*int64(e.Lanes)*int64(e.Ticks), e.Max)
}

// ParamError names the parameter to change: seeds, with the most that fit
// this scenario.
func (e *TooLargeError) ParamError() *scenario.ParamError {
	most := min(int64(MaxSeeds), e.Max/max(1, int64(e.Lanes)*int64(e.Ticks))-bandCells)
	allow := fmt.Sprintf("a whole number from 1 to %d for this run ((seeds + 3) × lanes × ticks ≤ %d; it has %d lanes of %d ticks)",
		most, e.Max, e.Lanes, e.Ticks)
	if most < 1 {
		allow = fmt.Sprintf("none fits: %d lanes of %d ticks are above (seeds + 3) × lanes × ticks ≤ %d; shorten duration or lengthen tick",
			e.Lanes, e.Ticks, e.Max)
	}
	return &scenario.ParamError{Name: SeedsParam, Value: fmt.Sprint(e.Seeds), Allow: allow}
}

// CheckSeeds returns an error naming the seeds parameter unless seeds is
// from 1 to MaxSeeds.
func CheckSeeds(seeds int) *scenario.ParamError {
	if err := seedsRow.Check(&seeds, SeedsParam); err != nil {
		return err.(*scenario.ParamError)
	}
	return nil
}

// Check returns an error if Run would refuse p with seeds before running
// anything: a seeds value out of range (*scenario.ParamError) or a store
// above maxCells (*TooLargeError; 0 means DefaultMaxCells).
func Check(p scenario.Params, seeds int, maxCells int64) error {
	if err := CheckSeeds(seeds); err != nil {
		return err
	}
	if maxCells <= 0 {
		maxCells = DefaultMaxCells
	}
	if Cells(p, seeds) > maxCells {
		return &TooLargeError{Seeds: seeds, Lanes: len(p.Lanes), Ticks: TicksOf(p), Max: maxCells}
	}
	return nil
}

// TicksOf returns how many ticks a run of p emits: one at the end of every
// whole tick up to p.Duration.
func TicksOf(p scenario.Params) int { return int(p.Duration / p.Tick) }

// Result is a band: the scenario, every tick's time, and per lane the
// bands of every column and each seed's outcome.
type Result struct {
	Params scenario.Params // the scenario, with its first seed
	Seeds  int             // seeds Params.Seed to Params.Seed+Seeds−1
	T      []float64       // each tick's end, in virtual seconds
	Lanes  []Lane

	store []float32 // [seed][tick][lane][column]
}

// Lane is one lane's band.
type Lane struct {
	Name      string // its letter
	Strategy  string
	Collapsed int // seeds whose lane collapsed (Summary.Collapsed)
	// Columns are the bands of scenario.Columns, in its order.
	Columns []Band
	// Outcomes are each seed's summary, first seed first.
	Outcomes []Outcome
}

// Band is one column of one lane over time: for each tick, its value's
// quantiles across the seeds (Quantiles), NaN where no seed has one.
type Band struct {
	Name string       // the column, as scenario.Columns names it
	Q    [3][]float32 // Q[k][tick] is the Quantiles[k] quantile
}

// Outcome is one seed's lane at the end of its run.
type Outcome struct {
	Seed    uint64           `json:"seed"`
	Summary scenario.Summary `json:"summary"`
}

// Value returns the kept value of column c of lane l at tick i of the
// seed'th seed (seed Params.Seed+seed): the run's value as a float32.
func (r *Result) Value(seed, i, l, c int) float32 {
	return r.store[r.index(seed, i, l, c)]
}

func (r *Result) index(seed, i, l, c int) int {
	cols, lanes := len(scenario.Columns), len(r.Params.Lanes)
	return ((seed*len(r.T)+i)*lanes+l)*cols + c
}

// Run simulates p with seeds seeds, p.Seed to p.Seed+seeds−1, on
// opts.Parallel goroutines, and returns their bands. It refuses a seeds
// value out of range or a store above opts.MaxCells before running
// anything (see Check), and stops at the first seed's error or when ctx
// ends, returning that error once every seed it started has stopped.
func Run(ctx context.Context, p scenario.Params, seeds int, opts Options) (*Result, error) {
	if err := Check(p, seeds, opts.MaxCells); err != nil {
		return nil, err
	}
	ticks, lanes, cols := TicksOf(p), len(p.Lanes), len(scenario.Columns)
	size := Bytes(p, seeds)
	if err := opts.Store.Grow(size); err != nil {
		return nil, err
	}
	defer opts.Store.Shrink(size)
	r := &Result{Params: p.Clone(), Seeds: seeds, T: make([]float64, ticks),
		store: make([]float32, int64(seeds)*int64(lanes)*int64(ticks)*int64(cols))}
	sums := make([][]scenario.Summary, seeds)
	var mu sync.Mutex
	done := 0
	err := parallel.Do(ctx, opts.Parallel, seeds, func(ctx context.Context, s int) error {
		one := p.Clone()
		one.Seed = p.Seed + uint64(s)
		var mem *budget.Account
		if opts.Memory != nil {
			var err error
			if mem, err = opts.Memory(); err != nil {
				return err
			}
			defer mem.Close()
		}
		i := 0
		sum, err := simengine.RunWithBudget(ctx, one, mem, func(t scenario.Tick) {
			if i >= ticks { // cannot happen: TicksOf counts them
				return
			}
			if s == 0 {
				r.T[i] = t.T
			}
			at := r.index(s, i, 0, 0)
			for _, lt := range t.Lanes {
				for _, v := range lt.Values() {
					r.store[at] = float32(v)
					at++
				}
			}
			i++
		})
		if err != nil {
			return err
		}
		if i != ticks {
			return fmt.Errorf("bands: seed %d emitted %d ticks, want %d", one.Seed, i, ticks)
		}
		sums[s] = sum
		if opts.Progress != nil {
			mu.Lock()
			done++
			opts.Progress(done)
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.bands(sums)
	return r, nil
}

// bands computes every lane's bands and outcomes from the store.
func (r *Result) bands(sums [][]scenario.Summary) {
	ticks, cols := len(r.T), len(scenario.Columns)
	r.Lanes = make([]Lane, len(r.Params.Lanes))
	vals := make([]float64, 0, r.Seeds)
	for l := range r.Lanes {
		ln := &r.Lanes[l]
		ln.Name = scenario.LaneNames[l : l+1]
		ln.Strategy = r.Params.Lanes[l].Strategy
		for s := range r.Seeds {
			sum := sums[s][l]
			ln.Outcomes = append(ln.Outcomes, Outcome{Seed: r.Params.Seed + uint64(s), Summary: sum})
			if sum.Collapsed {
				ln.Collapsed++
			}
		}
		ln.Columns = make([]Band, cols)
		for c := range cols {
			b := &ln.Columns[c]
			b.Name = scenario.Columns[c]
			for k := range b.Q {
				b.Q[k] = make([]float32, ticks)
			}
			for i := range ticks {
				vals = vals[:0]
				for s := range r.Seeds {
					if v := r.Value(s, i, l, c); !math.IsNaN(float64(v)) {
						vals = append(vals, float64(v))
					}
				}
				q := Quantile(vals)
				for k := range b.Q {
					b.Q[k][i] = float32(q[k])
				}
			}
		}
	}
}

// Quantile returns the Quantiles of vals, which it sorts in place, by the
// nearest-rank method (strategies.Quantile); each is NaN when vals is
// empty.
func Quantile(vals []float64) [3]float64 {
	if len(vals) == 0 {
		return [3]float64{math.NaN(), math.NaN(), math.NaN()}
	}
	slices.Sort(vals)
	var q [3]float64
	for k, level := range Quantiles {
		q[k] = strategies.Quantile(vals, level)
	}
	return q
}
