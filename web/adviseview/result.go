package adviseview

import (
	"slices"
	"strconv"
	"strings"

	"github.com/backofflab/backofflab/advise"
	"github.com/backofflab/backofflab/internal/present"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/sweep"
)

// resultView is what the page draws of an advice beside the advice's
// own words (advise.Advice's Headline, Details, Words…): its figures
// written as a reader says them, here in Go, so that the page's script
// only lays them out.
type resultView struct {
	// Measured is the table of the settings today, the recommended and
	// the suggested, seed by seed.
	Measured measuredTable `json:"measured"`
	// Fresh is the advice and the runner-up on the fresh seeds; nil
	// without a fresh check.
	Fresh *freshView `json:"fresh,omitempty"`
	// Pareto are the Pareto front's points, the recommended marked.
	Pareto []paretoPoint `json:"pareto"`
	// Map is the small map around the recommendation; nil without one.
	Map *mapGrid `json:"map,omitempty"`
	// Playground is the playground's URL with lane a today and lane b
	// recommended; Command the `backofflab run` command that reproduces
	// it.
	Playground string `json:"playground"`
	Command    string `json:"command"`
	// LinkText is the playground link's words: today beside the
	// recommended, or the suggested.
	LinkText string `json:"link_text"`
	// Suggested says the suggestion's measured result, when there is one.
	Suggested string `json:"suggested,omitempty"`
	// NoFront says why the Pareto front is empty, "" when it is not.
	NoFront string `json:"no_front,omitempty"`
	// Margins say each margin in words, with the run commands just inside
	// and just outside.
	Margins []marginView `json:"margins"`
}

// measuredTable is a table of settings by seed.
type measuredTable struct {
	Head []string      `json:"head"`
	Rows []measuredRow `json:"rows"`
}

// freshView is the fresh check: its sentence, and the advice and the
// runner-up seed by seed.
type freshView struct {
	Words string        `json:"words"`
	Table measuredTable `json:"table"`
}

// measuredRow is one setting's row: what it is, then a cell per column
// after the first, each with its tone (good: meets the goal, bad: does
// not, "": no goal).
type measuredRow struct {
	Label string   `json:"label"`
	Words string   `json:"words"`
	Cells []string `json:"cells"`
	Tones []string `json:"tones"`
}

// paretoPoint is a candidate of the Pareto front.
type paretoPoint struct {
	Recovery    float64 `json:"recovery"` // seconds, the slowest seed's
	Attempts    float64 `json:"attempts"` // per request, the worst seed's
	Recommended bool    `json:"recommended"`
	// Tip says it for the chart's tooltip.
	Tip string `json:"tip"`
}

// mapGrid is the small map as the page lays it out: rows of y's values
// from the top, columns of x's.
type mapGrid struct {
	X           string     `json:"x"`
	Y           string     `json:"y"`
	XLabel      string     `json:"x_label"`
	YLabel      string     `json:"y_label"`
	XValues     []string   `json:"x_values"`
	YValues     []string   `json:"y_values"`
	Rows        [][]mapBox `json:"rows"`
	Why         string     `json:"why"`
	Legend      []cellMark `json:"legend"`
	ChosenX     int        `json:"chosen_x"`
	ChosenY     int        `json:"chosen_y"`
	Description string     `json:"description"`
}

// mapBox is one cell of the small map: its outcome's class, sign and
// words.
type mapBox struct {
	Outcome string `json:"outcome"`
	Sign    string `json:"sign"`
	Pattern string `json:"pattern"`
	Tip     string `json:"tip"`
}

// cellMark is how the page shows an outcome of the small map: besides its
// colour, its sign on the cell and its pattern, both named in the legend,
// so that the map reads without telling colours apart.
type cellMark struct {
	Outcome string `json:"outcome"`
	Label   string `json:"label"`
	Sign    string `json:"sign"`
	Pattern string `json:"pattern"`
}

// cellMarks are the small map's outcomes (advise.CellMeets…), in the
// legend's order: a check for a setting that meets every goal, a tilde
// for one that recovers but misses a goal, a cross for one that does not
// recover on every seed, as the phase map strikes out a collapse.
var cellMarks = []cellMark{
	{advise.CellMeets, "meets every goal on every seed", "✓", "plain"},
	{advise.CellRecovers, "recovers on every seed, misses a goal", "~", "dotted"},
	{advise.CellFails, "does not recover on every seed", "×", "hatched"},
}

// marginView is one margin in words with the runs that show it, each a
// shell comment that says what it shows, then its command.
type marginView struct {
	Words  string `json:"words"`
	Inside string `json:"inside"`
	Beyond string `json:"beyond,omitempty"`
}

// command writes a backofflab command with its flags for a shell.
func command(sub string, flags []string) string {
	parts := []string{"backofflab", sub}
	for _, f := range flags {
		if strings.ContainsAny(f, " \t'\"$`\\*?;&|<>()") {
			f = "'" + strings.ReplaceAll(f, "'", `'\''`) + "'"
		}
		parts = append(parts, f)
	}
	return strings.Join(parts, " ")
}

