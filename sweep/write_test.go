package sweep

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// write writes cells (of shard sh) in the given order and returns the
// document.
func write(t *testing.T, format string, s Spec, sh Shard, cells []Cell) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := NewWriter(&b, format, s, sh)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		if err := w.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sweepCells runs shard sh of s and returns its cells in index order.
func sweepCells(t *testing.T, s Spec, sh Shard) []Cell {
	t.Helper()
	m := runAll(t, s, Options{Parallel: 2, Shard: sh})
	out := make([]Cell, 0, len(m))
	for j := range sh.Cells(s.Cells()) {
		out = append(out, m[sh.Index(j)])
	}
	return out
}

// TestWriterOrder: cells added in any order are written in index order,
// the CSV one row per cell per lane under its header, the JSON the spec and
// the cells.
func TestWriterOrder(t *testing.T) {
	s := mustSpec(t, small)
	cells := sweepCells(t, s, Shard{})
	shuffled := slices.Clone(cells)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, format := range Formats {
		inOrder, anyOrder := write(t, format, s, Shard{}, cells), write(t, format, s, Shard{}, shuffled)
		if !bytes.Equal(inOrder, anyOrder) {
			t.Errorf("%s: cells added out of order are written otherwise", format)
		}
	}

	doc := string(write(t, FormatCSV, s, Shard{}, shuffled))
	rows, err := csv.NewReader(strings.NewReader(doc)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := rows[0]
	if want := "index,x,y,seed,outage_for,b.min_delay,lane,strategy,outcome," + strings.Join(SummaryColumns, ",") + ",sweep,shard"; strings.Join(header, ",") != want {
		t.Errorf("header %q, want %q", strings.Join(header, ","), want)
	}
	if len(rows)-1 != 2*s.Cells() {
		t.Fatalf("%d rows, want one per cell per lane: %d", len(rows)-1, 2*s.Cells())
	}
	col := func(name string) int { return slices.Index(header, name) }
	for r, row := range rows[1:] {
		c, l := cells[r/2], cells[r/2].Lanes[r%2]
		sum := l.Summary
		want := map[string]string{
			"index": fmt.Sprint(c.Index), "x": fmt.Sprint(c.X), "y": fmt.Sprint(c.Y), "seed": fmt.Sprint(c.Seed),
			"outage_for": c.XValue, "b.min_delay": c.YValue, "lane": l.Lane, "strategy": l.Strategy, "outcome": l.Outcome,
			"peak_concurrency": fmt.Sprint(sum.PeakConcurrency), "requests": fmt.Sprint(sum.Requests),
			"gave_up": fmt.Sprint(sum.GaveUp), "service_recovered_after": "",
			"peak_attempt_rate": fmt.Sprint(sum.PeakAttemptRate), "request_p50": fmt.Sprint(sum.RequestP50),
			"request_p99": fmt.Sprint(sum.RequestP99), "request_p999": fmt.Sprint(sum.RequestP999),
			"succeeded_within": fmt.Sprint(sum.SucceededWithin),
			"sweep":            s.Encode().Encode(), "shard": "",
		}
		if sum.ServiceRecoveredAfter != nil {
			want["service_recovered_after"] = fmt.Sprint(*sum.ServiceRecoveredAfter)
		}
		for name, v := range want {
			if got := row[col(name)]; got != v {
				t.Errorf("row %d: %s = %q, want %q", r+1, name, got, v)
			}
		}
	}

	var j struct {
		Spec  map[string]string
		Cells []struct {
			Index int
			Lanes []LaneResult
		}
	}
	if err := json.Unmarshal(write(t, FormatJSON, s, Shard{}, shuffled), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Cells) != s.Cells() || j.Spec["x"] != "outage_for" || j.Spec["y_scale"] != ScaleLog {
		t.Fatalf("JSON: %d cells, spec %v", len(j.Cells), j.Spec)
	}
	for i, c := range j.Cells {
		if c.Index != i || c.Lanes[1].Outcome != cells[i].Lanes[1].Outcome {
			t.Errorf("JSON cell %d: %+v", i, c)
		}
	}
}

// TestWriterRefuses: a cell added twice or of another shard is an error,
// and Close reports a cell never added.
func TestWriterRefuses(t *testing.T) {
	s := mustSpec(t, "x=clients&x_from=100&x_to=400&x_steps=4&duration=10s")
	k := func(i int) Cell { return Cell{CellKey: s.Cell(i)} }
	for _, tc := range []struct {
		name  string
		sh    Shard
		cells []Cell
	}{
		{"twice", Shard{}, []Cell{k(0), k(0)}},
		{"twice while waiting", Shard{}, []Cell{k(2), k(2)}},
		{"another shard's", Shard{1, 2}, []Cell{k(0)}},
		{"missing", Shard{}, []Cell{k(0), k(2), k(3)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWriter(new(bytes.Buffer), FormatCSV, s, tc.sh)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tc.cells {
				err = w.Add(c)
			}
			if err == nil {
				err = w.Close()
			}
			if err == nil {
				t.Error("no error")
			}
		})
	}
}

// TestMerge: the parts of a sweep split into 1, 3, 7 and 30 shards
// (more than its 24 cells: 6 parts are a header alone), merged, are byte
// for byte the sweep run whole.
func TestMerge(t *testing.T) {
	s := mustSpec(t, small)
	whole := write(t, FormatCSV, s, Shard{}, sweepCells(t, s, Shard{}))
	for _, n := range []int{1, 3, 7, 30} {
		t.Run(fmt.Sprintf("%d shards", n), func(t *testing.T) {
			var parts []Part
			for k := n - 1; k >= 0; k-- { // in any order
				sh := Shard{k, n}
				doc := write(t, FormatCSV, s, sh, sweepCells(t, s, sh))
				rows, err := csv.NewReader(bytes.NewReader(doc)).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				if k >= s.Cells() && len(rows) != 1 {
					t.Errorf("part %d/%d of a sweep of %d cells has %d rows", k, n, s.Cells(), len(rows)-1)
				}
				for _, row := range rows[1:] {
					if got := row[len(row)-2:]; got[0] != s.Encode().Encode() || got[1] != fmt.Sprintf("%d/%d", k, n) {
						t.Fatalf("part %d/%d's row ends with %q", k, n, got)
					}
				}
				parts = append(parts, Part{fmt.Sprintf("part-%d.csv", k), bytes.NewReader(doc)})
			}
			var merged bytes.Buffer
			if err := Merge(context.Background(), &merged, parts); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(merged.Bytes(), whole) {
				t.Errorf("merged parts differ from the whole sweep:\n%s\nwant\n%s", merged.Bytes(), whole)
			}
		})
	}
	var again bytes.Buffer
	if err := Merge(context.Background(), &again, []Part{{"whole.csv", bytes.NewReader(whole)}}); err != nil || !bytes.Equal(again.Bytes(), whole) {
		t.Errorf("merging the whole sweep alone: %v", err)
	}
}

// TestMergeRefuses: parts that do not make one whole sweep are refused,
// each with an error that says why.
func TestMergeRefuses(t *testing.T) {
	s := mustSpec(t, small)
	other := mustSpec(t, strings.Replace(small, "seeds=2", "seeds=1", 1))
	part := func(s Spec, k, n int) []byte {
		return write(t, FormatCSV, s, Shard{k, n}, sweepCells(t, s, Shard{k, n}))
	}
	p0, p1, p2 := part(s, 0, 3), part(s, 1, 3), part(s, 2, 3)
	lines := func(b []byte) []string { return strings.SplitAfter(string(b), "\n") }
	// p1 without its last cell (2 lanes, and the empty string after the
	// final newline), and with its first cell's rows twice.
	l1 := lines(p1)
	cut := strings.Join(l1[:len(l1)-3], "")
	twice := strings.Join(slices.Concat(l1[:3], l1[1:]), "")
	for _, tc := range []struct {
		name  string
		parts [][]byte
		why   string
	}{
		{"different sweeps", [][]byte{p0, part(other, 1, 3), p2}, "different sweeps"},
		{"a shard missing", [][]byte{p0, p2}, "shard 1/3 is missing"},
		{"a shard twice", [][]byte{p0, p1, p1, p2}, "are both shard 1/3"},
		{"shards of different n", [][]byte{p0, p1, part(s, 1, 2)}, "share their n"},
		{"a part cut short", [][]byte{p0, []byte(cut), p2}, "ends before cell 22"},
		{"a cell twice", [][]byte{p0, []byte(twice), p2}, "appears twice"},
		{"a line cut", [][]byte{p0, p1[:len(p1)-5], p2}, "cut short"},
		{"not a sweep", [][]byte{[]byte("t,lane\n"), p1, p2}, "not a sweep's CSV"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var parts []Part
			for i, b := range tc.parts {
				parts = append(parts, Part{fmt.Sprintf("part%d", i), bytes.NewReader(b)})
			}
			err := Merge(context.Background(), new(bytes.Buffer), parts)
			if err == nil || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("Merge: %v, want an error saying %q", err, tc.why)
			}
		})
	}
}

