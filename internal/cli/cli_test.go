package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"net/url"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// small keeps every run of these tests to a fraction of a second.
var small = []string{"-duration", "30s", "-clients", "200"}

// runArgs runs the program with args and returns its stdout, stderr and error.
func runArgs(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), args, &stdout, &stderr)
	return stdout.String(), stderr.String(), err
}

// mustRun runs the program with args and fails the test on an error.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := runArgs(t, args...)
	if err != nil {
		t.Fatalf("run %q: %v\nstderr: %s", args, err, errOut)
	}
	return out
}

// withSmall returns the "run" command with the small parameters and extra.
func withSmall(extra ...string) []string {
	return append(append([]string{"run"}, small...), extra...)
}

// readCSV parses out as CSV and checks its header.
func readCSV(t *testing.T, out string) [][]string {
	t.Helper()
	if !strings.HasPrefix(out, simengine.CSVHeader()) {
		t.Fatalf("CSV does not start with CSVHeader() %q: %.200q", simengine.CSVHeader(), out)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("encoding/csv: %v", err)
	}
	want := append([]string{"t", "lane"}, scenario.Columns...)
	if !slices.Equal(recs[0], want) {
		t.Fatalf("header %v, want %v", recs[0], want)
	}
	return recs[1:]
}

// csvNum reads one CSV cell: empty is NaN.
func csvNum(t *testing.T, s string) float64 {
	t.Helper()
	if s == "" {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("CSV cell %q: %v", s, err)
	}
	return f
}

func TestRunHelpArgs(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		t.Run(strings.Join(append([]string{"args"}, args...), "_"), func(t *testing.T) {
			out, errOut, err := runArgs(t, args...)
			if err != nil {
				t.Fatalf("run %q: %v", args, err)
			}
			if out != usage {
				t.Errorf("stdout = %q, want the usage", out)
			}
			if !strings.Contains(out, "backofflab run") {
				t.Errorf("usage does not mention the run command: %q", out)
			}
			if errOut != "" {
				t.Errorf("stderr = %q, want nothing", errOut)
			}
		})
	}
}

func TestRunUnknownCommand(t *testing.T) {
	for _, name := range []string{"frobnicate", "serve-me", "RUN"} {
		t.Run(name, func(t *testing.T) {
			out, _, err := runArgs(t, name, "-clients", "5")
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("run %s: %v (%T), want a usageError", name, err, err)
			}
			if !strings.Contains(err.Error(), strconv.Quote(name)) {
				t.Errorf("error %q does not name %q", err, name)
			}
			if out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
		})
	}
}

func TestRunText(t *testing.T) {
	line := regexp.MustCompile(`^\[[a-d] [a-z_]+\] t=\S+ OK: \d+\.\d\d req/sec, errors: \d+\.\d\d req/sec, timedout: \d+\.\d\d req/sec, concurrency: \d+, latency: \S+$`)
	cases := []struct {
		name   string
		args   []string
		labels []string
		every  time.Duration
	}{
		{"defaults", withSmall(), []string{"[a fixed]", "[b exponential]"}, 5 * time.Second},
		{"four_lanes_report_3s", withSmall("-lanes", "4", "-b.strategy", "grpc", "-report", "3s"),
			[]string{"[a fixed]", "[b grpc]", "[c full_jitter]", "[d think_scaled]"}, 3 * time.Second},
		{"one_lane_tick_1s", withSmall("-lanes", "1", "-tick", "1s", "-a.strategy", "decorrelated"),
			[]string{"[a decorrelated]"}, 5 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := mustRun(t, c.args...)
			if !strings.HasSuffix(out, "\n") {
				t.Errorf("output does not end in a newline")
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			reports := int(30 * time.Second / c.every)
			n := len(c.labels)
			if want := reports*n + 1 + n; len(lines) != want {
				t.Fatalf("%d lines, want %d report lines, a blank line and %d verdicts:\n%s", len(lines), reports*n, n, out)
			}
			for k := range reports {
				wantT := " t=" + (time.Duration(k+1) * c.every).String() + " "
				for i, label := range c.labels {
					l := lines[k*n+i]
					if !line.MatchString(l) {
						t.Errorf("report line %q does not match %s", l, line)
					}
					if !strings.HasPrefix(l, label+" ") || !strings.Contains(l, wantT) {
						t.Errorf("report line %q, want it to start with %q and hold %q", l, label, wantT)
					}
				}
			}
			if blank := lines[reports*n]; blank != "" {
				t.Errorf("line %q between the reports and the verdicts, want a blank line", blank)
			}
			for i, label := range c.labels {
				l := lines[reports*n+1+i]
				if line.MatchString(l) || !strings.HasPrefix(l, label+" ") || !strings.Contains(l, ". baseline ") || !strings.Contains(l, "amplification") {
					t.Errorf("verdict line %q, want %q, its headline, then baseline … amplification", l, label)
				}
			}
		})
	}
}

