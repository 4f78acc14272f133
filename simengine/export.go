package simengine

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"
)

// Run simulates p from virtual time 0 to p.Duration, calling emit with every
// tick, and returns each lane's summary at the end. It stops early with
// ctx's error when ctx is done.
func Run(ctx context.Context, p Params, emit func(Tick)) ([]Summary, error) {
	e, err := New(p)
	if err != nil {
		return nil, err
	}
	// Check ctx between slices of virtual time, not on every event.
	const slice = time.Second
	for t := time.Duration(0); t < p.Duration; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t = min(t+slice, p.Duration)
		e.AdvanceTo(t, emit)
	}
	return e.Summaries(), nil
}

// CSVHeader is the header row of the CSV time series.
func CSVHeader() string {
	return "t,lane," + strings.Join(Columns, ",") + "\n"
}

// WriteCSV runs p and writes its time series as CSV: CSVHeader, then one
// row per lane per tick.
func WriteCSV(ctx context.Context, w io.Writer, p Params) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(CSVHeader())
	var row []byte
	_, err := Run(ctx, p, func(t Tick) {
		for i := range t.Lanes {
			row = t.Lanes[i].AppendCSV(row[:0], LaneNames[i:i+1])
			bw.Write(row)
		}
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

// Record is a whole run as JSON: its parameters, and for each lane its
// strategy, summary and ticks.
type Record struct {
	Params map[string]any `json:"params"`
	Lanes  []LaneRecord   `json:"lanes"`
}

// LaneRecord is one lane of a Record.
type LaneRecord struct {
	Name     string     `json:"name"`
	Strategy string     `json:"strategy"`
	Summary  Summary    `json:"summary"`
	Ticks    []LaneTick `json:"ticks"`
}

// WriteJSON runs p and writes it as one JSON Record.
func WriteJSON(ctx context.Context, w io.Writer, p Params) error {
	rec := Record{Params: p.Map(), Lanes: make([]LaneRecord, len(p.Lanes))}
	for i, l := range p.Lanes {
		rec.Lanes[i] = LaneRecord{Name: LaneNames[i : i+1], Strategy: l.Strategy}
	}
	sums, err := Run(ctx, p, func(t Tick) {
		for i := range t.Lanes {
			rec.Lanes[i].Ticks = append(rec.Lanes[i].Ticks, t.Lanes[i])
		}
	})
	if err != nil {
		return err
	}
	for i := range rec.Lanes {
		rec.Lanes[i].Summary = sums[i]
	}
	enc := json.NewEncoder(w)
	return enc.Encode(rec)
}

// Map returns every parameter of p under its vocabulary name, numbers as
// numbers and durations as Go duration strings.
func (p Params) Map() map[string]any {
	m := map[string]any{lanesParam.Name: len(p.Lanes)}
	for name, vals := range p.Encode() {
		param, _, _ := Lookup(name)
		v := vals[0]
		switch param.Kind {
		case KindInt, KindFloat, KindSeed:
			m[name] = json.Number(v)
		case KindBool:
			m[name], _ = strconv.ParseBool(v)
		default:
			m[name] = v
		}
	}
	return m
}
