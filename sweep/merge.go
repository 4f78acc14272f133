package sweep

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// The bounds of a part's text. Merge trusts nothing in a part: a file may be
// cut short, be another file, or never end (/dev/zero), so each line and the
// whole part are bounded by what a legal sweep writes, and a part past a
// bound is refused rather than read on.
const (
	// MaxLineBytes bounds a part's header, its newline included, and the
	// sweep's canonical query that its sweep column holds, which names
	// each parameter of the vocabulary at most once a lane (with every one
	// of them set, for four lanes, it is under a tenth of this;
	// TestMaxLineBytes); a row is at most MaxRowBytes.
	MaxLineBytes = 64 << 10
	// MaxStoppedBytes bounds the stopped column: the words of a lane's
	// stop, which the engine writes in under 150 bytes.
	MaxStoppedBytes = 512
)

// MaxRowBytes is the longest row, newline included, that a legal sweep
// writes: every number at its longest, the longest strategy and outcome,
// a stopped column of MaxStoppedBytes quotes, which the CSV doubles, a
// sweep column of MaxLineBytes and the longest shard. A part of a sweep
// holds at most this many bytes a row past its header (partBytes).
var MaxRowBytes = maxRowBytes()

func maxRowBytes() int {
	const (
		intBytes   = len("-9223372036854775808")                    // an int64; a uint64 seed has as many digits
		shardBytes = len("9223372036854775806/9223372036854775807") // the longest k/n
		numBytes   = len("-2.2250738585072014e-308")                // the longest float64 that num writes
	)
	valueBytes := max(intBytes, numBytes, len(time.Duration(math.MinInt64).String())) // an axis's value
	n := 4*intBytes + 2*valueBytes + 1 + longest(strategyParam.Choices) + longest(Outcomes)
	for _, c := range summaryColumns {
		switch c.typ {
		case colNum, colOptNum, colShare:
			n += numBytes
		case colInt:
			n += intBytes
		case colText:
			n += 2 + 2*MaxStoppedBytes
		}
	}
	n += MaxLineBytes + shardBytes                                       // the sweep's query and its shard
	return n + len(Columns) + 2 + len(summaryColumns) + len(MetaColumns) // the commas between the columns, and the newline
}

func longest(names []string) int {
	n := 0
	for _, s := range names {
		n = max(n, len(s))
	}
	return n
}

// rowBytes is the longest row, newline included, of a sweep whose
// canonical query is query bytes long: MaxRowBytes with a sweep column of
// that length.
func rowBytes(query int) int { return MaxRowBytes - MaxLineBytes + query }

// partBytes is the most a part of shard sh of s holds: its header, then
// one row of at most rowBytes per cell per lane.
func partBytes(s Spec, sh Shard, lanes int) int64 {
	header := len(strings.Join(s.Header(), ","))
	row := rowBytes(len(s.Encode().Encode()))
	return int64(header+1) + int64(sh.Cells(s.Cells()))*int64(lanes)*int64(row)
}

// Part is one CSV part of a sharded sweep to merge: its name (a file's),
// for messages, and its text.
type Part struct {
	Name string
	R    io.Reader
}

// part is a Part being read: the sweep its first row names, and a reader
// that bounds each line and the whole.
type part struct {
	Part
	size    *sizeLimit
	br      *bufio.Reader
	lineNo  int
	maxRow  int    // the longest row: MaxRowBytes until the sweep is known, then its rowBytes
	header  string // the first line, without its newline
	pending []byte // the first row, read by openPart: readLine's next
	// empty reports a part of a header alone: a shard without cells (a
	// sweep of fewer cells than shards), which names no sweep.
	empty   bool
	query   string // the first row's sweep column
	shardAt string // and its shard column
	shard   Shard
	sharded bool // the shard column names a shard
}