// TestRunTextShortDuration runs for less than the default report interval:
// the user gave no -report, so the run must not fail for it.
func TestRunTextShortDuration(t *testing.T) {
	out, _, err := runArgs(t, "run", "-duration", "2s", "-clients", "200")
	if err != nil {
		t.Fatalf("run -duration 2s (valid, no -report given): %v", err)
	}
	if n := strings.Count(out, "baseline "); n != 2 {
		t.Errorf("%d verdicts, want 2:\n%s", n, out)
	}
}

func TestRunCSV(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		lanes int
		tick  time.Duration
	}{
		{"defaults", withSmall("-format", "csv"), 2, 100 * time.Millisecond},
		{"three_lanes_tick_250ms", withSmall("-format", "csv", "-c.strategy", "grpc", "-tick", "250ms"), 3, 250 * time.Millisecond},
		{"one_lane_tick_1s", withSmall("-format", "csv", "-lanes", "1", "-tick", "1s"), 1, time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := mustRun(t, c.args...)
			rows := readCSV(t, out)
			ticks := int(30 * time.Second / c.tick)
			if want := c.lanes * ticks; len(rows) != want {
				t.Fatalf("%d rows, want %d lanes × %d ticks = %d", len(rows), c.lanes, ticks, want)
			}
			for r, row := range rows {
				k, i := r/c.lanes, r%c.lanes
				if got, want := csvNum(t, row[0]), (time.Duration(k+1) * c.tick).Seconds(); math.Abs(got-want) > 1e-9 {
					t.Errorf("row %d: t = %v, want %v", r, got, want)
				}
				if want := scenario.LaneNames[i : i+1]; row[1] != want {
					t.Errorf("row %d: lane %q, want %q", r, row[1], want)
				}
				for _, cell := range row[2:] {
					if v := csvNum(t, cell); v < 0 || math.IsInf(v, 0) {
						t.Errorf("row %d: cell %q, want a number ≥ 0 or empty", r, cell)
					}
				}
			}
			// The same invocation gives the same bytes.
			if again := mustRun(t, c.args...); again != out {
				t.Errorf("two identical runs differ")
			}
			// Another seed gives another run.
			if other := mustRun(t, append(slices.Clone(c.args), "-seed", "2")...); other == out {
				t.Errorf("-seed 2 gives the same output as seed 1")
			}
		})
	}
}

// jsonRun is what -format json writes.
type jsonRun struct {
	Params map[string]any `json:"params"`
	Lanes  []struct {
		Name     string                `json:"name"`
		Strategy string                `json:"strategy"`
		Summary  map[string]any        `json:"summary"`
		Ticks    []map[string]*float64 `json:"ticks"`
	} `json:"lanes"`
}

