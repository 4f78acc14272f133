package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/sweep"
)

// smallSweep is a sweep of short runs whose lane a storms in some cells and
// recovers in others.
var smallSweep = []string{"map", "-clients", "1000", "-duration", "60s", "-outage_at", "5s",
	"-x", "outage_for", "-x_from", "1s", "-x_to", "20s", "-x_steps", "4",
	"-y", "b.min_delay", "-y_from", "10ms", "-y_to", "1s", "-y_steps", "3", "-y_scale", "log", "-seeds", "2"}

// TestSweepCellIsRun: each cell of "backofflab map -format json" holds,
// byte for byte, the summaries that "backofflab run -format json" prints
// for the cell's parameters as flags.
func TestSweepCellIsRun(t *testing.T) {
	out := mustRun(t, append(smallSweep, "-format", "json")...)
	var doc struct {
		Spec  map[string]string `json:"spec"`
		Cells []struct {
			Index int `json:"index"`
			Lanes []struct {
				Outcome string          `json:"outcome"`
				Summary json.RawMessage `json:"summary"`
			} `json:"lanes"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	q := url.Values{}
	for k, v := range doc.Spec {
		q.Set(k, v)
	}
	spec, err := sweep.ParseSpec(q, sweep.CLILimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Cells) != spec.Cells() {
		t.Fatalf("%d cells, want %d", len(doc.Cells), spec.Cells())
	}
	outcomes := map[string]bool{}
	for _, i := range []int{0, 5, 17, 23} {
		args := []string{"run", "-format", "json"}
		for name, vals := range spec.Cell(i).Query() {
			args = append(args, "-"+name+"="+vals[0])
		}
		var rec struct {
			Lanes []struct {
				Summary json.RawMessage `json:"summary"`
			} `json:"lanes"`
		}
		if err := json.Unmarshal([]byte(mustRun(t, args...)), &rec); err != nil {
			t.Fatal(err)
		}
		cell := doc.Cells[i]
		if cell.Index != i || len(cell.Lanes) != len(rec.Lanes) {
			t.Fatalf("cell %d: index %d, %d lanes; run: %d lanes", i, cell.Index, len(cell.Lanes), len(rec.Lanes))
		}
		for l := range rec.Lanes {
			if !bytes.Equal(cell.Lanes[l].Summary, rec.Lanes[l].Summary) {
				t.Errorf("cell %d lane %d:\n sweep %s\n   run %s (%q)", i, l, cell.Lanes[l].Summary, rec.Lanes[l].Summary, args)
			}
			outcomes[cell.Lanes[l].Outcome] = true
		}
	}
	if len(outcomes) < 2 {
		t.Errorf("the cells compared all have one outcome, %v: a sweep answering one run for all would pass", outcomes)
	}
}

// TestSweepShardsMerge: "sweep -shard k/n -o FILE" for each shard, then
// "map merge", gives byte for byte what the sweep run whole prints, for
// 1, 3 and 7 shards, from files or from their directory.
func TestSweepShardsMerge(t *testing.T) {
	whole := mustRun(t, smallSweep...)
	if !strings.HasPrefix(whole, "index,x,y,seed,") {
		t.Fatalf("the sweep's CSV begins %.80q, not with its header", whole)
	}
	for _, n := range []int{1, 3, 7} {
		t.Run(fmt.Sprintf("%d shards", n), func(t *testing.T) {
			dir := t.TempDir()
			var files []string
			for k := range n {
				file := filepath.Join(dir, fmt.Sprintf("part-%d.csv", k))
				files = append(files, file)
				if out := mustRun(t, append(smallSweep, "-shard", fmt.Sprintf("%d/%d", k, n), "-o", file, "-parallel", "2")...); out != "" {
					t.Errorf("with -o, stdout has %q", out)
				}
			}
			if got := mustRun(t, append([]string{"map", "merge"}, files...)...); got != whole {
				t.Errorf("merge of the files differs from the whole sweep:\n%s\nwant\n%s", got, whole)
			}
			merged := filepath.Join(t.TempDir(), "sweep.csv")
			mustRun(t, "map", "merge", "-o", merged, dir)
			if got, err := os.ReadFile(merged); err != nil || string(got) != whole {
				t.Errorf("merge -o of the directory: %v\n%s", err, got)
			}
		})
	}
	dir := t.TempDir()
	mustRun(t, append(smallSweep, "-shard", "0/2", "-o", filepath.Join(dir, "part-0.csv"))...)
	if _, _, err := runArgs(t, "map", "merge", dir); err == nil || !strings.Contains(err.Error(), "shard 1/2 is missing") {
		t.Errorf("merge of one shard of two: %v", err)
	}
}

// TestSweepBadInput: bad flags are usage errors (exit status 2) that name
// the parameter, the value and what is allowed.
func TestSweepBadInput(t *testing.T) {
	base := []string{"map", "-duration", "10s", "-x", "clients", "-x_from", "10", "-x_to", "20", "-x_steps", "2"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"map", "-x", "nosuch", "-x_from", "1", "-x_to", "2"}, `x: "nosuch" is not allowed (allowed: a numeric parameter`},
		{[]string{"map", "-x", "clients", "-x_from", "1"}, `x_to: "" is not allowed`},
		{slices.Concat(base[:len(base)-1], []string{"2000"}), `x_steps: "2000" is not allowed (allowed: a whole number from 2 to 1000)`},
		{slices.Concat(base, []string{"-timeout", "0s"}), `timeout: "0s" is not allowed`},
		{slices.Concat(base, []string{"-shard", "2/2"}), `shard: "2/2" is not allowed`},
		{slices.Concat(base, []string{"-shard", "0/0"}), `shard: "0/0" is not allowed (allowed: k/n with n ≥ 1 and 0 ≤ k < n`},
		{slices.Concat(base, []string{"-format", "xml"}), `format: "xml" is not allowed`},
		{slices.Concat(base, []string{"-format", "json", "-shard", "0/2"}), "csv with -shard"},
		{slices.Concat(base, []string{"-parallel", "-1"}), `parallel: "-1" is not allowed`},
		{slices.Concat(base, []string{"-parallel", "10001"}), `parallel: "10001" is not allowed (allowed: a whole number from 0 to 10000)`},
		{slices.Concat(base, []string{"extra"}), `unexpected argument "extra"`},
		{[]string{"map", "merge"}, "no parts given"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, _, err := runArgs(t, tc.args...)
			if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a usage error saying %q", err, tc.want)
			}
		})
	}
	_, errOut, err := runArgs(t, "map", "-h")
	if err != nil || !strings.Contains(errOut, "-x_steps") || !strings.Contains(errOut, "-b.min_delay") || !strings.Contains(errOut, "-parallel") {
		t.Errorf("map -h: %v\n%s", err, errOut)
	}
}

// TestSweepProgress: a bar of cells, rate and time left on a terminal, and
// nothing on anything else.
func TestSweepProgress(t *testing.T) {
	if got, want := progressLine(50, 200, 10*time.Second), "[#######.......................] 50/200 cells  5.0 cells/s  30s left "; got != want {
		t.Errorf("progressLine = %q, want %q", got, want)
	}
	var b bytes.Buffer
	p := newProgress(&b, 3)
	p.done()
	p.stop()
	if b.Len() != 0 {
		t.Errorf("a progress bar on a buffer: %q", b.String())
	}
}

// TestSweepCancelled: a sweep interrupted (Ctrl-C, a pod's SIGTERM)
// returns the cancel and leaves no -o file, not even a part of one.
func TestSweepCancelled(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep.csv")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- Run(ctx, []string{"map", "-clients", "20000", "-duration", "1h", "-x", "outage_for",
			"-x_from", "10s", "-x_to", "60s", "-x_steps", "8", "-o", out}, new(strings.Builder), new(strings.Builder))
	}()
	// The cancel lands some way into the run. No state is awaited: wherever
	// it lands, the outcome checked below must be the same.
	time.Sleep(200 * time.Millisecond)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("run returned %v, want context.Canceled", err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("a cancelled sweep left %v", files)
	}
}

// TestSweepOutputChecked: an -o that cannot be written fails before the
// sweep's first cell runs: with a context already cancelled, the error is
// the -o's, not the cancel's, and no file is left.
func TestSweepOutputChecked(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sweepArgs := []string{"map", "-duration", "10s", "-x", "clients", "-x_from", "100", "-x_to", "200", "-x_steps", "2"}
	for _, tc := range []struct {
		o, want string
	}{
		{dir, "-o " + dir + ": a directory: give a file's name"},
		{filepath.Join(dir, "nosuch", "out.csv"), "-o " + filepath.Join(dir, "nosuch", "out.csv") + ": cannot write beside it"},
	} {
		t.Run(tc.o, func(t *testing.T) {
			for _, args := range [][]string{append(slices.Clone(sweepArgs), "-o", tc.o), {"map", "merge", "-o", tc.o, "testdata/nosuch.csv"}} {
				if args[1] == "merge" {
					part := filepath.Join(t.TempDir(), "part.csv")
					mustRun(t, append(slices.Clone(sweepArgs), "-o", part)...)
					args[len(args)-1] = part
				}
				err := Run(ctx, args, new(strings.Builder), new(strings.Builder))
				if err == nil || !strings.Contains(err.Error(), tc.want) || ExitCode(err) != exitFailure {
					t.Errorf("%q: %v (exit status %d), want %q and status %d", args, err, ExitCode(err), tc.want, exitFailure)
				}
			}
			if files, _ := os.ReadDir(dir); len(files) != 0 {
				t.Errorf("left %v", files)
			}
		})
	}
}

// TestExitStatus: every command exits with 2 for a bad command line and
// with 1 for a failure while running.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "part.csv")
	sweepArgs := []string{"map", "-duration", "10s", "-x", "clients", "-x_from", "100", "-x_to", "200", "-x_steps", "2"}
	mustRun(t, append(slices.Clone(sweepArgs), "-shard", "0/2", "-o", part)...)
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("t,lane\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		args []string
		ctx  context.Context
		want int
	}{
		{[]string{"nosuch"}, nil, exitUsage},
		{[]string{"-nosuch"}, nil, exitUsage},
		{[]string{"run", "-clients", "0"}, nil, exitUsage},
		{[]string{"bands", "-seeds", "0"}, nil, exitUsage},
		{[]string{"map", "-x", "nosuch", "-x_from", "1", "-x_to", "2"}, nil, exitUsage},
		{slices.Concat(sweepArgs, []string{"-shard", "0/0"}), nil, exitUsage},
		{[]string{"map", "merge"}, nil, exitUsage},
		{[]string{"map", "merge", "-nosuch", part}, nil, exitUsage},
		{[]string{"server", "-addr", "nohost"}, nil, exitUsage},
		{[]string{"client", "-clients", "0"}, nil, exitUsage},
		{[]string{"contention", "-format", "xml"}, nil, exitUsage},
		{[]string{"map", "merge", filepath.Join(dir, "nosuch.csv")}, nil, exitFailure},
		{[]string{"map", "merge", bad}, nil, exitFailure},
		{[]string{"map", "merge", part}, nil, exitFailure}, // shard 1/2 is missing
		{[]string{"map", "merge", part, "/dev/zero"}, nil, exitFailure},
		{slices.Concat(sweepArgs, []string{"-o", dir}), nil, exitFailure},
		{sweepArgs, cancelled, exitFailure},
		{[]string{"run", "-duration", "10s"}, cancelled, exitFailure},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			err := Run(ctx, tc.args, new(strings.Builder), new(strings.Builder))
			if err == nil || ExitCode(err) != tc.want {
				t.Errorf("error %v: exit status %d, want %d", err, ExitCode(err), tc.want)
			}
		})
	}
}

// TestSweepIsMapsOldName: "sweep", the map command's old name, which
// scripts and cluster manifests written before still give, prints the
// same bytes as "map" for the same flags, and "sweep merge" joins parts
// into the same CSV as "map merge".
func TestSweepIsMapsOldName(t *testing.T) {
	small := append(slices.Clone(smallSweep), "-seeds", "1")
	whole := mustRun(t, small...)
	old := append([]string{"sweep"}, small[1:]...)
	if got := mustRun(t, old...); got != whole {
		t.Errorf("sweep printed %d bytes unlike map's %d", len(got), len(whole))
	}
	dir := t.TempDir()
	for k := range 2 {
		mustRun(t, append(slices.Clone(small), "-shard", fmt.Sprintf("%d/2", k), "-o", filepath.Join(dir, fmt.Sprintf("part-%d.csv", k)))...)
	}
	if a, b := mustRun(t, "map", "merge", dir), mustRun(t, "sweep", "merge", dir); a != whole || b != whole {
		t.Errorf("map merge and sweep merge: equal to the whole map %v, %v", a == whole, b == whole)
	}
}
