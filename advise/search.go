package advise

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/scenario"
)

// The bounds of a margin's bisection and of a map.
const (
	// marginTests is the most values a margin tries along one axis:
	// doubling from the request's value up to its bound (2, 4, … 32 times
	// it), then a bisection between the last that held and the first
	// that did not.
	marginTests = 11
	// mapSide is the most values of a map's knob.
	mapSide = 5
	// serviceLevel is the share of the rate before the outage that counts
	// as served, as scenario's Detector counts a recovery.
	serviceLevel = scenario.ServiceLevel
)

// search is one Run: the request, its knobs, and what it has found.
type search struct {
	r     Request
	rn    *runner
	knobs []knob
	title string
	grid0 int // the settings of the search's grid
	// byLane is every setting judged as a candidate, by its LaneQuery:
	// the fresh check replays the runner-up's.
	byLane map[string]*setting
}

// Run searches the settings of r's library that meet r's goals, as the
// package's doc says, and returns the advice. Progress is reported to
// o.Progress from the calling goroutine, in order. When ctx is done every
// run stops, and Run returns ctx's error once every goroutine it started
// has returned.
func Run(ctx context.Context, r Request, o Options) (*Advice, error) {
	if len(r.Scenario.Lanes) != 1 || r.Seeds < 1 || r.outageScale < 1 || r.loadScale < 1 {
		return nil, errors.New("advise: a Request that ParseRequest did not return")
	}
	s := &search{r: r, rn: newRunner(ctx, r, o), title: LibraryTitle(r.Library), byLane: map[string]*setting{}}
	s.knobs = knobsOf(r.Library, r.Scenario.Lanes[0].Params)
	s.thin()
	sets := s.grid()
	s.grid0 = len(sets)
	a, cands, err := s.searchGrid(sets)
	if err != nil {
		return nil, err
	}
	adv, err := s.recommend(a, sets, cands)
	if err != nil {
		return nil, err
	}
	switch {
	case adv.set == nil:
	case adv.set.prot != nil:
		a.Advised = AdvisedSuggestion
	default:
		a.Advised = AdvisedRecommended
	}
	k := r.Seeds
	if adv.set != nil && len(s.knobs) >= 2 {
		if adv, err = s.joinMap(a, sets, adv); err != nil {
			return nil, err
		}
	} else {
		s.rn.plan(-k * len(suite) * mapSide * mapSide)
	}
	if adv.set != nil && adv.c.Recovery != nil && adv.c.Dropped == "" {
		if a.Margin, err = s.margin(adv.set, adv.c); err != nil {
			return nil, err
		}
	} else {
		s.rn.plan(-k * 2 * marginTests)
	}
	if adv.set != nil {
		if a.FreshCheck, err = s.freshCheck(a, adv); err != nil {
			return nil, err
		}
		a.Claimed = adv.c.Meets.All && a.FreshCheck.Holds
		s.finish(a, adv.set)
	} else {
		s.rn.plan(-2 * k * len(suite))
	}
	a.Runs = s.rn.runs
	s.rn.finish()
	s.words(a, adv.c)
	return a, nil
}

// advised is the setting an advice is about and its result: the
// recommended, or the suggestion where it does better; a nil set when
// the search found none.
type advised struct {
	set *setting
	c   *Candidate
}

// searchGrid measures the settings of today and of sets on every seed and
// returns the advice's first draft (its request, goals and seeds, today's
// result, every setting's, Searched, and their Pareto front) and the
// settings' candidates, in sets' order. It plans the whole search's runs,
// the map's and the margins' included: a phase that does not run takes
// its share back.
func (s *search) searchGrid(sets []*setting) (*Advice, []Candidate, error) {
	r, k := s.r, s.r.Seeds
	todaySet := &setting{p: r.Scenario.Clone(), values: s.todayValues()}
	all := append([]*setting{todaySet}, sets...)
	s.rn.plan(s.rn.fresh(s.inSuite(all)) + k*2*marginTests + k*len(suite)*(mapSide*mapSide+2))

	judged, err := s.measureCands(PhaseSearch, all, func(i int) bool { return i == 0 })
	if err != nil {
		return nil, nil, err
	}
	a := &Advice{
		Query: scenario.EncodeQuery(r.Query()), Library: r.Library, LibraryTitle: s.title,
		Goals: s.goals(), Candidates: len(sets),
	}
	for i := range k {
		a.Seeds = append(a.Seeds, r.Scenario.Seed+uint64(i))
	}
	a.Today = judged[0]
	cands := judged[1:]
	if !slices.ContainsFunc(cands, func(c Candidate) bool { return c.Meets.All }) {
		// None meets every goal: the closest are run on the whole suite,
		// so that how near they came is judged on every seed.
		if cands, err = s.promote(PhaseSearch, sets, cands); err != nil {
			return nil, nil, err
		}
	}
	a.Searched = cands
	a.Pareto = pareto(cands)
	a.Front = front(cands)
	return a, cands, nil
}

