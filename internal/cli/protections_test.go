package cli

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// protectionRows are docs/protections.md's "What else saves a server, measured"
// tables: each protection's flags and the verdict, peak concurrency and
// attempts per request the engine gives, as its lane's verdict line words
// them (seed 1; a run is deterministic).
var protectionRows = []struct {
	base, flags string
	want        []string // parts of lane a's verdict line
	row         string   // docs/protections.md's row, after the flags' cell
}{
	{protCurve, "", []string{"COLLAPSED", "peak concurrency 9993;", "(amplification 4.09)"}, "COLLAPSED | 9993 | 4.09 |"},
	{protCurve, "-a.grpc_throttle on", []string{"COLLAPSED", "peak concurrency 8186;", "(amplification 1.00)"}, "COLLAPSED | 8186 | 1.00 |"},
	{protCurve, "-a.aws_quota on", []string{"COLLAPSED", "peak concurrency 8210;", "(amplification 1.00)"}, "COLLAPSED | 8210 | 1.00 |"},
	{protCurve, "-a.sre_throttle on", []string{"COLLAPSED", "peak concurrency 8129;", "(amplification 1.06)"}, "COLLAPSED | 8129 | 1.06 |"},
	{protCurve, "-a.retry_budget on", []string{"COLLAPSED", "peak concurrency 10296;", "(amplification 1.27)"}, "COLLAPSED | 10296 | 1.27 |"},
	{protCurve, "-a.breaker retries", []string{"COLLAPSED", "peak concurrency 8141;", "(amplification 1.00)"}, "COLLAPSED | 8141 | 1.00 |"},
	{protCurve, "-a.breaker all", []string{"server back 0.2s after the outage (concurrency at its healthy level), then service 46.7s after", "peak concurrency 256;", "(amplification 0.50)"},
		"recovered: server 0.2 s, service 46.7 s after the outage | 256 | 0.50 |"},
	{protCurve, "-shed_above 100", []string{"service back 0.0s after the outage (ok/s at 90 % of baseline), then server 3.2s after", "peak concurrency 100;", "(amplification 1.31)"},
		"recovered: server 3.2 s, service 0.0 s | 100 | 1.31 |"},
	{protCurve, "-a.cancel_on_timeout=true", []string{"service back 0.0s after the outage (ok/s at 90 % of baseline), then server 0.9s after", "peak concurrency 569;", "(amplification 1.26)"},
		"recovered: server 0.9 s, service 0.0 s | 569 | 1.26 |"},
	{protOpen, "", []string{"(amplification 2.54)"}, "never | 0 | 2.54 |"},
	{protOpen, "-a.grpc_throttle on", []string{"(amplification 1.00)"}, "18.0 s | 249 | 1.00 |"},
	{protOpen, "-a.aws_quota on", []string{"(amplification 1.00)"}, "18.7 s | 249 | 1.00 |"},
	{protOpen, "-a.sre_throttle on", []string{"(amplification 0.99)"}, "never | 69 | 0.99 |"},
	{protOpen, "-a.retry_budget on", []string{"(amplification 1.20)"}, "never | 0 | 1.20 |"},
	{protOpen, "-a.breaker all", []string{"(amplification 0.52)"}, "64.5 s | 145 | 0.52 |"},
	{protOpen, "-a.breaker retries", []string{"(amplification 1.00)"}, "18.8 s | 249 | 1.00 |"},
	{protOpen, "-shed_above 300", []string{"(amplification 1.07)"}, "5.0 s | 249 | 1.07 |"},
	{protOpen, "-queue_timeout 500ms", []string{"(amplification 1.08)"}, "5.0 s | 249 | 1.08 |"},
	{protOpen, "-queue_control codel", []string{"(amplification 1.12)"}, "5.0 s | 248 | 1.12 |"},
	{protOpen, "-a.cancel_on_timeout=true", []string{"(amplification 1.06)"}, "5.0 s | 249 | 1.06 |"},
	{protOpen, "-a.strategy exponential -a.min_delay 100ms", []string{"(amplification 2.54)"}, "never | 0 | 2.54 |"},
}

