package advise

import (
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/scenario"
)

// TestSlack: a goal's slack, worked by hand: a figure at most its goal
// has (goal − value)/goal left, a share at least its goal the failures'
// room left, (value − goal)/(1 − goal); a goal of 0 or of every request
// is met exactly or missed by the floor.
func TestSlack(t *testing.T) {
	rec, succ := lookupGoal(RecoverParam), lookupGoal(SuccessParam)
	for _, c := range []struct {
		name    string
		g       goal
		want, v float64
		slack   float64
	}{
		{"recovery half the goal", rec, 10, 5, 0.5},
		{"recovery at the goal", rec, 10, 10, 0},
		{"recovery twice the goal", rec, 10, 20, -1},
		{"recovery goal 0 met", rec, 0, 0, 0},
		{"recovery goal 0 missed", rec, 0, 0.1, slackFloor},
		{"recovery far past", rec, 0.001, 10, slackFloor},
		// 99 % asked: 1 % may fail; 99.5 % succeeded: 0.5 % failed, half
		// the room left.
		{"success half the room", succ, 0.99, 0.995, 0.5},
		{"success every request", succ, 0.99, 1, 1},
		{"success twice the failures", succ, 0.99, 0.98, -1},
		{"success all asked, all had", succ, 1, 1, 0},
		{"success all asked, one failed", succ, 1, 0.9999, slackFloor},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := slack(c.g, c.want, c.v); math.Abs(got-c.slack) > 1e-9 {
				t.Errorf("slack(%s, %g, %g) = %g, want %g", c.g.param, c.want, c.v, got, c.slack)
			}
		})
	}
}

// seedRun is a run for the goals' tests: recovery rec (NaN: none),
// attempts per request att, success share ok and per-request p99.
func seedRun(seed uint64, rec, att, ok, p99 float64) SeedRun {
	r := SeedRun{Seed: seed, AttemptsPerRequest: att, SucceededWithin: ok, RequestP99: p99}
	if !math.IsNaN(rec) {
		r.Recovery = &rec
	}
	return r
}

