package advise

import (
	"github.com/backofflab/backofflab/scenario"
)

// The scenarios of the suite every candidate runs, by name.
const (
	ScenarioOrdinary = "ordinary_day"
	ScenarioOutage   = "outage"
	ScenarioHerd     = "herd"
)

// suiteScenario is one scenario of the suite: the request's system put
// through one day a retry policy must serve well.
type suiteScenario struct {
	name string
	// words says the scenario for a reader ("the ordinary day").
	words string
	// derive returns the scenario's run of p, a setting's scenario (the
	// request's system and outage with the setting's lane a), for r.
	derive func(p scenario.Params, r *Request) scenario.Params
}

// suite is the scenarios every candidate runs, in the order a staged
// search runs them (stages): the outage first, as the one that tells
// most settings apart, then the ordinary day, then the herd. The
// ordinary day and the herd remove the outage and the request's other
// faults: the outage scenario is the request's own, unchanged.
var suite = []suiteScenario{
	{name: ScenarioOutage, words: "the outage", derive: func(p scenario.Params, _ *Request) scenario.Params { return p }},
	{name: ScenarioOrdinary, words: "the ordinary day", derive: ordinaryDay},
	{name: ScenarioHerd, words: "the herd", derive: herd},
}

// lookupScenario returns the suite's scenario called name.
func lookupScenario(name string) suiteScenario {
	for _, sc := range suite {
		if sc.name == name {
			return sc
		}
	}
	panic("advise: no scenario " + name)
}

// calm returns p without its outage and its faults: the system on a day
// nothing goes wrong.
func calm(p scenario.Params) scenario.Params {
	p = p.Clone()
	p.Outage = scenario.OutageNone
	p.OutageFor = 0
	p.Faults = nil
	return p
}

// ordinaryDay is the system without the outage, a share r.Errors of its
// answers failing fast with an error over the whole run (an error_burst
// from 0s to the run's end): the transient failures that every retry of
// an ordinary day pays its wait for.
func ordinaryDay(p scenario.Params, r *Request) scenario.Params {
	p = calm(p)
	if r.Errors > 0 {
		p.Faults = []scenario.Fault{{Kind: scenario.FaultErrorBurst, At: 0, For: p.Duration, M: r.Errors}}
	}
	return p
}

// herd is the system without the outage, a herd at the outage's start:
// in a closed loop every client sends at once; in an open loop the
// arrivals of as long as the outage lasts come at once (an open loop's
// herd needs a window), the backlog an outage would have left.
func herd(p scenario.Params, _ *Request) scenario.Params {
	at, window := p.OutageAt, p.OutageFor
	p = calm(p)
	if p.Arrival != scenario.ArrivalOpen {
		window = 0
	}
	p.Faults = []scenario.Fault{{Kind: scenario.FaultHerd, At: at, For: window, M: 1}}
	return p
}

// in returns set's run of the suite's scenario sc: set's lane on sc's
// day.
func (s *search) in(sc suiteScenario, set *setting) *setting {
	return &setting{p: sc.derive(set.p, &s.r), values: set.values, prot: set.prot}
}

// inSuite returns sets' runs of every scenario of the suite, set by set.
func (s *search) inSuite(sets []*setting) []*setting {
	var out []*setting
	for _, set := range sets {
		for _, sc := range suite {
			out = append(out, s.in(sc, set))
		}
	}
	return out
}

// measureSuite runs sets on every scenario of the suite on n seeds from
// first, and returns each one's runs by scenario.
func (s *search) measureSuite(phase string, sets []*setting, first uint64, n int) ([][]ScenarioRuns, error) {
	runs, err := s.rn.measureFrom(phase, s.inSuite(sets), first, n)
	if err != nil {
		return nil, err
	}
	out := make([][]ScenarioRuns, len(sets))
	for i := range sets {
		for j, sc := range suite {
			out[i] = append(out[i], ScenarioRuns{Scenario: sc.name, Runs: runs[i*len(suite)+j]})
		}
	}
	return out, nil
}

// stage is one step of a staged search: a scenario of the suite (or, for
// "", every one) on its first seeds.
type stage struct {
	scenario string
	seeds    int
}

// stages are a staged search's steps: the suite's first seed, scenario
// by scenario (the outage first: it tells most settings apart), then
// every scenario on every seed.
func (s *search) stages() []stage {
	var out []stage
	for _, sc := range suite {
		out = append(out, stage{sc.name, 1})
	}
	return append(out, stage{"", s.r.Seeds})
}

// measureStaged runs sets on the suite by successive halving: each stage
// runs the settings still in the race, and a setting whose runs so far
// miss a goal is dropped, as a goal must hold on every seed of every
// scenario it judges and one run that misses it is decisive; keep(i)
// says which settings are never dropped (today's). It returns each
// setting's runs by scenario (a dropped setting's those it made) and why
// each was dropped ("" when it ran the whole suite). The runs a dropped
// setting will not make are taken from the progress's plan.
func (s *search) measureStaged(phase string, sets []*setting, keep func(i int) bool) ([][]ScenarioRuns, []string, error) {
	first := s.r.Scenario.Seed
	runs := make([][]ScenarioRuns, len(sets))
	dropped := make([]string, len(sets))
	for _, st := range s.stages() {
		var live []int
		var todo []*setting
		for i, set := range sets {
			if dropped[i] != "" {
				continue
			}
			live = append(live, i)
			for _, sc := range suite {
				if st.scenario == "" || sc.name == st.scenario {
					todo = append(todo, s.in(sc, set))
				}
			}
		}
		if _, err := s.rn.measureFrom(phase, todo, first, st.seeds); err != nil {
			return nil, nil, err
		}
		for _, i := range live {
			runs[i] = s.ranSoFar(sets[i], first)
			if keep(i) {
				continue
			}
			if c := judge(s.r, runs[i]); missedEarly(c.Goals) {
				dropped[i] = droppedWhy(c.Goals)
				s.rn.plan(-s.rn.freshFrom(s.inSuite(sets[i:i+1]), first, s.r.Seeds))
			}
		}
	}
	return runs, dropped, nil
}

// ranSoFar returns set's runs by scenario on the seeds from first that it
// has run, in order: a scenario's runs end at its first seed not run.
func (s *search) ranSoFar(set *setting, first uint64) []ScenarioRuns {
	var out []ScenarioRuns
	for _, sc := range suite {
		t := s.in(sc, set)
		sr := ScenarioRuns{Scenario: sc.name}
		for i := range s.r.Seeds {
			run, ok := s.rn.cache[s.rn.key(t, first+uint64(i))]
			if !ok {
				break
			}
			sr.Runs = append(sr.Runs, run)
		}
		if len(sr.Runs) > 0 {
			out = append(out, sr)
		}
	}
	return out
}

// droppedWhy says the first goal goals show missed, for a setting
// dropped from a staged search.
func droppedWhy(goals []GoalResult) string {
	for _, g := range goals {
		if g.Runs > 0 && g.Slack < 0 {
			return "missed: " + goalWords(g)
		}
	}
	return ""
}
