package sweep

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/backofflab/backofflab/scenario"
)

// The output formats.
const (
	FormatCSV  = "csv"
	FormatJSON = "json"
)

// Formats are the formats a Writer writes.
var Formats = []string{FormatCSV, FormatJSON}

// Columns are the CSV's columns that name the cell and the lane, in order;
// the axes' values come after "seed", under their parameters' names,
// SummaryColumns after "outcome", and MetaColumns last.
var Columns = []string{"index", "x", "y", "seed", "lane", "strategy", "outcome"}

// MetaColumns are the CSV's last columns, the same on every row: the
// sweep's canonical query (Spec.Encode), which reruns it and tells the
// parts of one sweep apart, and the shard a part holds ("k/n"; empty for a
// whole sweep). Every row carries them so that the file is plain CSV, its
// first line the header, which any CSV reader takes as it is.
var MetaColumns = []string{"sweep", "shard"}

// SummaryColumns are the columns of a lane's summary in the CSV, named as
// scenario.Summary's JSON names them: the recoveries, the load and the
// requests' bookkeeping, then what users saw of the requests one by one
// (the server's busiest tick in attempts a second, the latency of the
// requests that ended at p50, p99 and p99.9 in seconds, and the share that
// succeeded within the run's patience). A recovery the lane never made is
// empty.
var SummaryColumns = columnNames(summaryColumns)

// summaryColumn is a column of SummaryColumns: the value it writes and
// the type Merge checks a part's values against.
type summaryColumn struct {
	name  string
	typ   colType
	value func(s *scenario.Summary) string
}

// colType is what a summary column holds.
type colType int

const (
	colNum    colType = iota // a number ≥ 0, as num writes it
	colOptNum                // a number ≥ 0, or empty when the lane never recovered
	colShare                 // a share, a number from 0 to 1, as num writes it
	colInt                   // a whole number ≥ 0
	colText                  // words: why the lane stopped, or empty
)

// summaryColumns are SummaryColumns with the value each writes.
var summaryColumns = []summaryColumn{
	{"service_recovered_after", colOptNum, func(s *scenario.Summary) string { return optNum(s.ServiceRecoveredAfter) }},
	{"server_recovered_after", colOptNum, func(s *scenario.Summary) string { return optNum(s.ServerRecoveredAfter) }},
	{"baseline_ok", colNum, func(s *scenario.Summary) string { return num(s.BaselineOK) }},
	{"peak_concurrency", colInt, func(s *scenario.Summary) string { return strconv.Itoa(s.PeakConcurrency) }},
	{"attempts", colInt, func(s *scenario.Summary) string { return strconv.FormatInt(s.Attempts, 10) }},
	{"requests", colInt, func(s *scenario.Summary) string { return strconv.FormatInt(s.Requests, 10) }},
	{"amplification", colNum, func(s *scenario.Summary) string { return num(s.Amplification) }},
	{"succeeded", colInt, func(s *scenario.Summary) string { return strconv.FormatInt(s.Succeeded, 10) }},
	{"gave_up", colInt, func(s *scenario.Summary) string { return strconv.FormatInt(s.GaveUp, 10) }},
	{"open", colInt, func(s *scenario.Summary) string { return strconv.FormatInt(s.Open, 10) }},
	{"peak_attempt_rate", colNum, func(s *scenario.Summary) string { return num(s.PeakAttemptRate) }},
	{"request_p50", colNum, func(s *scenario.Summary) string { return num(s.RequestP50) }},
	{"request_p99", colNum, func(s *scenario.Summary) string { return num(s.RequestP99) }},
	{"request_p999", colNum, func(s *scenario.Summary) string { return num(s.RequestP999) }},
	{"succeeded_within", colShare, func(s *scenario.Summary) string { return num(s.SucceededWithin) }},
	{"stopped", colText, func(s *scenario.Summary) string { return s.Stopped }},
}

func columnNames(cols []summaryColumn) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	return names
}

