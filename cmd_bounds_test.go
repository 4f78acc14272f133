package main

import (
	"strings"
	"testing"
)

// TestRunHoldsChangesToTheTable: the command line holds a live change to
// the vocabulary's ranges, its own bounds, as it holds the values at
// t = 0, naming the change, the value and the range.
func TestRunHoldsChangesToTheTable(t *testing.T) {
	for _, tc := range []struct{ name, changes, want string }{
		{"clients", "@1s clients=2000000", `change 1: clients: "2000000" is not allowed (allowed: a whole number from 1 to 1000000)`},
		{"a time finer than the engine's", "@0.0000000001s clients=10", "the engine's resolution is 1ns"},
		{"too many", strings.Repeat("@1s stop ", 1001), "at most 1000 changes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, err := runArgs(t, append([]string{"run", "-changes", tc.changes}, small...)...)
			if err == nil || !strings.Contains(errOut+err.Error(), "changes: ") || !strings.Contains(errOut+err.Error(), tc.want) {
				t.Errorf("run -changes %.60q: %v\n%s\nwant an error of changes saying %q", tc.changes, err, errOut, tc.want)
			}
		})
	}
}
