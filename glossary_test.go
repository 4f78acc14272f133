package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/internal/cli"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/web"
)

// update rewrites docs/glossary.md from the vocabulary's tables.
var update = flag.Bool("update", false, "rewrite docs/glossary.md from the vocabulary's tables")

// glossaryPath is the glossary of the vocabulary, generated from the
// scenario's table by glossaryText: go test -run TestGlossary -update
// rewrites it.
var glossaryPath = filepath.Join("docs", "glossary.md")

// cell escapes text for a cell of a Markdown table.
func cell(text string) string { return strings.ReplaceAll(text, "|", `\|`) }

// glossaryText is docs/glossary.md as the vocabulary's tables say it: each
// parameter (scenario.Table, with lanes and changes), strategy, fault
// kind and tick column, with its one name, the URL's and the flags', and
// its one label in words, the page's.
func glossaryText() string {
	var b strings.Builder
	b.WriteString(`# Glossary

One name per concept. The name is what the URL, the command's flags, the
WebSocket messages, the CSV headers and the JSON keys say (a lane's
parameter carries its lane's letter: ` + "`a.min_delay=100ms`" + `, ` + "`-a.min_delay 100ms`" + `);
the label is what the page and the documents say in words. This page is
generated from the vocabulary's tables (` + "`scenario/table.go`" + `,
` + "`scenario/tick.go`" + `, ` + "`strategies/params.go`" + `, ` + "`scenario/fault.go`" + `), and
` + "`TestGlossary`" + ` (` + "`glossary_test.go`" + `) fails while it differs from them:
` + "`go test -run TestGlossary -update`" + ` rewrites it. The same test keeps the
retired names of ` + "`min_delay`" + ` (a "first delay", a "base delay", a "MinDelay")
out of the page, the flags' help and these documents; a library's own
field keeps its own name where a page quotes it.

The concepts come first: the words the code, the pages and these
documents use for what is not one parameter, each with one meaning, and the
words each retired (` + "`concepts`" + ` in ` + "`glossary_test.go`" + `;
` + "`TestRetiredNamesUnsaid`" + ` keeps those it can tell apart out of the same places).

## Concepts

| concept | meaning | retired words |
|---|---|---|
`)
	for _, c := range concepts {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", c.name, cell(c.meaning), cell(c.retiredWords))
	}
	b.WriteString(`
## Parameters

| name | label | per lane | meaning |
|---|---|---|---|
`)
	params := []scenario.Param{}
	if lanes, _, ok := scenario.Lookup("lanes"); ok {
		params = append(params, lanes)
	}
	params = append(params, scenario.Table...)
	params = append(params, scenario.ChangesParam())
	for _, p := range params {
		lane := ""
		if p.Lane {
			lane = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.Name, cell(p.Label()), lane, cell(p.Help))
	}
	b.WriteString("\n## Strategies (`strategy`)\n\n| name | label |\n|---|---|\n")
	for _, name := range strategies.Names() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", name, cell(strategies.Label(name)))
	}
	b.WriteString("\n## Fault kinds (`outage`, `faults`)\n\n| name | label | what it does |\n|---|---|---|\n")
	for _, k := range scenario.FaultKinds {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", k.Name, cell(k.Label), cell(k.Help))
	}
	b.WriteString("\n## Tick columns (CSV headers, JSON keys)\n\n| name | label |\n|---|---|\n")
	for _, c := range scenario.Columns {
		fmt.Fprintf(&b, "| `%s` | %s |\n", c, cell(scenario.ColumnLabel(c)))
	}
	return b.String()
}

