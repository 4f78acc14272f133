package cli

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The landing view's story, as the engine measures it: lane a (fixed)
// collapses and lane b (exponential, 001's text) recovers, at seed 1 and
// over seeds 1 to 20; and what each slider of docs/run.md's table "What the
// sliders do on the landing view" does to it. A run is deterministic (the
// same flags and seed give the same bytes), so the outcomes are pinned as
// docs/run.md prints them: the verdict, recovery times to 0.1 s and the peak
// concurrency. A change of the engine or of the defaults that moves one
// fails here, with the row to write into docs/run.md.

// landingRows are docs/run.md's table's rows: a slider's flag and value over
// the landing view, and each lane's outcome at seed 1 as outcome.cell
// writes it.
var landingRows = []struct {
	slider, value string
	flags         string // `go run . run` and these reproduce the row
	b, a          string
}{
	{"—", "the landing view", "", "recovered: server 25.1 s, service 21.8 s; peak 3281", "COLLAPSED; peak 4126"},
	{"b.factor", "1.1", "-b.factor 1.1", "COLLAPSED; peak 4126", "COLLAPSED; peak 4126"},
	{"b.factor", "1.5", "-b.factor 1.5", "recovered: server 40.0 s, service 35.9 s; peak 3695", "COLLAPSED; peak 4126"},
	{"b.factor", "2 (default)", "-b.factor 2", "recovered: server 25.1 s, service 21.8 s; peak 3281", "COLLAPSED; peak 4126"},
	{"b.min_delay", "10 ms", "-b.min_delay 10ms", "recovered: server 37.9 s, service 35.6 s; peak 4102", "COLLAPSED; peak 4126"},
	{"b.min_delay", "1 s", "-b.min_delay 1s", "recovered: server 12.8 s, service 7.8 s; peak 2168", "COLLAPSED; peak 4126"},
	{"b.jitter", "0", "-b.jitter 0", "recovered: server 27.4 s, service 22.4 s; peak 3284", "COLLAPSED; peak 4126"},
	{"b.jitter", "0.5", "-b.jitter 0.5", "recovered: server 32.8 s, service 28.7 s; peak 3360", "COLLAPSED; peak 4126"},
	{"clients", "500", "-clients 500", "recovered: server 9.1 s, service 3.9 s; peak 1658", "recovered: server 19.4 s, service 13.5 s; peak 1909"},
	{"clients", "2000", "-clients 2000", "recovered: server 45.3 s, service 56.6 s; peak 4126", "COLLAPSED; peak 4126"},
	{"workers", "15", "-workers 15", "server 64.0 s, service never; peak 4111", "COLLAPSED; peak 4111"},
	{"workers", "60", "-workers 60", "recovered: server 8.8 s, service 3.6 s; peak 3280", "recovered: server 19.0 s, service 13.1 s; peak 3788"},
	{"outage_for", "5 s", "-outage_for 5s", "recovered: server 7.0 s, service 0.9 s; peak 716", "recovered: server 8.7 s, service 2.3 s; peak 726"},
	{"outage_for", "30 s", "-outage_for 30s", "recovered: server 20.6 s, service 19.1 s; peak 4111", "COLLAPSED; peak 4126"},
}

// outcome is what a lane's verdict line says after the outage.
type outcome struct {
	lane, strategy  string
	collapsed       bool
	server, service string // "25.1s" or "never"
	peak            int
}

var verdictLine = regexp.MustCompile(`^\[([a-d]) (\w+)\] .*? baseline [0-9.]+ ok/s; (.*?); peak concurrency (\d+);`)

// When the server and the service came back, in a verdict's clause:
// "server back 25.1s after the outage (…)", "then server 25.1s after (…)"
// or "server never (…)".
var (
	serverBack  = regexp.MustCompile(`\bserver (?:back )?([0-9.]+s) after|\bserver (never)\b`)
	serviceBack = regexp.MustCompile(`\bservice (?:back )?([0-9.]+s) after|\bservice (never)\b`)
)

// outcomes returns the verdicts of `run`'s text output, lane by lane.
func outcomes(t *testing.T, out string) []outcome {
	t.Helper()
	var vs []outcome
	for _, l := range strings.Split(out, "\n") {
		if !strings.Contains(l, ". baseline ") {
			continue
		}
		m := verdictLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("verdict line %q does not match %v", l, verdictLine)
		}
		peak, _ := strconv.Atoi(m[4])
		o := outcome{lane: m[1], strategy: m[2], peak: peak}
		if m[3] == "COLLAPSED: neither server nor service recovered" {
			o.collapsed = true
		} else {
			when := func(re *regexp.Regexp) string {
				w := re.FindStringSubmatch(m[3])
				if w == nil {
					t.Fatalf("verdict line %q: no %v", l, re)
				}
				return w[1] + w[2]
			}
			o.server, o.service = when(serverBack), when(serviceBack)
		}
		vs = append(vs, o)
	}
	return vs
}