// TestJudgeGoals: each goal judges its scenarios alone, on every seed:
// its worst figure and where, the runs it judged, and met only when
// every seed of every scenario ran and met it; a run with no recovery
// misses the recovery goal; the margin is the worst goal's slack.
func TestJudgeGoals(t *testing.T) {
	r := Request{RecoverWithin: 10 * time.Second, AttemptsPerRequest: 1.5, P99: time.Second, Success: 0.99, Seeds: 2}
	nan := math.NaN()
	full := []ScenarioRuns{
		{ScenarioOutage, []SeedRun{seedRun(1, 4, 1.2, 0.995, 30), seedRun(2, 6, 1.3, 0.992, 31)}},
		{ScenarioOrdinary, []SeedRun{seedRun(1, nan, 1.01, 1, 0.5), seedRun(2, nan, 1.01, 0.999, 0.8)}},
		{ScenarioHerd, []SeedRun{seedRun(1, 0, 1.1, 0.998, 5), seedRun(2, 2, 1.1, 1, 5)}},
	}
	c := judge(r, full)
	want := map[string]struct {
		worst    float64
		scenario string
		seed     uint64
		runs     int
		met      bool
	}{
		// The outage's p99 of 31 s is no goal's: p99 judges the ordinary
		// day alone.
		SuccessParam:  {0.992, ScenarioOutage, 2, 6, true},
		P99Param:      {0.8, ScenarioOrdinary, 2, 2, true},
		RecoverParam:  {6, ScenarioOutage, 2, 4, true},
		AttemptsParam: {1.3, ScenarioOutage, 2, 2, true},
	}
	if len(c.Goals) != len(want) {
		t.Fatalf("goals %+v, want %d", c.Goals, len(want))
	}
	for _, g := range c.Goals {
		w := want[g.Goal]
		if g.Worst == nil || *g.Worst != w.worst || g.Scenario != w.scenario || g.Seed != w.seed || g.Runs != w.runs || g.Met != w.met {
			t.Errorf("%s: %+v (worst %v), want %+v", g.Goal, g, g.Worst, w)
		}
	}
	// Slacks: success (0.992−0.99)/0.01 = 0.2, p99 0.2, recovery 0.4,
	// attempts 1.3/1.5 → 0.1333: the margin is attempts'.
	if !c.Meets.All || math.Abs(c.Margin-(1.5-1.3)/1.5) > 1e-9 {
		t.Errorf("meets %+v, margin %g: want all, %g", c.Meets, c.Margin, (1.5-1.3)/1.5)
	}
	if *c.Recovery != 6 || c.AttemptsPerRequest != 1.3 || c.P99 != 0.8 || c.Success != 0.992 || len(c.Runs) != 2 {
		t.Errorf("worst figures %v %g %g %g, runs %d", *c.Recovery, c.AttemptsPerRequest, c.P99, c.Success, len(c.Runs))
	}

	// A herd's seed that does not recover misses recovery, whatever the
	// outage did.
	never := slices.Clone(full)
	never[2] = ScenarioRuns{ScenarioHerd, []SeedRun{seedRun(1, 0, 1.1, 1, 5), seedRun(2, nan, 1.1, 1, 5)}}
	if c := judge(r, never); c.Meets.Recovery || c.Meets.All || !c.Meets.Success || c.Margin != slackFloor {
		t.Errorf("a herd that never recovered: meets %+v, margin %g", c.Meets, c.Margin)
	}
	// A setting that ran the outage's first seed alone meets nothing yet,
	// and its miss there is decisive.
	partial := []ScenarioRuns{{ScenarioOutage, []SeedRun{seedRun(1, 4, 1.6, 0.995, 30)}}}
	pc := judge(r, partial)
	if pc.Meets.Recovery || pc.Meets.Success || !missedEarly(pc.Goals) || !strings.Contains(droppedWhy(pc.Goals), "1.6 attempts per request") {
		t.Errorf("partial: meets %+v, missed early %v, why %q", pc.Meets, missedEarly(pc.Goals), droppedWhy(pc.Goals))
	}
	if ok := judge(r, partial[:0]); missedEarly(ok.Goals) {
		t.Error("no runs: missed early")
	}
	// No p99 goal: it is left out, and met.
	r.P99 = 0
	if c := judge(r, full); len(c.Goals) != 3 || !c.Meets.P99 {
		t.Errorf("no p99 goal: %+v", c.Goals)
	}
}

// TestFront: the front over the goals keeps the candidates no other is
// at least as good as on every goal and better on one; of two equal the
// first; a dropped candidate is not on it.
func TestFront(t *testing.T) {
	r := Request{RecoverWithin: 10 * time.Second, AttemptsPerRequest: 1.5, Success: 0.99, Seeds: 1}
	cand := func(name string, rec, att, ok float64) Candidate {
		c := judge(r, []ScenarioRuns{
			{ScenarioOutage, []SeedRun{seedRun(1, rec, att, ok, 1)}},
			{ScenarioOrdinary, []SeedRun{seedRun(1, math.NaN(), 1, 1, 0.1)}},
			{ScenarioHerd, []SeedRun{seedRun(1, 0, 1, 1, 1)}},
		})
		c.Words = name
		return c
	}
	dropped := cand("dropped", 1, 1, 1)
	dropped.Dropped = "missed"
	cs := []Candidate{
		cand("fast", 2, 1.4, 0.995),
		cand("frugal", 8, 1.1, 0.995),
		cand("dominated", 8, 1.4, 0.995), // by both
		cand("safe", 9, 1.3, 0.999),
		cand("fast again", 2, 1.4, 0.995),
		dropped,
	}
	var names []string
	for _, c := range front(cs) {
		names = append(names, c.Words)
	}
	slices.Sort(names)
	if want := []string{"fast", "frugal", "safe"}; !slices.Equal(names, want) {
		t.Errorf("front %v, want %v", names, want)
	}
}

