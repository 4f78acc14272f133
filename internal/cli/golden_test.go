package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestRunGolden")

// goldenRuns are the flag sets whose `run` output is kept in
// testdata/golden: the default run in each format, 001's published
// experiment (its curve server, fixed against think_scaled), runs that
// reach every strategy, outage kind and option on 001's curve, and layered
// retries (tiers), orphaned and cancelled. A change of
// structure must leave every byte of them as it is; a change of behaviour
// rewrites them with -update, and its commit says why. Every set but the
// default ones names its server model, so that a change of the defaults
// leaves it as it is.
var goldenRuns = []struct{ name, args string }{
	{"default.txt", ""},
	{"default.csv", "-format csv"},
	{"default.json", "-format json"},
	{"001_curve.txt", "-server_model curve -b.strategy think_scaled"},
	{"001_curve.csv", "-format csv -server_model curve -b.strategy think_scaled"},
	{"exponential_three.txt", "-server_model curve -lanes 3 -a.strategy exponential -b.strategy exponential -b.factor 2.7 -b.max_delay 10m " +
		"-c.strategy exponential -c.min_delay 1s -c.factor 1.5 -c.max_delay 5m"},
	{"crash_cancel.csv", "-format csv -server_model curve -outage crash -duration 60s -a.strategy full_jitter -a.cancel_on_timeout=true " +
		"-b.strategy decorrelated -b.max_attempts 5"},
	{"partition_four.csv", "-format csv -server_model curve -outage partition -lanes 4 -clients 3000 -duration 40s -tick 250ms " +
		"-a.strategy truncated -b.strategy grpc -c.strategy equal_jitter -d.strategy none -seed 7"},
	{"pause_deadline.json", "-format json -server_model curve -clients 500 -think 2s -timeout 500ms -server_limit 20 -backlog 100 " +
		"-duration 45s -a.strategy fixed -a.deadline 3s -b.strategy think_scaled -b.jitter 0.3"},
	{"tiers.csv", "-format csv -server_model curve -duration 40s -a.max_attempts 3 -a.tiers fixed:3:1s,exponential:2:300ms " +
		"-b.cancel_on_timeout=true -b.tiers fixed:3:1s:retry_budget,fixed:3:500ms,full_jitter:2:200ms"},
}

// TestRunGolden: `run` writes, byte for byte, what testdata/golden holds.
func TestRunGolden(t *testing.T) {
	for _, g := range goldenRuns {
		t.Run(g.name, func(t *testing.T) {
			got := mustRun(t, append([]string{"run"}, strings.Fields(g.args)...)...)
			path := filepath.Join("testdata", "golden", g.name)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run TestRunGolden -update writes it)", err)
			}
			if got != string(want) {
				i := 0
				for i < min(len(got), len(want)) && got[i] == want[i] {
					i++
				}
				t.Fatalf("run %s differs from %s at byte %d:\n got %.200q\nwant %.200q", g.args, path, i, got[i:], string(want)[i:])
			}
		})
	}
}
