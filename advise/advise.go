// Package advise answers "what should I set?": given a system, the outage
// it must survive, the client library in use and the user's goals, it
// searches that library's retry knobs (and, where no setting meets the
// goals, the protections that could), running every candidate as one lane
// of a whole simulation on several seeds, and says which setting to use,
// by what margin it holds, and the configuration to paste.
//
// Every candidate runs a suite of three scenarios built from the request
// (suite.go): an ordinary day with a share of errors, the outage, and a
// herd. The goals (goals.go) are on what users and the server see: the
// share of requests that succeed within the patience on all three, the
// ordinary day's per-request p99, recovery after the outage and the herd,
// and the outage's attempts per request.
//
// The search is honest and bounded. A candidate meets a goal only if it
// does on every seed of every scenario the goal judges. Recovery is the
// lane's summary's: the time from the disruption's end until answers
// came back to 90 % of the rate before it for 5 s (scenario.Summary's
// ServiceRecoveredAfter); a lane that collapsed, stopped, or whose
// answers never came back has not recovered. Attempts per request are
// the outage's run's (the summary's amplification). A staged search
// drops a candidate at its first run that misses a goal. The recommended
// setting meets every goal with the largest margin, near-ties broken
// toward today's settings, jitter and a bounded max_attempts. The
// cost is known before the first run (EstimateCost), every run draws its
// memory from Options.Memory, runs go on internal/parallel's goroutines,
// and a cancel stops them all. The same request gives the same advice:
// the seeds are the request's seed, seed+1, …, and every figure the advice
// states is one a run with its printed flags reproduces.
package advise

import (
	"time"

	"github.com/backofflab/backofflab/budget"
)

// The values of Advice.Advised.
const (
	AdvisedRecommended = "recommended"
	AdvisedSuggestion  = "suggestion"
)

// The phases of a search, in the order they run, as Progress names them.
const (
	PhaseSearch      = "searching the library's settings"
	PhaseProtections = "searching the protections that could meet the goals"
	PhaseMargin      = "finding the recommendation's margins"
	PhaseMap         = "mapping the settings around the recommendation"
	PhaseFresh       = "checking the advice on fresh seeds"
)

// Options say how a search runs; none of them changes its result.
type Options struct {
	// Parallel is the number of runs at once (parallel.Do); 0 or less: one
	// per CPU.
	Parallel int
	// Memory returns the budget of one run, closed when the run ends; nil:
	// unbounded. A run's lane that outgrows it stops, and a stopped lane
	// has not recovered.
	Memory func() (*budget.Account, error)
	// Progress, when not nil, is told of every run that ends: from the
	// goroutine that called Run, one call at a time, Done counting up.
	Progress func(Progress)
}

// Progress is how far a search has come.
type Progress struct {
	// Phase is what the search is doing, in words for a reader (one of
	// the Phase… constants).
	Phase string `json:"phase"`
	// Done counts the runs that have ended, of Total. Total is the runs
	// made and the most still planned: it grows when no setting of the
	// library meets the goals and the protections are searched too, and
	// shrinks when a margin's bisection ends early or a map's runs were
	// made before. Each call but the last has one more run Done; the
	// last may repeat Done, to lower Total to it.
	Done  int `json:"done"`
	Total int `json:"total"`
}

// Estimate is what a search will cost, known before its first run.
type Estimate struct {
	// Runs is the most runs the search makes: every candidate on every
	// seed of every scenario of the suite (as if the staged search
	// dropped none), the margins' bisections, the map, the protections,
	// and the fresh check's two settings on as many fresh seeds.
	Runs int `json:"runs"`
	// CPU is Runs costed by a pilot run of each scenario of the suite
	// (lane a today, the first seed), each run weighted by its size (a
	// margin's longer outage or higher load costs more).
	CPU time.Duration `json:"cpu_ns"`
	// Pilot is the pilot runs' CPU time, one run of each scenario of the
	// suite, summed.
	Pilot time.Duration `json:"pilot_ns"`
	// Whole reports whether the pilot ran to its end within its limit
	// (else its cost was extrapolated).
	Whole bool `json:"whole"`
}

