package advise

import (
	"fmt"
	"math"
	"slices"
)

// goal is one row of goalTable: a goal on what users or the server see,
// the suite's scenarios it judges, and how a run's figure is read against
// it. A candidate meets a goal only on every seed of every scenario it
// judges.
type goal struct {
	param string
	// scenarios are the suite's scenarios the goal judges.
	scenarios []string
	// atLeast is true for a share that must reach the goal (the requests
	// that succeeded), false for a figure that must stay at most it.
	atLeast bool
	// want is the request's goal, and false when it sets none.
	want func(r *Request) (float64, bool)
	// value is a run's figure; false when it has none, which misses the
	// goal (a run that did not recover has no recovery time).
	value func(run SeedRun) (float64, bool)
	// label names the figure for a reader; say says a value of it, text
	// written where say has %s ("%s of requests succeeded within the
	// patience"); text writes a value.
	label string
	say   string
	text  func(v float64) string
}

// goalTable is the goals, each judging the scenarios whose figure it is
// about: the users' success on all three; the ordinary day's p99, the
// latency users see when nothing is wrong; recovery after the outage and
// after the herd; the attempts the outage makes a request send, what a
// policy adds to a struggling server's load.
var goalTable = []goal{
	{param: SuccessParam, scenarios: []string{ScenarioOrdinary, ScenarioOutage, ScenarioHerd}, atLeast: true,
		want:  func(r *Request) (float64, bool) { return r.Success, r.Success > 0 },
		value: func(run SeedRun) (float64, bool) { return run.SucceededWithin, true },
		label: "requests succeeded within the patience", say: "%s of requests succeeded within the patience", text: share},
	{param: P99Param, scenarios: []string{ScenarioOrdinary},
		want:  func(r *Request) (float64, bool) { return r.P99.Seconds(), r.P99 > 0 },
		value: func(run SeedRun) (float64, bool) { return run.RequestP99, true },
		label: "p99 per request", say: "a p99 per request of %s", text: secs},
	{param: RecoverParam, scenarios: []string{ScenarioOutage, ScenarioHerd},
		want: func(r *Request) (float64, bool) { return r.RecoverWithin.Seconds(), true },
		value: func(run SeedRun) (float64, bool) {
			if run.Recovery == nil {
				return 0, false
			}
			return *run.Recovery, true
		},
		label: "recovery", say: "recovery in %s", text: secs},
	{param: AttemptsParam, scenarios: []string{ScenarioOutage},
		want:  func(r *Request) (float64, bool) { return r.AttemptsPerRequest, true },
		value: func(run SeedRun) (float64, bool) { return run.AttemptsPerRequest, true },
		label: "attempts per request", say: "%s attempts per request", text: num},
}

// judged returns the scenarios of the suite that g judges.
func (g goal) judged() []string {
	return slices.DeleteFunc(slices.Clone(g.scenarios), func(name string) bool {
		return !slices.ContainsFunc(suite, func(sc suiteScenario) bool { return sc.name == name })
	})
}

// saying says v, a value of g's figure, in words.
func (g goal) saying(v float64) string { return fmt.Sprintf(g.say, g.text(v)) }

// lookupGoal returns goalTable's row of param.
func lookupGoal(param string) goal {
	i := slices.IndexFunc(goalTable, func(g goal) bool { return g.param == param })
	return goalTable[i]
}

// share writes a share of requests as a percentage.
func share(v float64) string { return present2(100*v) + " %" }