// say writes seconds as the page says a duration.
func say(sec float64) string { return present.Duration(sec, 3) }

// newResultView lays out the figures of a.
func newResultView(a *advise.Advice) resultView {
	v := resultView{Playground: "/?" + a.PlaygroundQuery, Command: command("run", a.RunFlags), Pareto: []paretoPoint{}, Margins: []marginView{}}
	adv, what := advised(a)
	v.LinkText = "Open in the playground: your settings today beside the " + what
	v.Measured = measured(a)
	if f := a.FreshCheck; f != nil {
		v.Fresh = &freshView{Words: f.Words, Table: fresh(a, f)}
	}
	for _, c := range a.Pareto {
		if c.Recovery == nil {
			continue
		}
		rec := adv != nil && c.LaneQuery == adv.LaneQuery
		v.Pareto = append(v.Pareto, paretoPoint{Recovery: *c.Recovery, Attempts: c.AttemptsPerRequest, Recommended: rec,
			Tip: c.Words + ": recovers within " + say(*c.Recovery) + " on every seed, " + advise.PerRequest(c.AttemptsPerRequest)})
	}
	if adv != nil && adv.Recovery != nil && !slices.ContainsFunc(v.Pareto, func(p paretoPoint) bool { return p.Recommended }) {
		// The recommendation is chosen for its margin over every goal,
		// the users' among them: it may lie off the front of these two.
		v.Pareto = append(v.Pareto, paretoPoint{Recovery: *adv.Recovery, Attempts: adv.AttemptsPerRequest, Recommended: true,
			Tip: adv.Words + ": recovers within " + say(*adv.Recovery) + " on every seed, " + advise.PerRequest(adv.AttemptsPerRequest) +
				"; off this front, recommended for its margin over every goal"})
	}
	if c := a.Suggestion; c != nil {
		v.Suggested = "Measured with " + c.Protection + ": "
		if c.Recovery != nil {
			v.Suggested += "recovered within " + say(*c.Recovery) + " of the outage's end on every seed"
		} else {
			v.Suggested += "did not recover on every seed"
		}
		v.Suggested += ", at most " + advise.PerRequest(c.AttemptsPerRequest) + "; it meets "
		if c.Meets.All {
			v.Suggested += "every goal."
		} else {
			v.Suggested += "not every goal: it came closest."
		}
	}
	if len(v.Pareto) == 0 {
		v.NoFront = "no setting of " + a.LibraryTitle + " recovered on every seed: there is no trade-off to draw"
	}
	if a.Margin != nil {
		for _, m := range []advise.MarginAxis{a.Margin.Outage, a.Margin.Load} {
			mv := marginView{Words: m.Words, Inside: "# " + m.Param + "=" + m.Holds + ": every seed recovers\n" + command("run", m.HoldsFlags)}
			if len(m.FailsFlags) > 0 {
				mv.Beyond = "# " + m.Param + "=" + m.Fails + ", just outside: seed " + strconv.FormatUint(m.FailSeed, 10) + " does not recover\n" + command("run", m.FailsFlags)
			}
			v.Margins = append(v.Margins, mv)
		}
	}
	if a.Map != nil {
		v.Map = newMapGrid(a)
	}
	return v
}

// advised returns the setting the advice's margin, map, snippet and
// links are of (Advice.Advised), and what the page calls it: the
// recommended, or the suggested protection when no setting of the
// library met the goals; nil when there is none.
func advised(a *advise.Advice) (*advise.Candidate, string) {
	switch a.Advised {
	case advise.AdvisedSuggestion:
		return a.Suggestion, "suggested"
	case advise.AdvisedRecommended:
		return a.Recommended, "recommended"
	}
	return nil, "recommended"
}

// measured is the table of a's settings seed by seed: today, the
// recommended and, when they differ, the suggested.
func measured(a *advise.Advice) measuredTable {
	t := seedTable(a, a.Seeds)
	t.row(a, "today", &a.Today)
	if a.Recommended != nil {
		label := "recommended"
		if !a.Met {
			label = "the best of the library"
		}
		t.row(a, label, a.Recommended)
	}
	if s := a.Suggestion; s != nil && (a.Recommended == nil || s.LaneQuery != a.Recommended.LaneQuery) {
		t.row(a, "suggested: "+s.Protection, s)
	}
	return t
}

// fresh is the table of the fresh check f of a: the advised setting and
// the runner-up on the fresh seeds.
func fresh(a *advise.Advice, f *advise.FreshCheck) measuredTable {
	t := seedTable(a, f.Seeds)
	_, what := advised(a)
	for _, r := range []struct {
		label string
		f     *advise.FreshResult
	}{{what, &f.Advised}, {"runner-up", f.RunnerUp}} {
		if r.f == nil {
			continue
		}
		t.row(a, r.label, &r.f.Candidate)
	}
	return t
}