// promoted is how many of the settings a staged search dropped are run
// on the whole suite when none met every goal.
const promoted = 5

// promote runs the best promoted of cands, sets' candidates, that were
// dropped on the whole suite, and returns cands with them judged again.
func (s *search) promote(phase string, sets []*setting, cands []Candidate) ([]Candidate, error) {
	var order []int
	for i, c := range cands {
		if c.Dropped != "" {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(i, j int) int { return compare(&cands[i], &cands[j]) })
	order = order[:min(len(order), promoted)]
	var todo []*setting
	for _, i := range order {
		todo = append(todo, sets[i])
	}
	s.rn.plan(s.rn.fresh(s.inSuite(todo)))
	runs, err := s.measureSuite(phase, todo, s.r.Scenario.Seed, s.r.Seeds)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(cands)
	for j, i := range order {
		out[i] = s.candidate(sets[i], runs[j], "")
	}
	return out, nil
}

// measureCands runs sets on the suite, staged (measureStaged; keep(i)
// says which are never dropped), and judges each as a candidate.
func (s *search) measureCands(phase string, sets []*setting, keep func(i int) bool) ([]Candidate, error) {
	runs, dropped, err := s.measureStaged(phase, sets, keep)
	if err != nil {
		return nil, err
	}
	out := make([]Candidate, len(sets))
	for i, set := range sets {
		out[i] = s.candidate(set, runs[i], dropped[i])
	}
	return out, nil
}

// compare orders two candidates by better, for sorting.
func compare(a, b *Candidate) int {
	switch {
	case better(a, b):
		return -1
	case better(b, a):
		return 1
	}
	return 0
}

// bestOf returns the index of the best of cands (better), the first of
// those none is better than.
func bestOf(cands []Candidate) int {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return compare(&cands[i], &cands[j]) })
	return order[0]
}

// recommend makes the best of cands, sets' candidates, the advice's
// recommendation. When it does not meet every goal, the advice says how
// near the search came (Closest) and the protections are tried: their
// suggestion is advised in its place when it recovers, or when the
// recommendation does not either. It returns what is advised; nothing
// when sets is empty.
func (s *search) recommend(a *Advice, sets []*setting, cands []Candidate) (advised, error) {
	var adv advised
	if len(cands) > 0 {
		i := pick(cands, &a.Today)
		best := cands[i]
		a.Recommended = &best
		a.Met = best.Meets.All
		adv = advised{sets[i], a.Recommended}
	}
	if a.Met {
		return adv, nil
	}
	a.Closest = s.closest(cands)
	if adv.set == nil {
		return adv, nil
	}
	sug, set, err := s.protections(adv.set, &a.Protections)
	if err != nil {
		return adv, err
	}
	if sug != nil {
		a.Suggestion = sug
		if sug.Recovery != nil || adv.c.Recovery == nil {
			adv = advised{set, sug}
		}
	}
	return adv, nil
}

// joinMap maps the outcome around what is advised (mapAround) and
// measures the map's settings as the grid's are: one that ranks before
// the advised setting becomes it, and those of the library alone join
// the search's. It returns what is advised then.
func (s *search) joinMap(a *Advice, sets []*setting, adv advised) (advised, error) {
	m, mapped, judged, err := s.mapAround(adv.set)
	if err != nil {
		return adv, err
	}
	a.Map = m
	seen := map[string]bool{}
	for _, set := range sets {
		seen[s.rn.key(set, 0)] = true
	}
	for i, set := range mapped {
		c := judged[i]
		if key := s.rn.key(set, 0); set.prot == nil && !seen[key] {
			seen[key] = true
			a.Searched = append(a.Searched, c)
		}
		if better(&c, adv.c) {
			adv = advised{set, &c}
			if set.prot == nil {
				a.Recommended, a.Met = adv.c, c.Meets.All
			} else {
				a.Suggestion = adv.c
			}
		}
	}
	a.Candidates = len(a.Searched)
	a.Pareto = pareto(a.Searched)
	a.Front = front(a.Searched)
	return adv, nil
}