// present2 writes a percentage with as many decimals as a share of
// 99.9 % needs to be told from 100 %.
func present2(v float64) string {
	switch {
	case v >= 99.99 && v < 100:
		return fmt.Sprintf("%.3f", v)
	case v >= 99:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// slackFloor is the lowest slack recorded: a figure missing (no
// recovery), or a goal of 0 missed.
const slackFloor = -100

// tieTolerance is how close two candidates' margins are for the
// recommendation to count them as tied: within 0.05 of the goals' own
// sizes (a 10 s recovery goal: 0.5 s), of the order of the seeds' spread
// on the landing system, a difference no user would notice. Among tied
// candidates the one nearest the library's defaults is recommended, then
// jitter on, then a bounded max_attempts.
const tieTolerance = 0.05

// slack is how far v is inside the goal want, as a share of the goal: for
// a figure at most want, (want − v)/want; for a share at least want, the
// failures' room, (v − want)/(1 − want) (a success goal of 99.9 % allows
// 0.1 % to fail: slack 0.5 is 0.05 % failing). Negative: missed. It is
// at least slackFloor.
func slack(g goal, want, v float64) float64 {
	var s float64
	switch {
	case g.atLeast && want >= 1:
		s = 0
		if v < want {
			s = slackFloor
		}
	case g.atLeast:
		s = (v - want) / (1 - want)
	case want <= 0:
		s = 0
		if v > 0 {
			s = slackFloor
		}
	default:
		s = (want - v) / want
	}
	return max(s, slackFloor)
}

// GoalResult is a candidate's result on one goal: its worst figure over
// every seed of every scenario the goal judges (of those that ran).
type GoalResult struct {
	// Goal is the goal's parameter (success, p99, recover_within,
	// attempts_per_request); Scenarios are those it judges.
	Goal      string   `json:"goal"`
	Scenarios []string `json:"scenarios"`
	// Want is the goal's value.
	Want float64 `json:"want"`
	// Worst is the worst figure, nil when a run had none (did not
	// recover); Scenario and Seed are where it was.
	Worst    *float64 `json:"worst"`
	Scenario string   `json:"scenario"`
	Seed     uint64   `json:"seed"`
	// Runs counts the runs judged: fewer than every seed of every
	// scenario for a candidate dropped early (Candidate.Dropped).
	Runs int `json:"runs"`
	// Met reports whether every run judged met the goal, and all of them
	// ran; Slack is the worst run's slack (slack), negative when missed.
	Met   bool    `json:"met"`
	Slack float64 `json:"slack"`
}

// judgeGoals judges suite, a candidate's runs by scenario, against r's
// goals: one GoalResult per goal the request sets, in goalTable's order.
// A goal is met only when every seed of every scenario it judges ran
// (seeds of them) and met it.
func judgeGoals(r *Request, suite []ScenarioRuns, seeds int) []GoalResult {
	var out []GoalResult
	for _, g := range goalTable {
		want, ok := g.want(r)
		if !ok {
			continue
		}
		res := GoalResult{Goal: g.param, Scenarios: g.judged(), Want: want, Slack: math.Inf(1)}
		missing := false
		for _, sr := range suite {
			if !slices.Contains(res.Scenarios, sr.Scenario) {
				continue
			}
			for _, run := range sr.Runs {
				res.Runs++
				v, has := g.value(run)
				sl := float64(slackFloor)
				if has {
					sl = slack(g, want, v)
				}
				if sl < res.Slack {
					res.Slack, res.Scenario, res.Seed = sl, sr.Scenario, run.Seed
					if has {
						res.Worst = &v
					} else {
						res.Worst, missing = nil, true
					}
				}
				if !has {
					missing = true
				}
			}
		}
		if res.Runs == 0 {
			res.Slack = 0
		}
		res.Met = !missing && res.Runs == len(res.Scenarios)*seeds && res.Slack >= 0
		out = append(out, res)
	}
	return out
}

// missedEarly reports whether goals, a candidate's on the runs so far,
// show a goal missed: a seed that misses is decisive, as a goal must hold
// on every seed.
func missedEarly(goals []GoalResult) bool {
	return slices.ContainsFunc(goals, func(g GoalResult) bool { return g.Runs > 0 && g.Slack < 0 })
}

// marginOf is a candidate's margin: its worst goal's slack, the least of
// goals'; 0 with no goal.
func marginOf(goals []GoalResult) float64 {
	if len(goals) == 0 {
		return 0
	}
	m := math.Inf(1)
	for _, g := range goals {
		m = min(m, g.Slack)
	}
	return m
}

// goalWords says a goal's result, its worst run, for a reader: "99.5 % of
// requests succeeded within the patience (the outage, seed 3; goal: at
// least 99.00 %)".
func goalWords(res GoalResult) string {
	g := lookupGoal(res.Goal)
	cmp := "at most"
	if g.atLeast {
		cmp = "at least"
	}
	if res.Runs == 0 {
		return fmt.Sprintf("%s: not run (goal: %s %s)", g.label, cmp, g.text(res.Want))
	}
	where := lookupScenario(res.Scenario).words
	if res.Worst == nil {
		return fmt.Sprintf("no %s (%s, seed %d; goal: %s %s)", g.label, where, res.Seed, cmp, g.text(res.Want))
	}
	return fmt.Sprintf("%s (%s, seed %d; goal: %s %s)", g.saying(*res.Worst), where, res.Seed, cmp, g.text(res.Want))
}
