package advise

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteJSON writes a as one indented JSON object, its fields as Advice's
// tags name them.
func WriteJSON(w io.Writer, a *Advice) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(a)
}

// WriteText writes a for a reader of the command line: the headline, the
// settings today and recommended with each seed's result, the margins
// with the runs that check them, the trade-off, the map, the snippet, and
// the flags and link that reproduce it.
func WriteText(w io.Writer, a *Advice) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nGoals: %s.\n", a.Headline, a.Goals.Words)
	writeCandidate(&b, a, "Today", &a.Today)
	if a.Recommended != nil {
		title := "Recommended"
		if !a.Met {
			title = "Best setting of " + a.LibraryTitle + " alone"
		}
		writeCandidate(&b, a, title, a.Recommended)
	}
	for _, g := range a.Closest {
		fmt.Fprintf(&b, "  how close: %s\n", g.Words)
	}
	if a.Suggestion != nil {
		fmt.Fprintf(&b, "\nProtections tried on the best setting (same seeds):\n")
		for _, c := range a.Protections {
			fmt.Fprintf(&b, "  %-53s %s\n", c.Protection, summaryText(&c))
		}
		writeCandidate(&b, a, "Suggested", a.Suggestion)
	}
	if a.FreshCheck != nil {
		writeFresh(&b, a)
	}
	if a.Margin != nil {
		writeMargin(&b, a.Margin)
	}
	if len(a.Pareto) > 0 {
		b.WriteString("\nTrade-off (recovery vs attempts per request, worst seed; none faster with fewer attempts):\n")
		for _, c := range a.Pareto {
			fmt.Fprintf(&b, "  %8s  %5s  %s\n", secs(*c.Recovery), num(c.AttemptsPerRequest), c.Words)
		}
	}
	if a.Map != nil {
		writeMap(&b, a.Map, a.Advised)
	}
	if a.Snippet != "" || len(a.SnippetWarnings) > 0 {
		writeSnippet(&b, a)
	}
	if len(a.RunFlags) > 0 {
		fmt.Fprintf(&b, "\nReproduce (lane a today, lane b the advice, seed %d): backofflab run %s\n", a.Seeds[0], shellJoin(a.RunFlags))
		fmt.Fprintf(&b, "Playground: /?%s\n", a.PlaygroundQuery)
	}
	b.WriteString("\n")
	for _, d := range a.Details {
		fmt.Fprintf(&b, "%s\n", d)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCandidate writes a setting of a under its title: its words, each
// seed's result and the goals it meets on every seed.
func writeCandidate(b *strings.Builder, a *Advice, title string, c *Candidate) {
	fmt.Fprintf(b, "\n%s: %s\n", title, c.Words)
	writeScenarios(b, c.Scenarios, "  ")
	if c.Dropped != "" {
		fmt.Fprintf(b, "  dropped after these runs: %s\n", c.Dropped)
	}
	writeGoals(b, c)
}

// writeScenarios writes runs, scenario by scenario and seed by seed,
// each line indented by indent.
func writeScenarios(b *strings.Builder, runs []ScenarioRuns, indent string) {
	for _, sr := range runs {
		fmt.Fprintf(b, "%s%s:\n", indent, lookupScenario(sr.Scenario).words)
		for _, r := range sr.Runs {
			fmt.Fprintf(b, "%s  seed %-3d %s\n", indent, r.Seed, seedText(sr.Scenario, r))
		}
	}
}

// writeGoals writes each goal's result and the margin.
func writeGoals(b *strings.Builder, c *Candidate) {
	for _, g := range c.Goals {
		fmt.Fprintf(b, "  %-4s at worst %s\n", map[bool]string{true: "met", false: "MISS"}[g.Met], goalWords(g))
	}
	fmt.Fprintf(b, "  margin (the worst goal's slack, as a share of the goal): %s\n", num(c.Margin))
}

// writeFresh writes the fresh check: the advice and the runner-up seed by
// seed on seeds the search never used.
func writeFresh(b *strings.Builder, a *Advice) {
	f := a.FreshCheck
	fmt.Fprintf(b, "\nChecked on %d fresh seeds (%d to %d, none of them the search's):\n", len(f.Seeds), f.Seeds[0], f.Seeds[len(f.Seeds)-1])
	results := []*FreshResult{&f.Advised}
	titles := []string{"the advice"}
	if f.RunnerUp != nil {
		results = append(results, f.RunnerUp)
		titles = append(titles, "the runner-up")
	}
	for i, r := range results {
		fmt.Fprintf(b, "  %s, %s: %s\n", titles[i], r.Words, r.Summary)
		writeScenarios(b, r.Scenarios, "    ")
	}
}

// writeMargin writes the margins, each with the runs just inside and just
// outside it.
func writeMargin(b *strings.Builder, m *Margin) {
	b.WriteString("\nMargin (on every seed: answers and the server's load back before the run's end; a higher load also carried before the outage):\n")
	for _, ax := range []MarginAxis{m.Outage, m.Load} {
		fmt.Fprintf(b, "  %s\n", ax.Words)
		fmt.Fprintf(b, "    holds: backofflab run %s\n", shellJoin(ax.HoldsFlags))
		if ax.Fails != "" {
			fmt.Fprintf(b, "    fails: backofflab run %s\n", shellJoin(ax.FailsFlags))
		}
	}
}

// writeMap writes the map around what is advised (advised names it) as a
// table, y down and x across.
func writeMap(b *strings.Builder, m *Map, advised string) {
	fmt.Fprintf(b, "\nMap around the %s: %s.\n", map[string]string{AdvisedRecommended: "recommendation", AdvisedSuggestion: "suggestion"}[advised], m.Why)
	fmt.Fprintf(b, "  each cell: slowest recovery / attempts per request over the seeds; * meets every goal, ! a seed did not recover\n")
	fmt.Fprintf(b, "  %12s", m.Y+" \\ "+m.X)
	for _, x := range m.XValues {
		fmt.Fprintf(b, " %13s", x)
	}
	b.WriteString("\n")
	for j, row := range m.Cells {
		fmt.Fprintf(b, "  %12s", m.YValues[j])
		for _, c := range row {
			fmt.Fprintf(b, " %13s", cellText(c))
		}
		b.WriteString("\n")
	}
}

// writeSnippet writes the advised setting as its library's configuration,
// with what the configuration cannot say.
func writeSnippet(b *strings.Builder, a *Advice) {
	fmt.Fprintf(b, "\nConfiguration (%s):\n", a.SnippetLib)
	for _, line := range strings.Split(strings.TrimRight(a.Snippet, "\n"), "\n") {
		if line != "" {
			fmt.Fprintf(b, "  %s\n", line)
		}
	}
	for _, wn := range a.SnippetWarnings {
		fmt.Fprintf(b, "  note: %s\n", wn)
	}
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// seedText is one seed's run of the named scenario in a few words: its
// recovery after a disruption, its attempts per request, its users'
// success and latency, and the server's peak attempt rate.
func seedText(scenarioName string, r SeedRun) string {
	var s string
	switch {
	case scenarioName == ScenarioOrdinary:
		s = fmt.Sprintf("%-24s", "")
	case r.Recovery == nil:
		s = fmt.Sprintf("%-24s", "did not recover ("+r.Outcome+")")
	case *r.Recovery < 0.05:
		s = fmt.Sprintf("%-24s", "recovered at once")
	default:
		s = fmt.Sprintf("%-24s", "recovered in "+secs(*r.Recovery))
	}
	return s + fmt.Sprintf("  %-26s  %s succeeded  p50/p99/p99.9 %s/%s/%s  peak %s attempts/s",
		PerRequest(r.AttemptsPerRequest), share(r.SucceededWithin), secs(r.RequestP50), secs(r.RequestP99), secs(r.RequestP999), num(r.PeakAttemptRate))
}

// summaryText is a candidate's result over the seeds in a few words.
func summaryText(c *Candidate) string {
	s := "did not recover on every seed"
	switch {
	case c.Recovery != nil && *c.Recovery < 0.05:
		s = "recovered at once"
	case c.Recovery != nil:
		s = "recovered within " + secs(*c.Recovery)
	}
	s += ", " + PerRequest(c.AttemptsPerRequest)
	if c.Meets.All {
		s += ": meets every goal"
	}
	return s
}

// cellText is a map's cell in a few characters.
func cellText(c MapCell) string {
	switch c.Outcome {
	case CellNotAllowed:
		return "—"
	case CellFails:
		return fmt.Sprintf("!%d seeds/%s", c.Recovered, num(c.AttemptsPerRequest))
	}
	mark := ""
	if c.Outcome == CellMeets {
		mark = "*"
	}
	return fmt.Sprintf("%s%s/%s", mark, secs(*c.Recovery), num(c.AttemptsPerRequest))
}

// shellJoin writes flags for a shell, quoting those that need it.
func shellJoin(flags []string) string {
	out := make([]string, len(flags))
	for i, f := range flags {
		if strings.ContainsAny(f, " \t'\"$`\\!*?[]{}()<>|&;#~") {
			f = "'" + strings.ReplaceAll(f, "'", `'\''`) + "'"
		}
		out[i] = f
	}
	return strings.Join(out, " ")
}