func optNum(v *float64) string {
	if v == nil {
		return ""
	}
	return num(*v)
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Header returns the CSV's column names for s: Columns with the axes'
// parameters after seed, then SummaryColumns and MetaColumns.
func (s Spec) Header() []string {
	h := append([]string(nil), Columns[:4]...)
	h = append(h, s.X.Name)
	if s.Y.Name != "" {
		h = append(h, s.Y.Name)
	}
	h = append(h, Columns[4:]...)
	h = append(h, SummaryColumns...)
	return append(h, MetaColumns...)
}

// shardColumn is the value of the shard column for shard sh: "k/n" for a
// part of a sharded sweep (sh.N above 0), empty for the whole.
func shardColumn(sh Shard) string {
	if sh.N > 0 {
		return sh.String()
	}
	return ""
}

// Writer writes the cells of a sweep, or of one shard of it, in index
// order whatever the order they are added in: a cell that ends before
// those of lower index waits in a reorder buffer (at most the cells that
// ended while a slower one ran).
type Writer struct {
	bw      *bufio.Writer
	csv     *csv.Writer // nil for JSON
	spec    Spec
	shard   Shard
	next    int // the shard's next cell to write, counted in the shard
	pending map[int]Cell
	err     error
	row     []string
	meta    [2]string // the values of MetaColumns
}

// NewWriter starts writing the cells of shard sh of s (the zero Shard: all
// of them) to w in format (FormatCSV or FormatJSON). A CSV begins with
// the header (Header); each of its rows ends with MetaColumns. A JSON document is {"spec": the canonical query
// as an object, "shard": "k/n" for a part, "cells": [each cell as
// Cell.MarshalJSON writes it]}.
func NewWriter(w io.Writer, format string, s Spec, sh Shard) (*Writer, error) {
	if err := sh.validate(); err != nil {
		return nil, err
	}
	out := &Writer{bw: bufio.NewWriterSize(w, 64<<10), spec: s, shard: sh, pending: map[int]Cell{}}
	switch format {
	case FormatCSV:
		out.csv = csv.NewWriter(out.bw)
		out.meta = [2]string{s.Encode().Encode(), shardColumn(sh)}
		out.csv.Write(s.Header())
	case FormatJSON:
		spec := map[string]string{}
		for name, vals := range s.Encode() {
			spec[name] = vals[len(vals)-1]
		}
		b, err := json.Marshal(spec)
		if err != nil {
			return nil, err
		}
		out.bw.WriteString(`{"spec":`)
		out.bw.Write(b)
		if sh.N > 0 {
			fmt.Fprintf(out.bw, `,"shard":%q`, sh.String())
		}
		out.bw.WriteString(`,"cells":[`)
	default:
		return nil, &scenario.ParamError{Name: "format", Value: format, Allow: "one of " + strings.Join(Formats, ", ")}
	}
	return out, nil
}

// Add takes a cell of the writer's shard, in any order, and writes it and
// every cell waiting for it once their turn comes. It returns the first
// error writing met, or an error for a cell that is not the shard's or
// that came before.
func (w *Writer) Add(c Cell) error {
	if w.err != nil {
		return w.err
	}
	sh := w.shard.norm()
	if c.Index%sh.N != sh.K || c.Index < w.shard.Index(w.next) {
		w.err = fmt.Errorf("sweep: cell %d added twice or not of shard %s", c.Index, sh)
		return w.err
	}
	if _, dup := w.pending[c.Index]; dup {
		w.err = fmt.Errorf("sweep: cell %d added twice", c.Index)
		return w.err
	}
	w.pending[c.Index] = c
	for {
		c, ok := w.pending[w.shard.Index(w.next)]
		if !ok {
			return nil
		}
		delete(w.pending, c.Index)
		if err := w.write(&c); err != nil {
			w.err = err
			return err
		}
		w.next++
	}
}

func (w *Writer) write(c *Cell) error {
	if w.csv == nil {
		if w.next > 0 {
			w.bw.WriteByte(',')
		}
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		_, err = w.bw.Write(b)
		return err
	}
	for i := range c.Lanes {
		l := &c.Lanes[i]
		w.row = append(w.row[:0], strconv.Itoa(c.Index), strconv.Itoa(c.X), strconv.Itoa(c.Y),
			strconv.FormatUint(c.Seed, 10), c.XValue)
		if w.spec.Y.Name != "" {
			w.row = append(w.row, c.YValue)
		}
		w.row = append(w.row, l.Lane, l.Strategy, l.Outcome)
		for _, col := range summaryColumns {
			w.row = append(w.row, col.value(&l.Summary))
		}
		w.row = append(w.row, w.meta[:]...)
		if err := w.csv.Write(w.row); err != nil {
			return err
		}
	}
	return nil
}

// Close ends the document and flushes it. It reports a cell of the shard
// that was never added (a sweep cut short writes what it has, in order,
// and says so).
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.csv != nil {
		w.csv.Flush()
		if err := w.csv.Error(); err != nil {
			return err
		}
	} else {
		w.bw.WriteString("]}\n")
	}
	if err := w.bw.Flush(); err != nil {
		return err
	}
	if n := w.shard.Cells(w.spec.Cells()); w.next < n {
		return fmt.Errorf("sweep: %d of %d cells written; cell %d is missing", w.next, n, w.shard.Index(w.next))
	}
	return nil
}

// MarshalJSON writes c as {"index", "x", "y", "seed", the axes' values
// under their parameters' names (as strings, in the syntax of
// scenario.Params.Encode), "lanes": [each LaneResult]}.
func (c Cell) MarshalJSON() ([]byte, error) {
	b := fmt.Appendf(nil, `{"index":%d,"x":%d,"y":%d,"seed":%d,`, c.Index, c.X, c.Y, c.Seed)
	for _, v := range [][2]string{{c.xName, c.XValue}, {c.yName, c.YValue}} {
		if v[0] == "" {
			continue
		}
		name, _ := json.Marshal(v[0])
		value, _ := json.Marshal(v[1])
		b = fmt.Appendf(b, `%s:%s,`, name, value)
	}
	lanes, err := json.Marshal(c.Lanes)
	if err != nil {
		return nil, err
	}
	b = append(b, `"lanes":`...)
	b = append(b, lanes...)
	return append(b, '}'), nil
}
