package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// manifestArgs returns the args lists of the containers in the Kubernetes
// manifest file, in order: each "args:" line's following "- item" lines
// at one indentation, unquoted. It reads the YAML as lines, which is all
// these manifests need.
func manifestArgs(t *testing.T, file string) [][]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var all [][]string
	var cur []string
	indent := -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case trimmed == "args:":
			cur, indent = []string{}, len(line)-len(trimmed)
		case cur != nil && strings.HasPrefix(trimmed, "- ") && len(line)-len(trimmed) == indent:
			item := strings.TrimPrefix(trimmed, "- ")
			if unq, err := strconv.Unquote(item); err == nil {
				item = unq
			}
			cur = append(cur, item)
		case cur != nil:
			all = append(all, cur)
			cur = nil
		}
	}
	if cur != nil {
		all = append(all, cur)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return all
}

// manifestField returns the value of the first "name: value" line of file.
func manifestField(t *testing.T, file, name string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(name) + `:\s*(\S+)\s*$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no %s", file, name)
	}
	return string(m[1])
}

// TestDeployManifests: the cluster's sweep Job runs arguments that the
// sweep command accepts, one shard per completion index, and its merge
// Job's arguments join the parts the sweep writes into the whole.
func TestDeployManifests(t *testing.T) {
	sweepFile, mergeFile := filepath.Join("deploy", "k8s", "sweep-job.yaml"), filepath.Join("deploy", "k8s", "merge-job.yaml")
	if got := manifestField(t, sweepFile, "completionMode"); got != "Indexed" {
		t.Errorf("completionMode %s, want Indexed", got)
	}
	completions, _ := strconv.Atoi(manifestField(t, sweepFile, "completions"))
	sweepArgs := manifestArgs(t, sweepFile)
	if len(sweepArgs) != 1 || sweepArgs[0][0] != "map" {
		t.Fatalf("%s: args %q, want one map container", sweepFile, sweepArgs)
	}
	args := strings.Join(sweepArgs[0], " ")
	if want := fmt.Sprintf("-shard $(JOB_COMPLETION_INDEX)/%d", completions); !strings.Contains(args, want) {
		t.Errorf("%s: args %q lack %q: one shard per completion index", sweepFile, args, want)
	}

	// The sweep's arguments, with the shared volume in a temporary
	// directory, for the first and the last index: accepted (the sweep is
	// cancelled before its first cell, which leaves no part).
	data := t.TempDir()
	if err := os.Mkdir(filepath.Join(data, "parts"), 0o755); err != nil {
		t.Fatal(err)
	}
	expand := func(args []string, index int) []string {
		out := make([]string, len(args))
		for i, a := range args {
			a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(index))
			out[i] = strings.Replace(a, "/data", data, 1)
		}
		return out
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, index := range []int{0, completions - 1} {
		args := expand(sweepArgs[0], index)
		err := Run(ctx, args, new(strings.Builder), new(strings.Builder))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%q: %v, want the arguments accepted and the sweep cancelled", args, err)
		}
	}
	if parts, _ := filepath.Glob(filepath.Join(data, "parts", "*")); len(parts) != 0 {
		t.Errorf("a cancelled sweep left %q", parts)
	}

	// The merge's arguments join the parts of a small sweep written there
	// as the sweep Job writes them, into what the sweep writes whole.
	mergeArgs := manifestArgs(t, mergeFile)
	if len(mergeArgs) != 1 || mergeArgs[0][0] != "map" || mergeArgs[0][1] != "merge" {
		t.Fatalf("%s: args %q, want one map merge container", mergeFile, mergeArgs)
	}
	small := append(smallSweep[:len(smallSweep):len(smallSweep)], "-seeds", "1")
	for k := range 3 {
		part := strings.Replace(sweepArgs[0][len(sweepArgs[0])-1], "$(JOB_COMPLETION_INDEX)", strconv.Itoa(k), 1)
		mustRun(t, append(small, "-shard", fmt.Sprintf("%d/3", k), "-o", strings.Replace(part, "/data", data, 1))...)
	}
	merge := expand(mergeArgs[0], 0)
	mustRun(t, merge...)
	got, err := os.ReadFile(merge[3])
	if err != nil {
		t.Fatal(err)
	}
	if whole := mustRun(t, small...); string(got) != whole {
		t.Errorf("the merge Job's output differs from the sweep run whole:\n%s\nwant\n%s", got, whole)
	}
}
