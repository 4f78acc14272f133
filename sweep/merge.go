package sweep

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"backofflab/scenario"
)

// Part is one CSV part of a sharded sweep to merge: its name (a file's),
// for messages, and its text.
type Part struct {
	Name string
	R    io.Reader
}

// part is a Part being read: its shard, and the row read ahead.
type part struct {
	Part
	br     *bufio.Reader
	query  string
	shard  Shard
	line   []byte // the row read ahead, nil at the end
	index  int    // its cell's index
	lineNo int
}

// Merge writes to w the CSV of the whole sweep whose parts are parts: each
// part is what "backofflab sweep -shard k/n" wrote for one shard, and the
// result is byte for byte what the sweep run whole writes. It reads the
// parts side by side, a cell at a time, and fails with an error naming the
// part at fault when the parts belong to different sweeps, a shard is
// missing or given twice, or a cell is missing, appears twice or has
// other than one row per lane.
func Merge(w io.Writer, parts []Part) error {
	if len(parts) == 0 {
		return errors.New("merge: no parts")
	}
	ps := make([]*part, len(parts))
	for i, p := range parts {
		pp, err := openPart(p)
		if err != nil {
			return err
		}
		ps[i] = pp
	}
	first := ps[0]
	n := first.shard.N
	byShard := make([]*part, n)
	for _, p := range ps {
		switch {
		case p.query != first.query:
			return fmt.Errorf("merge: %s and %s belong to different sweeps:\n  %s\n  %s", first.Name, p.Name, first.query, p.query)
		case p.shard.N != n:
			return fmt.Errorf("merge: %s is shard %s, %s shard %s: the parts of one sweep share their n", first.Name, first.shard, p.Name, p.shard)
		case byShard[p.shard.K] != nil:
			return fmt.Errorf("merge: %s and %s are both shard %s", byShard[p.shard.K].Name, p.Name, p.shard)
		}
		byShard[p.shard.K] = p
	}
	for k, p := range byShard {
		if p == nil {
			return fmt.Errorf("merge: shard %d/%d is missing (parts: %d of %d)", k, n, len(ps), n)
		}
	}
	q, err := url.ParseQuery(first.query)
	if err != nil {
		return fmt.Errorf("merge: %s: the first line's query: %w", first.Name, err)
	}
	spec, err := ParseSpec(q, CLILimits)
	if err != nil {
		return fmt.Errorf("merge: %s: the first line's sweep: %w", first.Name, err)
	}
	base, _ := scenario.Parse(spec.Cell(0).Query())
	lanes := len(base.Lanes)

	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(spec.FirstLine(Shard{}) + "\n")
	header := strings.Join(spec.Header(), ",")
	for _, p := range byShard {
		h, err := p.readLine()
		if err != nil || string(h) != header {
			return fmt.Errorf("merge: %s: line 2 is not the header %q", p.Name, header)
		}
	}
	bw.WriteString(header + "\n")
	for _, p := range byShard {
		if err := p.advance(); err != nil {
			return err
		}
	}
	for i := range spec.Cells() {
		p := byShard[i%n]
		rows := 0
		for p.line != nil && p.index == i {
			bw.Write(p.line)
			rows++
			if err := p.advance(); err != nil {
				return err
			}
		}
		switch {
		case rows == 0 && p.line != nil && p.index < i:
			return fmt.Errorf("merge: %s, line %d: cell %d appears twice, or out of order", p.Name, p.lineNo, p.index)
		case rows == 0:
			return fmt.Errorf("merge: %s (shard %s) lacks cell %d: the part is incomplete", p.Name, p.shard, i)
		case rows > lanes:
			return fmt.Errorf("merge: %s, line %d: cell %d appears twice (%d rows, one per lane: %d)", p.Name, p.lineNo-1, i, rows, lanes)
		case rows < lanes:
			return fmt.Errorf("merge: %s: cell %d has %d rows, one per lane: %d", p.Name, i, rows, lanes)
		}
	}
	for _, p := range byShard {
		if p.line != nil {
			return fmt.Errorf("merge: %s, line %d: cell %d appears twice, or is not of this sweep", p.Name, p.lineNo, p.index)
		}
	}
	return bw.Flush()
}

// openPart reads p's first line: the mark, the sweep's query and the shard.
func openPart(p Part) (*part, error) {
	pp := &part{Part: p, br: bufio.NewReaderSize(p.R, 64<<10)}
	line, err := pp.readLine()
	rest, ok := strings.CutPrefix(string(line), Mark)
	if err != nil || !ok {
		return nil, fmt.Errorf("merge: %s is not a sweep's CSV: its first line does not begin with %q", p.Name, Mark)
	}
	pp.shard = Shard{0, 1}
	query, shard, sharded := strings.Cut(rest, " shard ")
	pp.query = query
	if sharded {
		if pp.shard, err = ParseShard(shard); err != nil {
			return nil, fmt.Errorf("merge: %s: its first line's shard: %w", p.Name, err)
		}
	}
	return pp, nil
}

// readLine returns the next line without its newline; io.EOF at the end.
func (p *part) readLine() ([]byte, error) {
	line, err := p.br.ReadBytes('\n')
	if len(line) > 0 && err == io.EOF {
		err = nil // a last line without a newline
	}
	if err != nil {
		return nil, err
	}
	p.lineNo++
	return bytes.TrimSuffix(line, []byte("\n")), nil
}

// advance reads the next row ahead, with its newline, and its cell index.
func (p *part) advance() error {
	line, err := p.br.ReadBytes('\n')
	if err == io.EOF && len(line) == 0 {
		p.line = nil
		return nil
	}
	if err != nil && err != io.EOF {
		return fmt.Errorf("merge: %s: %w", p.Name, err)
	}
	p.lineNo++
	if err == io.EOF {
		return fmt.Errorf("merge: %s, line %d: the last row is cut short (no newline): the part is incomplete", p.Name, p.lineNo)
	}
	field, _, _ := bytes.Cut(line, []byte(","))
	i, err := strconv.Atoi(string(field))
	if err != nil || i < 0 || i%p.shard.N != p.shard.K {
		return fmt.Errorf("merge: %s, line %d: %q is not a cell of shard %s", p.Name, p.lineNo, field, p.shard)
	}
	p.line, p.index = line, i
	return nil
}
