package cli

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// contentionCommand is the command of the contention table in docs/contention.md.
var contentionCommand = []string{"contention", "-n", "50,100,190"}

// TestContentionTable pins the contention table of docs/contention.md to the
// engine: the page shows the command and what it printed, and the command prints it
// still (100 runs at each of 15 points: under a second).
func TestContentionTable(t *testing.T) {
	doc, err := os.ReadFile("docs/contention.md")
	if err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, contentionCommand...)
	block := "```\n$ backofflab " + strings.Join(contentionCommand, " ") + "\n" + out + "```\n"
	if !strings.Contains(string(doc), block) {
		t.Errorf("docs/contention.md lacks the contention table as the engine prints it now:\n%s", block)
	}
}

// TestContentionBadInput: a bad value is a usage error that names its
// parameter.
func TestContentionBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"-n", "0"}, `n: "0"`},
		{[]string{"-seeds", "0"}, `seeds: "0"`},
		{[]string{"-runs", "0"}, `runs: "0"`}, // the old name of -seeds
		{[]string{"-runs", "3", "-seeds", "3"}, `runs: "3" is not allowed (allowed: nothing beside seeds`},
		{[]string{"-strategies", "none"}, `strategies: "none"`},
		{[]string{"-format", "xml"}, `format: "xml"`},
		{[]string{"-parallel", "-1"}, `parallel: "-1" is not allowed (allowed: a whole number from 0 to 256)`},
		{[]string{"-parallel", "257"}, `parallel: "257" is not allowed (allowed: a whole number from 0 to 256)`},
		// The command's limits, contention.CLILimits, refuse a study
		// before it allocates anything: this one would have asked for
		// 100 000 Ns × 5 strategies × 10 000 seeds × 3 float64s, 120 GB.
		{[]string{"-n", "1:100000:1", "-seeds", "10000"}, `n: "1:100000:1" is not allowed (allowed: from:to:step with 1 ≤ from ≤ to ≤ 10000`},
		{[]string{"-seeds", "10001"}, `seeds: "10001" is not allowed (allowed: a whole number from 1 to 10000)`},
		{[]string{"-runs", "10001"}, `runs: "10001" is not allowed (allowed: a whole number from 1 to 10000)`},
		{[]string{"-n", "1:1000:1"}, `n: "1:1000:1" is not allowed (allowed: 1000 Ns × 5 strategies is 5000 points, and a study may have at most 500`},
		{[]string{"-n", "10000", "-seeds", "101"}, `seeds: "101" is not allowed (allowed: a whole number from 1 to 100 with these Ns and strategies`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, _, err := runArgs(t, append([]string{"contention"}, c.args...)...)
			if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v, want a usage error saying %s", err, c.says)
			}
		})
	}
}