// TestPick: among the candidates that meet every goal with a margin
// within tieTolerance of the best's, the recommendation changes fewest of
// today's settings, then has jitter, then a bounded max_attempts; one
// further behind does not count as tied.
func TestPick(t *testing.T) {
	today := Candidate{Settings: map[string]string{"min_delay": "100ms", "jitter": "0.1", "max_attempts": "3"}}
	c := func(margin float64, md, jitter, att string) Candidate {
		return Candidate{Settings: map[string]string{"min_delay": md, "jitter": jitter, "max_attempts": att},
			Margin: margin, Meets: Meets{All: true}, Goals: []GoalResult{{Met: true}}}
	}
	for _, tc := range []struct {
		name  string
		cands []Candidate
		want  int
	}{
		{"today within the tolerance", []Candidate{c(0.5, "2s", "0.1", "0"), c(0.47, "100ms", "0.1", "0")}, 1},
		{"today too far behind", []Candidate{c(0.5, "2s", "0.1", "0"), c(0.4, "100ms", "0.1", "0")}, 0},
		{"jitter on", []Candidate{c(0.5, "2s", "0", "0"), c(0.49, "2s", "0.5", "0")}, 1},
		{"bounded attempts", []Candidate{c(0.5, "2s", "0.5", "0"), c(0.49, "2s", "0.5", "5")}, 1},
		{"the larger margin among equals", []Candidate{c(0.46, "2s", "0.5", "5"), c(0.5, "2s", "0.5", "5")}, 1},
		{"none meets: the best", []Candidate{{Margin: -1}, {Margin: -0.5}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pick(tc.cands, &today); got != tc.want {
				t.Errorf("pick = %d, want %d", got, tc.want)
			}
		})
	}
}

// TestSuiteScenarios: the ordinary day and the herd are the request's
// system without its outage and faults, the ordinary day with an
// error_burst of -errors over its whole run, the herd every client at the
// outage's start (an open loop's over as long as the outage); the outage
// is the request's own; each is a scenario the engine accepts.
func TestSuiteScenarios(t *testing.T) {
	for _, q := range []url.Values{{}, {"arrival": {"open"}, "rate": {"80"}}} {
		r := request(t, with(q, url.Values{"errors": {"0.03"}, "faults": {"load_spike:60s:5s:2"}}))
		s := &search{r: r}
		base := &setting{p: r.Scenario}
		p := r.Scenario
		window := time.Duration(0)
		if p.Arrival == scenario.ArrivalOpen {
			window = p.OutageFor
		}
		want := map[string][]scenario.Fault{
			ScenarioOutage:   {{Kind: p.Outage, At: p.OutageAt, For: p.OutageFor}, {Kind: scenario.FaultLoadSpike, At: 60 * time.Second, For: 5 * time.Second, M: 2}},
			ScenarioOrdinary: {{Kind: scenario.FaultErrorBurst, At: 0, For: p.Duration, M: 0.03}},
			ScenarioHerd:     {{Kind: scenario.FaultHerd, At: p.OutageAt, For: window, M: 1}},
		}
		for _, sc := range suite {
			d := s.in(sc, base).p
			if got := scenario.AllFaults(&d); !slices.Equal(got, want[sc.name]) {
				t.Errorf("%s %s: faults %v, want %v", scenario.EncodeQuery(q), sc.name, got, want[sc.name])
			}
			if err := d.Validate(); err != nil {
				t.Errorf("%s %s: %v", scenario.EncodeQuery(q), sc.name, err)
			}
		}
	}
}