// Merge writes to w the CSV of the whole sweep whose parts are parts: each
// part is what "backofflab map -shard k/n" wrote for one shard, and the
// result is byte for byte what the sweep run whole writes. It reads the
// parts side by side, a cell at a time, and checks every row against the
// sweep its parts' sweep column names: each column's type and range, and
// each cell's steps, seed, axis values, lanes and strategies as that
// sweep's spec gives them. It fails with an error naming the part, the line
// and the column at fault when the parts belong to different sweeps, a
// shard is missing or given twice, a cell is missing, repeated or has
// other than one row per lane, a row is not as the sweep writes it, or a
// line or a part is longer than a legal sweep writes (MaxLineBytes,
// MaxRowBytes, partBytes). A part of a header alone is a shard without
// cells (a sweep of fewer cells than shards): it names no sweep, and
// counts as one of the n parts. It returns ctx's cause once ctx is done.
func Merge(ctx context.Context, w io.Writer, parts []Part) error {
	if len(parts) == 0 {
		return errors.New("merge: no parts")
	}
	ps, full, err := openParts(ctx, parts)
	if err != nil {
		return err
	}
	if len(full) == 0 {
		return fmt.Errorf("merge: no part holds a row (%s has a header alone): no sweep to merge", ps[0].Name)
	}
	first := full[0]
	n := first.shard.N
	byShard, err := shardsOf(full)
	if err != nil {
		return err
	}
	q, err := url.ParseQuery(first.query)
	if err != nil {
		return fmt.Errorf("merge: %s, line 2: the sweep's query: %s", first.Name, clip(err.Error()))
	}
	spec, err := ParseSpec(q, CLILimits)
	if err != nil {
		return fmt.Errorf("merge: %s, line 2: not a sweep that backofflab runs: %s", first.Name, clip(strings.ReplaceAll(err.Error(), "\n", "; ")))
	}
	// Every part with rows is a distinct shard k < n; the shards k below
	// the sweep's cells have rows, the others a header alone: n parts are
	// all of them.
	for k := range min(n, spec.Cells()) {
		if byShard[k] == nil {
			return fmt.Errorf("merge: shard %d/%d is missing (parts: %d of %d)", k, n, len(ps), n)
		}
	}
	if len(ps) != n {
		return fmt.Errorf("merge: %d parts for the %d shards of the sweep (%d with rows): a part is missing or given twice", len(ps), n, len(full))
	}
	sc, err := newSchema(spec)
	if err != nil {
		return fmt.Errorf("merge: %s, line 2: %w", first.Name, err)
	}
	canon := spec.Encode().Encode()
	header := strings.Join(spec.Header(), ",")
	if err := checkHeads(ps, spec, sc, header, canon); err != nil {
		return err
	}
	sc.query = canon

	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(header + "\n")
	if err := copyRows(ctx, bw, spec, sc, byShard, n); err != nil {
		return err
	}
	if err := noRowsLeft(ctx, byShard, n); err != nil {
		return err
	}
	return bw.Flush()
}