// grid returns every setting of the knobs' search values that the
// scenario accepts and that the library can express (its exporter writes
// it), in the knobs' order, the last knob fastest.
func (s *search) grid() []*setting {
	var out []*setting
	vals := make([]float64, len(s.knobs))
	var walk func(i int)
	walk = func(i int) {
		if i == len(s.knobs) {
			if set, ok := s.setting(vals, nil); ok {
				out = append(out, set)
			}
			return
		}
		for _, v := range s.knobs[i].vals {
			vals[i] = v
			walk(i + 1)
		}
	}
	walk(0)
	return out
}

// setting returns the request's scenario with the knobs at vals and prot
// added, and whether it is a setting: one the scenario accepts and the
// library can express, whose knobs its run does not read (a limiter's
// parameters while it is off) are at today's values: a setting is one
// run, not one per value it ignores.
func (s *search) setting(vals []float64, prot *protection) (*setting, bool) {
	p := s.r.Scenario.Clone()
	var names []string
	for i, k := range s.knobs {
		setKnob(k, &p, vals[i])
		names = append(names, "a."+k.param)
		if k.tied != nil {
			names = append(names, "a."+k.tied.param)
		}
	}
	for i, k := range s.knobs {
		if vals[i] != k.today && !reads(s.knobs, vals, i) {
			return nil, false
		}
	}
	if p.ValidateChanged(names...) != nil {
		return nil, false
	}
	if s.r.Library != OwnLibrary {
		if e, ok := libconfig.LookupExporter(s.r.Library); !ok {
			return nil, false
		} else if _, _, err := e.Export(p.Lanes[0].Params); err != nil {
			return nil, false
		}
	}
	if prot != nil {
		prot.apply(&p)
	}
	return &setting{p: p, values: slices.Clone(vals), prot: prot}, true
}

// todayValues are the knobs' values today.
func (s *search) todayValues() []float64 {
	out := make([]float64, len(s.knobs))
	for i, k := range s.knobs {
		out[i] = k.today
	}
	return out
}

// candidate judges set's runs on the suite and says set in words;
// dropped is why a staged search dropped it, "" when it was not.
func (s *search) candidate(set *setting, runs []ScenarioRuns, dropped string) Candidate {
	c := judge(s.r, runs)
	c.Dropped = dropped
	c.Settings = map[string]string{}
	var words []string
	for i, k := range s.knobs {
		if !reads(s.knobs, set.values, i) {
			continue // a limiter's parameter while it is off
		}
		c.Settings[k.param] = valueText(k.row, set.values[i])
		words = append(words, knobWords(k, set.values[i]))
		if k.tied != nil {
			row, _, _ := scenario.Lookup(k.tied.param)
			c.Settings[k.tied.param] = valueText(row, set.values[i]*k.tied.ratio)
		}
	}
	c.Words = s.title
	if len(words) > 0 {
		c.Words += ": " + strings.Join(words, ", ")
	}
	if set.prot != nil {
		c.Settings[set.prot.name] = set.prot.value
		c.Words += ", with " + set.prot.label()
		c.Protection = fmt.Sprintf("%s (%s=%s)", set.prot.short, set.prot.name, set.prot.value)
	}
	c.LaneQuery = scenario.EncodeQuery(s.laneQuery(set))
	s.byLane[c.LaneQuery] = set
	return c
}

// twoLanes is set's run beside today's: lane a today, lane b set's lane,
// on set's scenario (a protection of the server is both lanes') and the
// given seed.
func (s *search) twoLanes(set *setting, seed uint64) scenario.Params {
	p := set.p.Clone()
	p.Lanes = []scenario.Lane{s.r.Scenario.Lanes[0], set.p.Lanes[0]}
	p.Seed = seed
	return p
}

// laneQuery is set's lane as lane b's values, and the server's values
// that set changes.
func (s *search) laneQuery(set *setting) url.Values {
	q := s.twoLanes(set, s.r.Scenario.Seed).Canonical()
	req := s.r.Scenario.Canonical()
	out := url.Values{}
	for name, v := range q {
		if strings.HasPrefix(name, "b.") || (!strings.Contains(name, ".") && name != "lanes" && req.Get(name) != v[0]) {
			out[name] = v
		}
	}
	return out
}

// flags writes p as "backofflab run"'s flags, from its canonical query.
func flags(p scenario.Params) []string {
	q := p.Canonical()
	var out []string
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range q {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, "-"+name+"="+q.Get(name))
	}
	return out
}

