package playground

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// The page's own export: POST /export.csv or /export.json with the page's
// query in the URL and its rows in the body, answered with the same CSV or
// JSON as `backofflab run -format csv|json`, written by the engine's own
// LaneTick.AppendCSV and AppendJSON.
//
// Why the page posts its rows: what the page shows is not a fresh run of its
// query (values changed while it ran, outages clicked, a real lane's
// measurements), so the server cannot recompute it, and a session keeps no
// history to export from (each would hold up to an hour of ticks for an
// export few pages make). The page holds the rows anyway; the server is the
// only one that formats them.
//
// The body is a stream of JSON values: the summary message's lanes (or
// null), then one tick row per value, as the tick messages carried them
// (null for no value). The server reads it as it comes: a CSV export holds
// one row at a time; a JSON export, written lane after lane, holds the lane
// ticks, at most maxPageExportTicks of them.

// maxPageExportBody caps a page export's body: an hour of four lanes at the
// default tick is about 20 MB.
const maxPageExportBody = 128 << 20

// maxRowValueBytes bounds one value of a row as the body may write it:
// the longest float64 JSON writes (-1.2345678901234567e-308) and its
// comma, with room for spaces. A row of n values may take n times as
// much (maxRowBytes), a tick row of four lanes about 5 KB.
const maxRowValueBytes = 64

// maxRowBytes is the most bytes a tick row of a run of lanes lanes may
// take in the body.
func maxRowBytes(lanes int) int64 {
	return int64(1+lanes*len(scenario.Columns))*maxRowValueBytes + 64
}

// maxSummariesBytes bounds the body's first value, the summaries: a lane's
// is well under a kilobyte.
const maxSummariesBytes = 64 << 10

// handlePageExport writes the rows the page posts in format, csv or json.
func handlePageExport(lim Limits, live *sessions, format string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sc, release, ok := startExport(w, r, lim, live, scene.Decode)
		if !ok {
			return
		}
		defer release()
		// The CSV goes out while the rows come in: HTTP/1 allows it only
		// in full duplex (HTTP/2 always does, and says not supported).
		http.NewResponseController(w).EnableFullDuplex()
		rows := newRowReader(http.MaxBytesReader(w, r.Body, maxPageExportBody), len(sc.Params.Lanes))
		var sums []scenario.Summary
		if err := rows.decode(&sums, maxSummariesBytes, "the summaries"); err != nil {
			http.Error(w, "export: the summaries do not parse: "+err.Error(), http.StatusBadRequest)
			return
		}
		var err error
		if format == "json" {
			err = writePageJSON(w, sc.Params, sums, rows)
		} else {
			err = writePageCSV(w, &sc.Params, rows)
		}
		if err != nil { // returned only before anything was written
			http.Error(w, "export: "+err.Error(), http.StatusBadRequest)
		}
	})
}

// rowReader reads a page export's tick rows one at a time. Each value is
// bounded while it is read: the decoder holds a whole value before it
// parses it, so a row longer than its bound is refused as soon as the
// decoder has read past it, not once a row of the whole body is held.
type rowReader struct {
	dec   *json.Decoder
	in    *boundedReader
	lanes int
	buf   []*float64
	n     int // rows read
}

func newRowReader(r io.Reader, lanes int) *rowReader {
	in := &boundedReader{r: r}
	return &rowReader{dec: json.NewDecoder(in), in: in, lanes: lanes}
}

// bound starts the next value, named what, which with the spaces before
// it may take at most limit bytes.
func (rr *rowReader) bound(limit int64, what string) {
	rr.in.from, rr.in.limit, rr.in.what = rr.dec.InputOffset(), limit, what
}

// decode reads the next value into v, refusing it, named what, past limit
// bytes.
func (rr *rowReader) decode(v any, limit int64, what string) error {
	rr.bound(limit, what)
	err := rr.dec.Decode(v)
	if rr.in.over != nil {
		return rr.in.over
	}
	return err
}

// boundedReader is the body as a rowReader's decoder reads it: it gives
// the decoder no more than limit bytes past from, the offset where the
// value being read starts (those the decoder read ahead of it count), and
// then fails with an error that names the bound.
type boundedReader struct {
	r           io.Reader
	read        int64 // bytes read from r
	from, limit int64
	what        string
	over        error
}

