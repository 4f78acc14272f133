package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// twoParts returns the two parts, shards 0/2 and 1/2, of the sweep small,
// and the whole sweep's CSV.
func twoParts(t *testing.T) (s Spec, p0, p1, whole []byte) {
	t.Helper()
	s = mustSpec(t, small)
	cells := sweepCells(t, s, Shard{})
	var c0, c1 []Cell
	for _, c := range cells {
		if c.Index%2 == 0 {
			c0 = append(c0, c)
		} else {
			c1 = append(c1, c)
		}
	}
	return s, write(t, FormatCSV, s, Shard{0, 2}, c0), write(t, FormatCSV, s, Shard{1, 2}, c1), write(t, FormatCSV, s, Shard{}, cells)
}

// merge merges the named parts.
func merge(parts map[string]io.Reader) error {
	var ps []Part
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range parts {
			if !yield(name) {
				return
			}
		}
	}) {
		ps = append(ps, Part{name, parts[name]})
	}
	return Merge(context.Background(), io.Discard, ps)
}

// zeros is an endless stream of zero bytes, as /dev/zero.
type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}

// TestMergeBounds: a part that is endless, or whose line is longer than a
// sweep writes, is refused once past its bound, with an error that names
// the part, the line and the bound and quotes no more than a short prefix.
func TestMergeBounds(t *testing.T) {
	s, p0, p1, _ := twoParts(t)
	longStopped := func() []byte {
		lines := strings.SplitAfter(string(p1), "\n")
		rec, err := csv.NewReader(strings.NewReader(lines[2])).Read()
		if err != nil {
			t.Fatal(err)
		}
		rec[slices.Index(s.Header(), "stopped")] = strings.Repeat("x", rowBytes(len(s.Encode().Encode())))
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		w.Write(rec)
		w.Flush()
		return []byte(lines[0] + lines[1] + b.String() + strings.Join(lines[3:], ""))
	}()
	headerLine := len(strings.Join(s.Header(), ",")) + 1
	for _, tc := range []struct {
		name string
		p1   io.Reader
		want string
	}{
		{"endless header", zeros{}, fmt.Sprintf("p1.csv, line 1: longer than %d bytes", MaxLineBytes)},
		{"10 MB header", strings.NewReader(strings.Repeat("a", 10<<20) + "\n"), fmt.Sprintf("p1.csv, line 1: longer than %d bytes", MaxLineBytes)},
		{"endless after its rows", io.MultiReader(bytes.NewReader(p1), zeros{}),
			fmt.Sprintf("p1.csv, line %d: the part is larger than %d bytes", bytes.Count(p1, []byte("\n"))+1,
				partBytes(s, Shard{1, 2}, 2))},
		{"endless first row", io.MultiReader(bytes.NewReader(p1[:headerLine]), zeros{}), fmt.Sprintf("p1.csv, line 2: longer than %d bytes", MaxRowBytes)},
		{"a row past its bound", bytes.NewReader(longStopped), fmt.Sprintf("p1.csv, line 3: longer than %d bytes, the longest row", rowBytes(len(s.Encode().Encode())))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := merge(map[string]io.Reader{"p0.csv": bytes.NewReader(p0), "p1.csv": tc.p1})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Merge: %v, want an error saying %q", err, tc.want)
			}
			if len(err.Error()) > 600 {
				t.Errorf("the error is %d bytes long: %.300q…", len(err.Error()), err)
			}
		})
	}
}

