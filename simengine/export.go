package simengine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/parallel"
	"github.com/backofflab/backofflab/scenario"
)

// Run simulates p from virtual time 0 to p.Duration, calling emit with every
// tick, and returns each lane's summary at the end. It stops early with
// ctx's error when ctx is done. Its memory is bounded by nothing but p.
func Run(ctx context.Context, p scenario.Params, emit func(scenario.Tick)) ([]scenario.Summary, error) {
	return RunWithBudget(ctx, p, nil, emit)
}

// SliceEvents is how many events a run processes between two looks at its
// context (parallel.Yield): a few milliseconds of work, so that a run
// whose caller left stops at once, however dense its events, and a run
// on a shared pool of cores hands its core over in turn.
const SliceEvents = 1 << 16

// RunWithBudget is Run with the run's memory drawn from mem, as
// NewWithBudget does: a lane that outgrows it halts, and the run goes on.
func RunWithBudget(ctx context.Context, p scenario.Params, mem *budget.Account, emit func(scenario.Tick)) ([]scenario.Summary, error) {
	return runWith(ctx, p, mem, false, emit)
}

// RunParallel is RunWithBudget with the lanes advancing each on a
// goroutine of its own (Engine.SetParallel), with the same ticks and
// summaries: for a run that has the process's cores to itself, such as a
// command's, not for one of many that share them.
func RunParallel(ctx context.Context, p scenario.Params, mem *budget.Account, emit func(scenario.Tick)) ([]scenario.Summary, error) {
	return runWith(ctx, p, mem, true, emit)
}

// RunRequests is RunWithBudget that returns each lane's requests one by
// one too (Engine.Requests), for a caller that merges several runs'
// requests, or asks other quantiles or patiences of them than the
// summaries' figures.
func RunRequests(ctx context.Context, p scenario.Params, mem *budget.Account, emit func(scenario.Tick)) ([]scenario.Summary, []*Requests, error) {
	var reqs []*Requests
	sums, err := runEngine(ctx, p, mem, false, emit, func(e *Engine) {
		reqs = make([]*Requests, len(e.lanes))
		for i := range e.lanes {
			reqs[i] = e.Requests(i)
		}
	})
	return sums, reqs, err
}

// runWith is RunWithBudget, its lanes in parallel or not.
func runWith(ctx context.Context, p scenario.Params, mem *budget.Account, lanesApart bool, emit func(scenario.Tick)) ([]scenario.Summary, error) {
	return runEngine(ctx, p, mem, lanesApart, emit, nil)
}

// runEngine is runWith, which calls done, when not nil, with the engine
// at the run's end.
func runEngine(ctx context.Context, p scenario.Params, mem *budget.Account, lanesApart bool, emit func(scenario.Tick), done func(*Engine)) ([]scenario.Summary, error) {
	e, err := newEngine(p, mem, lanesApart)
	if err != nil {
		return nil, err
	}
	defer e.release()
	if err := e.finish(ctx, emit); err != nil {
		return nil, err
	}
	if done != nil {
		done(e)
	}
	return e.Summaries(), ctx.Err()
}

// finish steps the run to its end, calling emit with every tick, or
// stops with ctx's error once ctx is done.
func (e *Engine) finish(ctx context.Context, emit func(scenario.Tick)) error {
	slice := SliceEvents
	if e.goParallel() {
		// Lanes apart look at ctx themselves, every SliceEvents events
		// each: a Step need not end for the caller to look, and its
		// rounds run as long as runAhead and the run's changes allow.
		// Each round hands the lanes to the cores anew, which costs
		// some tenth of a millisecond, twice, and their caches.
		e.done = ctx.Done()
		e.round.ahead = runAhead
		defer func() { e.done, e.round.ahead = nil, maxAhead }()
		slice = math.MaxInt
	}
	for !e.Step(e.p.Duration, slice, emit) {
		if err := parallel.Yield(ctx); err != nil {
			return err
		}
	}
	return nil
}

// CSVHeader is the header row of the CSV time series.
func CSVHeader() string {
	return "t,lane," + strings.Join(scenario.Columns, ",") + "\n"
}

// ChangesColumn is the last column of the CSV time series of a run with
// live changes (scenario.Params.Changes): on a lane's row of the tick in
// which a change was taken, the change as the changes parameter writes it,
// if it changed that lane's run. A run without changes has no such column.
const ChangesColumn = "changes"