// Advice is the search's answer: everything the text, the JSON and the
// page show, computed and put into words here (a page's script only draws
// it). Durations are in seconds.
type Advice struct {
	// Query is the request's canonical query (Request.Query, written by
	// scenario.EncodeQuery): the advice's own link.
	Query string `json:"query"`
	// Library is the library searched, and LibraryTitle it in words.
	Library      string `json:"library"`
	LibraryTitle string `json:"library_title"`
	// Goals are the request's goals.
	Goals Goals `json:"goals"`
	// Seeds are the seeds every candidate ran on.
	Seeds []uint64 `json:"seeds"`
	// Met reports whether a setting of the library alone, Recommended,
	// meets every goal on every seed.
	Met bool `json:"met"`
	// Claimed reports whether the advice claims its advised setting
	// meets every goal: it met them on every seed of the search and on
	// every fresh seed (FreshCheck). A setting that met them on the
	// search's seeds alone is shown, not claimed.
	Claimed bool `json:"claimed"`
	// Advised says which setting the margin, the map, the snippet, the
	// playground's link and the run's flags are of: AdvisedRecommended,
	// or AdvisedSuggestion when no setting of the library met the goals
	// and the suggestion recovers on every seed (or nothing else
	// recovered); "" when there is no setting at all.
	Advised string `json:"advised"`
	// Headline says the answer in one plain sentence; Details says how it
	// was found and what it means, sentence by sentence.
	Headline string   `json:"headline"`
	Details  []string `json:"details"`
	// Today is the user's settings today (lane a of the request) as the
	// search measured them.
	Today Candidate `json:"today"`
	// Recommended is the candidate recommended: of those meeting every
	// goal, the largest margin (the worst goal's slack), near-ties broken
	// toward today's settings, jitter on and a bounded max_attempts; when
	// none meets every goal, the first by the goals' ranking (more goals
	// met, then the margin). Nil only when nothing was searched.
	Recommended *Candidate `json:"recommended,omitempty"`
	// Margin is how far the advised setting holds beyond the request's
	// outage and load; nil when it does not recover on every seed.
	Margin *Margin `json:"margin,omitempty"`
	// Pareto is the trade-off between recovery and attempts per request
	// among the candidates that ran the whole suite and recovered on
	// every seed of the outage: each is beaten by no other on both, in
	// order of recovery.
	Pareto []Candidate `json:"pareto"`
	// Front is the trade-off over every goal among the candidates that
	// ran the whole suite: each is dominated by no other on the goals'
	// worst figures (success, the ordinary day's p99, recovery, attempts
	// per request), in order of margin.
	Front []Candidate `json:"front"`
	// Map is the outcome around the advised setting over its two most
	// sensitive knobs; nil when the library has fewer than two knobs.
	Map *Map `json:"map,omitempty"`
	// Snippet is the advised setting written as the library's
	// configuration by libconfig's exporter (for OwnLibrary: the lane's
	// flags), SnippetLib the exporter's name, and SnippetWarnings what the
	// exporter had to choose, and what the configuration cannot hold (a
	// protection of the server, a limiter the library has not).
	Snippet         string   `json:"snippet"`
	SnippetLib      string   `json:"snippet_lib"`
	SnippetWarnings []string `json:"snippet_warnings,omitempty"`
	// PlaygroundQuery opens the playground with lane a today and lane b
	// the advised setting, on the request's system, outage and first seed
	// (a protection of the server is both lanes').
	PlaygroundQuery string `json:"playground_query"`
	// RunFlags are "backofflab run"'s flags (-name=value) for the same
	// two lanes: the run that reproduces the first seed of Today (lane a,
	// unless a protection of the server changes it) and of the advised
	// setting (lane b); with -seed=n, seed n's.
	RunFlags []string `json:"run_flags"`
	// FreshCheck is the advised setting and the runner-up replayed on as
	// many seeds as the search used, none of them the search's; nil when
	// nothing is advised. A claim stands only if it holds there too.
	FreshCheck *FreshCheck `json:"fresh_check,omitempty"`
	// Closest says, when no setting of the library met the goals, how
	// near the best came to each goal.
	Closest []GoalGap `json:"closest,omitempty"`
	// Suggestion is, when no setting of the library met the goals, the
	// protection or capacity change that does (or that came closest),
	// with its measured result; Protections every one that was tried.
	Suggestion  *Candidate  `json:"suggestion,omitempty"`
	Protections []Candidate `json:"protections,omitempty"`
	// Searched is every setting of the library the search ran, in the
	// order it ran them (the knobs' values, the last knob fastest);
	// Candidates counts them, Runs counts the runs made in all.
	Searched   []Candidate `json:"searched"`
	Candidates int         `json:"candidates"`
	Runs       int         `json:"runs"`
}

// FreshCheck is a check of the advice on seeds the search never used:
// the request's seed+Seeds to seed+2·Seeds−1, after the search, the map
// and the margins ran on seed to seed+Seeds−1.
type FreshCheck struct {
	Seeds []uint64 `json:"seeds"`
	// Advised is the advised setting's result on the fresh seeds.
	Advised FreshResult `json:"advised"`
	// RunnerUp is the runner-up's: the next after the advised setting by
	// the goals' ranking among the settings searched with it (the
	// library's settings, or for a suggestion the protections), so the
	// next that meets every goal, or the best that does not; nil when
	// there is none.
	RunnerUp *FreshResult `json:"runner_up,omitempty"`
	// Holds reports whether the advised setting met every goal on every
	// fresh seed: only then does a claim that it meets the goals stand.
	Holds bool `json:"holds"`
	// Words says the check in a sentence.
	Words string `json:"words"`
}