// TestMaxRowBytes: the longest row a legal sweep can write fits in
// MaxRowBytes: every number at its longest, the longest strategy and
// outcome, a stopped column of MaxStoppedBytes quotes, the longest shard
// and a query of MaxLineBytes; and in rowBytes of its own query.
func TestMaxRowBytes(t *testing.T) {
	s := mustSpec(t, "x=outage_for&x_from=1ms&x_to=1h&x_steps=2&y=b.factor&y_from=1.5&y_to=3&y_steps=2&duration=10s")
	key := s.Cell(0)
	key.Index, key.X, key.Y, key.Seed = math.MaxInt64, math.MinInt64, math.MinInt64, math.MaxUint64
	key.XValue, key.YValue = time.Duration(math.MinInt64).String(), "-2.2250738585072014e-308"
	tiny := -math.SmallestNonzeroFloat64 * 1e15 // a float whose shortest text is as long as any
	sum := scenario.Summary{ServiceRecoveredAfter: &tiny, ServerRecoveredAfter: &tiny, BaselineOK: tiny, Amplification: tiny,
		PeakConcurrency: math.MinInt64, Attempts: math.MinInt64, Requests: math.MinInt64, Succeeded: math.MinInt64,
		GaveUp: math.MinInt64, Open: math.MinInt64, Stopped: strings.Repeat(`"`, MaxStoppedBytes)}
	c := Cell{CellKey: key, Lanes: []LaneResult{{
		Lane:     "a",
		Strategy: slices.MaxFunc(strategies.Names(), func(a, b string) int { return len(a) - len(b) }),
		Outcome:  slices.MaxFunc(Outcomes, func(a, b string) int { return len(a) - len(b) }),
		Summary:  sum,
	}}}
	var b bytes.Buffer
	w, err := NewWriter(&b, FormatCSV, s, Shard{math.MaxInt - 1, math.MaxInt})
	if err != nil {
		t.Fatal(err)
	}
	w.csv.Write(s.Header())
	w.csv.Flush()
	b.Reset()
	if err := w.write(&c); err != nil {
		t.Fatal(err)
	}
	w.csv.Flush()
	query := len(s.Encode().Encode())
	if b.Len() > rowBytes(query) {
		t.Errorf("the longest row is %d bytes, rowBytes %d", b.Len(), rowBytes(query))
	}
	if n := b.Len() - query + MaxLineBytes; n > MaxRowBytes || n < MaxRowBytes*99/100 {
		t.Errorf("the longest row with a query of MaxLineBytes is %d bytes, MaxRowBytes %d: the bound is not the longest row's", n, MaxRowBytes)
	}
}

// TestMaxLineBytes: the query of a sweep that sets every parameter of the
// vocabulary, for four lanes (its rows' sweep column), and its header
// are far under MaxLineBytes.
func TestMaxLineBytes(t *testing.T) {
	p, err := scenario.Parse(url.Values{"lanes": {"4"}})
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"x": {"clients"}, "x_from": {"100"}, "x_to": {"200"}, "x_steps": {"1000"},
		"y": {"outage_for"}, "y_from": {"1s"}, "y_to": {"2s"}, "y_steps": {"1000"}, "seeds": {"100"}}
	for _, row := range scenario.Table {
		if !row.Lane {
			q.Set(row.Name, row.Value(&p, 0))
			continue
		}
		for l := range p.Lanes {
			q.Set(scenario.LaneNames[l:l+1]+"."+row.Name, row.Value(&p, l))
		}
	}
	for name, v := range map[string]string{"x": "clients", "x_from": "1000", "x_to": "3000", "x_steps": "1000",
		"y": "outage_for", "y_from": "1s", "y_to": "1000s", "y_steps": "1000", "seeds": "100", "duration": "1h"} {
		q.Set(name, v)
	}
	s, err := ParseSpec(q, CLILimits)
	if err != nil {
		t.Fatal(err)
	}
	n := len(s.Encode().Encode())
	t.Logf("the sweep's query: %d bytes", n)
	if n > MaxLineBytes/10 {
		t.Errorf("a query of %d bytes, MaxLineBytes %d", n, MaxLineBytes)
	}
	if h := len(strings.Join(s.Header(), ",")); h > MaxLineBytes/10 {
		t.Errorf("a header of %d bytes, MaxLineBytes %d", h, MaxLineBytes)
	}
}

