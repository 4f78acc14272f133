package cli

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// tierRows are docs/protections.md's "Layered retries, measured" tables: each row's
// tiers and what lane a's verdict line says of it (seed 1; a run is
// deterministic): for the crash, the clients' and the server's attempts
// per request; for the pause, the verdict, the peak concurrency and the
// server's attempts per request.
var tierRows = []struct {
	base, flags string
	row         string // docs/protections.md's row, after the flags' cell
}{
	{tierCrash, "", "3.00 | 3.00 |"},
	{tierCrash, "-a.tiers fixed:3:1s", "2.99 | 8.97 |"},
	{tierCrash, "-a.tiers fixed:3:1s,fixed:3:1s", "2.98 | 26.74 |"},
	{tierCrash, "-a.tiers fixed:3:1s,fixed:3:1s,fixed:3:1s", "2.95 | 78.72 |"},
	{tierCrash, "-a.tiers fixed:3:1s:retry_budget,fixed:3:1s", "2.99 | 11.09 |"},
	{tierCrash, "-a.tiers fixed:3:1s,fixed:3:1s:retry_budget", "2.99 | 10.86 |"},
	{tierCrash, "-a.tiers fixed:3:1s:grpc_throttle,fixed:3:1s", "2.99 | 8.97 |"},
	{tierCrash, "-a.retry_budget on -a.tiers fixed:3:1s,fixed:3:1s", "1.31 | 11.77 |"},
	{tierPause, "", "recovered: server 20.8 s, service 15.7 s | 2550 | 1.37 |"},
	{tierPause, "-a.tiers fixed:3:1s,fixed:3:500ms", "COLLAPSED | 4126 | 20.10 |"},
	{tierPause, "-a.tiers fixed:3:1s,fixed:3:500ms -a.cancel_on_timeout=true", "recovered: server 1.6 s, service 0.0 s | 310 | 1.82 |"},
	{tierPause, "-a.tiers fixed:3:1s:retry_budget,fixed:3:500ms", "COLLAPSED | 4126 | 8.92 |"},
	{tierPause, "-a.tiers fixed:3:1s:retry_budget,fixed:3:500ms:retry_budget", "COLLAPSED | 4126 | 3.87 |"},
	{tierPause, "-a.tiers fixed:3:1s,fixed:3:500ms:grpc_throttle", "COLLAPSED | 4126 | 7.02 |"},
	{tierPause, "-a.tiers fixed:1:1s,fixed:1:500ms", "recovered: server 80.0 s, service 77.2 s | 3661 | 2.51 |"},
}

// The two scenarios of those tables.
const (
	tierCrash = "-lanes 1 -outage crash -outage_at 0s -outage_for 120s -a.strategy fixed -a.max_attempts 3"
	tierPause = "-lanes 1 -a.strategy fixed -a.max_attempts 3"
)

// TestTiersTables pins docs/protections.md's tables of layered retries to what the
// engine measures: each row is built from lane a's verdict line, and must
// be the one the test and docs/protections.md hold.
func TestTiersTables(t *testing.T) {
	doc, err := os.ReadFile("docs/protections.md")
	if err != nil {
		t.Fatal(err)
	}
	amp := regexp.MustCompile(`\(amplification ([0-9.]+)\)`)
	server := regexp.MustCompile(`\(([0-9.]+) at the server per request\)`)
	peak := regexp.MustCompile(`peak concurrency ([0-9]+);`)
	serverAt := regexp.MustCompile(`\bserver (?:back )?([0-9.]+)s after`)
	serviceAt := regexp.MustCompile(`\bservice (?:back )?([0-9.]+)s after`)
	for _, r := range tierRows {
		name := map[string]string{tierCrash: "crash", tierPause: "pause"}[r.base]
		t.Run(name+"/"+r.flags, func(t *testing.T) {
			v := laneAVerdict(t, r.base, r.flags)
			find := func(re *regexp.Regexp) []string {
				t.Helper()
				f := re.FindStringSubmatch(v)
				if f == nil {
					t.Fatalf("verdict %q lacks %v", v, re)
				}
				return f
			}
			client := find(amp)[1]
			srv := client // without tiers the clients' attempts are the server's
			if strings.Contains(r.flags, "-a.tiers") {
				srv = find(server)[1]
			}
			var got string
			if r.base == tierCrash {
				got = client + " | " + srv + " |"
			} else {
				verdict := "COLLAPSED"
				if !strings.Contains(v, "COLLAPSED") {
					verdict = fmt.Sprintf("recovered: server %s s, service %s s", find(serverAt)[1], find(serviceAt)[1])
				}
				got = verdict + " | " + find(peak)[1] + " | " + srv + " |"
			}
			if got != r.row {
				t.Errorf("%s %s measures %q, the test holds %q (verdict %q)", r.base, r.flags, got, r.row, v)
			}
			checkDocRow(t, doc, r.flags, r.row)
		})
	}
}