// FreshResult is one setting's runs on the fresh seeds: its Candidate
// (Settings, Words and LaneQuery as the search's, the rest judged on the
// fresh runs), and how many seeds held every goal.
type FreshResult struct {
	Candidate
	// Held counts the seeds on which every goal held.
	Held int `json:"held"`
	// Misses says each goal missed, seed by seed ("seed 8 recovered in
	// 12.3 s, over the 10 s goal").
	Misses []string `json:"misses,omitempty"`
	// Summary says the result in a few words ("holds on all 5", "holds
	// on 4 of 5: seed 8 …").
	Summary string `json:"summary"`
}

// Goals are a request's goals, as numbers and in words.
type Goals struct {
	RecoverWithin      float64 `json:"recover_within"`
	AttemptsPerRequest float64 `json:"attempts_per_request"`
	P99                float64 `json:"p99"`     // the ordinary day's per request; 0: no goal
	Success            float64 `json:"success"` // 0: no goal
	// Patience is the scenario's patience in seconds, which the success
	// goal counts within; Errors the ordinary day's share of errors.
	Patience float64 `json:"patience"`
	Errors   float64 `json:"errors"`
	Words    string  `json:"words"`
}

// Candidate is one setting and its result over the seeds.
type Candidate struct {
	// Settings are the lane's values that differ from the library's
	// defaults (or, for a protection, the values it adds, the server's
	// included), by vocabulary name without a lane letter.
	Settings map[string]string `json:"settings"`
	// Words says the setting for a reader, its knobs in the library's
	// own names ("gRPC: initialBackoff 2s, backoffMultiplier 2, …").
	Words string `json:"words"`
	// Protection is, for a setting with a protection, that protection in
	// a few words with its parameter ("load shedding (shed_above=60)");
	// empty for a setting of the library alone.
	Protection string `json:"protection,omitempty"`
	// LaneQuery is the lane as lane b's query values (scenario.EncodeQuery
	// of its b.… parameters, and of the server's for a protection on the
	// server).
	LaneQuery string `json:"lane_query"`
	// Runs is the result on each seed of the outage, in seed order (the
	// outage's entry of Scenarios): what the margins and the map judge.
	Runs []SeedRun `json:"runs"`
	// Scenarios are the runs on each scenario of the suite that ran, in
	// the suite's order, each on every seed unless Dropped.
	Scenarios []ScenarioRuns `json:"scenarios"`
	// Dropped says, for a setting the staged search stopped running, the
	// goal a run missed; it ran no more seeds or scenarios.
	Dropped string `json:"dropped,omitempty"`
	// Recovery is the outage's slowest seed's recovery in seconds; nil
	// when a seed did not recover.
	Recovery *float64 `json:"recovery"`
	// AttemptsPerRequest is the outage's worst seed's; P99 the ordinary
	// day's worst per-request p99, Success the worst share of requests
	// that succeeded within the patience over every scenario (both of
	// the runs made).
	AttemptsPerRequest float64 `json:"attempts_per_request"`
	P99                float64 `json:"p99"`
	Success            float64 `json:"success"`
	// WorstSeed is the seed of the outage's slowest recovery (a seed that
	// did not recover first).
	WorstSeed uint64 `json:"worst_seed"`
	// Goals are the result on each goal the request sets, and Margin the
	// worst goal's slack: how far inside its goals it holds, as a share
	// of each goal (negative: a goal missed).
	Goals  []GoalResult `json:"goals"`
	Margin float64      `json:"margin"`
	// Meets says which goals it meets on every seed.
	Meets Meets `json:"meets"`
}

// Meets says which goals a candidate meets on every seed of every
// scenario they judge; a goal the request does not set is met.
type Meets struct {
	Recovery bool `json:"recovery"`
	Attempts bool `json:"attempts"`
	P99      bool `json:"p99"`
	Success  bool `json:"success"`
	All      bool `json:"all"`
}