// seedTable is an empty table of a's settings on seeds: a column per
// seed, then the worst seed's figures.
func seedTable(a *advise.Advice, seeds []uint64) measuredTable {
	t := measuredTable{Head: []string{"setting"}}
	for _, s := range seeds {
		t.Head = append(t.Head, "seed "+strconv.FormatUint(s, 10))
	}
	t.Head = append(t.Head, "slowest recovery", "attempts per request")
	if a.Goals.P99 > 0 {
		t.Head = append(t.Head, "an ordinary day's p99")
	}
	if a.Goals.Success > 0 {
		t.Head = append(t.Head, "fewest succeeded in time")
	}
	return t
}

// row adds c's row under label: its runs seed by seed and its worst
// figures, each with its tone against a's goals.
func (t *measuredTable) row(a *advise.Advice, label string, c *advise.Candidate) {
	r := measuredRow{Label: label, Words: c.Words}
	tone := func(ok bool) string {
		if ok {
			return "good"
		}
		return "bad"
	}
	for _, sr := range c.Runs {
		if sr.Recovery != nil && sr.Outcome == sweep.OutcomeRecovered {
			r.Cells = append(r.Cells, "recovered in "+say(*sr.Recovery))
			r.Tones = append(r.Tones, tone(*sr.Recovery <= a.Goals.RecoverWithin))
		} else {
			r.Cells = append(r.Cells, outcomeWords(sr.Outcome))
			r.Tones = append(r.Tones, "bad")
		}
	}
	if c.Recovery != nil {
		r.Cells = append(r.Cells, say(*c.Recovery))
	} else {
		r.Cells = append(r.Cells, "not on every seed")
	}
	r.Tones = append(r.Tones, tone(c.Meets.Recovery))
	r.Cells = append(r.Cells, present.Sig(c.AttemptsPerRequest, 3))
	r.Tones = append(r.Tones, tone(c.Meets.Attempts))
	if a.Goals.P99 > 0 {
		r.Cells = append(r.Cells, say(c.P99))
		r.Tones = append(r.Tones, tone(c.Meets.P99))
	}
	if a.Goals.Success > 0 {
		r.Cells = append(r.Cells, present.Sig(100*c.Success, 4)+" %")
		r.Tones = append(r.Tones, tone(c.Meets.Success))
	}
	t.Rows = append(t.Rows, r)
}

// outcomeWords says a run's outcome that is not a recovery.
func outcomeWords(o string) string {
	switch o {
	case sweep.OutcomeCollapsed:
		return "collapsed"
	case sweep.OutcomeStopped:
		return "stopped (memory budget)"
	case sweep.OutcomeNoOutage:
		return "no outage"
	case sweep.OutcomeRecovered:
		return "server back, service not by the run's end"
	}
	return o
}

// newMapGrid lays out a's map with y's values from the top, the largest
// first, as a chart's y axis runs.
func newMapGrid(a *advise.Advice) *mapGrid {
	m := a.Map
	g := &mapGrid{X: m.X, Y: m.Y, XLabel: knobLabel(m.X), YLabel: knobLabel(m.Y), XValues: m.XValues, Why: m.Why,
		Legend: cellMarks, ChosenX: -1, ChosenY: -1}
	rec := map[string]string{}
	if adv, _ := advised(a); adv != nil {
		rec = adv.Settings
	}
	mark := map[string]cellMark{}
	for _, c := range cellMarks {
		mark[c.Outcome] = c
	}
	for i, x := range m.XValues {
		if rec[m.X] == x {
			g.ChosenX = i
		}
	}
	for j := len(m.YValues) - 1; j >= 0; j-- {
		y := m.YValues[j]
		if rec[m.Y] == y {
			g.ChosenY = len(g.YValues)
		}
		g.YValues = append(g.YValues, y)
		var row []mapBox
		for i, c := range m.Cells[j] {
			tip := m.X + "=" + m.XValues[i] + ", " + m.Y + "=" + y + ": " + mark[c.Outcome].Label
			if c.Recovery != nil {
				tip += "; slowest recovery " + say(*c.Recovery)
			} else {
				tip += "; " + strconv.Itoa(c.Recovered) + " of " + strconv.Itoa(len(a.Seeds)) + " seeds recovered"
			}
			tip += "; " + advise.PerRequest(c.AttemptsPerRequest)
			row = append(row, mapBox{Outcome: c.Outcome, Sign: mark[c.Outcome].Sign, Pattern: mark[c.Outcome].Pattern, Tip: tip})
		}
		g.Rows = append(g.Rows, row)
	}
	_, what := advised(a)
	g.Description = "each cell a setting with " + g.XLabel + " across and " + g.YLabel + " down, over every seed; the " + what + " setting is outlined"
	return g
}

// knobLabel says a knob of the map (a vocabulary name, with a lane's
// letter or not) in words with its name.
func knobLabel(name string) string {
	if row, _, ok := scenario.Lookup(name); ok {
		return row.Label() + " (" + name + ")"
	}
	return name
}
