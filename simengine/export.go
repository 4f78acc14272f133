package simengine

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"backofflab/budget"
	"backofflab/internal/parallel"
	"backofflab/scenario"
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
	e, err := NewWithBudget(p, mem)
	if err != nil {
		return nil, err
	}
	defer e.release()
	for !e.Step(p.Duration, SliceEvents, emit) {
		if err := parallel.Yield(ctx); err != nil {
			return nil, err
		}
	}
	return e.Summaries(), ctx.Err()
}

// CSVHeader is the header row of the CSV time series.
func CSVHeader() string {
	return "t,lane," + strings.Join(scenario.Columns, ",") + "\n"
}

// WriteCSV runs p within mem (nil: unbounded) and writes its time series
// as CSV: CSVHeader, then one row per lane per tick, as the run goes.
func WriteCSV(ctx context.Context, w io.Writer, p scenario.Params, mem *budget.Account) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(CSVHeader())
	var row []byte
	_, err := RunWithBudget(ctx, p, mem, func(t scenario.Tick) {
		for i := range t.Lanes {
			row = t.Lanes[i].AppendCSV(row[:0], scenario.LaneNames[i:i+1])
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
	params, err := json.Marshal(p.Map())
	if err != nil {
		return err
	}
	bw.WriteString(`{"params":`)
	bw.Write(params)
	bw.WriteString(`,"lanes":[`)
	var buf []byte
	for i, l := range p.Lanes {
		if i > 0 {
			bw.WriteByte(',')
		}
		name, _ := json.Marshal(scenario.LaneNames[i : i+1])
		strategy, _ := json.Marshal(l.Strategy)
		fmt.Fprintf(bw, `{"name":%s,"strategy":%s,"ticks":[`, name, strategy)
		one := p.Clone()
		one.Lanes = one.Lanes[i : i+1]
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
		sum, err := json.Marshal(sums[0])
		if err != nil {
			return err
		}
		bw.WriteString(`],"summary":`)
		bw.Write(sum)
		bw.WriteByte('}')
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}