// TestAdviceOrdinaryDay: when the ordinary day alone matters (3 % of
// answers failing, a p99 goal of 1 s, the other goals out of the way), a
// first wait of 2 s puts the ordinary day's p99 past 2 s and no setting
// whose min_delay is above 0.9 s meets the goals or is recommended; the
// recommendation's ordinary day comes back from "backofflab run" with the
// error burst.
func TestAdviceOrdinaryDay(t *testing.T) {
	testrace.SkipUnder(t, longUnderRace)
	a := advise(t, request(t, url.Values{"errors": {"0.03"}, "p99": {"1s"}, "success": {"0"}, "recover_within": {"80s"},
		"attempts_per_request": {"1000"}, "seeds": {"3"}}))
	if !a.Met || a.Recommended == nil {
		t.Fatalf("no recommendation: %s", a.Headline)
	}
	slow := 0
	for _, c := range append([]Candidate{*a.Recommended}, a.Searched...) {
		md, err := time.ParseDuration(c.Settings["min_delay"])
		if err != nil {
			t.Fatal(err)
		}
		if md > 900*time.Millisecond {
			slow++
			if c.Meets.All || c.Meets.P99 {
				t.Errorf("%s meets the ordinary day's p99 goal: %s", c.Words, outcomeWords(&c, 3))
			}
		}
	}
	if slow == 0 {
		t.Error("the construction needs settings with min_delay above 0.9 s")
	}
	if md, _ := time.ParseDuration(a.Recommended.Settings["min_delay"]); md > 900*time.Millisecond {
		t.Errorf("recommended min_delay %v", md)
	}
	q := parseFlags(t, a.RunFlags)
	q.Set("outage", "none")
	q.Set("faults", "error_burst:0s:"+q.Get("duration")+":0.03")
	if q.Get("duration") == "" {
		q.Set("faults", "error_burst:0s:2m0s:0.03")
	}
	ord := runsOf(a.Recommended, ScenarioOrdinary)
	for i, seed := range a.Seeds {
		q.Set("seed", strconv.FormatUint(seed, 10))
		s := replay(t, q)[1]
		if s.RequestP99 != ord[i].RequestP99 || s.SucceededWithin != ord[i].SucceededWithin || s.RequestP99 > 1 {
			t.Errorf("seed %d: run gives p99 %g, %g succeeded; the advice's ordinary day %+v", seed, s.RequestP99, s.SucceededWithin, ord[i])
		}
	}
}

// TestAdvicePatience: asked that 99 % of requests succeed within a
// patience of 30 s, the landing system's advice never gives up before a
// 15 s outage ends: neither the best setting of the library alone nor
// what is advised has a budget of attempts that runs out within it (a
// bounded max_attempts whose waits and 2 s timeouts add up to less), nor
// a retry budget with no floor ("0 retries a second"); and each request
// share it claims is over the goal on every seed of every scenario.
func TestAdvicePatience(t *testing.T) {
	testrace.SkipUnder(t, longUnderRace)
	r := request(t, url.Values{"patience": {"30s"}, "success": {"0.99"}, "seeds": {"3"}})
	a := advise(t, r)
	cs := []*Candidate{a.Recommended}
	if a.Suggestion != nil {
		cs = append(cs, a.Suggestion)
	}
	for _, c := range cs {
		if gives := givesUpWithin(t, c, r.Scenario.Timeout); gives < r.Scenario.OutageFor && gives > 0 {
			t.Errorf("%s gives up after %v, within the %v outage", c.Words, gives, r.Scenario.OutageFor)
		}
		if c.Settings["retry_budget"] == "on" && c.Settings["budget_min_per_sec"] == "0" {
			t.Errorf("%s: a retry budget with no floor", c.Words)
		}
	}
	if strings.Contains(a.Headline, "budget_min_per_sec 0") {
		t.Errorf("headline %q", a.Headline)
	}
	adv := a.Recommended
	if a.Advised == AdvisedSuggestion {
		adv = a.Suggestion
	}
	if !adv.Meets.Success {
		t.Fatalf("the advised setting misses the success goal: %s", a.Headline)
	}
	for _, sr := range adv.Scenarios {
		for _, run := range sr.Runs {
			if run.SucceededWithin < 0.99 {
				t.Errorf("%s seed %d: %g succeeded", sr.Scenario, run.Seed, run.SucceededWithin)
			}
		}
	}
}