// The two scenarios of those tables.
const (
	protCurve = "-server_model curve -lanes 1 -a.strategy exponential"
	protOpen  = "-arrival open -rate 250 -outage none -faults load_spike:20s:5s:2 -lanes 1 -a.strategy fixed -a.min_delay 1ms -a.max_attempts 3"
)

// TestProtectionsTables pins the protection tables of docs/protections.md to what the
// engine measures: each row's verdict, peak and attempts per request, and
// the row itself in docs/protections.md.
func TestProtectionsTables(t *testing.T) {
	doc, err := os.ReadFile("docs/protections.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range protectionRows {
		scenarioName := map[string]string{protCurve: "curve", protOpen: "open"}[r.base]
		t.Run(scenarioName+"/"+r.flags, func(t *testing.T) {
			v := laneAVerdict(t, r.base, r.flags)
			for _, w := range r.want {
				if !strings.Contains(v, w) {
					t.Errorf("%s %s: verdict %q lacks %q", r.base, r.flags, v, w)
				}
			}
			if r.base == protOpen {
				back, mean := openRecovery(t, mustRun(t, append([]string{"run", "-format", "csv"}, strings.Fields(r.base+" "+r.flags)...)...))
				if got := back + " | " + mean + " |"; !strings.HasPrefix(r.row, got) {
					t.Errorf("%s: back after and mean ok/s %q, the row says %q", r.flags, got, r.row)
				}
			}
			checkDocRow(t, doc, r.flags, r.row)
		})
	}
}

// laneVerdict finds lane a's verdict line in the text report of "backofflab
// run", from its baseline on.
var laneVerdict = regexp.MustCompile(`(?m)^\[a [a-z_]+\] .*? (baseline .*)$`)

// laneAVerdict runs "backofflab run" with the flags of base and flags, and
// returns lane a's verdict, from its baseline on.
func laneAVerdict(t *testing.T, base, flags string) string {
	t.Helper()
	out := mustRun(t, append([]string{"run"}, strings.Fields(base+" "+flags)...)...)
	m := laneVerdict.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no verdict for lane a in %q", out)
	}
	return m[1]
}

// checkDocRow checks that doc, docs/protections.md, has the table row of
// flags (none when empty) whose other cells are row.
func checkDocRow(t *testing.T, doc []byte, flags, row string) {
	t.Helper()
	cell := "none"
	if flags != "" {
		cell = "`" + flags + "`"
	}
	if row := "| " + cell + " | " + row; !strings.Contains(string(doc), row+"\n") {
		t.Errorf("docs/protections.md lacks the row\n%s", row)
	}
}

// openRecovery reads the open-loop table's two measures from a run's CSV
// (one lane, 100 ms ticks): when, after the spike's end at 25 s, the first
// 5 s window whose mean ok rate is at least 90 % of 250/s ends (or never),
// and the mean ok rate over the ticks after 60 s.
func openRecovery(t *testing.T, csv string) (back, mean string) {
	t.Helper()
	var ts, oks []float64
	for _, line := range strings.Split(strings.TrimSpace(csv), "\n")[1:] {
		f := strings.Split(line, ",")
		tt, err1 := strconv.ParseFloat(f[0], 64)
		ok, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("row %q", line)
		}
		ts, oks = append(ts, tt), append(oks, ok)
	}
	back = "never"
	var sum float64
	var n int
	for i := range ts {
		if i >= 49 && ts[i-49] > 25 && back == "never" {
			var w float64
			for _, v := range oks[i-49 : i+1] {
				w += v
			}
			if w/50 >= 225 {
				back = fmt.Sprintf("%.1f s", ts[i]-25)
			}
		}
		if ts[i] > 60 {
			sum += oks[i]
			n++
		}
	}
	return back, fmt.Sprintf("%.0f", sum/float64(n))
}