func (b *boundedReader) Read(p []byte) (int, error) {
	left := b.from + b.limit - b.read
	if left <= 0 {
		b.over = fmt.Errorf("%s: longer than %d bytes, the most one may take", b.what, b.limit)
		return 0, b.over
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.r.Read(p)
	b.read += int64(n)
	return n, err
}

// next reads the next row into row (t, then each lane's Columns, NaN for
// no value), or returns io.EOF after the last.
func (rr *rowReader) next(row []float64) ([]float64, error) {
	what := fmt.Sprintf("row %d", rr.n+1)
	rr.bound(maxRowBytes(rr.lanes), what)
	more := rr.dec.More()
	if rr.in.over != nil {
		return nil, rr.in.over
	}
	if !more {
		return nil, io.EOF
	}
	rr.buf = rr.buf[:0]
	if err := rr.dec.Decode(&rr.buf); err != nil {
		if rr.in.over != nil {
			return nil, rr.in.over
		}
		return nil, fmt.Errorf("%s does not parse: %w", what, err)
	}
	rr.n++
	if want := 1 + rr.lanes*len(scenario.Columns); len(rr.buf) != want {
		return nil, fmt.Errorf("row %d has %d values, want %d (t, then %d lanes × %d columns)",
			rr.n, len(rr.buf), want, rr.lanes, len(scenario.Columns))
	}
	row = row[:0]
	for _, v := range rr.buf {
		if v == nil {
			row = append(row, math.NaN())
		} else {
			row = append(row, *v)
		}
	}
	return row, nil
}

// laneTick is lane i's LaneTick in a row of TickRow's layout.
func laneTick(row []float64, i int) scenario.LaneTick {
	return scenario.LaneTickOf(row[0], row[1+i*len(scenario.Columns):][:len(scenario.Columns)])
}

// writePageCSV writes the rows of a run of p as simengine.WriteCSV does,
// as they come: it holds one row. The live changes of p (its query's)
// are the last column, as in WriteCSV. A bad row after the first bytes
// went out aborts the response, so that the page gets a failed download,
// not a short file.
func writePageCSV(w http.ResponseWriter, p *scenario.Params, rows *rowReader) error {
	var cells *simengine.ChangeCells
	if len(p.Changes) > 0 {
		cells = simengine.NewChangeCells(p.Changes)
	}
	cw := &kit.CountingWriter{W: w}
	bw := bufio.NewWriter(cw)
	var row []float64
	var line []byte
	for first := true; ; first = false {
		var err error
		row, err = rows.next(row)
		if errors.Is(err, io.EOF) && !first {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			if cw.N > 0 {
				panic(http.ErrAbortHandler)
			}
			return err
		}
		if first {
			kit.ExportHeaders(w, "csv", "backofflab")
			bw.WriteString(simengine.CSVHeaderOf(p))
			if err != nil { // no rows: the header alone
				break
			}
		}
		if cells != nil {
			cells.Tick(row[0])
		}
		for i := range rows.lanes {
			lt := laneTick(row, i)
			line = lt.AppendCSV(line[:0], scenario.LaneNames[i:i+1])
			if cells != nil {
				line = cells.Append(line, i)
			}
			bw.Write(line)
		}
	}
	bw.Flush() // an error here: the page left, and no one is there to answer
	return nil
}

// maxPageExportTicks caps the lane ticks a JSON page export holds (about
// 100 bytes each): four lanes of an hour at the default tick fit.
const maxPageExportTicks = 1 << 19

// writePageJSON writes the rows as simengine.WriteJSON does: a
// simengine.Record of the params, and lane after lane its strategy, ticks
// and summary (the page's). Lane after lane needs every row first: it holds
// them, at most maxPageExportTicks lane ticks.
func writePageJSON(w http.ResponseWriter, p scenario.Params, sums []scenario.Summary, rows *rowReader) error {
	rec := simengine.Record{Params: p.Map()}
	for i, l := range p.Lanes {
		lr := simengine.LaneRecord{Name: scenario.LaneNames[i : i+1], Strategy: l.Strategy, Ticks: []scenario.LaneTick{}}
		if i < len(sums) {
			lr.Summary = sums[i]
		}
		rec.Lanes = append(rec.Lanes, lr)
	}
	var row []float64
	held := 0
	for {
		var err error
		row, err = rows.next(row)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if held += len(p.Lanes); held > maxPageExportTicks {
			return fmt.Errorf("more than %d lane ticks for JSON: export CSV, or the run headless (its link)", maxPageExportTicks)
		}
		for i := range rec.Lanes {
			rec.Lanes[i].Ticks = append(rec.Lanes[i].Ticks, laneTick(row, i))
		}
	}
	kit.ExportHeaders(w, "json", "backofflab")
	bw := bufio.NewWriter(w)
	json.NewEncoder(bw).Encode(rec) // what WriteJSON writes, newline included
	bw.Flush()                      // an error here: the page left
	return nil
}