// runsOf returns c's runs of the suite's scenario called name.
func runsOf(c *Candidate, name string) []SeedRun {
	for _, sr := range c.Scenarios {
		if sr.Scenario == name {
			return sr.Runs
		}
	}
	return nil
}

// givesUpWithin is the least time a request of c's settings (backofflab's
// exponential backoff) takes to give up when every attempt times out
// after timeout: max_attempts timeouts and the waits between them at
// their shortest (jitter taking its whole share off); 0 for no limit.
func givesUpWithin(t *testing.T, c *Candidate, timeout time.Duration) time.Duration {
	t.Helper()
	n, err := strconv.Atoi(c.Settings["max_attempts"])
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		return 0
	}
	md, _ := time.ParseDuration(c.Settings["min_delay"])
	xd, _ := time.ParseDuration(c.Settings["max_delay"])
	f, _ := strconv.ParseFloat(c.Settings["factor"], 64)
	j, _ := strconv.ParseFloat(c.Settings["jitter"], 64)
	total := time.Duration(n) * timeout
	wait := float64(md)
	for range n - 1 {
		total += time.Duration(min(wait, float64(xd)) * (1 - j))
		wait *= f
	}
	return total
}

// TestAdviceHerd: where jitter 0 misses a goal on the herd, it is not
// recommended. On the landing system with 20 workers that shed above 20
// and today's settings a constant 1 s wait without jitter, the herd's
// turned-away requests come back together every second: today misses
// the herd's recovery goal, and the recommendation has jitter, meets
// every goal on the herd, and its herd comes back from "backofflab run".
func TestAdviceHerd(t *testing.T) {
	testrace.SkipUnder(t, longUnderRace)
	a := advise(t, request(t, url.Values{"shed_above": {"20"}, "workers": {"20"}, "a.factor": {"1"}, "a.min_delay": {"1s"},
		"a.max_delay": {"1s"}, "a.jitter": {"0"}, "seeds": {"2"}}))
	missed := false
	for _, g := range a.Today.Goals {
		missed = missed || (g.Scenario == ScenarioHerd && !g.Met)
	}
	if a.Today.Settings["jitter"] != "0" || !missed {
		t.Fatalf("the construction needs today without jitter missing a goal on the herd: %+v", a.Today.Goals)
	}
	if a.Recommended == nil || a.Recommended.Settings["jitter"] == "0" {
		t.Fatalf("recommended %v", a.Recommended)
	}
	for _, c := range append([]Candidate{*a.Recommended}, a.Front...) {
		if c.Settings["jitter"] == "0" && c.Meets.All {
			for _, g := range c.Goals {
				if g.Scenario == ScenarioHerd && !g.Met {
					t.Errorf("%s meets every goal but misses %s on the herd", c.Words, g.Goal)
				}
			}
		}
	}
	for _, g := range a.Recommended.Goals {
		if slices.Contains(g.Scenarios, ScenarioHerd) && !g.Met {
			t.Errorf("the recommendation misses %s: %s", g.Goal, goalWords(g))
		}
	}
	q := parseFlags(t, a.RunFlags)
	q.Set("outage", "none")
	q.Set("faults", "herd:"+q.Get("outage_at")+":0s:1")
	if q.Get("outage_at") == "" {
		q.Set("faults", "herd:20s:0s:1")
	}
	herd, today := runsOf(a.Recommended, ScenarioHerd), runsOf(&a.Today, ScenarioHerd)
	for i, seed := range a.Seeds {
		q.Set("seed", strconv.FormatUint(seed, 10))
		if s := replay(t, q); !sameRun(s[1], herd[i]) || !sameRun(s[0], today[i]) {
			t.Errorf("seed %d: the herd's run gives %+v and %+v; the advice measured %+v and %+v", seed, s[0], s[1], today[i], herd[i])
		}
	}
}