// CSVHeaderOf is the header row of p's CSV time series: CSVHeader, and the
// ChangesColumn when p has live changes.
func CSVHeaderOf(p *scenario.Params) string {
	if len(p.Changes) == 0 {
		return CSVHeader()
	}
	return "t,lane," + strings.Join(scenario.Columns, ",") + "," + ChangesColumn + "\n"
}

// ChangeCells finds, tick after tick, the live changes taken in each tick
// of a run, for the ChangesColumn: a change at virtual time c.At is taken
// after the tick that ends at c.At, so it belongs to the tick that starts
// there.
type ChangeCells struct {
	changes []scenario.Change
	cur     []scenario.Change
}

// NewChangeCells returns the cells of a run with the live changes cs, in
// time order.
func NewChangeCells(cs []scenario.Change) *ChangeCells { return &ChangeCells{changes: cs} }

// Tick moves to the tick that ends at t seconds.
func (cc *ChangeCells) Tick(t float64) {
	end := time.Duration(math.Round(t * 1e9))
	n := 0
	for n < len(cc.changes) && cc.changes[n].At < end {
		n++
	}
	cc.cur, cc.changes = cc.changes[:n], cc.changes[n:]
}

// Append appends to a CSV row (AppendCSV's, with its newline) lane i's
// cell of the current tick: the changes that touched lane i, quoted as CSV
// quotes a field with a comma.
func (cc *ChangeCells) Append(row []byte, i int) []byte {
	row = row[:len(row)-1]
	var cell []scenario.Change
	for _, c := range cc.cur {
		if c.Touches(i) {
			cell = append(cell, c.OfLane(i))
		}
	}
	text := scenario.ChangesText(cell)
	row = append(row, ',')
	if strings.ContainsAny(text, ",\"") {
		row = append(row, '"')
		row = append(row, strings.ReplaceAll(text, `"`, `""`)...)
		row = append(row, '"')
	} else {
		row = append(row, text...)
	}
	return append(row, '\n')
}

// WriteCSV runs p within mem (nil: unbounded) and writes its time series
// as CSV: CSVHeaderOf(p), then one row per lane per tick, as the run goes.
func WriteCSV(ctx context.Context, w io.Writer, p scenario.Params, mem *budget.Account) error {
	return writeCSV(ctx, w, p, mem, false)
}

// WriteCSVParallel is WriteCSV with the lanes advancing in parallel, as
// RunParallel runs them, and the same bytes: for a run that has the
// process's cores to itself, such as a command's.
func WriteCSVParallel(ctx context.Context, w io.Writer, p scenario.Params, mem *budget.Account) error {
	return writeCSV(ctx, w, p, mem, true)
}