// SeedRun is a candidate's run on one seed of one scenario.
type SeedRun struct {
	Seed uint64 `json:"seed"`
	// Outcome is the lane's, as a phase map names it (sweep.Outcomes).
	Outcome string `json:"outcome"`
	// Recovery is the service's recovery in seconds after the scenario's
	// disruption (the outage, the herd); nil when it did not recover, or
	// the scenario has none (the ordinary day).
	Recovery *float64 `json:"recovery"`
	// ServerRecovery is the server's recovery in seconds: its load back to
	// its healthy level for 5 s (scenario.Summary's ServerRecoveredAfter);
	// nil when it did not come back.
	ServerRecovery *float64 `json:"server_recovery"`
	// BaselineOK is the ok rate before the disruption, per second.
	BaselineOK         float64 `json:"baseline_ok"`
	AttemptsPerRequest float64 `json:"attempts_per_request"`
	// What users saw (scenario.Summary's): the share of requests that
	// succeeded within the patience (0 for a run stopped by its memory),
	// the per-request latency's p50, p99 and p99.9 in seconds, and the
	// most attempts a second the server was sent.
	SucceededWithin float64 `json:"succeeded_within"`
	RequestP50      float64 `json:"request_p50"`
	RequestP99      float64 `json:"request_p99"`
	RequestP999     float64 `json:"request_p999"`
	PeakAttemptRate float64 `json:"peak_attempt_rate"`
}

// ScenarioRuns are a candidate's runs on one scenario of the suite, in
// seed order.
type ScenarioRuns struct {
	// Scenario is the scenario's name: ordinary_day, outage or herd.
	Scenario string    `json:"scenario"`
	Runs     []SeedRun `json:"runs"`
}

// Margin is how far a setting holds: the longest outage and the highest
// load at which it still recovers on every seed, both its answers and its
// server's load coming back before the run's end (a load the server
// cannot carry even before the outage never brings its load back to its
// healthy level, though its answers may reach 90 % of a rate that is
// already the most it serves). A higher load holds only if, before the
// outage, the run answered at least 90 % of what the request's run did
// times the load's scale, seed by seed: a load the system cannot carry
// at all is no margin.
type Margin struct {
	Outage MarginAxis `json:"outage"`
	Load   MarginAxis `json:"load"`
}

// MarginAxis is a margin along one parameter, found by bisection between
// the request's value and a bound.
type MarginAxis struct {
	// Param is the parameter varied: outage_for, clients or rate.
	Param string `json:"param"`
	// Request is the request's value; Holds the largest value tried at
	// which every seed recovered (answers and the server's load back, and
	// for a load, that load carried before the outage); Fails the
	// smallest tried at which one did not ("" when every value up to
	// Bound held; Request when the request's own value did not).
	Request string `json:"request"`
	Holds   string `json:"holds"`
	Fails   string `json:"fails,omitempty"`
	Bound   string `json:"bound"`
	// Scale is Holds over the request's value (2.5: the setting holds at
	// 2.5 × the outage, or the load).
	Scale float64 `json:"scale"`
	// FailSeed is a seed that did not recover at Fails, and FailsWhy says
	// what it missed.
	FailSeed uint64 `json:"fail_seed,omitempty"`
	FailsWhy string `json:"fails_why,omitempty"`
	// HoldsFlags and FailsFlags are "backofflab run"'s flags of the
	// recommended lane (as lane b) at Holds on the slowest seed, and at
	// Fails on FailSeed.
	HoldsFlags []string `json:"holds_flags"`
	FailsFlags []string `json:"fails_flags,omitempty"`
	// Words says the margin for a reader.
	Words string `json:"words"`
}

// Map is the outcome around the recommendation over two knobs, each cell
// over every seed.
type Map struct {
	// X and Y are the knobs (vocabulary names), XValues and YValues their
	// values, the recommendation's among them.
	X       string   `json:"x"`
	Y       string   `json:"y"`
	XValues []string `json:"x_values"`
	YValues []string `json:"y_values"`
	// Cells are the outcomes, Cells[j][i] at YValues[j] and XValues[i].
	Cells [][]MapCell `json:"cells"`
	// Why says how the two knobs were chosen: the ones whose change moved
	// the outcome most, with that change.
	Why string `json:"why"`
}

// MapCell is one setting of a Map.
type MapCell struct {
	// Outcome is "meets" (every goal on every seed), "recovers" (on every
	// seed, but not every goal) or "fails" (some seed did not recover).
	Outcome string `json:"outcome"`
	// Recovered counts the seeds that recovered.
	Recovered int `json:"recovered"`
	// Recovery is the slowest seed's recovery in seconds (nil: a seed did
	// not recover), AttemptsPerRequest the worst seed's.
	Recovery           *float64 `json:"recovery"`
	AttemptsPerRequest float64  `json:"attempts_per_request"`
}

// The outcomes of a map's cell.
const (
	CellMeets    = "meets"
	CellRecovers = "recovers"
	CellFails    = "fails"
)

// GoalGap is how near the best candidate came to one goal.
type GoalGap struct {
	// Goal is the goal's parameter (recover_within, attempts_per_request,
	// p99).
	Goal string `json:"goal"`
	// Want is the goal's value, Best the best any candidate reached on
	// every seed (nil: none recovered on every seed).
	Want float64  `json:"want"`
	Best *float64 `json:"best"`
	// Words says it for a reader.
	Words string `json:"words"`
}