// recovered reports whether both the server and the service came back.
func (o outcome) recovered() bool { return !o.collapsed && o.server != "never" && o.service != "never" }

// cell writes o as docs/run.md's table does.
func (o outcome) cell() string {
	secs := func(s string) string { return strings.Replace(s, "s", " s", 1) }
	switch {
	case o.collapsed:
		return fmt.Sprintf("COLLAPSED; peak %d", o.peak)
	case o.recovered():
		return fmt.Sprintf("recovered: server %s, service %s; peak %d", secs(o.server), secs(o.service), o.peak)
	}
	return fmt.Sprintf("server %s, service %s; peak %d", secs(o.server), secs(o.service), o.peak)
}

// landingCommand is the command that reproduces a row.
func landingCommand(flags string) string { return strings.TrimSpace("go run . run " + flags) }

// TestLandingSliders: each row of the slider table in docs/run.md is what
// the engine measures, and docs/run.md holds the row as the test writes it.
func TestLandingSliders(t *testing.T) {
	doc, err := os.ReadFile("docs/run.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range landingRows {
		name := "landing_view"
		if r.flags != "" {
			name = strings.ReplaceAll(r.flags, " ", "=")
		}
		t.Run(name, func(t *testing.T) {
			vs := outcomes(t, mustRun(t, append([]string{"run"}, strings.Fields(r.flags)...)...))
			if len(vs) != 2 || vs[0].strategy != "fixed" || vs[1].strategy != "exponential" {
				t.Fatalf("verdicts %+v, want lane a fixed and lane b exponential", vs)
			}
			if got := vs[1].cell(); got != r.b {
				t.Errorf("%s: lane b %q, want %q", landingCommand(r.flags), got, r.b)
			}
			if got := vs[0].cell(); got != r.a {
				t.Errorf("%s: lane a %q, want %q", landingCommand(r.flags), got, r.a)
			}
			row := fmt.Sprintf("| %s | %s | %s | %s | `%s` |", r.slider, r.value, vs[1].cell(), vs[0].cell(), landingCommand(r.flags))
			if !strings.Contains(string(doc), row+"\n") {
				t.Errorf("docs/run.md lacks the row\n%s", row)
			}
		})
	}
}

// landingSeeds is how many seeds TestLandingSeeds runs: a run of the landing
// view takes about 20 ms (a few times that under -race).
const landingSeeds = 20

// TestLandingSeeds: over seeds 1 to 20 the landing view tells one story:
// lane a collapses and lane b recovers, its server 24.3 to 25.7 s and its
// service 20.9 to 22.8 s after the outage.
func TestLandingSeeds(t *testing.T) {
	var server, service []float64
	for seed := 1; seed <= landingSeeds; seed++ {
		vs := outcomes(t, mustRun(t, "run", "-seed", strconv.Itoa(seed)))
		if len(vs) != 2 {
			t.Fatalf("seed %d: %d verdicts", seed, len(vs))
		}
		a, b := vs[0], vs[1]
		if !a.collapsed {
			t.Errorf("seed %d: lane a (%s) %s, want COLLAPSED", seed, a.strategy, a.cell())
		}
		if !b.recovered() {
			t.Errorf("seed %d: lane b (%s) %s, want recovered", seed, b.strategy, b.cell())
			continue
		}
		s, _ := strconv.ParseFloat(strings.TrimSuffix(b.server, "s"), 64)
		v, _ := strconv.ParseFloat(strings.TrimSuffix(b.service, "s"), 64)
		server, service = append(server, s), append(service, v)
	}
	span := func(xs []float64) string {
		lo, hi := xs[0], xs[0]
		for _, x := range xs {
			lo, hi = min(lo, x), max(hi, x)
		}
		return fmt.Sprintf("%.1f to %.1f s", lo, hi)
	}
	if len(server) == 0 {
		return
	}
	t.Logf("%d seeds: lane b's server recovered %s, its service %s after the outage", landingSeeds, span(server), span(service))
	if got := span(server); got != "24.3 to 25.7 s" {
		t.Errorf("lane b's server recovered %s after the outage, want 24.3 to 25.7 s", got)
	}
	if got := span(service); got != "20.9 to 22.8 s" {
		t.Errorf("lane b's service recovered %s after the outage, want 20.9 to 22.8 s", got)
	}
}