func TestRunJSON(t *testing.T) {
	args := withSmall("-b.strategy", "exponential", "-b.factor", "2.7")
	out := mustRun(t, append(slices.Clone(args), "-format", "json")...)
	dec := json.NewDecoder(strings.NewReader(out))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	var rec jsonRun
	if err := dec.Decode(&rec); err != nil {
		t.Fatalf("decoding the JSON: %v\n%.300s", err, out)
	}
	if dec.More() {
		t.Errorf("more than one JSON value")
	}

	for k, want := range map[string]any{
		"clients": json.Number("200"), "duration": "30s", "lanes": json.Number("2"),
		"a.strategy": "fixed", "b.strategy": "exponential", "b.factor": json.Number("2.7"),
	} {
		if got := rec.Params[k]; got != want {
			t.Errorf("params[%q] = %#v, want %#v", k, got, want)
		}
	}
	for _, param := range scenario.Table {
		name := param.Name
		if param.Lane {
			name = "b." + name
		}
		if _, ok := rec.Params[name]; !ok {
			t.Errorf("params lack %q", name)
		}
	}

	if len(rec.Lanes) != 2 {
		t.Fatalf("%d lanes, want 2", len(rec.Lanes))
	}
	rows := readCSV(t, mustRun(t, append(slices.Clone(args), "-format", "csv")...))
	keys := append([]string{"t"}, scenario.Columns...)
	summaryKeys := []string{"baseline_ok", "server_recovered_after", "service_recovered_after", "collapsed",
		"peak_concurrency", "attempts", "requests", "amplification"}
	for i, l := range rec.Lanes {
		if want := scenario.LaneNames[i : i+1]; l.Name != want {
			t.Errorf("lane %d name %q, want %q", i, l.Name, want)
		}
		if want := []string{"fixed", "exponential"}[i]; l.Strategy != want {
			t.Errorf("lane %s strategy %q, want %q", l.Name, l.Strategy, want)
		}
		for _, k := range summaryKeys {
			if _, ok := l.Summary[k]; !ok {
				t.Errorf("lane %s summary lacks %q: %v", l.Name, k, l.Summary)
			}
		}
		if n, ok := l.Summary["requests"].(json.Number); !ok || n == "0" {
			t.Errorf("lane %s summary requests = %#v, want a positive number", l.Name, l.Summary["requests"])
		}
		// The ticks are the CSV's rows of this lane, number for number.
		if want := len(rows) / 2; len(l.Ticks) != want {
			t.Fatalf("lane %s: %d ticks, want %d (the CSV's rows)", l.Name, len(l.Ticks), want)
		}
		for k, tk := range l.Ticks {
			row := rows[k*2+i]
			if row[1] != l.Name {
				t.Fatalf("CSV row %d is lane %q, want %q", k*2+i, row[1], l.Name)
			}
			if len(tk) != len(keys) {
				t.Errorf("lane %s tick %d has %d keys, want %d: %v", l.Name, k, len(tk), len(keys), tk)
			}
			cells := append([]string{row[0]}, row[2:]...)
			for j, key := range keys {
				v, ok := tk[key]
				if !ok {
					t.Errorf("lane %s tick %d lacks %q", l.Name, k, key)
					continue
				}
				got := math.NaN()
				if v != nil {
					got = *v
				}
				want := csvNum(t, cells[j])
				if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Errorf("lane %s tick %d %s: JSON %v, CSV %v", l.Name, k, key, got, want)
				}
			}
		}
	}
}