// goals are the request's goals in numbers and words.
func (s *search) goals() Goals {
	g := Goals{RecoverWithin: s.r.RecoverWithin.Seconds(), AttemptsPerRequest: s.r.AttemptsPerRequest, P99: s.r.P99.Seconds(),
		Success: s.r.Success, Patience: s.r.Scenario.Patience.Seconds(), Errors: s.r.Errors}
	var w []string
	if g.Success > 0 {
		w = append(w, fmt.Sprintf("at least %s of requests succeed within the patience of %s on the ordinary day (%s of answers failing), the outage and the herd",
			share(g.Success), secs(g.Patience), share(g.Errors)))
	}
	if g.P99 > 0 {
		w = append(w, fmt.Sprintf("the ordinary day's p99 per request at most %s", secs(g.P99)))
	}
	w = append(w, fmt.Sprintf("recovery within %s of the outage's and of the herd's end", secs(g.RecoverWithin)),
		fmt.Sprintf("at most %s through the outage", PerRequest(g.AttemptsPerRequest)))
	g.Words = strings.Join(w, "; ") + fmt.Sprintf("; each on every one of %d seeds", s.r.Seeds)
	return g
}

// pick returns the index of the candidate of cands to recommend: the
// best (better); when it meets every goal, of those meeting every goal
// with a margin within tieTolerance of its, the one that changes fewest
// of today's settings, then with jitter on, then with a bounded
// max_attempts, then the larger margin, then the first.
func pick(cands []Candidate, today *Candidate) int {
	best := bestOf(cands)
	if !cands[best].Meets.All {
		return best
	}
	tied := tiedWith(cands, &cands[best])
	key := func(c *Candidate) []int {
		jitterOff, unbounded := 0, 0
		if v, ok := c.Settings["jitter"]; ok && v == "0" {
			jitterOff = 1
		}
		if c.Settings["max_attempts"] == "0" {
			unbounded = 1
		}
		return []int{changed(c, today), jitterOff, unbounded}
	}
	slices.SortStableFunc(tied, func(i, j int) int {
		if c := slices.Compare(key(&cands[i]), key(&cands[j])); c != 0 {
			return c
		}
		return compare(&cands[i], &cands[j])
	})
	return tied[0]
}

// tiedWith returns the indexes of the candidates of cands that meet every
// goal with a margin within tieTolerance of best's, in order.
func tiedWith(cands []Candidate, best *Candidate) []int {
	var out []int
	for i := range cands {
		if c := &cands[i]; c.Meets.All && c.Margin >= best.Margin-tieTolerance {
			out = append(out, i)
		}
	}
	return out
}

// changed counts the knobs whose value in c differs from today's.
func changed(c, today *Candidate) int {
	n := 0
	for k, v := range c.Settings {
		if today.Settings[k] != v {
			n++
		}
	}
	return n
}

// closest says how near the candidates of cs that ran the whole suite
// came to each goal: the best worst figure any reached.
func (s *search) closest(cs []Candidate) []GoalGap {
	var out []GoalGap
	for _, g := range goalTable {
		want, ok := g.want(&s.r)
		if !ok {
			continue
		}
		gap := GoalGap{Goal: g.param, Want: want}
		var bestSlack float64
		for _, c := range cs {
			i := slices.IndexFunc(c.Goals, func(r GoalResult) bool { return r.Goal == g.param })
			if c.Dropped != "" || i < 0 || c.Goals[i].Worst == nil {
				continue
			}
			if r := c.Goals[i]; gap.Best == nil || r.Slack > bestSlack {
				v := *r.Worst
				gap.Best, bestSlack = &v, r.Slack
			}
		}
		cmp := map[bool]string{true: "at least", false: "at most"}[g.atLeast]
		if gap.Best != nil {
			gap.Words = fmt.Sprintf("%s: the best setting reached %s on its worst seed (goal: %s %s)", g.label, g.text(*gap.Best), cmp, g.text(want))
		} else {
			gap.Words = fmt.Sprintf("%s: no setting had one on every seed (goal: %s %s)", g.label, cmp, g.text(want))
		}
		out = append(out, gap)
	}
	return out
}