// TestGlossary: docs/glossary.md is the vocabulary's tables, row for row:
// each concept's name and label as scenario's table and labels give them.
func TestGlossary(t *testing.T) {
	want := glossaryText()
	if *update {
		if err := os.WriteFile(glossaryPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(glossaryPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) == want {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(want, "\n")
	for i := range max(len(gl), len(wl)) {
		g, w := "", ""
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s:%d differs from the vocabulary's tables (go test -run TestGlossary -update):\n got %q\nwant %q", glossaryPath, i+1, g, w)
		}
	}
}

// concept is one concept of the glossary's first table: its name, what it
// means, and the words it retired. retired matches those of them that
// TestRetiredNamesUnsaid can tell apart from the words' other meanings
// (nil when none can be), except on a line that unless matches.
type concept struct {
	name, meaning, retiredWords string
	retired, unless             *regexp.Regexp
}

// concepts are the words for what is not one parameter: the playback and
// the server's outages, the many-run views, the phase map, limits, bounds,
// limiters and budgets, and what a URL, a page and a stateful thing hold.
var concepts = []concept{
	{name: "`pause`", meaning: "a fault kind: the server frozen as the 2014 experiment froze it with SIGSTOP: nothing inside completes and new connections wait in the accept backlog (`outage=pause`, `POST /control/pause`)",
		retiredWords: "—"},
	{name: "resume", meaning: "the end of an outage, scheduled or by hand; after a pause the whole backlog enters the server at once, the flood (`@t resume` in `changes`, `POST /control/resume`)",
		retiredWords: "resume for the playback: it plays"},
	{name: "`stop`", meaning: "Stop server: an outage of the run's `outage` kind (a pause when that is `none`) begun by hand now, recorded in `changes` as `@t stop` and ended by Resume server, `@t resume`",
		retiredWords: "—"},
	{name: "playback", meaning: "how the page shows a run's virtual time: Play, Pause, Run again and the speed (the WebSocket messages `play`, `pause`, `reset`, `speed`); it never changes the run. `resume`, `play`'s old name, still plays",
		retiredWords: "resume the simulation, the run is paused",
		retired:      regexp.MustCompile(`(?i)resume the (simulation|playback)|run is paused`)},
	{name: "many-run view", meaning: "a command and its page that run many whole simulations of one scenario and stream their progress: the phase map, the seed bands, the contention study, the advice (`scenario.View`, `scenario.ViewTable`); on a server each takes a slot and a share of the cores, within `-view_cpu` of CPU time (`kit.Limits.ViewCPU`)",
		retiredWords: "tool, analysis, study (for any of them)",
		retired:      regexp.MustCompile(`(?i)\banalys[ie]s\b`)},
	{name: "contention study", meaning: "the AWS blog's 2015 study of N clients writing one row, rerun (`contention`, `/contention`); the only thing called a study",
		retiredWords: "—"},
	{name: "phase map", meaning: "a grid of whole runs over one or two numeric parameters, each cell's outcome shown by colour, sign and pattern: `backofflab map` (and `map merge`) and `/map`. Its old command name, `sweep`, still works. The computation keeps the word: the package `sweep`, since a parameter sweep is the field's name for running such a grid, and the CSV column `sweep`, the map's query, which parts written before carry and `map merge` reads back",
		retiredWords: "the command sweep",
		retired:      regexp.MustCompile(`(?i)backofflab sweep\b`), unless: regexp.MustCompile(`(?i)old name`)},
	{name: "limits", meaning: "caps on what a request may cost: the server's (`kit.Limits`, the `serve` flags, docs/limits.md) and a many-run command's on its size (`sweep.Limits`, `advise.Limits`, `contention.Limits`)",
		retiredWords: "bounds (of a study's size)"},
	{name: "bounds", meaning: "the ranges a run's values are read within: the table's, tightened by a command or a server (`scenario.Bounds`, `kit.Limits.Bounds`)",
		retiredWords: "—"},
	{name: "limiter", meaning: "anything in a lane's retry policy that may refuse an attempt (`strategies.Limiter`, the scope `limiter`): `max_attempts`, `deadline`, and the switched ones (`grpc_throttle`, `aws_quota`, `aws_adaptive`, `sre_throttle`, `retry_budget`, `breaker`, `envoy_retry_limit`)",
		retiredWords: "Limit (the Go interface)",
		retired:      regexp.MustCompile(`strategies\.(First|Send|Wait|Reserve|Shared|MaxAttempts|Deadline)?Limit\b`)},
	{name: "budget", meaning: "always with its noun: a run's memory budget (`-run_memory`, within the server's `-max_memory`; the package `budget`), a many-run view's CPU budget (`-view_cpu`), the retry budget (a limiter, `retry_budget`), a real lane's connection budget",
		retiredWords: "budget alone"},
	{name: "scenario", meaning: "everything a run is made of, which a page's URL holds: the parameters, the live changes, the speed and which lane is real (`scene.Scenario`)",
		retiredWords: "the whole state, the URL's state",
		retired:      regexp.MustCompile(`(?i)whole state|URL'?s state|query is the state|page'?s state`)},
	{name: "state", meaning: "what a stateful thing holds between events: a request's retry state (`strategies.State`), a limiter's, a client's, a breaker's, and the run's (time, playing, speed, server down), which the page is told in `state` messages",
		retiredWords: "—"},
	{name: "page data", meaning: "the JSON a view's page embeds for its script to start from, which the script only reads (the element `page-data`, `map-data`, …)",
		retiredWords: "page state"},
}

// retired are the names min_delay had before it had one: none may be said
// of it in words.
var retired = regexp.MustCompile(`(?i)first delay|base delay|MinDelay`)

// libraryField is a line that quotes a library's own field for the
// concept: its name stays the library's.
var libraryField = regexp.MustCompile(`(?i)aws|sdk|envoy|istio|polly|resilience4j|cenkalti|tenacity|urllib3|client-go|grpc`)

// TestRetiredNamesUnsaid: min_delay has one label in words, the table's,
// and its retired names (first delay, base delay, MinDelay) are said
// nowhere a user reads: the README and docs/, the pages, the flags' help of
// every command. A line that quotes a library's own field for it keeps the
// library's name. The concepts' retired words that can be told apart
// (concepts) are kept out of the same places.
func TestRetiredNamesUnsaid(t *testing.T) {
	if param, _, _ := scenario.Lookup("min_delay"); retired.MatchString(param.Label()) || retired.MatchString(param.Help) {
		t.Errorf("min_delay's label %q or help %q uses a retired name", param.Label(), param.Help)
	}
	// check reads text in pieces split at sep (lines; for a page, its
	// elements' texts and attributes and its JSON's strings), so that a
	// piece that quotes a library does not hide another that does not.
	// Each retired word with what retired it, and the lines that may
	// still say it: for min_delay, a library's own field.
	words := []concept{{name: "min_delay", retired: retired, unless: libraryField}}
	for _, c := range concepts {
		if c.retired != nil {
			words = append(words, c)
		}
	}
	check := func(where, text, sep string) {
		t.Helper()
		pieces := strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(sep, r) })
		for n, line := range pieces {
			for _, c := range words {
				if m := c.retired.FindString(line); m != "" && (c.unless == nil || !c.unless.MatchString(line)) {
					t.Errorf("%s:%d says %q for %s: %.160q", where, n+1, m, c.name, line)
				}
			}
		}
	}
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range append([]string{"README.md"}, docs...) {
		if path == glossaryPath {
			continue // it names the retired names, as retired
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		check(path, string(data), "\n")
	}
	for _, cmd := range []string{"run", "serve", "server", "client", "map", "bands", "advise", "contention", "config"} {
		var out, errOut bytes.Buffer
		_ = cli.Run(context.Background(), []string{cmd, "-h"}, &out, &errOut)
		check(cmd+" -h", out.String()+errOut.String(), "\n")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := web.NewServer(ctx, web.Options{})
	for _, path := range []string{"/", "/map", "/bands", "/advise", "/contention"} {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest("GET", "http://127.0.0.1"+path, nil))
		if w.Code != 200 {
			t.Errorf("GET %s: %d", path, w.Code)
		}
		check("page "+path, w.Body.String(), "\n<\"")
	}
}