// TestBoolParamFlags: a boolean parameter's flag is a boolean flag, in
// every command that takes the vocabulary's flags (paramFlags): given
// alone it is true and the next argument is the next flag, as the flag
// package reads -v; =true and =false set it; another value is an error
// naming the flag, the value and what is allowed.
func TestBoolParamFlags(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	paramFlags(fs, url.Values{})
	n := 0
	for _, param := range scenario.Table {
		if param.Type != scenario.TypeBool {
			continue
		}
		names := []string{param.Name}
		if param.Lane {
			names = names[:0]
			for i := range scenario.MaxLanes {
				names = append(names, scenario.LaneNames[i:i+1]+"."+param.Name)
			}
		}
		for _, name := range names {
			n++
			f := fs.Lookup(name)
			if f == nil {
				t.Errorf("no flag -%s", name)
				continue
			}
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				t.Errorf("-%s is not a boolean flag: -%s alone takes the next argument as its value", name, name)
			}
		}
	}
	if n == 0 {
		t.Fatal("the table has no boolean parameter: the test checks nothing")
	}

	for _, tc := range []struct {
		name string
		args []string
		want any // a.cancel_on_timeout, or the error's words
	}{
		{"alone, then a flag", []string{"-a.cancel_on_timeout", "-a.strategy", "exponential"}, true},
		{"alone, last", []string{"-a.strategy", "exponential", "-a.cancel_on_timeout"}, true},
		{"=true", []string{"-a.cancel_on_timeout=true", "-a.strategy", "exponential"}, true},
		{"=false", []string{"-a.cancel_on_timeout=false", "-a.strategy", "exponential"}, false},
		{"not given", []string{"-a.strategy", "exponential"}, false},
		{"=maybe", []string{"-a.cancel_on_timeout=maybe"}, []string{"a.cancel_on_timeout", `"maybe"`, "true or false"}},
		{"a value after it is an argument", []string{"-a.cancel_on_timeout", "false"}, []string{`"false"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(withSmall(tc.args...), "-format", "json")
			out, _, err := runArgs(t, args...)
			if words, bad := tc.want.([]string); bad {
				if err == nil || !errors.As(err, new(usageError)) {
					t.Fatalf("run %q: %v, want a usage error", args, err)
				}
				for _, w := range words {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("run %q: %v", args, err)
			}
			var rec jsonRun
			if err := json.Unmarshal([]byte(out), &rec); err != nil {
				t.Fatal(err)
			}
			if got := rec.Params["a.cancel_on_timeout"]; got != tc.want {
				t.Errorf("a.cancel_on_timeout = %v, want %v", got, tc.want)
			}
			if got := rec.Params["a.strategy"]; got != "exponential" && slices.Contains(tc.args, "exponential") {
				t.Errorf("a.strategy = %v, want exponential", got)
			}
		})
	}
}

// TestOtherModelAsServer: run and bands refuse a parameter of another
// server model with the words "backofflab server" uses, and take it with
// its model.
func TestOtherModelAsServer(t *testing.T) {
	for _, flags := range [][]string{
		{"-server_limit", "5"},
		{"-server_model", "queue", "-server_delay", "1s"},
		{"-server_model", "curve", "-workers", "3", "-codel_target", "10ms"},
	} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			_, _, want := runArgs(t, append([]string{"server", "-addr", "nowhere"}, flags...)...)
			if want == nil {
				t.Fatal("server took another model's parameter")
			}
			for _, cmd := range [][]string{withSmall(), {"bands", "-seeds", "2", "-duration", "30s", "-clients", "200"}} {
				_, _, err := runArgs(t, append(cmd, flags...)...)
				if !errors.As(err, new(usageError)) || err.Error() != want.Error() {
					t.Errorf("%s: %v, want the server's usage error %v", cmd[0], err, want)
				}
			}
		})
	}
	if _, _, err := runArgs(t, withSmall("-server_model", "curve", "-server_limit", "5")...); err != nil {
		t.Errorf("run with curve's own server_limit: %v", err)
	}
}

func TestRunBadInput(t *testing.T) {
	allowed := func(name string) string {
		param, _, ok := scenario.Lookup(name)
		if !ok {
			t.Fatalf("Lookup(%q): no such parameter", name)
		}
		return param.Allowed()
	}
	cases := []struct {
		name string
		args []string
		want []string // what the message must say
	}{
		{"clients_0", withSmall("-clients", "0"), []string{"clients", `"0"`, allowed("clients")}},
		{"clients_huge", withSmall("-clients", "1000001"), []string{"clients", `"1000001"`, allowed("clients")}},
		{"factor_abc", withSmall("-a.factor", "abc"), []string{"a.factor", `"abc"`, allowed("factor")}},
		{"jitter_NaN", withSmall("-b.jitter", "NaN"), []string{"b.jitter", `"NaN"`, allowed("jitter")}},
		{"strategy_unknown", withSmall("-c.strategy", "linear"), []string{"c.strategy", `"linear"`, allowed("strategy")}},
		{"lanes_5", withSmall("-lanes", "5"), []string{"lanes", `"5"`, allowed("lanes")}},
		{"seed_negative", withSmall("-seed", "-1"), []string{"seed", `"-1"`, "a whole number from 0 to 18446744073709551615"}},
		{"lane_beyond_lanes", withSmall("-lanes", "1", "-b.factor", "2"), []string{"b.factor", `"2"`, "lanes a to a"}},
		{"max_below_min", withSmall("-a.max_delay", "10ms"), []string{"a.max_delay", `"10ms"`, "a.min_delay (100ms)"}},
		{"format_xml", withSmall("-format", "xml"), []string{"format", `"xml"`, "text, csv, json"}},
		{"report_0s", withSmall("-report", "0s"), []string{"report", `"0s"`, "from tick (100ms) to duration (30s)"}},
		{"report_above_duration", withSmall("-report", "31s"), []string{"report", `"31s"`, "from tick (100ms) to duration (30s)"}},
		{"max_memory_0", withSmall("-max_memory", "0"), []string{"max_memory", `"0 B"`, "a size above 0"}},
		{"max_memory_malformed", withSmall("-max_memory", "lots"), []string{"max_memory", `"lots" is not a size`}},
		// Another server model's parameter, which the run would not read.
		{"other_model_default", withSmall("-server_limit", "5"), []string{"-server_limit 5", "server_model curve", "not of queue (the default)", "give -server_model curve"}},
		{"other_model_given", withSmall("-server_model", "linear", "-workers", "3"), []string{"-workers 3", "server_model queue", "not of linear;"}},
		// A run's live changes: each bad one names changes, the change and why.
		{"changes_out_of_range", withSmall("-changes", "@40s stop"), []string{"changes", `"@40s stop"`, "time 40s out of range (from 0 to below duration, 30s)"}},
		{"changes_unknown", withSmall("-changes", "@5s b.factr=2"), []string{"changes", `unknown parameter "b.factr"`}},
		{"changes_not_live", withSmall("-changes", "@5s seed=3"), []string{"changes", "seed cannot change on the fly"}},
		{"changes_going_back", withSmall("-changes", "@5s stop @4s resume"), []string{"changes", "times must not go back"}},
		{"changes_bad_value", withSmall("-changes", "@5s b.factor=0"), []string{"changes", `b.factor: "0" is not allowed`}},
		// A herd's magnitude is the share of clients that join, its window
		// the spread of its wave: an open loop's needs one, its arrivals.
		{"herd_share_above_one", withSmall("-faults", "herd:10s:0s:2"), []string{"faults", `"herd:10s:0s:2"`, `magnitude "2" is not a number from 0 to 1`}},
		{"herd_window_negative", withSmall("-faults", "herd:10s:-1s:1"), []string{"faults", `for "-1s" is not a duration from 0s to 24h0m0s`}},
		{"herd_open_loop_no_window", withSmall("-arrival", "open", "-faults", "herd:10s:0s:1"), []string{"faults", `"herd:10s:0s:1"`, "for 0s is not a duration from 1ns to 24h0m0s: in an open loop"}},
		// The flag package rejects these before the table sees them; its
		// message names the flag (the help it prints lists every flag).
		{"undefined_lane_z", withSmall("-z.factor", "2"), []string{"z.factor"}},
		{"report_malformed", withSmall("-report", "soon"), []string{"report", `"soon"`}},
		{"extra_argument", withSmall("now"), []string{`"now"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := runArgs(t, c.args...)
			if err == nil {
				t.Fatalf("run %q succeeded, want an error", c.args)
			}
			if !errors.As(err, new(usageError)) {
				t.Errorf("run %q: %v (%T), want a usageError (exit status 2)", c.args, err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if out != "" {
				t.Errorf("stdout = %.200q, want nothing", out)
			}
		})
	}
	// Every bad value is reported at once.
	_, _, err := runArgs(t, withSmall("-clients", "0", "-a.factor", "abc", "-timeout", "forever")...)
	if pes := scenario.Errors(errors.Unwrap(err)); len(pes) != 3 {
		t.Errorf("three bad values: %d parameter errors in %q, want 3", len(pes), err)
	}
}

func TestRunHelp(t *testing.T) {
	out, help, err := runArgs(t, "run", "-h")
	if err != nil {
		t.Fatalf("run -h: %v", err)
	}
	if out != "" {
		t.Errorf("stdout = %q, want nothing", out)
	}
	for _, w := range []string{"Usage: backofflab run", "-lanes", "-format", "-report"} {
		if !strings.Contains(help, w) {
			t.Errorf("help lacks %q", w)
		}
	}
	def := scenario.Defaults()
	for _, param := range scenario.Table {
		t.Run(param.Name, func(t *testing.T) {
			flags := []string{"-" + param.Name}
			if param.Lane {
				flags = nil
				for i := range scenario.MaxLanes {
					flags = append(flags, "-"+scenario.LaneNames[i:i+1]+"."+param.Name)
				}
			}
			for _, f := range flags {
				if !strings.Contains(help, "  "+f+" ") && !strings.Contains(help, "  "+f+"\n") {
					t.Errorf("help lacks the flag %s", f)
				}
			}
			if !strings.Contains(help, param.Help) {
				t.Errorf("help lacks the meaning %q", param.Help)
			}
			if !strings.Contains(help, param.Allowed()) {
				t.Errorf("help lacks the range %q", param.Allowed())
			}
			if !param.Lane && !strings.Contains(help, "default "+param.Value(&def, 0)) {
				t.Errorf("help lacks the default %q", param.Value(&def, 0))
			}
		})
	}
}

// TestRunMemoryBudget: a storm that outgrows -max_memory stops its lane,
// and the verdict says where and why; the other lane runs to the end. The
// storm is on 001's curve, whose server keeps every abandoned request: a
// worker queue's waiting room is the bounded backlog.
func TestRunMemoryBudget(t *testing.T) {
	out := mustRun(t, "run", "-server_model", "curve", "-clients", "2000", "-think", "100ms", "-timeout", "50ms", "-outage_at", "1s",
		"-outage_for", "2s", "-max_server_delay", "24h", "-duration", "30s", "-a.strategy", "fixed",
		"-a.min_delay", "10ms", "-b.strategy", "exponential", "-b.max_delay", "10s", "-max_memory", "2MiB")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	a, b := lines[len(lines)-2], lines[len(lines)-1]
	if !strings.Contains(a, "[a fixed]") || !strings.Contains(a, "COLLAPSED: stopped at ") ||
		!strings.Contains(a, "the memory budget of a run (2 MiB; 1 MiB a lane)") {
		t.Errorf("lane a's verdict: %s", a)
	}
	if strings.Contains(b, "stopped at") {
		t.Errorf("lane b's verdict: %s", b)
	}
}

func TestRunCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, format := range []string{"text", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := Run(ctx, withSmall("-format", format), &stdout, &stderr)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("canceled run: %v, want context.Canceled", err)
			}
			if errors.As(err, new(usageError)) {
				t.Errorf("canceled run is a usageError (exit status 2), want status 1")
			}
		})
	}
}

