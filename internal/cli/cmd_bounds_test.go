package cli

import (
	"errors"
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

// TestMemoryFlagHoldsARun: every command whose runs take -max_memory
// refuses a budget that cannot hold the first state of its run, a usage
// error naming the minimum, where it ran every lane stopped and (advise)
// exited 0 advising on them; and a fraction of a byte is refused, not
// dropped.
func TestMemoryFlagHoldsARun(t *testing.T) {
	const short = "5s"
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"run", []string{"run", "-duration", short, "-max_memory", "1"}, `max_memory: "1 B" is not allowed (allowed: a size of at least 140.6 KiB (144000 bytes)`},
		{"run below its lanes' need", []string{"run", "-duration", short, "-lanes", "4", "-max_memory", "200KiB"}, "a size of at least 281.2 KiB (288000 bytes)"},
		{"bands", []string{"bands", "-duration", short, "-seeds", "2", "-max_memory", "1KiB"}, "a size of at least 140.6 KiB"},
		{"sweep's largest cell", []string{"sweep", "-duration", short, "-x", "clients", "-x_from", "100", "-x_to", "100000", "-x_steps", "2", "-max_memory", "1MiB"},
			"a size of at least 13.7 MiB (14400000 bytes)"},
		{"advise", []string{"advise", "-seeds", "1", "-max_memory", "1"}, "a size of at least"},
		{"a fraction of a byte", []string{"advise", "-max_memory", "1.5"}, `"1.5" is not a whole number of bytes`},
		{"a fraction of a byte in kilobytes", []string{"run", "-max_memory", "1.0001KB"}, `"1.0001KB" is not a whole number of bytes (1000.100)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, err := runArgs(t, tc.args...)
			if !errors.As(err, new(usageError)) || !strings.Contains(err.Error()+errOut, tc.want) {
				t.Errorf("%q: %v\n%s\nwant a usage error saying %q", tc.args, err, errOut, tc.want)
			}
			if out != "" {
				t.Errorf("%q wrote %d bytes of output", tc.args, len(out))
			}
		})
	}
	// At the minimum, the run starts.
	if _, errOut, err := runArgs(t, "run", "-duration", short, "-max_memory", "144000"); err != nil {
		t.Errorf("run at the minimum: %v\n%s", err, errOut)
	}
}
