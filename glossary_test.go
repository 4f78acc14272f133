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

// retired are the names min_delay had before it had one: none may be said
// of it in words.
var retired = regexp.MustCompile(`(?i)first delay|base delay|MinDelay`)

// libraryField is a line that quotes a library's own field for the
// concept: its name stays the library's.
var libraryField = regexp.MustCompile(`(?i)aws|sdk|envoy|istio|polly|resilience4j|cenkalti|tenacity|urllib3|client-go|grpc`)

// TestRetiredNamesUnsaid: min_delay has one label in words, the table's,
// and its retired names (first delay, base delay, MinDelay) are said
// nowhere a user reads: the README and docs/, the page, the flags' help of
// every command. A line that quotes a library's own field for it keeps the
// library's name.
func TestRetiredNamesUnsaid(t *testing.T) {
	if param, _, _ := scenario.Lookup("min_delay"); retired.MatchString(param.Label()) || retired.MatchString(param.Help) {
		t.Errorf("min_delay's label %q or help %q uses a retired name", param.Label(), param.Help)
	}
	// check reads text in pieces split at sep (lines; for a page, its
	// elements' texts and attributes and its JSON's strings), so that a
	// piece that quotes a library does not hide another that does not.
	check := func(where, text, sep string) {
		t.Helper()
		pieces := strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(sep, r) })
		for n, line := range pieces {
			if m := retired.FindString(line); m != "" && !libraryField.MatchString(line) {
				t.Errorf("%s:%d says %q for min_delay: %.160q", where, n+1, m, line)
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