// openParts opens every part: all of them, and those with rows.
func openParts(ctx context.Context, parts []Part) (ps, full []*part, err error) {
	ps = make([]*part, len(parts))
	for i, p := range parts {
		pp, err := openPart(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		ps[i] = pp
		if !pp.empty {
			full = append(full, pp)
		}
	}
	return ps, full, nil
}

// shardsOf returns the parts with rows, full, by their shard's k, once it
// has checked that they are distinct shards of one sweep.
func shardsOf(full []*part) (map[int]*part, error) {
	first := full[0]
	byShard := map[int]*part{}
	for _, p := range full {
		switch {
		case p.query != first.query:
			return nil, fmt.Errorf("merge: %s and %s belong to different sweeps: %s", first.Name, p.Name, queryDiff(first.query, p.query, "in "+first.Name, "in "+p.Name))
		case p.shard.N != first.shard.N:
			return nil, fmt.Errorf("merge: %s is shard %s, %s shard %s: the parts of one sweep share their n", first.Name, first.shard, p.Name, p.shard)
		case byShard[p.shard.K] != nil:
			return nil, fmt.Errorf("merge: %s and %s are both shard %s", byShard[p.shard.K].Name, p.Name, p.shard)
		}
		byShard[p.shard.K] = p
	}
	return byShard, nil
}

// checkHeads checks the two lines every part begins with: the header, and
// in a part with rows the query as the sweep writes it, canon, and the
// part's shard; it sets the bounds on each part's rows.
func checkHeads(ps []*part, spec Spec, sc *schema, header, canon string) error {
	for _, p := range ps {
		if p.header != header {
			return fmt.Errorf("merge: %s, line 1: %s is not the header, want %s", p.Name, quote(p.header), quote(header))
		}
		if p.empty {
			continue
		}
		if p.query != canon {
			return fmt.Errorf("merge: %s, line 2: column sweep: not as a sweep writes it: %s", p.Name, queryDiff(p.query, canon, "here", "as the sweep writes it"))
		}
		if want := shardColumn(p.shard); p.sharded && p.shardAt != want {
			return fmt.Errorf("merge: %s, line 2: column shard: %s, want %s", p.Name, quote(p.shardAt), quote(want))
		}
		p.size.limit = partBytes(spec, p.shard, len(sc.strategies))
		p.maxRow = rowBytes(len(canon))
	}
	return nil
}

// copyRows writes to bw the rows of every cell of spec in order, each
// read from the part of its shard of n and checked, with its shard column
// emptied.
func copyRows(ctx context.Context, bw *bufio.Writer, spec Spec, sc *schema, byShard map[int]*part, n int) error {
	lanes := len(sc.strategies)
	for i := range spec.Cells() {
		p := byShard[i%n]
		key := sc.spec.Cell(i)
		for lane := range lanes {
			line, err := p.readLine(ctx, p.maxRow, "row")
			if err == io.EOF {
				if lane == 0 {
					return fmt.Errorf("merge: %s (shard %s) ends before cell %d: the part is incomplete", p.Name, p.shard, i)
				}
				return fmt.Errorf("merge: %s (shard %s) ends inside cell %d, after %d rows of %d (one per lane): the part is incomplete", p.Name, p.shard, i, lane, lanes)
			}
			if err != nil {
				return err
			}
			if err := sc.check(line, key, lane, p.shard, p.shardAt); err != nil {
				return fmt.Errorf("merge: %s, line %d: %w", p.Name, p.lineNo, err)
			}
			// The whole sweep's rows have an empty shard column, the last.
			bw.Write(line[:len(line)-1-len(p.shardAt)])
			if _, err := bw.WriteString("\n"); err != nil {
				return err
			}
		}
	}
	return nil
}

// noRowsLeft reports a part, of the n shards', that holds a row past its
// last cell.
func noRowsLeft(ctx context.Context, byShard map[int]*part, n int) error {
	for k := range n {
		p := byShard[k]
		if p == nil { // a shard without cells: its part was a header alone
			continue
		}
		line, err := p.readLine(ctx, p.maxRow, "row")
		if err == io.EOF {
			continue
		}
		if err != nil {
			return err
		}
		index, _, _ := strings.Cut(string(line), ",")
		return fmt.Errorf("merge: %s, line %d: a row past the part's last cell (index %s): a cell appears twice, or is not of this sweep", p.Name, p.lineNo, quote(index))
	}
	return nil
}

// openPart reads p's header and its first row, whose last columns name
// the sweep and the shard (MetaColumns); a part of a header alone is
// empty.
func openPart(ctx context.Context, p Part) (*part, error) {
	size := &sizeLimit{r: p.R, limit: math.MaxInt64}
	pp := &part{Part: p, size: size, br: bufio.NewReaderSize(size, MaxRowBytes), maxRow: MaxRowBytes}
	line, err := pp.readLine(ctx, MaxLineBytes, "line")
	if err == io.EOF {
		return nil, fmt.Errorf("merge: %s is empty, not a sweep's CSV", p.Name)
	}
	if err != nil {
		return nil, err
	}
	pp.header = strings.TrimSuffix(string(line), "\n")
	if !strings.HasSuffix(pp.header, ","+strings.Join(MetaColumns, ",")) {
		return nil, fmt.Errorf("merge: %s, line 1: not a sweep's CSV: the header does not end with the columns %s (it is %s)",
			p.Name, strings.Join(MetaColumns, ","), quote(pp.header))
	}
	line, err = pp.readLine(ctx, pp.maxRow, "row")
	if err == io.EOF {
		pp.empty = true
		return pp, nil
	}
	if err != nil {
		return nil, err
	}
	pp.pending = bytes.Clone(line)
	fields, err := splitCSV(nil, strings.TrimSuffix(string(line), "\n"))
	if err != nil {
		return nil, fmt.Errorf("merge: %s, line 2: %w", p.Name, err)
	}
	if len(fields) < len(MetaColumns) {
		return nil, fmt.Errorf("merge: %s, line 2: %d columns, not a sweep's row", p.Name, len(fields))
	}
	pp.query, pp.shardAt = fields[len(fields)-2], fields[len(fields)-1]
	pp.shard = Shard{0, 1}
	if pp.sharded = pp.shardAt != ""; pp.sharded {
		if pp.shard, err = ParseShard(pp.shardAt); err != nil {
			return nil, fmt.Errorf("merge: %s, line 2: its shard: %s", p.Name, clip(err.Error()))
		}
	}
	return pp, nil
}

// readLine returns the next line with its newline, at most max bytes
// long, or io.EOF at the end. what names such a line in the error past
// max.
func (p *part) readLine(ctx context.Context, max int, what string) ([]byte, error) {
	if line := p.pending; line != nil {
		p.pending = nil
		return line, nil
	}
	bound := "MaxLineBytes"
	if what == "row" {
		bound = "MaxRowBytes, with the sweep's query"
	}
	line, err := p.br.ReadSlice('\n')
	if len(line) > 0 || err == nil || err == bufio.ErrBufferFull {
		p.lineNo++
	}
	var tooLarge *partTooLarge
	switch {
	case ctx.Err() != nil:
		return nil, context.Cause(ctx)
	case errors.As(err, &tooLarge):
		return nil, fmt.Errorf("merge: %s, line %d: the part is larger than %d bytes, the most a part of this sweep holds (its cells × lanes rows of at most %d bytes, MaxRowBytes with the sweep's query)",
			p.Name, p.lineNo, tooLarge.limit, p.maxRow)
	case err == bufio.ErrBufferFull || len(line) > max:
		return nil, fmt.Errorf("merge: %s, line %d: longer than %d bytes, the longest %s a sweep writes (%s); it begins %s",
			p.Name, p.lineNo, max, what, bound, begins(line))
	case err == io.EOF && len(line) == 0:
		return nil, io.EOF
	case err == io.EOF:
		return nil, fmt.Errorf("merge: %s, line %d: the last line is cut short (no newline): the part is incomplete", p.Name, p.lineNo)
	case err != nil:
		return nil, fmt.Errorf("merge: %s, line %d: %w", p.Name, p.lineNo, err)
	}
	return line, nil
}

// sizeLimit reads r up to limit bytes and fails with *partTooLarge
// when r holds more.
type sizeLimit struct {
	r     io.Reader
	read  int64
	limit int64
}

// partTooLarge is the error of a part larger than its limit.
type partTooLarge struct{ limit int64 }

func (e *partTooLarge) Error() string { return fmt.Sprintf("larger than %d bytes", e.limit) }

func (l *sizeLimit) Read(b []byte) (int, error) {
	if l.read > l.limit {
		return 0, &partTooLarge{l.limit}
	}
	// One byte past the limit tells a part that ends there from a longer one.
	if rest := l.limit - l.read; int64(len(b)) > rest {
		b = b[:rest+1]
	}
	n, err := l.r.Read(b)
	l.read += int64(n)
	if l.read > l.limit {
		return n - int(l.read-l.limit), &partTooLarge{l.limit}
	}
	return n, err
}

// schema is what each row of a sweep's CSV must hold.
type schema struct {
	spec       Spec
	header     []string
	strategies []string // each lane's
	// why says, for each column from x to strategy, what its value is.
	why []func(k CellKey, lane int) string
	// The columns of summaryColumns that must add up.
	requests, succeeded, gaveUp, open int

	// query is the sweep's canonical query, its rows' sweep column.
	query string

	// Reused from row to row.
	fields, want, recovered []string
	ints                    []int64 // a row's whole numbers, by its column of summaryColumns
	rec                     bytes.Buffer
	cw                      *csv.Writer
}

func newSchema(s Spec) (*schema, error) {
	p, err := s.Cell(0).Params()
	if err != nil {
		return nil, fmt.Errorf("the sweep's first cell: %s", clip(err.Error()))
	}
	sc := &schema{spec: s, header: s.Header(), ints: make([]int64, len(summaryColumns))}
	sc.why = []func(CellKey, int) string{
		func(k CellKey, _ int) string { return fmt.Sprintf("cell %d's step along x", k.Index) },
		func(k CellKey, _ int) string { return fmt.Sprintf("cell %d's step along y", k.Index) },
		func(k CellKey, _ int) string { return fmt.Sprintf("cell %d's seed", k.Index) },
		func(k CellKey, _ int) string {
			return fmt.Sprintf("cell %d's value of %s, the x axis", k.Index, s.X.Name)
		},
	}
	if s.Y.Name != "" {
		sc.why = append(sc.why, func(k CellKey, _ int) string {
			return fmt.Sprintf("cell %d's value of %s, the y axis", k.Index, s.Y.Name)
		})
	}
	sc.why = append(sc.why,
		func(_ CellKey, lane int) string {
			return fmt.Sprintf("row %d of the cell's %d, one per lane", lane+1, len(sc.strategies))
		},
		func(_ CellKey, lane int) string {
			return fmt.Sprintf("lane %c's strategy in the sweep", scenario.LaneNames[lane])
		})
	for i, c := range summaryColumns {
		switch c.name {
		case "requests":
			sc.requests = i
		case "succeeded":
			sc.succeeded = i
		case "gave_up":
			sc.gaveUp = i
		case "open":
			sc.open = i
		}
	}
	for _, l := range p.Lanes {
		sc.strategies = append(sc.strategies, l.Strategy)
	}
	sc.cw = csv.NewWriter(&sc.rec)
	return sc, nil
}

// rowError is a row's column that does not hold what the sweep writes.
type rowError struct {
	column, value, want string
}

func (e *rowError) Error() string {
	return fmt.Sprintf("column %s: %s, want %s", e.column, quote(e.value), e.want)
}

// misplaced is a row of another cell than the one due.
type misplaced struct {
	index int
	want  CellKey
	lane  int
	shard Shard
}

func (e *misplaced) Error() string {
	switch {
	case e.lane > 0:
		return fmt.Sprintf("cell %d has %d rows, want one per lane, and the next is of cell %d", e.want.Index, e.lane, e.index)
	case e.index == e.want.Index-e.shard.N:
		return fmt.Sprintf("cell %d has more rows than lanes, or appears twice", e.index)
	case e.index < e.want.Index:
		return fmt.Sprintf("cell %d where cell %d is due: a cell out of order or repeated", e.index, e.want.Index)
	}
	return fmt.Sprintf("cell %d is missing: the part goes on with cell %d", e.want.Index, e.index)
}

// check checks line, the row of lane lane of the cell key in a part of
// shard sh, whose shard column is shardAt, against the sweep's schema, and
// that it is written as a Writer writes it.
func (sc *schema) check(line []byte, key CellKey, lane int, sh Shard, shardAt string) error {
	text := string(line[:len(line)-1]) // the fields are slices of it
	var err error
	sc.fields, err = splitCSV(sc.fields[:0], text)
	if err != nil {
		return err
	}
	if len(sc.fields) != len(sc.header) {
		return fmt.Errorf("%d columns, want %d (%s)", len(sc.fields), len(sc.header), strings.Join(sc.header, ","))
	}
	f := sc.fields
	if got := f[len(f)-2]; got != sc.query {
		return &rowError{"sweep", got, "the sweep's query, as on the part's first row"}
	}
	if got := f[len(f)-1]; got != shardAt {
		return &rowError{"shard", got, quote(shardAt) + ", as on the part's first row"}
	}
	f = f[:len(f)-len(MetaColumns)]
	if err := sc.checkIndex(f[0], key, lane, sh); err != nil {
		return err
	}
	col, err := sc.checkCell(f, key, lane)
	if err != nil {
		return err
	}
	outcome := f[col]
	if !slices.Contains(Outcomes, outcome) {
		return &rowError{"outcome", outcome, "one of " + strings.Join(Outcomes, ", ")}
	}
	if err := sc.checkSummary(f[col+1:], outcome); err != nil {
		return err
	}
	// The values are right; their text must be the Writer's too. Only
	// the stopped column can need quotes (every other is a number or a
	// name, checked to be as written), so a line without a quote and an
	// empty stopped column is as the Writer writes it.
	if f[len(f)-1] == "" && strings.IndexByte(text, '"') < 0 {
		return nil
	}
	return sc.asWritten(line)
}

// checkIndex checks a row's index, the cell of lane of shard sh that the
// row should be, key.
func (sc *schema) checkIndex(index string, key CellKey, lane int, sh Shard) error {
	cells := sc.spec.Cells()
	idx, ok := parseInt(index)
	switch {
	case !ok:
		return &rowError{"index", index, fmt.Sprintf("a cell's index, a whole number from 0 to %d", cells-1)}
	case idx >= int64(cells) || int(idx)%sh.N != sh.K:
		return &rowError{"index", index, fmt.Sprintf("a cell of shard %s (i %% %d = %d) below %d, the sweep's cells", sh, sh.N, sh.K, cells)}
	case int(idx) != key.Index:
		return &misplaced{int(idx), key, lane, sh}
	}
	return nil
}

// checkCell checks the columns from x to strategy of a row's fields f,
// which hold what the spec gives the cell key and the lane, and returns
// the column after them, the outcome's.
func (sc *schema) checkCell(f []string, key CellKey, lane int) (int, error) {
	// The columns from x to strategy hold what the spec gives the cell
	// and the lane.
	want := append(sc.want[:0], strconv.Itoa(key.X), strconv.Itoa(key.Y), strconv.FormatUint(key.Seed, 10), key.XValue)
	if sc.spec.Y.Name != "" {
		want = append(want, key.YValue)
	}
	want = append(want, scenario.LaneNames[lane:lane+1], sc.strategies[lane])
	sc.want = want
	for i, w := range want {
		if col := i + 1; f[col] != w {
			return 0, &rowError{sc.header[col], f[col], fmt.Sprintf("%s (%s)", quote(w), sc.why[i](key, lane))}
		}
	}
	return len(want) + 1, nil
}

// checkSummary checks a row's summary columns, f, against each other and
// the row's outcome.
func (sc *schema) checkSummary(f []string, outcome string) error {
	ints := sc.ints
	recovered := sc.recovered[:0]
	for i, c := range summaryColumns {
		raw := f[i]
		switch c.typ {
		case colOptNum, colNum:
			if raw == "" && c.typ == colOptNum {
				continue
			}
			if v, err := strconv.ParseFloat(raw, 64); err != nil || math.IsInf(v, 0) || math.IsNaN(v) || v < 0 || num(v) != raw {
				want := "a number ≥ 0, as 1.5 or 2e-05"
				if c.typ == colOptNum {
					want += ", or empty: never"
				}
				return &rowError{c.name, raw, want}
			}
			if c.typ == colOptNum {
				recovered = append(recovered, c.name+" is "+raw)
			}
		case colShare:
			if v, err := strconv.ParseFloat(raw, 64); err != nil || !(v >= 0 && v <= 1) || num(v) != raw {
				return &rowError{c.name, raw, "a share from 0 to 1, as 0.995"}
			}
		case colInt:
			v, ok := parseInt(raw)
			if !ok {
				return &rowError{c.name, raw, "a whole number ≥ 0"}
			}
			ints[i] = v
		case colText:
			if len(raw) > MaxStoppedBytes || strings.ContainsAny(raw, "\r\n") {
				return &rowError{c.name, raw, fmt.Sprintf("words on one line, at most %d bytes (MaxStoppedBytes)", MaxStoppedBytes)}
			}
			switch {
			case raw == "" && outcome == OutcomeStopped:
				return &rowError{c.name, raw, "why the lane stopped: its outcome is stopped"}
			case raw != "" && outcome != OutcomeStopped:
				return &rowError{"outcome", outcome, "stopped: the lane's stopped column says why it stopped"}
			}
		}
	}
	sc.recovered = recovered
	switch {
	case outcome == OutcomeRecovered && len(recovered) == 0:
		return &rowError{"outcome", outcome, "collapsed or no_outage: the lane's service_recovered_after and server_recovered_after are empty"}
	case (outcome == OutcomeCollapsed || outcome == OutcomeNoOutage) && len(recovered) > 0:
		return &rowError{"outcome", outcome, "recovered: the lane's " + strings.Join(recovered, ", ")}
	}
	// Every request is exactly one of succeeded, gave up and open.
	req, succ, gave, open := ints[sc.requests], ints[sc.succeeded], ints[sc.gaveUp], ints[sc.open]
	if succ > req || gave > req-succ || open != req-succ-gave {
		return &rowError{"open", strconv.FormatInt(open, 10),
			fmt.Sprintf("requests − succeeded − gave_up (%d − %d − %d): every request is one of them", req, succ, gave)}
	}
	return nil
}

// asWritten checks that line is as the Writer writes the row's fields.
func (sc *schema) asWritten(line []byte) error {
	sc.rec.Reset()
	sc.cw.Write(sc.fields)
	sc.cw.Flush()
	if err := sc.cw.Error(); err != nil {
		return err
	}
	if !bytes.Equal(sc.rec.Bytes(), line) {
		return fmt.Errorf("not as a sweep writes it: %s, want %s", quote(string(line)), quote(sc.rec.String()))
	}
	return nil
}

// parseInt reads a whole number ≥ 0 as strconv writes it.
func parseInt(raw string) (int64, bool) {
	v, err := strconv.ParseInt(raw, 10, 64)
	return v, err == nil && v >= 0 && strconv.FormatInt(v, 10) == raw
}

// splitCSV appends to dst the fields of one CSV record, line, without its
// newline: fields between commas, a quoted one with its "" read as ". An
// unquoted field is a slice of line.
func splitCSV(dst []string, line string) ([]string, error) {
	for {
		if len(line) == 0 || line[0] != '"' {
			field, rest, more := strings.Cut(line, ",")
			if strings.IndexByte(field, '"') >= 0 {
				return dst, fmt.Errorf("column %d: %s has a quote inside an unquoted field", len(dst)+1, quote(field))
			}
			dst = append(dst, field)
			if !more {
				return dst, nil
			}
			line = rest
			continue
		}
		var b strings.Builder
		i := 1
		for {
			j := strings.IndexByte(line[i:], '"')
			if j < 0 {
				return dst, fmt.Errorf("column %d: a quoted field is not closed", len(dst)+1)
			}
			b.WriteString(line[i : i+j])
			i += j + 1
			if i < len(line) && line[i] == '"' {
				b.WriteByte('"')
				i++
				continue
			}
			break
		}
		dst = append(dst, b.String())
		switch {
		case i == len(line):
			return dst, nil
		case line[i] != ',':
			return dst, fmt.Errorf("column %d: text after a quoted field's closing quote", len(dst))
		}
		line = line[i+1:]
	}
}

// queryDiff says where two sweeps' queries differ: the first parameter,
// in name order, that one sets otherwise than the other, with where each
// query is from.
func queryDiff(a, b, whereA, whereB string) string {
	qa, errA := url.ParseQuery(a)
	qb, errB := url.ParseQuery(b)
	if errA == nil && errB == nil {
		var names []string
		for name := range qa {
			names = append(names, name)
		}
		for name := range qb {
			if _, ok := qa[name]; !ok {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			if va, vb := qa.Get(name), qb.Get(name); va != vb || qa.Has(name) != qb.Has(name) {
				return fmt.Sprintf("%s is %s %s, %s %s", name, quote(va), whereA, quote(vb), whereB)
			}
		}
	}
	return fmt.Sprintf("%s and %s", quote(a), quote(b))
}

// quoteMax is the most of a part's text that an error quotes.
const quoteMax = 80

// quote quotes s for an error: no more than about quoteMax characters of
// it, escapes included, and its length when cut, since a line of a part
// may be as long as MaxLineBytes and none of it need be text.
func quote(s string) string {
	q, cut := quotePrefix(s)
	if cut {
		q += fmt.Sprintf("… (%d bytes)", len(s))
	}
	return q
}

// begins quotes the beginning of a line too long to quote whole.
func begins(line []byte) string {
	q, _ := quotePrefix(string(line[:min(len(line), 4*quoteMax)]))
	return q + "…"
}

// quotePrefix quotes as much of s as fits in about quoteMax characters,
// escapes included, and reports whether it cut s.
func quotePrefix(s string) (string, bool) {
	if q := strconv.Quote(s); len(q) <= quoteMax+2 {
		return q, false
	}
	n := min(quoteMax, len(s))
	q := strconv.Quote(strings.ToValidUTF8(s[:n], ""))
	for len(q) > quoteMax+2 && n > 8 {
		n /= 2
		q = strconv.Quote(strings.ToValidUTF8(s[:n], ""))
	}
	return q, true
}

// clip shortens an error message that quotes a part's text.
func clip(s string) string {
	const most = 400
	if len(s) <= most {
		return s
	}
	return strings.ToValidUTF8(s[:most], "") + fmt.Sprintf("… (%d bytes)", len(s))
}