// protections runs every protection on base (the library's best setting)
// and returns the one to suggest with its setting: the first tier with
// one that meets every goal, its best; else the best of all by the goals'
// ranking. tried gets every protection's result.
func (s *search) protections(base *setting, tried *[]Candidate) (*Candidate, *setting, error) {
	ps := protectionsFor(base.p, s.r.Library, s.knobs)
	var sets []*setting
	for i := range ps {
		if set, ok := s.setting(base.values, &ps[i]); ok {
			sets = append(sets, set)
		}
	}
	if len(sets) == 0 {
		return nil, nil, nil
	}
	s.rn.plan(s.rn.fresh(s.inSuite(sets)))
	cs, err := s.measureCands(PhaseProtections, sets, func(int) bool { return false })
	if err != nil {
		return nil, nil, err
	}
	if !slices.ContainsFunc(cs, func(c Candidate) bool { return c.Meets.All }) {
		if cs, err = s.promote(PhaseProtections, sets, cs); err != nil {
			return nil, nil, err
		}
	}
	*tried = cs
	pick := -1
	for i := range cs {
		switch {
		case pick < 0:
			pick = i
		case cs[i].Meets.All && !cs[pick].Meets.All:
			pick = i
		case cs[i].Meets.All && cs[pick].Meets.All:
			if sets[i].prot.tier < sets[pick].prot.tier || (sets[i].prot.tier == sets[pick].prot.tier && better(&cs[i], &cs[pick])) {
				pick = i
			}
		case !cs[pick].Meets.All && better(&cs[i], &cs[pick]):
			pick = i
		}
	}
	c := cs[pick]
	return &c, sets[pick], nil
}

// margin finds how far set holds: the longest outage and the highest
// load at which every seed still recovers (its answers come back before
// the run's end), each by a bisection from the request's value (which
// holds: c recovered on every seed) to maxOutageScale or maxLoadScale
// times it.
func (s *search) margin(set *setting, c *Candidate) (*Margin, error) {
	p := set.p
	m := &Margin{}
	// The outage: whole seconds, or tenths under 5 s.
	step := float64(time.Second)
	if p.OutageFor < 5*time.Second {
		step = float64(100 * time.Millisecond)
	}
	axis, err := s.bisect(set, c, "outage_for", float64(p.OutageFor), s.r.outageScale, step,
		func(q *scenario.Params, v float64) { *q = withOutage(*q, time.Duration(v)) },
		func(v float64) string { return time.Duration(v).String() })
	if err != nil {
		return nil, err
	}
	m.Outage = axis
	name := loadParam(&p)
	if name == "rate" {
		axis, err = s.bisect(set, c, name, p.Rate, s.r.loadScale, math.Max(0.01, math.Round(p.Rate)/100),
			func(q *scenario.Params, v float64) { q.Rate = v },
			func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) })
	} else {
		axis, err = s.bisect(set, c, name, float64(p.Clients), s.r.loadScale, math.Max(1, math.Round(float64(p.Clients)/100)),
			func(q *scenario.Params, v float64) { q.Clients = int(v) },
			func(v float64) string { return strconv.Itoa(int(v)) })
	}
	if err != nil {
		return nil, err
	}
	m.Load = axis
	return m, nil
}

// bisect finds along one parameter the largest value, from lo (which
// holds) to scale × lo, in steps of step, at which set recovers on every
// seed: it doubles lo until a value fails or the bound is reached, then
// bisects between the last that held and the first that failed,
// marginTests values at most.
func (s *search) bisect(set *setting, c *Candidate, name string, lo, scale, step float64,
	put func(p *scenario.Params, v float64), text func(float64) string) (MarginAxis, error) {
	round := func(v float64) float64 { return math.Max(step, math.Round(v/step)*step) }
	bound := round(lo * scale)
	ax := MarginAxis{Param: name, Request: text(lo), Bound: text(bound)}
	b := &bisection{s: s, set: set, c: c, name: name, lo0: lo, put: put,
		holdV: lo, holdSeed: c.WorstSeed, failV: math.NaN()}
	if !settled(c.Runs) {
		// At the request's own value the server's load did not come back
		// on every seed: there is no margin to find.
		b.failV, b.failSeed, bound = lo, firstUnsettled(c.Runs), lo
		b.failWhy = unsettledWhyOf(c.Runs, b.failSeed)
	}
	if err := b.run(lo, bound, step, round); err != nil {
		return ax, err
	}
	s.rn.plan(b.made - s.r.Seeds*marginTests)
	ax.FailsWhy = b.failWhy
	ax.Holds = text(b.holdV)
	ax.Scale = b.holdV / float64OfRequest(set, name)
	held := s.twoLanes(set, b.holdSeed)
	put(&held, b.holdV)
	ax.HoldsFlags = flags(held)
	if !math.IsNaN(b.failV) {
		ax.Fails, ax.FailSeed = text(b.failV), b.failSeed
		failed := s.twoLanes(set, b.failSeed)
		put(&failed, b.failV)
		ax.FailsFlags = flags(failed)
	}
	ax.Words = marginWords(ax, name)
	return ax, nil
}

