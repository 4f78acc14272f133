package advise

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/sweep"
)

// longUnderRace is why a long known-answer search skips under -race, which
// would take ten times as long to check the same answers: make test runs
// it again without the detector. TestAdviceCancel runs
// the search's goroutines, on every core, under it.
const longUnderRace = "a long known-answer search, tenfold slower under -race"

// request parses q as the command line would, failing the test on an
// error.
func request(t *testing.T, q url.Values) Request {
	t.Helper()
	r, err := ParseRequest(q, CLILimits)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// advise runs r, checking that its progress counts up one run at a time
// to its total.
func advise(t *testing.T, r Request) *Advice {
	t.Helper()
	last := Progress{}
	a, err := Run(context.Background(), r, Options{Progress: func(p Progress) {
		final := p.Done == last.Done && p.Total == p.Done && p.Total < last.Total
		if (p.Done != last.Done+1 && !final) || p.Done > p.Total || p.Phase == "" {
			t.Errorf("progress %+v after %+v", p, last)
		}
		last = p
	}})
	if err != nil {
		t.Fatal(err)
	}
	if last.Done != a.Runs || last.Total != a.Runs {
		t.Errorf("last progress %+v, but %d runs", last, a.Runs)
	}
	return a
}

// parseFlags reads "backofflab run" flags as the advice writes them
// (-name=value) into a query.
func parseFlags(t *testing.T, flags []string) url.Values {
	t.Helper()
	q := url.Values{}
	for _, f := range flags {
		name, v, ok := strings.Cut(strings.TrimPrefix(f, "-"), "=")
		if !ok || !strings.HasPrefix(f, "-") {
			t.Fatalf("flag %q is not -name=value", f)
		}
		q.Set(name, v)
	}
	return q
}

// replay runs q, whose lane b the advice measured, and returns its lanes'
// summaries.
func replay(t *testing.T, q url.Values) []scenario.Summary {
	t.Helper()
	p, err := scenario.Parse(q)
	if err != nil {
		t.Fatalf("the advice's flags do not parse: %v", err)
	}
	sums, err := simengine.Run(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// sameRun reports whether summary s is what the advice measured as run.
func sameRun(s scenario.Summary, run SeedRun) bool {
	rec := s.ServiceRecoveredAfter
	if s.Stopped != "" {
		rec = nil
	}
	return (rec == nil) == (run.Recovery == nil) && (rec == nil || *rec == *run.Recovery) && s.Amplification == run.AttemptsPerRequest &&
		s.SucceededWithin == run.SucceededWithin && s.RequestP50 == run.RequestP50 && s.RequestP99 == run.RequestP99 &&
		s.RequestP999 == run.RequestP999 && s.PeakAttemptRate == run.PeakAttemptRate
}

// outageGoals are the goals on the outage alone, recovery and attempts
// per request, as the advice had before it judged what users see: on
// the landing system a setting of each library meets them, which the
// tests of the search's machinery (reproduction, margins, fresh check)
// need.
var outageGoals = url.Values{"p99": {"0s"}, "success": {"0"}}

// with returns q with the values of more added.
func with(q url.Values, more url.Values) url.Values {
	out := url.Values{}
	for _, v := range []url.Values{q, more} {
		for k, vs := range v {
			out[k] = vs
		}
	}
	return out
}

// TestAdviceLanding: on the landing system the advice recommends, for
// each of three libraries, a setting that recovers on every seed (never
// one that collapses on any), and every figure it states comes back when
// its flags are run: both lanes of its run flags on every seed, and its
// margins just inside and just outside.
func TestAdviceLanding(t *testing.T) {
	testrace.SkipUnder(t, longUnderRace)
	libs := []string{OwnLibrary, "grpc", "envoy"}
	if testing.Short() {
		libs = libs[:1]
	}
	for _, lib := range libs {
		t.Run(lib, func(t *testing.T) {
			a := advise(t, request(t, with(url.Values{"library": {lib}, "seeds": {"3"}}, outageGoals)))
			rec := a.Recommended
			if rec == nil || rec.Recovery == nil {
				t.Fatalf("recommended %+v: does not recover on every seed", rec)
			}
			for _, run := range rec.Runs {
				if run.Outcome != sweep.OutcomeRecovered {
					t.Errorf("recommended seed %d: %s", run.Seed, run.Outcome)
				}
			}
			if !a.Met || a.Advised != AdvisedRecommended || !rec.Meets.All || *rec.Recovery > 10 || rec.AttemptsPerRequest > 1.5 {
				t.Errorf("the default goals are not met: %s", a.Headline)
			}
			// The run flags reproduce today (lane a) and the advice
			// (lane b) on every seed.
			q := parseFlags(t, a.RunFlags)
			for i, seed := range a.Seeds {
				q.Set("seed", strconv.FormatUint(seed, 10))
				sums := replay(t, q)
				if !sameRun(sums[0], a.Today.Runs[i]) || !sameRun(sums[1], rec.Runs[i]) {
					t.Errorf("seed %d: run gives %+v and %+v; the advice measured %+v and %+v", seed, sums[0], sums[1], a.Today.Runs[i], rec.Runs[i])
				}
			}
			if pq, _ := url.ParseQuery(a.PlaygroundQuery); scenario.EncodeQuery(pq) != scenario.EncodeQuery(parseFlags(t, a.RunFlags)) {
				t.Errorf("the playground's link %s is not the run's flags %v", a.PlaygroundQuery, a.RunFlags)
			}
			// The margins: inside holds on its seed, outside fails on its.
			if a.Margin == nil {
				t.Fatal("no margin")
			}
			for _, ax := range []MarginAxis{a.Margin.Outage, a.Margin.Load} {
				s := replay(t, parseFlags(t, ax.HoldsFlags))[1]
				if s.ServiceRecoveredAfter == nil || s.ServerRecoveredAfter == nil {
					t.Errorf("%s: %s holds, but its run %v does not recover: %+v", ax.Param, ax.Holds, ax.HoldsFlags, s)
				}
				if ax.Fails == "" {
					continue
				}
				s = replay(t, parseFlags(t, ax.FailsFlags))[1]
				if s.ServiceRecoveredAfter != nil && s.ServerRecoveredAfter != nil && ax.Param == "outage_for" {
					t.Errorf("%s: %s fails, but its run %v recovers: %+v", ax.Param, ax.Fails, ax.FailsFlags, s)
				}
			}
			if a.Snippet == "" {
				t.Errorf("no snippet: %v", a.SnippetWarnings)
			}
		})
	}
}

// TestAdviceNeedsFactor: on the landing system, with its other settings
// (min_delay 100 ms, jitter 0.1), exponential backoff recovers within 60 s
// on every seed from factor 1.3 on, and not below, as the phase map of
// b.factor shows; the advice's runs are the sweep's cells, seed by seed.
func TestAdviceNeedsFactor(t *testing.T) {
	testrace.SkipUnder(t, longUnderRace)
	r := request(t, url.Values{"recover_within": {"60s"}})
	s := &search{r: r, rn: newRunner(context.Background(), r, Options{}), title: LibraryTitle(r.Library)}
	for _, k := range knobsOf(OwnLibrary, r.Scenario.Lanes[0].Params) {
		if k.param == "factor" {
			k.vals = []float64{1.1, 1.2, 1.3, 1.5, 2}
			s.knobs = []knob{k}
		}
	}
	sets := s.grid()
	runs, err := s.rn.measure(PhaseSearch, sets)
	if err != nil {
		t.Fatal(err)
	}
	for i, set := range sets {
		c := judge(r, []ScenarioRuns{{Scenario: ScenarioOutage, Runs: runs[i]}})
		if f, within := set.values[0], c.Recovery != nil && *c.Recovery <= 60; within != (f >= 1.3) {
			t.Errorf("factor %g: recovery within 60 s on every seed %v (slowest %v)", f, c.Meets.Recovery, c.Recovery)
		}
	}
	spec, err := sweep.ParseSpec(url.Values{"lanes": {"1"}, "a.strategy": {"exponential"},
		"x": {"a.factor"}, "x_from": {"1.1"}, "x_to": {"1.3"}, "x_steps": {"3"}, "seeds": {"5"}}, sweep.CLILimits)
	if err != nil {
		t.Fatal(err)
	}
	err = sweep.Run(context.Background(), spec, sweep.Options{Parallel: 2}, func(c sweep.Cell) {
		run := runs[c.X][c.Seed-1]
		if !sameRun(c.Lanes[0].Summary, run) {
			t.Errorf("factor %s seed %d: the sweep's %+v, the advice's %+v", spec.X.Values()[c.X], c.Seed, c.Lanes[0].Summary, run)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	// The advice itself, asked to recover within 60 s, never counts a
	// setting with the landing's other values (min_delay 100 ms, jitter
	// 0.1, no limit of attempts) below factor 1.3 as meeting it.
	a := advise(t, request(t, url.Values{"recover_within": {"60s"}, "seeds": {"3"}}))
	n := 0
	for _, c := range a.Searched {
		f, _ := strconv.ParseFloat(c.Settings["factor"], 64)
		if c.Settings["min_delay"] != "100ms" || c.Settings["jitter"] != "0.1" || c.Settings["max_attempts"] != "0" || c.Settings["retry_budget"] != "off" {
			continue
		}
		n++
		if c.Meets.Recovery && f < 1.3 {
			t.Errorf("%s meets the recovery goal", c.Words)
		}
	}
	if n == 0 {
		t.Error("the search tried no setting with the landing's other values")
	}
}

// TestAdviceCurve: on 001's curve server no setting of backoff recovers
// on every seed; the advice says so, names the protection that does, and
// that protection's run, replayed from its flags, recovers.
func TestAdviceCurve(t *testing.T) {
	testrace.SkipUnder(t, longUnderRace)
	a := advise(t, request(t, with(url.Values{"server_model": {"curve"}}, outageGoals)))
	if a.Met {
		t.Fatalf("met on the curve: %s", a.Headline)
	}
	for _, c := range a.Searched {
		if c.Recovery != nil {
			t.Errorf("%s recovers on every seed of the curve", c.Words)
		}
	}
	if len(a.Closest) == 0 || a.Closest[0].Best != nil {
		t.Errorf("closest %+v: want recovery, none on every seed", a.Closest)
	}
	sug := a.Suggestion
	if sug == nil || !sug.Meets.All || sug.Protection == "" || a.Advised != AdvisedSuggestion {
		t.Fatalf("suggestion %+v: want a protection that meets the goals", sug)
	}
	if !strings.Contains(a.Headline, sug.Protection[:strings.Index(sug.Protection, " (")]) {
		t.Errorf("headline %q does not name %s", a.Headline, sug.Protection)
	}
	q := parseFlags(t, a.RunFlags)
	for i, seed := range a.Seeds {
		q.Set("seed", strconv.FormatUint(seed, 10))
		if s := replay(t, q)[1]; !sameRun(s, sug.Runs[i]) || s.ServiceRecoveredAfter == nil {
			t.Errorf("seed %d: the suggestion's run gives %+v; the advice measured %+v", seed, s, sug.Runs[i])
		}
	}
}

// TestAdviceSameSeedSameAdvice: the same request gives the same advice,
// whatever the parallelism.
func TestAdviceSameSeedSameAdvice(t *testing.T) {
	testrace.SkipUnder(t, longUnderRace)
	r := request(t, url.Values{"library": {"istio"}, "seeds": {"3"}})
	var out [2]bytes.Buffer
	for i, par := range []int{1, 3} {
		a, err := Run(context.Background(), r, Options{Parallel: par})
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&out[i], a); err != nil {
			t.Fatal(err)
		}
	}
	if out[0].String() != out[1].String() {
		t.Error("two runs of one request differ")
	}
	var back Advice
	if err := json.Unmarshal(out[0].Bytes(), &back); err != nil || back.Headline == "" {
		t.Errorf("the JSON does not read back: %v", err)
	}
}

// TestAdviceCancel: a cancel stops the search and Run returns its error,
// every goroutine ended (goleak checks the package).
func TestAdviceCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := request(t, url.Values{})
	_, err := Run(ctx, r, Options{Parallel: 2, Progress: func(p Progress) {
		if p.Done == 10 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel = %v", err)
	}
}

// TestAdviceMemory: every run draws from Options.Memory; a budget too
// small for any run's first state stops every lane, and nothing stopped
// counts as recovered.
func TestAdviceMemory(t *testing.T) {
	r := request(t, url.Values{"library": {"aws"}, "seeds": {"1"}})
	calls := 0
	a, err := Run(context.Background(), r, Options{Parallel: 1, Memory: func() (*budget.Account, error) {
		calls++
		return budget.NewAccount(nil, 1), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls != a.Runs {
		t.Errorf("%d budgets for %d runs", calls, a.Runs)
	}
	if a.Met || a.Today.Runs[0].Outcome != sweep.OutcomeStopped {
		t.Errorf("with no memory: met %v, today %+v", a.Met, a.Today.Runs)
	}
	wantErr := errors.New("no budget left")
	if _, err := Run(context.Background(), r, Options{Memory: func() (*budget.Account, error) { return nil, wantErr }}); !errors.Is(err, wantErr) {
		t.Errorf("a budget's error: Run = %v", err)
	}
}

// TestEstimateCost: the estimate bounds the runs a search makes.
func TestEstimateCost(t *testing.T) {
	testrace.SkipUnder(t, longUnderRace)
	qs := []url.Values{{"server_model": {"curve"}, "seeds": {"2"}}, {"seeds": {"2"}}}
	if testing.Short() {
		qs = qs[:1]
	}
	for _, q := range qs {
		t.Run(scenario.EncodeQuery(q), func(t *testing.T) {
			r := request(t, q)
			est, err := EstimateCost(context.Background(), r, Options{})
			if err != nil {
				t.Fatal(err)
			}
			a, err := Run(context.Background(), r, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if est.Runs < a.Runs || est.CPU <= 0 || est.Pilot <= 0 || !est.Whole {
				t.Errorf("estimate %+v for %d runs", est, a.Runs)
			}
		})
	}
}

// TestKnobs: a library's knobs are its profile's back-off settings that
// its row reads, and its limiters' parameters with their switches;
// Istio's one backoff moves min_delay and max_delay together. The search
// tries at most maxBackoff settings of the back-off and maxCandidates in
// all, today's value of every knob among them, and keeps every value of
// a switch.
func TestKnobs(t *testing.T) {
	backoff := []string{"min_delay", "factor", "jitter", "max_delay", "max_attempts"}
	for _, c := range []struct {
		lib   string
		knobs []string
		tied  string
	}{
		{OwnLibrary, slices.Concat(backoff, []string{"retry_budget", "budget_percent", "budget_min_per_sec"}), ""},
		{"grpc", []string{"min_delay", "factor", "max_delay", "max_attempts", "grpc_throttle", "grpc_max_tokens", "grpc_token_ratio"}, ""},
		{"envoy", []string{"min_delay", "max_delay", "max_attempts", "envoy_retry_limit", "envoy_max_retries", "envoy_budget_percent", "envoy_min_retry_concurrency"}, ""},
		{"istio", []string{"min_delay", "max_attempts"}, "max_delay"},
		{"aws", []string{"max_attempts"}, ""},
		{"linkerd", []string{"max_attempts"}, ""},
		{"resilience4j", slices.Concat(backoff, []string{"breaker", "breaker_threshold", "breaker_open_for"}), ""},
		{"cenkalti", backoff, ""},
		{"client-go", backoff, ""},
		{"tenacity", []string{"min_delay", "factor", "max_delay", "max_attempts"}, ""},
		{"urllib3", []string{"min_delay", "max_delay", "max_attempts"}, ""},
	} {
		t.Run(c.lib, func(t *testing.T) {
			r := request(t, url.Values{"library": {c.lib}})
			s := &search{r: r, knobs: knobsOf(c.lib, r.Scenario.Lanes[0].Params)}
			s.thin()
			var names []string
			tied := ""
			n := 1
			for _, k := range s.knobs {
				names = append(names, k.param)
				if k.tied != nil {
					tied = k.tied.param
				}
				if k.row.Switch == "" && k.choices == nil {
					n *= len(k.vals)
				}
				if !containsValue(k.vals, k.today) {
					t.Errorf("%s: today's %g not among %v", k.param, k.today, k.vals)
				}
				if k.choices != nil && len(k.vals) != len(k.choices) {
					t.Errorf("%s: values %v, want every one of %v", k.param, k.vals, k.choices)
				}
			}
			grid := s.grid()
			if !reflect.DeepEqual(names, c.knobs) || tied != c.tied || n > maxBackoff || len(grid) > maxCandidates {
				t.Errorf("knobs %v (tied %q, %d back-off settings, %d in all), want %v (tied %q, at most %d and %d)",
					names, tied, n, len(grid), c.knobs, c.tied, maxBackoff, maxCandidates)
			}
			// Each setting is one run: a limiter's parameters vary only
			// while it is on.
			rn := newRunner(context.Background(), r, Options{})
			seen := map[string]bool{}
			for _, set := range grid {
				if key := rn.key(set, r.Scenario.Seed); seen[key] {
					t.Errorf("two settings run %s", key)
				} else {
					seen[key] = true
				}
			}
		})
	}
}

// TestKnobsEnvoyModes: Envoy's max_retries reads envoy_max_retries alone
// and its retry budget the budget's two parameters, so the search varies
// each only under its mode: every other stays today's, and each back-off
// setting runs with max_retries at its 3 sizes and the budget at its 3 × 3.
func TestKnobsEnvoyModes(t *testing.T) {
	r := request(t, url.Values{"library": {"envoy"}})
	s := &search{r: r, knobs: knobsOf("envoy", r.Scenario.Lanes[0].Params)}
	s.thin()
	modes := map[string]int{}
	for _, set := range s.grid() {
		l := set.p.Lanes[0].Params
		modes[l.EnvoyRetryLimit]++
		switch l.EnvoyRetryLimit {
		case strategies.EnvoyMaxRetries:
			if l.EnvoyBudgetPercent != strategies.DefaultEnvoyBudgetPercent || l.EnvoyMinRetryConcurrency != strategies.DefaultEnvoyMinRetryConcurrency {
				t.Errorf("max_retries with a budget of %g %% and %d", l.EnvoyBudgetPercent, l.EnvoyMinRetryConcurrency)
			}
		case strategies.EnvoyBudget:
			if l.EnvoyMaxRetries != strategies.DefaultEnvoyMaxRetries {
				t.Errorf("a budget with max_retries %d", l.EnvoyMaxRetries)
			}
		default:
			t.Errorf("envoy_retry_limit %q: Envoy always has a retry limit", l.EnvoyRetryLimit)
		}
	}
	if modes[strategies.EnvoyMaxRetries] == 0 || modes[strategies.EnvoyBudget] != 3*modes[strategies.EnvoyMaxRetries] {
		t.Errorf("settings by mode %v: want the budget's 3 × 3 sizes to max_retries' 3", modes)
	}
}

func containsValue(vs []float64, v float64) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// TestPareto: the front keeps the candidates no other beats on both
// recovery and attempts, by recovery; one that never recovered is not on
// it.
func TestPareto(t *testing.T) {
	c := func(rec, att float64) Candidate {
		return Candidate{Words: strconv.FormatFloat(rec, 'g', -1, 64), Recovery: &rec, AttemptsPerRequest: att}
	}
	never := Candidate{Words: "never", AttemptsPerRequest: 1}
	got := pareto([]Candidate{c(10, 1.2), c(5, 1.5), c(6, 1.6), never, c(3, 2), c(5, 1.5)})
	var words []string
	for _, g := range got {
		words = append(words, g.Words)
	}
	if want := []string{"3", "5", "10"}; !reflect.DeepEqual(words, want) {
		t.Errorf("front %v, want %v", words, want)
	}
}

// TestWriteText: the text says the headline, each seed, the margins'
// runs, the snippet and the flags that reproduce it.
func TestWriteText(t *testing.T) {
	testrace.SkipUnder(t, longUnderRace)
	a := advise(t, request(t, with(url.Values{"library": {"grpc"}, "seeds": {"2"}}, outageGoals)))
	var b bytes.Buffer
	if err := WriteText(&b, a); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{a.Headline, "seed 1 ", "seed 2 ", "Margin", "holds: backofflab run ", "Configuration (grpc):", `"initialBackoff"`,
		"Reproduce (lane a today, lane b the advice, seed 1): backofflab run -a.strategy=grpc_retry", "Map around the recommendation"} {
		if !strings.Contains(out, want) {
			t.Errorf("the text lacks %q:\n%s", want, out)
		}
	}
}
