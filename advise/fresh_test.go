package advise

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/internal/testrace"
)

// TestFreshCheck: the fresh check runs the advice and the runner-up (the
// next by the goals' ranking) on as many seeds as the search, none of
// them the search's, and "backofflab run" with the advice's flags gives
// its runs back; the JSON keeps recommended.settings and
// recommended.lane_query beside it.
func TestFreshCheck(t *testing.T) {
	testrace.SkipUnder(t, longUnderRace)
	// Goals that a setting of Istio alone meets: the fresh check is then
	// the recommendation's.
	a := advise(t, request(t, url.Values{"library": {"istio"}, "seeds": {"2"}, "seed": {"1"}, "p99": {"0s"}, "success": {"0"}}))
	f := a.FreshCheck
	if f == nil || a.Recommended == nil {
		t.Fatalf("no fresh check of %q", a.Headline)
	}
	if want := []uint64{3, 4}; !slices.Equal(f.Seeds, want) || !slices.Equal(a.Seeds, []uint64{1, 2}) {
		t.Errorf("search seeds %v, fresh seeds %v: want 1, 2 and %v", a.Seeds, f.Seeds, want)
	}
	for _, r := range []*FreshResult{&f.Advised, f.RunnerUp} {
		if r == nil {
			t.Fatal("no runner-up")
		}
		var seeds []uint64
		for _, run := range r.Runs {
			seeds = append(seeds, run.Seed)
		}
		if !slices.Equal(seeds, f.Seeds) {
			t.Errorf("%s ran on seeds %v, want %v", r.Words, seeds, f.Seeds)
		}
	}
	if f.Advised.LaneQuery != a.Recommended.LaneQuery {
		t.Errorf("fresh check of %s, but %s is recommended", f.Advised.Words, a.Recommended.Words)
	}
	ranked := slices.Clone(a.Searched)
	sortBy(ranked, better)
	i := slices.IndexFunc(ranked, func(c Candidate) bool { return c.LaneQuery != a.Recommended.LaneQuery })
	if f.RunnerUp.LaneQuery != ranked[i].LaneQuery {
		t.Errorf("runner-up %s, want the next by the ranking, %s", f.RunnerUp.Words, ranked[i].Words)
	}
	q := parseFlags(t, a.RunFlags)
	for i, seed := range f.Seeds {
		q.Set("seed", strconv.FormatUint(seed, 10))
		if s := replay(t, q)[1]; !sameRun(s, f.Advised.Runs[i]) {
			t.Errorf("seed %d: run gives %+v, the fresh check %+v", seed, s, f.Advised.Runs[i])
		}
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, a); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Recommended map[string]json.RawMessage `json:"recommended"`
		FreshCheck  map[string]json.RawMessage `json:"fresh_check"`
	}
	if err := json.Unmarshal(b.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"settings", "lane_query"} {
		if _, ok := j.Recommended[k]; !ok {
			t.Errorf("the JSON's recommended lacks %s", k)
		}
	}
	for _, k := range []string{"seeds", "advised", "runner_up", "holds"} {
		if _, ok := j.FreshCheck[k]; !ok {
			t.Errorf("the JSON's fresh_check lacks %s", k)
		}
	}
}

// TestFreshCheckNoClaim: a recommendation that meets the goals on the
// search's seeds but misses one on a fresh seed is not claimed. On seeds
// 20 and 21 Linkerd's recommendation (its one knob: no map moves it)
// recovers within 8 s at worst, and on fresh seeds 22 and 23 in more:
// asked to recover within 8.05 s (a recovery is timed in ticks of
// 100 ms), the search still recommends it, and the headline says it does
// not hold.
func TestFreshCheckNoClaim(t *testing.T) {
	testrace.SkipUnder(t, longUnderRace)
	q := url.Values{"library": {"linkerd"}, "seeds": {"2"}, "seed": {"20"}, "p99": {"0s"}, "success": {"0"}}
	a := advise(t, request(t, q))
	rec, f := a.Recommended, a.FreshCheck
	worst := 0.0
	for _, r := range f.Advised.Runs {
		if r.Recovery != nil {
			worst = max(worst, *r.Recovery)
		}
	}
	if !a.Met || !f.Holds || !a.Claimed || rec.Recovery == nil {
		t.Fatalf("the construction needs a recommendation that holds on the default goals: %s", a.Headline)
	}
	goal := *rec.Recovery + 0.05
	if worst <= goal {
		t.Fatalf("fresh seeds at worst %v: not over the goal %v", worst, goal)
	}
	q.Set(RecoverParam, strconv.FormatFloat(goal, 'f', 2, 64)+"s")
	edge := advise(t, request(t, q))
	if !edge.Met || edge.Recommended.LaneQuery != rec.LaneQuery {
		t.Fatalf("at the edge the search recommends %s (met %v), want %s", edge.Recommended.Words, edge.Met, rec.Words)
	}
	ef := edge.FreshCheck
	if ef.Holds || edge.Claimed || ef.Advised.Held == len(ef.Seeds) || len(ef.Advised.Misses) == 0 {
		t.Fatalf("fresh check %+v: want a miss", ef.Advised)
	}
	miss := ef.Advised.Misses[0]
	if !strings.Contains(miss, "past the goal of "+secs(goal)) {
		t.Errorf("miss %q does not name the goal", miss)
	}
	if !strings.HasPrefix(edge.Headline, "No recommendation: ") || !strings.Contains(edge.Headline, miss) {
		t.Errorf("headline %q: want no claim, and the miss %q", edge.Headline, miss)
	}
	var b strings.Builder
	if err := WriteText(&b, edge); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Checked on 2 fresh seeds (22 to 23") || !strings.Contains(b.String(), ef.Advised.Summary) {
		t.Errorf("the text lacks the fresh check:\n%s", b.String())
	}
}
