package advise

import (
	"fmt"
	"slices"
	"strings"
)

// freshCheck replays the advised setting, adv, and the runner-up on the
// request's number of seeds from the first the search did not use
// (seed+Seeds), and judges both seed by seed against the goals. The
// runner-up is the next by the goals' ranking among the candidates
// searched with the advised one: the library's settings, or for a
// suggestion the protections.
func (s *search) freshCheck(a *Advice, adv advised) (*FreshCheck, error) {
	k := s.r.Seeds
	first := s.r.Scenario.Seed + uint64(k)
	pool := a.Searched
	if adv.set.prot != nil {
		pool = a.Protections
	}
	sets := []*setting{adv.set}
	var others []Candidate
	for _, c := range pool {
		if c.LaneQuery != adv.c.LaneQuery && s.byLane[c.LaneQuery] != nil {
			others = append(others, c)
		}
	}
	var runnerUp *Candidate
	if len(others) > 0 {
		runnerUp = &others[bestOf(others)]
		sets = append(sets, s.byLane[runnerUp.LaneQuery])
	} else {
		s.rn.plan(-k * len(suite))
	}
	s.rn.plan(s.rn.freshFrom(s.inSuite(sets), first, k) - len(sets)*k*len(suite))
	runs, err := s.measureSuite(PhaseFresh, sets, first, k)
	if err != nil {
		return nil, err
	}
	f := &FreshCheck{Advised: s.freshResult(adv.c, runs[0])}
	for i := range k {
		f.Seeds = append(f.Seeds, first+uint64(i))
	}
	f.Holds = f.Advised.Meets.All
	if runnerUp != nil {
		r := s.freshResult(runnerUp, runs[1])
		f.RunnerUp = &r
	}
	f.Words = freshWords(f)
	return f, nil
}

// freshResult judges c's runs on the fresh seeds, by scenario, seed by
// seed: a seed holds when every goal held on it in every scenario.
func (s *search) freshResult(c *Candidate, runs []ScenarioRuns) FreshResult {
	j := judge(s.r, runs)
	j.Settings, j.Words, j.Protection, j.LaneQuery = c.Settings, c.Words, c.Protection, c.LaneQuery
	f := FreshResult{Candidate: j}
	missed := map[uint64]bool{}
	for _, sr := range runs {
		for _, run := range sr.Runs {
			for _, m := range s.misses(sr.Scenario, run) {
				missed[run.Seed] = true
				f.Misses = append(f.Misses, fmt.Sprintf("seed %d %s", run.Seed, m))
			}
		}
	}
	seeds := 0
	if len(runs) > 0 {
		seeds = len(runs[0].Runs)
	}
	f.Held = seeds - len(missed)
	switch {
	case f.Held == seeds:
		f.Summary = fmt.Sprintf("holds on all %d", seeds)
	default:
		f.Summary = fmt.Sprintf("holds on %d of %d: %s", f.Held, seeds, strings.Join(f.Misses, "; "))
	}
	return f
}

// misses says each goal run, a run of the suite's scenario called
// scenario, missed, in words that follow its seed ("on the outage
// recovered in 12.3 s, over the 10 s goal"); none when it met them all.
func (s *search) misses(scenarioName string, run SeedRun) []string {
	var out []string
	where := lookupScenario(scenarioName).words
	for _, g := range goalTable {
		want, ok := g.want(&s.r)
		if !ok || !slices.Contains(g.scenarios, scenarioName) {
			continue
		}
		v, has := g.value(run)
		switch {
		case !has:
			out = append(out, fmt.Sprintf("on %s had no %s (%s)", where, g.label, run.Outcome))
		case slack(g, want, v) < 0:
			out = append(out, fmt.Sprintf("on %s had %s, past the goal of %s", where, g.saying(v), g.text(want)))
		}
	}
	return out
}

// freshWords says the fresh check in a sentence: on which seeds, and how
// the advised setting and the runner-up held.
func freshWords(f *FreshCheck) string {
	w := fmt.Sprintf("Checked on %d fresh seeds (%d to %d, none of them the search's): the advice %s",
		len(f.Seeds), f.Seeds[0], f.Seeds[len(f.Seeds)-1], f.Advised.Summary)
	if f.RunnerUp != nil {
		w += fmt.Sprintf("; the runner-up, %s, %s", f.RunnerUp.Words, f.RunnerUp.Summary)
	}
	return w + "."
}
