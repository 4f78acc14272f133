package advise

import (
	"context"
	"errors"
	"math"
	"slices"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/parallel"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/sweep"
)

// setting is a candidate before it runs: the one-lane scenario it runs
// (its seed is each seed's in turn), its knobs' values, and for a
// protection what it adds.
type setting struct {
	p      scenario.Params
	values []float64 // one per knob of the search; nil for none
	// prot is the protection the setting adds to a setting of the
	// library, or nil for the library's setting alone.
	prot *protection
}

// runner runs settings on the request's seeds, reports progress, and
// remembers every setting's run on every seed: a setting is never run
// twice on one seed.
type runner struct {
	ctx   context.Context
	r     Request
	o     Options
	done  int
	total int
	runs  int
	cache map[string]SeedRun
	phase string // the phase last reported
	told  int    // the total last reported
}

func newRunner(ctx context.Context, r Request, o Options) *runner {
	return &runner{ctx: ctx, r: r, o: o, cache: map[string]SeedRun{}}
}

// key identifies a setting's run on one seed: its scenario's canonical
// query with that seed (the suite's scenario included, as the scenario
// is the setting's p).
func (rn *runner) key(s *setting, seed uint64) string {
	p := s.p.Clone()
	p.Seed = seed
	return scenario.EncodeQuery(p.Canonical())
}

// fresh counts the runs that measure would make of sets on the request's
// seeds.
func (rn *runner) fresh(sets []*setting) int {
	return rn.freshFrom(sets, rn.r.Scenario.Seed, rn.r.Seeds)
}

// freshFrom counts the runs that measureFrom would make of sets on n
// seeds from first: each setting's on each seed it has not run on, once.
func (rn *runner) freshFrom(sets []*setting, first uint64, n int) int {
	seen := map[string]bool{}
	for _, s := range sets {
		for i := range n {
			if key := rn.key(s, first+uint64(i)); !rn.has(key) {
				seen[key] = true
			}
		}
	}
	return len(seen)
}

func (rn *runner) has(key string) bool { _, ok := rn.cache[key]; return ok }

// plan adds n runs to the total the progress reports (n < 0: fewer than
// planned).
func (rn *runner) plan(n int) { rn.total = max(rn.total+n, rn.done) }

// measure runs every setting of sets on every seed of the request it
// has not run on, and returns each one's runs in seed order
// (measureFrom).
func (rn *runner) measure(phase string, sets []*setting) ([][]SeedRun, error) {
	return rn.measureFrom(phase, sets, rn.r.Scenario.Seed, rn.r.Seeds)
}

// measureFrom runs every setting of sets on n seeds from first (first,
// first+1, …), each run once (none already made), on Options.Parallel
// goroutines, and returns each one's runs in seed order. Progress is
// reported from the calling goroutine as each run ends.
func (rn *runner) measureFrom(phase string, sets []*setting, first uint64, n int) ([][]SeedRun, error) {
	type job struct {
		set  *setting
		seed uint64
		key  string
	}
	var todo []job
	seen := map[string]bool{}
	for _, s := range sets {
		for i := range n {
			seed := first + uint64(i)
			if key := rn.key(s, seed); !rn.has(key) && !seen[key] {
				seen[key] = true
				todo = append(todo, job{s, seed, key})
			}
		}
	}
	results := make([]SeedRun, len(todo))
	if len(todo) > 0 {
		ended := make(chan struct{}, len(todo))
		errc := make(chan error, 1)
		go func() {
			errc <- parallel.Do(rn.ctx, rn.o.Parallel, len(todo), func(ctx context.Context, j int) error {
				p := todo[j].set.p.Clone()
				p.Seed = todo[j].seed
				run, err := rn.runOne(ctx, p)
				if err != nil {
					return err
				}
				results[j] = run
				ended <- struct{}{}
				return nil
			})
		}()
		var err error
	wait:
		for {
			select {
			case <-ended:
				rn.ended(phase)
			case err = <-errc:
				break wait
			}
		}
		// Every job's send happened before Do returned: count the rest.
		for len(ended) > 0 {
			<-ended
			rn.ended(phase)
		}
		if err != nil {
			return nil, err
		}
		for j, t := range todo {
			rn.cache[t.key] = results[j]
		}
	}
	out := make([][]SeedRun, len(sets))
	for i, s := range sets {
		out[i] = make([]SeedRun, n)
		for j := range n {
			out[i][j] = rn.cache[rn.key(s, first+uint64(j))]
		}
	}
	return out, nil
}