// bisection is one margin's search along its parameter (bisect): the
// values tried so far, the largest that held and the smallest that
// failed (NaN while none has), with a seed that did not recover there
// and why.
type bisection struct {
	s    *search
	set  *setting
	c    *Candidate
	name string
	lo0  float64 // the request's value
	put  func(p *scenario.Params, v float64)

	holdV       float64
	holdSeed    uint64
	failV       float64
	failSeed    uint64
	failWhy     string
	tests, made int // the values tried, and the runs they made
}

// run doubles hi from lo until a value fails or bound is reached, then
// bisects between the last value that held and the first that failed,
// marginTests values in all at most; the value just outside is then the
// smallest that failed.
func (b *bisection) run(lo, bound, step float64, round func(float64) float64) error {
	hi := lo
	for hi < bound && math.IsNaN(b.failV) {
		hi = min(bound, round(hi*2))
		if _, err := b.try(hi); err != nil {
			return err
		}
	}
	if math.IsNaN(b.failV) || b.failV <= lo {
		return nil
	}
	lo, hi = b.holdV, b.failV
	for b.tests < marginTests && hi-lo > step*1.5 {
		mid := round(lo + (hi-lo)/2)
		if mid <= lo || mid >= hi {
			break
		}
		ok, err := b.try(mid)
		if err != nil {
			return err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	b.failV = hi
	return nil
}

// try runs the setting with the parameter at v on every seed and says
// whether it held (heldAt), recording v as the largest that held or the
// smallest that failed.
func (b *bisection) try(v float64) (bool, error) {
	b.tests++
	t := *b.set
	t.p = b.set.p.Clone()
	b.put(&t.p, v)
	b.made += b.s.rn.fresh([]*setting{&t})
	runs, err := b.s.rn.measure(PhaseMargin, []*setting{&t})
	if err != nil {
		return false, err
	}
	ok, seed, why := b.heldAt(runs[0], v)
	if ok {
		b.holdV, b.holdSeed = v, judge(b.s.r, []ScenarioRuns{{Scenario: ScenarioOutage, Runs: runs[0]}}).WorstSeed
		return true, nil
	}
	b.failV, b.failSeed, b.failWhy = v, seed, why
	return false, nil
}

// heldAt says whether runs, the setting's at v, held: every seed
// recovered, and at a higher load, carried it before the outage too.
// When one did not, it returns that seed and why.
func (b *bisection) heldAt(runs []SeedRun, v float64) (bool, uint64, string) {
	seed := firstUnsettled(runs)
	if !settled(runs) {
		return false, seed, unsettledWhyOf(runs, seed)
	}
	if b.name == "outage_for" {
		return true, seed, ""
	}
	// A higher load must be carried before the outage too.
	c, lo0 := b.c, b.lo0
	for i, r := range runs {
		if want := serviceLevel * c.Runs[i].BaselineOK * v / lo0; r.BaselineOK < want {
			return false, r.Seed, fmt.Sprintf("before the outage it answered %s requests a second, under %.0f %% of %s× the %s of the request's load: the server does not carry that load",
				num(r.BaselineOK), serviceLevel*100, num(v/lo0), num(c.Runs[i].BaselineOK))
		}
	}
	return true, seed, ""
}

// unsettledWhyOf says why seed's run of runs did not settle.
func unsettledWhyOf(runs []SeedRun, seed uint64) string {
	why := ""
	for _, r := range runs {
		if r.Seed == seed {
			why = unsettledWhy(r)
		}
	}
	return why
}

// float64OfRequest is the request's value of the margin's parameter.
func float64OfRequest(set *setting, name string) float64 {
	switch name {
	case "outage_for":
		return float64(set.p.OutageFor)
	case "rate":
		return set.p.Rate
	}
	return float64(set.p.Clients)
}

// marginWords says a margin for a reader.
func marginWords(ax MarginAxis, name string) string {
	what := map[string]string{"outage_for": "an outage of %s", "clients": "a load of %s clients", "rate": "a load of %s requests a second"}[name]
	holds := fmt.Sprintf(what, ax.Holds)
	if ax.Fails == ax.Request {
		return fmt.Sprintf("At the request's own %s, on seed %d %s before the run's end: no margin.", fmt.Sprintf(what, ax.Request), ax.FailSeed, ax.FailsWhy)
	}
	if ax.Fails == "" {
		return fmt.Sprintf("It recovers on every seed up to %s (%s× the request's %s), the most tried.", holds, num(ax.Scale), ax.Request)
	}
	return fmt.Sprintf("It recovers on every seed up to %s (%s× the request's %s); at %s seed %d does not: %s.",
		holds, num(ax.Scale), ax.Request, fmt.Sprintf(what, ax.Fails), ax.FailSeed, ax.FailsWhy)
}

// unsettledWhy says why a run did not settle.
func unsettledWhy(r SeedRun) string {
	switch {
	case r.Recovery == nil && r.ServerRecovery == nil:
		return "neither its answers nor its server's load came back (" + r.Outcome + ")"
	case r.Recovery == nil:
		return "its answers never came back to 90 % of the rate before the outage"
	}
	return "its server's load never came back to its healthy level"
}

// mapAround maps the outcome around set over its two most sensitive
// knobs: those whose one step on the search's grid, up or down, moves the
// outcome most (its worst recovery relative to the goal, a seed that did
// not recover counting as the whole time after the outage, plus its
// attempts per request relative to theirs).
// It returns the map and every setting it measured, the steps' and the
// cells' the scenario accepts, with their runs, for the search to join.
func (s *search) mapAround(set *setting) (*Map, []*setting, []Candidate, error) {
	steps, stepCands, moved, err := s.steps(set)
	if err != nil {
		return nil, nil, nil, err
	}
	xi, yi := twoMost(moved)
	xk, yk := s.knobs[xi], s.knobs[yi]
	m := &Map{X: xk.param, Y: yk.param,
		Why: fmt.Sprintf("%s and %s moved the outcome most: one step of either on the searched grid changed the margin (the worst goal's slack, as a share of the goal) by up to %s and %s; the map is around the best setting of the grid, the other knobs at its values",
			xk.param, yk.param, num(moved[xi]), num(moved[yi]))}
	xs := s.window(xi, set.values[xi], set)
	ys := s.window(yi, set.values[yi], set)
	var cells []*setting
	for _, y := range ys {
		for _, x := range xs {
			vals := slices.Clone(set.values)
			vals[xi], vals[yi] = x, y
			t, ok := s.setting(vals, set.prot)
			if !ok {
				t = nil
			}
			cells = append(cells, t)
		}
	}
	var valid []*setting
	for _, t := range cells {
		if t != nil {
			valid = append(valid, t)
		}
	}
	s.rn.plan(s.rn.fresh(s.inSuite(valid)) - s.r.Seeds*len(suite)*mapSide*mapSide)
	cellCands, err := s.measureCands(PhaseMap, valid, func(int) bool { return false })
	if err != nil {
		return nil, nil, nil, err
	}
	for _, x := range xs {
		m.XValues = append(m.XValues, valueText(xk.row, x))
	}
	for _, y := range ys {
		m.YValues = append(m.YValues, valueText(yk.row, y))
	}
	m.Cells = mapCells(cells, cellCands, len(xs), len(ys))
	return m, append(steps, valid...), append(stepCands, cellCands...), nil
}

// steps measures set and its neighbours on the search's grid, one step of
// each knob down and up, and returns the neighbours with their runs and,
// by knob, how far a step of it moved the margin from set's.
func (s *search) steps(set *setting) ([]*setting, []Candidate, []float64, error) {
	type move struct {
		knob int
		set  *setting
	}
	var moves []move
	for i, k := range s.knobs {
		j := slices.Index(k.vals, set.values[i])
		for _, n := range []int{j - 1, j + 1} {
			if j < 0 || n < 0 || n >= len(k.vals) {
				continue
			}
			vals := slices.Clone(set.values)
			vals[i] = k.vals[n]
			if t, ok := s.setting(vals, set.prot); ok {
				moves = append(moves, move{i, t})
			}
		}
	}
	sets := []*setting{set}
	for _, m := range moves {
		sets = append(sets, m.set)
	}
	s.rn.plan(s.rn.fresh(s.inSuite(sets)))
	cands, err := s.measureCands(PhaseMap, sets, func(i int) bool { return i == 0 })
	if err != nil {
		return nil, nil, nil, err
	}
	moved := make([]float64, len(s.knobs))
	for i, m := range moves {
		moved[m.knob] = max(moved[m.knob], math.Abs(cands[i+1].Margin-cands[0].Margin))
	}
	return sets[1:], cands[1:], moved, nil
}

// twoMost returns the two knobs that moved the outcome most, the first
// of equals first.
func twoMost(moved []float64) (int, int) {
	order := make([]int, len(moved))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case moved[a] > moved[b]:
			return -1
		case moved[a] < moved[b]:
			return 1
		}
		return 0
	})
	return order[0], order[1]
}

