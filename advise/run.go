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
// remembers every setting's runs: a setting is never run twice.
type runner struct {
	ctx   context.Context
	r     Request
	o     Options
	done  int
	total int
	runs  int
	cache map[string][]SeedRun
	phase string // the phase last reported
	told  int    // the total last reported
}

func newRunner(ctx context.Context, r Request, o Options) *runner {
	return &runner{ctx: ctx, r: r, o: o, cache: map[string][]SeedRun{}}
}

// key identifies a setting's runs on the request's seeds.
func (rn *runner) key(s *setting) string { return rn.keyFrom(s, rn.r.Scenario.Seed) }

// keyFrom identifies a setting's runs on the seeds from first: its
// scenario's canonical query with that seed.
func (rn *runner) keyFrom(s *setting, first uint64) string {
	p := s.p.Clone()
	p.Seed = first
	return scenario.EncodeQuery(p.Canonical())
}

// fresh counts the runs that measure would make of sets: each setting
// that has not run, once, on every seed.
func (rn *runner) fresh(sets []*setting) int { return rn.freshFrom(sets, rn.r.Scenario.Seed) }

// freshFrom counts the runs that measureFrom would make of sets on the
// seeds from first.
func (rn *runner) freshFrom(sets []*setting, first uint64) int {
	seen := map[string]bool{}
	for _, s := range sets {
		if key := rn.keyFrom(s, first); rn.cache[key] == nil && !seen[key] {
			seen[key] = true
		}
	}
	return len(seen) * rn.r.Seeds
}

// plan adds n runs to the total the progress reports (n < 0: fewer than
// planned).
func (rn *runner) plan(n int) { rn.total = max(rn.total+n, rn.done) }

// measure runs every setting of sets that has not run on every seed of
// the request, and returns each one's runs in seed order (measureFrom).
func (rn *runner) measure(phase string, sets []*setting) ([][]SeedRun, error) {
	return rn.measureFrom(phase, sets, rn.r.Scenario.Seed)
}

// measureFrom runs every setting of sets that has not run on the
// request's number of seeds from first (first, first+1, …), on
// Options.Parallel goroutines, and returns each one's runs in seed order.
// Progress is reported from the calling goroutine as each run ends.
func (rn *runner) measureFrom(phase string, sets []*setting, first uint64) ([][]SeedRun, error) {
	k := rn.r.Seeds
	var todo []int // indexes into sets, each once
	seen := map[string]bool{}
	for i, s := range sets {
		key := rn.keyFrom(s, first)
		if _, ok := rn.cache[key]; !ok && !seen[key] {
			seen[key] = true
			todo = append(todo, i)
		}
	}
	results := make([][]SeedRun, len(todo))
	for i := range results {
		results[i] = make([]SeedRun, k)
	}
	if n := len(todo) * k; n > 0 {
		ended := make(chan struct{}, n)
		errc := make(chan error, 1)
		go func() {
			errc <- parallel.Do(rn.ctx, rn.o.Parallel, n, func(ctx context.Context, j int) error {
				s := sets[todo[j/k]]
				p := s.p.Clone()
				p.Seed = first + uint64(j%k)
				run, err := rn.runOne(ctx, p)
				if err != nil {
					return err
				}
				results[j/k][j%k] = run
				ended <- struct{}{}
				return nil
			})
		}()
		var err error
	wait:
		for {
			select {
			case <-ended:
				rn.done++
				rn.runs++
				rn.progress(phase)
			case err = <-errc:
				break wait
			}
		}
		// Every job's send happened before Do returned: count the rest.
		for len(ended) > 0 {
			<-ended
			rn.done++
			rn.runs++
			rn.progress(phase)
		}
		if err != nil {
			return nil, err
		}
		for i, t := range todo {
			rn.cache[rn.keyFrom(sets[t], first)] = results[i]
		}
	}
	out := make([][]SeedRun, len(sets))
	for i, s := range sets {
		out[i] = rn.cache[rn.keyFrom(s, first)]
	}
	return out, nil
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
	var emit func(scenario.Tick)
	worst := 0.0
	if rn.r.P99 > 0 {
		from := (p.OutageAt + p.OutageFor + rn.r.RecoverWithin).Seconds()
		emit = func(t scenario.Tick) {
			if v := t.Lanes[0].P99; t.T > from && !math.IsNaN(v) {
				worst = max(worst, v)
			}
		}
	}
	sums, err := simengine.RunWithBudget(ctx, p, mem, emit)
	if exceeded := (*budget.ExceededError)(nil); errors.As(err, &exceeded) && !exceeded.Shared {
		sums = []scenario.Summary{{Collapsed: true, Stopped: "collapsed: its first state does not fit in " + exceeded.Error()}}
	} else if err != nil {
		return SeedRun{}, err
	}
	s := sums[0]
	run := SeedRun{Seed: p.Seed, Outcome: sweep.OutcomeOf(s), AttemptsPerRequest: s.Amplification, P99: worst, BaselineOK: s.BaselineOK}
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

// judge sums up a setting's runs as a Candidate against the request's
// goals (its Settings, Words and LaneQuery are the caller's).
func judge(r Request, runs []SeedRun) Candidate {
	c := Candidate{Runs: runs}
	all := true
	var rec float64
	for _, run := range runs {
		c.AttemptsPerRequest = max(c.AttemptsPerRequest, run.AttemptsPerRequest)
		c.P99 = max(c.P99, run.P99)
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
	if all && len(runs) > 0 {
		c.Recovery = &rec
	}
	c.Meets.Recovery = c.Recovery != nil && *c.Recovery <= r.RecoverWithin.Seconds()
	c.Meets.Attempts = c.AttemptsPerRequest <= r.AttemptsPerRequest
	c.Meets.P99 = r.P99 == 0 || (c.Recovery != nil && c.P99 <= r.P99.Seconds())
	c.Meets.All = c.Meets.Recovery && c.Meets.Attempts && c.Meets.P99
	return c
}

// better reports whether a ranks before b by the request's goals: every
// goal met first, then recovered on every seed, then more goals met, then
// the faster worst recovery, then fewer attempts per request.
func better(a, b *Candidate) bool {
	if a.Meets.All != b.Meets.All {
		return a.Meets.All
	}
	if (a.Recovery != nil) != (b.Recovery != nil) {
		return a.Recovery != nil
	}
	if na, nb := goalsMet(a), goalsMet(b); na != nb {
		return na > nb
	}
	if a.Recovery != nil && *a.Recovery != *b.Recovery {
		return *a.Recovery < *b.Recovery
	}
	if a.Recovery == nil {
		// Neither recovered on every seed: more seeds recovered first.
		if ra, rb := recovered(a), recovered(b); ra != rb {
			return ra > rb
		}
	}
	return a.AttemptsPerRequest < b.AttemptsPerRequest
}

func goalsMet(c *Candidate) int {
	n := 0
	for _, m := range []bool{c.Meets.Recovery, c.Meets.Attempts, c.Meets.P99} {
		if m {
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

// pareto returns the candidates that recovered on every seed and that no
// other beats on both recovery and attempts per request, by recovery.
func pareto(cs []Candidate) []Candidate {
	var out []Candidate
	for i, c := range cs {
		if c.Recovery == nil {
			continue
		}
		beaten := false
		for j, d := range cs {
			if j == i || d.Recovery == nil {
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
