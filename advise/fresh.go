package advise

import (
	"fmt"
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
		s.rn.plan(-k)
	}
	s.rn.plan(s.rn.freshFrom(sets, first) - len(sets)*k)
	runs, err := s.rn.measureFrom(PhaseFresh, sets, first)
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

// freshResult judges c's runs on the fresh seeds, seed by seed.
func (s *search) freshResult(c *Candidate, runs []SeedRun) FreshResult {
	j := judge(s.r, runs)
	j.Settings, j.Words, j.Protection, j.LaneQuery = c.Settings, c.Words, c.Protection, c.LaneQuery
	f := FreshResult{Candidate: j}
	for _, run := range runs {
		miss := s.misses(run)
		if len(miss) == 0 {
			f.Held++
		}
		for _, m := range miss {
			f.Misses = append(f.Misses, fmt.Sprintf("seed %d %s", run.Seed, m))
		}
	}
	switch {
	case f.Held == len(runs):
		f.Summary = fmt.Sprintf("holds on all %d", len(runs))
	default:
		f.Summary = fmt.Sprintf("holds on %d of %d: %s", f.Held, len(runs), strings.Join(f.Misses, "; "))
	}
	return f
}

// misses says each goal run missed, in words that follow its seed ("
// recovered in 12.3 s, over the 10 s goal"); none when it met them all.
func (s *search) misses(run SeedRun) []string {
	g := s.goals()
	var out []string
	switch {
	case run.Recovery == nil:
		out = append(out, fmt.Sprintf("did not recover (%s)", run.Outcome))
	case *run.Recovery > g.RecoverWithin:
		out = append(out, fmt.Sprintf("recovered in %s, over the %s goal", secs(*run.Recovery), secs(g.RecoverWithin)))
	}
	if run.AttemptsPerRequest > g.AttemptsPerRequest {
		out = append(out, fmt.Sprintf("sent %s, over the goal of %s", PerRequest(run.AttemptsPerRequest), num(g.AttemptsPerRequest)))
	}
	if g.P99 > 0 && run.Recovery != nil && run.P99 > g.P99 {
		out = append(out, fmt.Sprintf("had a p99 of %s once recovered, over the %s goal", secs(run.P99), secs(g.P99)))
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