// mapCells makes a map's cells, height rows of width from the first y:
// a nil setting, one the scenario does not accept, is not allowed; cands
// are the others', in order.
func mapCells(cells []*setting, cands []Candidate, width, height int) [][]MapCell {
	var out [][]MapCell
	v := 0
	for j := range height {
		row := make([]MapCell, width)
		for i := range width {
			if cells[j*width+i] == nil {
				row[i] = MapCell{Outcome: CellNotAllowed}
				continue
			}
			row[i] = mapCellOf(cands[v])
			v++
		}
		out = append(out, row)
	}
	return out
}

// mapCellOf is a map's cell of a candidate: it meets every goal, recovers
// or fails.
func mapCellOf(c Candidate) MapCell {
	cell := MapCell{Recovered: recovered(&c), Recovery: c.Recovery, AttemptsPerRequest: c.AttemptsPerRequest}
	switch {
	case c.Meets.All:
		cell.Outcome = CellMeets
	case c.Recovery != nil:
		cell.Outcome = CellRecovers
	default:
		cell.Outcome = CellFails
	}
	return cell
}

// window returns up to mapSide values of knob i's map values around v
// (v among them) that the library can express with set's other values.
func (s *search) window(i int, v float64, set *setting) []float64 {
	k := s.knobs[i]
	var ok []float64
	for _, x := range k.withValue(slices.Clone(k.full), v) {
		vals := slices.Clone(set.values)
		vals[i] = x
		if _, fine := s.setting(vals, set.prot); fine || x == v {
			ok = append(ok, x)
		}
	}
	j := slices.Index(ok, v)
	from := max(0, min(j-mapSide/2, len(ok)-mapSide))
	return ok[from:min(len(ok), from+mapSide)]
}

