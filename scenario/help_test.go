package scenario_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// serverProtections are the server's protections: rows of ScopeServer that
// turn a behaviour on. The rows they switch (Switch) are checked with them.
var serverProtections = []string{"shed_above", "queue_timeout", "queue_control", "cancel_on_timeout"}

// helpSources are the names by which a Help cites where a limit or a
// protection and its defaults come from.
var helpSources = []string{
	"the 2014 experiment",    // the 2014 experiment (001): no limit by default
	"gRFC A6",                // gRPC retry throttling
	"Envoy",                  // Envoy's cluster circuit breaker on retries and its retry budget
	"AWS SDK",                // the AWS SDKs' standard retry mode
	"SRE book",               // Site Reliability Engineering: Handling Overload, Addressing Cascading Failures
	"Finagle",                // Finagle's RetryBudget
	"Nygard", "resilience4j", // the circuit breaker and its defaults
	"Fail at Scale", // Facebook's CoDel and adaptive LIFO
}

// helpMax is the longest Help the page shows under a control, in a line or
// two of its small print.
const helpMax = 150

// citesSource reports whether help names one of helpSources.
func citesSource(help string) bool {
	return slices.ContainsFunc(helpSources, func(s string) bool { return strings.Contains(help, s) })
}

// helpProblem says what is wrong with p's Help, rows being the table by
// name: longer than helpMax, or naming no source while p has no switch or
// its switch row names none either. It is "" for a good Help.
func helpProblem(p scenario.Param, rows map[string]scenario.Param) string {
	if len(p.Help) > helpMax {
		return fmt.Sprintf("Help is %d bytes, more than the page's %d: %q", len(p.Help), helpMax, p.Help)
	}
	if citesSource(p.Help) {
		return ""
	}
	sw, ok := rows[p.Switch]
	switch {
	case p.Switch == "":
		return fmt.Sprintf("Help %q names no source (one of %q)", p.Help, helpSources)
	case !ok:
		return fmt.Sprintf("Switch %q: no such row", p.Switch)
	case !citesSource(sw.Help):
		return fmt.Sprintf("Help %q names no source, and neither does its switch %s's %q", p.Help, sw.Name, sw.Help)
	}
	return ""
}

// TestHelpNamesSource walks every retry limit (ScopeLimiter) and server
// protection row and checks that its Help says where it and its defaults
// come from: it names one of helpSources, or it is a sub-parameter (it has
// a Switch) whose switch row names one. Each is short enough for the page.
func TestHelpNamesSource(t *testing.T) {
	rows := map[string]scenario.Param{}
	for _, p := range scenario.Table {
		rows[p.Name] = p
	}
	for _, name := range serverProtections {
		if p, ok := rows[name]; !ok || p.Scope != scenario.ScopeServer {
			t.Fatalf("server protection %s: no ScopeServer row", name)
		}
	}
	checked := 0
	for _, p := range scenario.Table {
		protection := slices.Contains(serverProtections, p.Name) || slices.Contains(serverProtections, p.Switch)
		if p.Scope != scenario.ScopeLimiter && !protection {
			continue
		}
		checked++
		t.Run(p.Name, func(t *testing.T) {
			if msg := helpProblem(p, rows); msg != "" {
				t.Error(msg)
			}
		})
	}
	// The limiters' rows and the protections' are many: a filter that let
	// none through would check nothing.
	if checked < 20 {
		t.Errorf("checked %d rows, want every limiter's and protection's", checked)
	}
}

// TestHelpProblem: the check above refuses a Help that names no source, a
// sub-parameter whose switch names none, and one too long for the page.
func TestHelpProblem(t *testing.T) {
	rows := map[string]scenario.Param{
		"cited":   {Name: "cited", Help: "gRPC retry throttling (gRFC A6): a token bucket"},
		"uncited": {Name: "uncited", Help: "a token bucket"},
	}
	for _, tc := range []struct {
		name string
		p    scenario.Param
		ok   bool
	}{
		{"cites", scenario.Param{Help: "breaker: the rate at which it opens (resilience4j's 50 %)"}, true},
		{"cites none", scenario.Param{Help: "circuit breaker: all refuses every attempt while open"}, false},
		{"switch cites", scenario.Param{Switch: "cited", Help: "the bucket's size"}, true},
		{"switch cites none", scenario.Param{Switch: "uncited", Help: "the bucket's size"}, false},
		{"no such switch", scenario.Param{Switch: "nowhere", Help: "the bucket's size"}, false},
		{"too long", scenario.Param{Help: "(Finagle) " + strings.Repeat("x", helpMax)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if msg := helpProblem(tc.p, rows); (msg == "") != tc.ok {
				t.Errorf("helpProblem(%q) = %q, want ok %v", tc.p.Help, msg, tc.ok)
			}
		})
	}
}