// TestMergeChecksRows: a part whose rows are not what its sweep writes (a
// value of the wrong type or out of range, a cell's parameters other than
// the sweep's spec gives, a row of another shape) is refused with an error
// naming the part, the line, the column, the value and what was expected;
// so is a part of another sweep whose sweep column was changed.
func TestMergeChecksRows(t *testing.T) {
	s, p0, p1, _ := twoParts(t)
	header := s.Header()
	// p1's line 3 (1-based) is cell 1's lane b: x step 1, y step 0, seed 2.
	edit := func(line int, change func(rec []string) []string) []byte {
		lines := strings.SplitAfter(string(p1), "\n")
		rec, err := csv.NewReader(strings.NewReader(lines[line-1])).Read()
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		w.Write(change(rec))
		w.Flush()
		lines[line-1] = b.String()
		return []byte(strings.Join(lines, ""))
	}
	set := func(line int, column, value string) []byte {
		i := slices.Index(header, column)
		if i < 0 {
			t.Fatalf("no column %s", column)
		}
		return edit(line, func(rec []string) []string { rec[i] = value; return rec })
	}
	raw := func(line int, text string) []byte {
		lines := strings.SplitAfter(string(p1), "\n")
		lines[line-1] = text + "\n"
		return []byte(strings.Join(lines, ""))
	}
	row3 := strings.SplitAfter(string(p1), "\n")[2]
	other := mustSpec(t, strings.Replace(small, "seed", "seed=7&seed", 1))
	foreign := write(t, FormatCSV, other, Shard{1, 2}, sweepCells(t, other, Shard{1, 2}))
	foreign = bytes.ReplaceAll(foreign, []byte(other.Encode().Encode()), []byte(s.Encode().Encode()))
	for _, tc := range []struct {
		name string
		part []byte
		want []string
	}{
		{"an outcome that is none", set(3, "outcome", "banana"), []string{"line 3", "column outcome", `"banana"`, "one of recovered, collapsed, no_outage, stopped"}},
		{"an axis value changed", set(3, "outage_for", "7s"), []string{"line 3", "column outage_for", `"7s"`, `want "1s" (cell 1's value of outage_for, the x axis)`}},
		{"the y axis value changed", set(3, "b.min_delay", "11ms"), []string{"line 3", "column b.min_delay", `"11ms"`, `want "10ms"`}},
		{"a step changed", set(3, "x", "2"), []string{"line 3", "column x", `"2"`, `want "0" (cell 1's step along x)`}},
		{"a seed changed", set(3, "seed", "9"), []string{"line 3", "column seed", `"9"`, `want "2" (cell 1's seed)`}},
		{"a lane that is none", set(3, "lane", "z"), []string{"line 3", "column lane", `"z"`, `want "b"`}},
		{"a strategy the sweep does not run", set(3, "strategy", "bogus"), []string{"line 3", "column strategy", `"bogus"`, `want "exponential" (lane b's strategy`}},
		{"a peak that is no number", set(3, "peak_concurrency", "abc"), []string{"line 3", "column peak_concurrency", `"abc"`, "a whole number ≥ 0"}},
		{"a negative count", set(3, "attempts", "-3"), []string{"line 3", "column attempts", `"-3"`, "a whole number ≥ 0"}},
		{"a number not as written", set(3, "baseline_ok", "1e2"), []string{"line 3", "column baseline_ok", `"1e2"`, "a number ≥ 0"}},
		{"a share above 1", set(3, "succeeded_within", "1.5"), []string{"line 3", "column succeeded_within", `"1.5"`, "a share from 0 to 1"}},
		{"a negative share", set(3, "succeeded_within", "-0.5"), []string{"line 3", "column succeeded_within", `"-0.5"`, "a share from 0 to 1"}},
		{"a request p99 that is no number", set(3, "request_p99", "NaN"), []string{"line 3", "column request_p99", `"NaN"`, "a number ≥ 0"}},
		{"recovered, never recovering", edit(3, func(rec []string) []string {
			rec[slices.Index(header, "outcome")] = "recovered"
			rec[slices.Index(header, "service_recovered_after")], rec[slices.Index(header, "server_recovered_after")] = "", ""
			return rec
		}), []string{"line 3", "column outcome", `"recovered"`, "collapsed or no_outage"}},
		{"stopped without words", set(3, "outcome", "stopped"), []string{"line 3", "column stopped", `""`, "why the lane stopped"}},
		{"requests that do not add up", set(3, "open", "12345"), []string{"line 3", "column open", `"12345"`, "requests − succeeded − gave_up"}},
		{"an extra column", raw(3, strings.TrimSuffix(row3, "\n")+",extra"), []string{"line 3", fmt.Sprintf("%d columns, want %d", len(header)+1, len(header))}},
		{"a row of 6 columns", edit(3, func(rec []string) []string { return rec[:6] }), []string{"line 3", fmt.Sprintf("6 columns, want %d", len(header))}},
		{"an index of another shard", set(3, "index", "2"), []string{"line 3", "column index", `"2"`, "a cell of shard 1/2"}},
		{"an index that is no number", set(3, "index", "one"), []string{"line 3", "column index", `"one"`, "a cell's index"}},
		{"a quote left open", raw(3, strings.TrimSuffix(row3, "\n")+`,"`), []string{"line 3", fmt.Sprintf("column %d: a quoted field is not closed", len(header)+1)}},
		{"a quote inside a field", raw(3, strings.Replace(row3, ",b,", `,b",`, 1)), []string{"line 3", "column 7: \"b\\\"\" has a quote inside an unquoted field"}},
		{"a needless quote", raw(3, strings.Replace(strings.TrimSuffix(row3, "\n"), ",b,", `,"b",`, 1)), []string{"line 3", "not as a sweep writes it"}},
		{"a header changed", raw(1, strings.Replace(strings.Join(header, ","), "peak_concurrency", "peak", 1)), []string{"p1.csv, line 1", "is not the header"}},
		{"a part of another sweep, its sweep column changed", foreign, []string{"p1.csv, line 2", "column seed", `want "2"`}},
		{"a row of another sweep", set(3, "sweep", "x=clients"), []string{"line 3", "column sweep", `"x=clients"`, "the sweep's query"}},
		{"a row of another shard", set(3, "shard", "0/2"), []string{"line 3", "column shard", `"0/2"`, `"1/2"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := merge(map[string]io.Reader{"p0.csv": bytes.NewReader(p0), "p1.csv": bytes.NewReader(tc.part)})
			if err == nil {
				t.Fatal("merged")
			}
			for _, want := range append(tc.want, "p1.csv") {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Merge: %v\nwant an error saying %q", err, want)
				}
			}
		})
	}
}

// TestMergeNonCanonical: parts whose sweep columns agree on a sweep but
// not in the syntax a sweep writes are refused: the merge would not be
// byte for byte the sweep.
func TestMergeNonCanonical(t *testing.T) {
	_, p0, p1, _ := twoParts(t)
	noncanonical := func(p []byte) io.Reader {
		return bytes.NewReader(bytes.ReplaceAll(p, []byte("x_from=1s"), []byte("x_from=1000ms")))
	}
	err := merge(map[string]io.Reader{"p0.csv": noncanonical(p0), "p1.csv": noncanonical(p1)})
	if err == nil || !strings.Contains(err.Error(), "p0.csv, line 2: column sweep: not as a sweep writes it") || !strings.Contains(err.Error(), `x_from is "1000ms" here, "1s" as the sweep writes it`) {
		t.Errorf("Merge: %v", err)
	}
}

// TestMergeCancelled: a merge returns its context's cause once done.
func TestMergeCancelled(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("terminated")
	cancel(stop)
	err := Merge(ctx, io.Discard, []Part{{"zero", zeros{}}})
	if !errors.Is(err, stop) {
		t.Errorf("Merge: %v, want %v", err, stop)
	}
}

// TestQuote: an error quotes a part's text whole when short, and otherwise
// a prefix of about quoteMax characters, escapes included, and its length.
func TestQuote(t *testing.T) {
	for _, tc := range []struct {
		name, in string
	}{
		{"empty", ""},
		{"short", "abc"},
		{"short, all escapes", strings.Repeat("\x00", 79)},
		{"long text", strings.Repeat("a", 10<<20)},
		{"long, all escapes", strings.Repeat("\x00", 1000)},
		{"long, cut inside a rune", strings.Repeat("é", 100)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := quote(tc.in)
			if len(got) > quoteMax+40 {
				t.Errorf("quote: %d bytes: %.200s", len(got), got)
			}
			if q := fmt.Sprintf("%q", tc.in); len(q) <= quoteMax+2 && got != q {
				t.Errorf("quote = %s, want %s", got, q)
			}
		})
	}
}

// TestMergeStopped: lanes that stopped, whose stopped column the CSV
// quotes (it has commas, and here quotes), merge as the whole sweep writes
// them.
func TestMergeStopped(t *testing.T) {
	s := mustSpec(t, "x=clients&x_from=100&x_to=400&x_steps=4&duration=10s")
	p, err := scenario.Parse(s.Cell(0).Query())
	if err != nil {
		t.Fatal(err)
	}
	var cells []Cell
	for i := range s.Cells() {
		c := Cell{CellKey: s.Cell(i)}
		for l, lane := range p.Lanes {
			sum := scenario.Summary{Collapsed: true, Stopped: `collapsed: stopped at 1 234 queued requests at t = 5.0 s, the "memory budget" of a run (1 GiB)`,
				PeakConcurrency: 7, Attempts: 30, Requests: 10, Succeeded: 4, GaveUp: 1, Open: 5, BaselineOK: 2.5, Amplification: 3}
			c.Lanes = append(c.Lanes, LaneResult{Lane: scenario.LaneNames[l : l+1], Strategy: lane.Strategy, Outcome: OutcomeOf(sum), Summary: sum})
		}
		cells = append(cells, c)
	}
	whole := write(t, FormatCSV, s, Shard{}, cells)
	if !bytes.Contains(whole, []byte(`,"collapsed: stopped at`)) {
		t.Fatalf("the stopped column is not quoted:\n%s", whole)
	}
	var parts []Part
	for k := range 2 {
		var mine []Cell
		for _, c := range cells {
			if c.Index%2 == k {
				mine = append(mine, c)
			}
		}
		parts = append(parts, Part{fmt.Sprintf("p%d.csv", k), bytes.NewReader(write(t, FormatCSV, s, Shard{k, 2}, mine))})
	}
	var merged bytes.Buffer
	if err := Merge(context.Background(), &merged, parts); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(merged.Bytes(), whole) {
		t.Errorf("merged:\n%s\nwant\n%s", merged.Bytes(), whole)
	}
}