// writeCSV is WriteCSV, its lanes in parallel or not.
func writeCSV(ctx context.Context, w io.Writer, p scenario.Params, mem *budget.Account, lanesApart bool) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(CSVHeaderOf(&p))
	var row []byte
	var cells *ChangeCells
	if len(p.Changes) > 0 {
		cells = NewChangeCells(p.Changes)
	}
	_, err := runWith(ctx, p, mem, lanesApart, func(t scenario.Tick) {
		if cells != nil {
			cells.Tick(t.T)
		}
		for i := range t.Lanes {
			row = t.Lanes[i].AppendCSV(row[:0], scenario.LaneNames[i:i+1])
			if cells != nil {
				row = cells.Append(row, i)
			}
			bw.Write(row)
		}
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// Record is a whole run as JSON: its parameters, and for each lane its
// strategy, ticks and summary.
type Record struct {
	Params map[string]any `json:"params"`
	Lanes  []LaneRecord   `json:"lanes"`
}

// LaneRecord is one lane of a Record.
type LaneRecord struct {
	Name     string              `json:"name"`
	Strategy string              `json:"strategy"`
	Ticks    []scenario.LaneTick `json:"ticks"`
	Summary  scenario.Summary    `json:"summary"`
}

// WriteJSON runs p within mem (nil: unbounded) and writes it as one JSON
// Record, as the run goes: it simulates one lane after the other (a lane
// alone runs exactly as beside the others, see Engine) and writes each
// lane's ticks as they come and its summary after them, so that no tick is
// kept in memory however long the run.
func WriteJSON(ctx context.Context, w io.Writer, p scenario.Params, mem *budget.Account) error {
	bw := bufio.NewWriter(w)
	if err := beginJSON(bw, &p); err != nil {
		return err
	}
	var buf []byte
	for i := range p.Lanes {
		beginLaneJSON(bw, &p, i)
		one := p.Clone()
		one.Lanes = one.Lanes[i : i+1]
		for k, c := range one.Changes {
			one.Changes[k] = c.ForLane(i)
		}
		n := 0
		sums, err := RunWithBudget(ctx, one, mem, func(t scenario.Tick) {
			if n > 0 {
				bw.WriteByte(',')
			}
			n++
			buf = t.Lanes[0].AppendJSON(buf[:0])
			bw.Write(buf)
		})
		if err != nil {
			return err
		}
		if err := endLaneJSON(bw, sums[0]); err != nil {
			return err
		}
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// beginJSON opens WriteJSON's document: p's values, then its lanes.
func beginJSON(bw *bufio.Writer, p *scenario.Params) error {
	params, err := json.Marshal(p.Map())
	if err != nil {
		return err
	}
	bw.WriteString(`{"params":`)
	bw.Write(params)
	bw.WriteString(`,"lanes":[`)
	return nil
}

// beginLaneJSON opens lane i of WriteJSON's document: its name, its
// strategy, then its ticks.
func beginLaneJSON(bw *bufio.Writer, p *scenario.Params, i int) {
	if i > 0 {
		bw.WriteByte(',')
	}
	name, _ := json.Marshal(scenario.LaneNames[i : i+1])
	strategy, _ := json.Marshal(p.Lanes[i].Strategy)
	fmt.Fprintf(bw, `{"name":%s,"strategy":%s,"ticks":[`, name, strategy)
}

// endLaneJSON closes a lane's ticks in WriteJSON's document and writes its
// summary.
func endLaneJSON(bw *bufio.Writer, sum scenario.Summary) error {
	b, err := json.Marshal(sum)
	if err != nil {
		return err
	}
	bw.WriteString(`],"summary":`)
	bw.Write(b)
	return bw.WriteByte('}')
}

// WriteJSONParallel is WriteJSON with the lanes advancing in parallel, as
// RunParallel runs them, and the same bytes: for a run that has the
// process's cores to itself, such as a command's. The lanes' ticks come
// together while the Record holds one lane's after the other's: the first
// lane's go to w as they come, the others' to a temporary file each, which
// is copied to w after the first lane's summary, so that, as in WriteJSON,
// no tick is kept in memory however long the run.
func WriteJSONParallel(ctx context.Context, w io.Writer, p scenario.Params, mem *budget.Account) (err error) {
	bw := bufio.NewWriter(w)
	later := make([]*os.File, len(p.Lanes))
	outs := make([]*bufio.Writer, len(p.Lanes))
	outs[0] = bw
	defer func() {
		for _, f := range later {
			if f != nil {
				f.Close()
				if rm := os.Remove(f.Name()); err == nil {
					err = rm
				}
			}
		}
	}()
	for i := 1; i < len(p.Lanes); i++ {
		if later[i], err = os.CreateTemp("", "backofflab-lane-*.json"); err != nil {
			return fmt.Errorf("keeping lane %c's ticks until lane %c's are written: %w", scenario.LaneNames[i], scenario.LaneNames[i-1], err)
		}
		outs[i] = bufio.NewWriter(later[i])
	}
	if err := beginJSON(bw, &p); err != nil {
		return err
	}
	beginLaneJSON(bw, &p, 0)
	var buf []byte
	n := 0
	sums, err := runWith(ctx, p, mem, true, func(t scenario.Tick) {
		for i := range t.Lanes {
			if n > 0 {
				outs[i].WriteByte(',')
			}
			buf = t.Lanes[i].AppendJSON(buf[:0])
			outs[i].Write(buf)
		}
		n++
	})
	if err != nil {
		return err
	}
	for i := range p.Lanes {
		if i > 0 {
			if err := outs[i].Flush(); err != nil {
				return fmt.Errorf("keeping lane %c's ticks: %w", scenario.LaneNames[i], err)
			}
			beginLaneJSON(bw, &p, i)
			if _, err := later[i].Seek(0, io.SeekStart); err != nil {
				return err
			}
			if _, err := bw.ReadFrom(later[i]); err != nil {
				return err
			}
		}
		if err := endLaneJSON(bw, sums[i]); err != nil {
			return err
		}
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}