// ended counts a run that ended and reports it.
func (rn *runner) ended(phase string) {
	rn.done++
	rn.runs++
	rn.progress(phase)
}

func (rn *runner) progress(phase string) {
	rn.phase, rn.told = phase, max(rn.total, rn.done)
	if rn.o.Progress != nil {
		rn.o.Progress(Progress{Phase: phase, Done: rn.done, Total: rn.told})
	}
}

// finish reports the total once more when the plan shrank after the
// last run: Done then reaches Total.
func (rn *runner) finish() {
	if rn.done > 0 && rn.told != max(rn.total, rn.done) {
		rn.progress(rn.phase)
	}
}

// runOne runs p (one lane) within a budget of Options.Memory.
func (rn *runner) runOne(ctx context.Context, p scenario.Params) (SeedRun, error) {
	var mem *budget.Account
	if rn.o.Memory != nil {
		var err error
		if mem, err = rn.o.Memory(); err != nil {
			return SeedRun{}, err
		}
		defer mem.Close()
	}
	sums, err := simengine.RunWithBudget(ctx, p, mem, nil)
	if exceeded := (*budget.ExceededError)(nil); errors.As(err, &exceeded) && !exceeded.Shared {
		sums = []scenario.Summary{{Collapsed: true, Stopped: "collapsed: its first state does not fit in " + exceeded.Error()}}
	} else if err != nil {
		return SeedRun{}, err
	}
	s := sums[0]
	run := SeedRun{Seed: p.Seed, Outcome: sweep.OutcomeOf(s), AttemptsPerRequest: s.Amplification, BaselineOK: s.BaselineOK,
		SucceededWithin: s.SucceededWithin, RequestP50: s.RequestP50, RequestP99: s.RequestP99, RequestP999: s.RequestP999,
		PeakAttemptRate: s.PeakAttemptRate}
	if s.Stopped != "" {
		// A run stopped by its memory has no figures of its users: none
		// of its requests counts as served.
		run.SucceededWithin = 0
	}
	if s.Stopped == "" && s.ServiceRecoveredAfter != nil {
		v := *s.ServiceRecoveredAfter
		run.Recovery = &v
	}
	if s.Stopped == "" && s.ServerRecoveredAfter != nil {
		v := *s.ServerRecoveredAfter
		run.ServerRecovery = &v
	}
	return run, nil
}

// settled reports whether every run recovered, both its answers and its
// server's load: what a margin asks.
func settled(runs []SeedRun) bool {
	for _, r := range runs {
		if r.Recovery == nil || r.ServerRecovery == nil {
			return false
		}
	}
	return len(runs) > 0
}

// firstUnsettled is the seed of the first run that did not settle.
func firstUnsettled(runs []SeedRun) uint64 {
	for _, r := range runs {
		if r.Recovery == nil || r.ServerRecovery == nil {
			return r.Seed
		}
	}
	return 0
}

// judge sums up a setting's runs on the suite's scenarios as a
// Candidate against the request's goals (its Settings, Words and
// LaneQuery are the caller's).
func judge(r Request, suite []ScenarioRuns) Candidate {
	c := Candidate{Scenarios: suite, Success: 1}
	for _, sr := range suite {
		for _, run := range sr.Runs {
			c.Success = min(c.Success, run.SucceededWithin)
			if sr.Scenario == ScenarioOrdinary {
				c.P99 = max(c.P99, run.RequestP99)
			}
		}
		if sr.Scenario == ScenarioOutage {
			c.Runs = sr.Runs
		}
	}
	all := true
	var rec float64
	for _, run := range c.Runs {
		c.AttemptsPerRequest = max(c.AttemptsPerRequest, run.AttemptsPerRequest)
		switch {
		case run.Recovery == nil:
			if all {
				c.WorstSeed = run.Seed
			}
			all = false
		case all && (*run.Recovery > rec || c.WorstSeed == 0 && rec == 0):
			rec, c.WorstSeed = *run.Recovery, run.Seed
		}
	}
	if all && len(c.Runs) > 0 {
		c.Recovery = &rec
	}
	c.Goals = judgeGoals(&r, suite, r.Seeds)
	c.Margin = marginOf(c.Goals)
	c.Meets = Meets{Recovery: true, Attempts: true, P99: true, Success: true, All: true}
	for _, g := range c.Goals {
		switch g.Goal {
		case RecoverParam:
			c.Meets.Recovery = g.Met
		case AttemptsParam:
			c.Meets.Attempts = g.Met
		case P99Param:
			c.Meets.P99 = g.Met
		case SuccessParam:
			c.Meets.Success = g.Met
		}
		c.Meets.All = c.Meets.All && g.Met
	}
	return c
}

