package main

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// contentionCommand is the README's contention table's command.
var contentionCommand = []string{"contention", "-n", "50,100,190"}

// TestContentionTable pins the README's contention table to the engine: the
// README shows the command and what it printed, and the command prints it
// still (100 runs at each of 15 points: under a second).
func TestContentionTable(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, contentionCommand...)
	block := "```\n$ backofflab " + strings.Join(contentionCommand, " ") + "\n" + out + "```\n"
	if !strings.Contains(string(readme), block) {
		t.Errorf("README.md lacks the contention table as the engine prints it now:\n%s", block)
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
		{[]string{"-runs", "0"}, `runs: "0"`},
		{[]string{"-strategies", "none"}, `strategies: "none"`},
		{[]string{"-format", "xml"}, `format: "xml"`},
		{[]string{"-parallel", "-1"}, `parallel: "-1"`},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, _, err := runArgs(t, append([]string{"contention"}, c.args...)...)
			if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v, want a usage error saying %s", err, c.says)
			}
		})
	}
}