// finish adds what the advised setting set gives: the snippet, the
// playground's link and the run's flags.
func (s *search) finish(a *Advice, set *setting) {
	two := s.twoLanes(set, s.r.Scenario.Seed)
	a.PlaygroundQuery = scenario.EncodeQuery(two.Canonical())
	a.RunFlags = flags(two)
	lane := set.p.Lanes[0].Params
	if s.r.Library == OwnLibrary {
		// The lane whole: its strategy and every knob, defaults included.
		a.SnippetLib = OwnLibrary
		fl := []string{"-b.strategy=" + lane.Strategy}
		for i, k := range s.knobs {
			if reads(s.knobs, set.values, i) {
				fl = append(fl, "-b."+k.param+"="+valueText(k.row, set.values[i]))
			}
		}
		if set.prot != nil && !set.prot.server {
			fl = append(fl, "-b."+set.prot.name+"="+set.prot.value)
		}
		a.Snippet = strings.Join(fl, " ") + "\n"
	} else if e, ok := libconfig.LookupExporter(s.r.Library); ok {
		a.SnippetLib = e.Name
		if pr := set.prot; pr != nil && !pr.server && pr.tier != tierLibrary {
			// The library cannot hold the limiter: its configuration is
			// the setting without it, and a warning says what it lacks.
			if base, ok := s.setting(set.values, nil); ok {
				lane = base.p.Lanes[0].Params
			}
		}
		c, warns, err := e.Export(lane)
		if err != nil {
			a.SnippetWarnings = append(a.SnippetWarnings, err.Error())
		} else if text, err := c.Marshal(); err != nil {
			a.SnippetWarnings = append(a.SnippetWarnings, err.Error())
		} else {
			a.Snippet = string(text)
		}
		for _, w := range warns {
			a.SnippetWarnings = append(a.SnippetWarnings, w.String())
		}
	}
	if pr := set.prot; pr != nil && (pr.server || (s.r.Library != OwnLibrary && pr.tier != tierLibrary)) {
		a.SnippetWarnings = append(a.SnippetWarnings, fmt.Sprintf("%s=%s is not in this configuration: %s", pr.name, pr.value, pr.label()))
	}
}