// better reports whether a ranks before b by the request's goals: every
// goal met first, then the whole suite run (not dropped), then more
// goals met, then the larger margin (the worst goal's slack), then fewer
// attempts per request.
func better(a, b *Candidate) bool {
	if a.Meets.All != b.Meets.All {
		return a.Meets.All
	}
	if (a.Dropped == "") != (b.Dropped == "") {
		return a.Dropped == ""
	}
	if na, nb := goalsMet(a), goalsMet(b); na != nb {
		return na > nb
	}
	if a.Margin != b.Margin {
		return a.Margin > b.Margin
	}
	return a.AttemptsPerRequest < b.AttemptsPerRequest
}

func goalsMet(c *Candidate) int {
	n := 0
	for _, g := range c.Goals {
		if g.Met {
			n++
		}
	}
	return n
}

func recovered(c *Candidate) int {
	n := 0
	for _, r := range c.Runs {
		if r.Recovery != nil {
			n++
		}
	}
	return n
}

// pareto returns the candidates that ran the whole suite, recovered on
// every seed of the outage and that no other beats on both recovery and
// attempts per request, by recovery.
func pareto(cs []Candidate) []Candidate {
	var out []Candidate
	for i, c := range cs {
		if c.Recovery == nil || c.Dropped != "" {
			continue
		}
		beaten := false
		for j, d := range cs {
			if j == i || d.Recovery == nil || d.Dropped != "" {
				continue
			}
			noWorse := *d.Recovery <= *c.Recovery && d.AttemptsPerRequest <= c.AttemptsPerRequest
			strictly := *d.Recovery < *c.Recovery || d.AttemptsPerRequest < c.AttemptsPerRequest
			// Of two equal candidates the first stays.
			if noWorse && (strictly || j < i) {
				beaten = true
				break
			}
		}
		if !beaten {
			out = append(out, c)
		}
	}
	sortBy(out, func(a, b *Candidate) bool { return *a.Recovery < *b.Recovery })
	return out
}

// front returns the candidates that ran the whole suite and that no
// other dominates on every goal's worst figure (no worse on each, better
// on one), by margin, the largest first; of equal ones the first.
func front(cs []Candidate) []Candidate {
	// cost is a goal's worst figure as a cost, lower better: a share
	// that must be high is counted as its failures, a missing figure (no
	// recovery) as the worst there is.
	cost := func(c *Candidate, i int) float64 {
		g := c.Goals[i]
		switch {
		case g.Worst == nil:
			return math.Inf(1)
		case lookupGoal(g.Goal).atLeast:
			return 1 - *g.Worst
		}
		return *g.Worst
	}
	dominates := func(d, c *Candidate) bool {
		strictly := false
		for i := range c.Goals {
			if cost(d, i) > cost(c, i) {
				return false
			}
			strictly = strictly || cost(d, i) < cost(c, i)
		}
		return strictly
	}
	var out []Candidate
	for i := range cs {
		c := &cs[i]
		if c.Dropped != "" {
			continue
		}
		beaten := false
		for j := range cs {
			d := &cs[j]
			if j == i || d.Dropped != "" {
				continue
			}
			if dominates(d, c) || (j < i && !dominates(c, d) && slices.EqualFunc(c.Goals, d.Goals, func(x, y GoalResult) bool { return sameWorst(x, y) })) {
				beaten = true
				break
			}
		}
		if !beaten {
			out = append(out, *c)
		}
	}
	sortBy(out, func(a, b *Candidate) bool { return a.Margin > b.Margin })
	return out
}

// sameWorst reports whether two results of one goal have the same worst
// figure.
func sameWorst(x, y GoalResult) bool {
	if x.Worst == nil || y.Worst == nil {
		return x.Worst == nil && y.Worst == nil
	}
	return *x.Worst == *y.Worst
}

// sortBy sorts cs stably by less.
func sortBy(cs []Candidate, less func(a, b *Candidate) bool) {
	slices.SortStableFunc(cs, func(a, b Candidate) int {
		switch {
		case less(&a, &b):
			return -1
		case less(&b, &a):
			return 1
		}
		return 0
	})
}