// TestFlagHelpNamesEmptyDefaults: a parameter whose default is empty (no
// faults, no tiers) says "default none" in every command's help, never an
// empty "default )".
func TestFlagHelpNamesEmptyDefaults(t *testing.T) {
	for _, cmd := range []string{"run", "server", "client"} {
		var out, errOut strings.Builder
		if err := Run(context.Background(), []string{cmd, "-h"}, &out, &errOut); err != nil {
			t.Fatalf("%s -h: %v", cmd, err)
		}
		help := out.String() + errOut.String()
		if strings.Contains(help, "default )") {
			t.Errorf("%s -h prints an empty default: %q", cmd, help[max(0, strings.Index(help, "default )")-80):strings.Index(help, "default )")+9])
		}
	}
	var errOut strings.Builder
	Run(context.Background(), []string{"run", "-h"}, new(strings.Builder), &errOut)
	if !strings.Contains(errOut.String(), "default none)") {
		t.Error(`run -h names no empty default as "none" (faults, tiers)`)
	}
}

// TestRunChangesFlag: -changes replays a run's live changes, in the CSV's
// last column and in the verdicts of the lanes they changed.
func TestRunChangesFlag(t *testing.T) {
	const changes = "@12s b.factor=1.1 @15s stop @17s resume"
	out, _, err := runArgs(t, withSmall("-changes", changes, "-format", "csv")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, strings.TrimSuffix(simengine.CSVHeader(), "\n")+",changes\n") {
		t.Errorf("the CSV's header %.200q has no changes column", out)
	}
	for _, cell := range []string{",b,", "@12s b.factor=1.1\n", "@15s stop\n", "@17s resume\n"} {
		if !strings.Contains(out, cell) {
			t.Errorf("the CSV does not hold %q", cell)
		}
	}
	text, _, err := runArgs(t, withSmall("-changes", changes)...)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := text[strings.LastIndex(text, "\n\n"):]
	a, b, _ := strings.Cut(strings.TrimSpace(verdicts), "\n")
	if !strings.Contains(b, "(b.factor changed to 1.1 at 12 s; the server stopped by hand at 15 s; the server resumed by hand at 17 s)") ||
		strings.Contains(a, "b.factor") || !strings.Contains(a, "(the server stopped by hand at 15 s; the server resumed by hand at 17 s)") {
		t.Errorf("the verdicts do not name the changes of their lanes:\n%s", verdicts)
	}
}

// TestRunFormatsRunLanesApart: a command's run has the machine's cores,
// and every format takes the same parallel path: its lanes advance each on
// a goroutine of their own (simengine.RunParallel), whether the run is
// written as text, CSV or JSON. It is not parallel: it reads the count of
// the process's parallel rounds before and after each run, which no other
// test may move meanwhile.
func TestRunFormatsRunLanesApart(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, format := range []string{"text", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			before := simengine.RoundsApart()
			mustRun(t, "run", "-duration", "20s", "-clients", "5000", "-format", format)
			if n := simengine.RoundsApart() - before; n == 0 {
				t.Errorf("-format %s: the lanes never ran apart (0 parallel rounds), one after the other on one core", format)
			}
		})
	}
}