// TestCSVReaders: a sweep's CSV, whole or a part, is read by common CSV
// readers as they come: Go's encoding/csv with its default settings
// (every record as many fields as the first) and Python's csv module
// (its DictReader takes the first line as the header), each finding the
// header, one row per cell per lane and the sweep's query on every row.
func TestCSVReaders(t *testing.T) {
	s := mustSpec(t, small)
	for _, sh := range []Shard{{}, {1, 3}} {
		doc := write(t, FormatCSV, s, sh, sweepCells(t, s, sh))
		rows := 2 * sh.Cells(s.Cells())
		t.Run("encoding/csv "+shardColumn(sh), func(t *testing.T) {
			recs, err := csv.NewReader(bytes.NewReader(doc)).ReadAll()
			if err != nil {
				t.Fatalf("encoding/csv: %v", err)
			}
			if !slices.Equal(recs[0], s.Header()) || len(recs)-1 != rows {
				t.Fatalf("encoding/csv reads a header %q and %d rows, want %d", recs[0], len(recs)-1, rows)
			}
			for _, r := range recs[1:] {
				if r[len(r)-2] != s.Encode().Encode() || r[len(r)-1] != shardColumn(sh) {
					t.Fatalf("a row ends with %q", r[len(r)-2:])
				}
			}
		})
		t.Run("python3 csv "+shardColumn(sh), func(t *testing.T) {
			py, err := exec.LookPath("python3")
			if err != nil {
				t.Skip("no python3")
			}
			const script = `import csv, json, sys
rows = list(csv.DictReader(sys.stdin))
print(json.dumps({"fields": list(rows[0].keys()), "rows": len(rows),
	"sweeps": sorted(set(r["sweep"] for r in rows)), "shards": sorted(set(r["shard"] for r in rows))}))`
			cmd := exec.Command(py, "-c", script)
			cmd.Stdin = bytes.NewReader(doc)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("python3: %v", err)
			}
			var got struct {
				Fields         []string
				Rows           int
				Sweeps, Shards []string
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Fields, s.Header()) || got.Rows != rows ||
				!slices.Equal(got.Sweeps, []string{s.Encode().Encode()}) || !slices.Equal(got.Shards, []string{shardColumn(sh)}) {
				t.Errorf("python3's csv reads %+v, want the header %q, %d rows, one sweep and shard %q", got, s.Header(), rows, shardColumn(sh))
			}
		})
	}
}
