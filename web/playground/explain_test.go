package playground

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// TestEveryServerModelHasAStory: the panel explains every server model.
func TestEveryServerModelHasAStory(t *testing.T) {
	for _, m := range scenario.ServerModels {
		if storyOf[m.Name] == nil {
			t.Errorf("server model %s has no story in storyOf", m.Name)
		}
	}
	if len(storyOf) != len(scenario.ServerModels) {
		t.Errorf("storyOf has %d stories for %d server models", len(storyOf), len(scenario.ServerModels))
	}
}

// TestExplainCarriesTheRunsNumbers: each story states the mechanism with
// the run's own figures, derived here by hand from the parameters.
func TestExplainCarriesTheRunsNumbers(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  []string
	}{
		// 30 workers of 100 ms: 300/s; 1000 clients / (10 s + 0.1 s) ≈ 99/s.
		{"", []string{"faster than the workers serve (300/s)", "30 workers serve one request each, 100 ms on average: 300 requests/s",
			"offer about 99/s, so normally no request waits", "times out after 2 s", "accept backlog (up to 4096)",
			"floods in at once", "faster than 300/s", "never learns that a client gave up", "a retry storm"}},
		// 5 workers of 100 ms serve 50/s, less than the clients offer.
		{"workers=5", []string{"5 workers", "50 requests/s", "more than the workers serve, even without an outage"}},
		// 001's curve: 100 ms × 1.05^((c − 30)/15) passes 2 s where
		// (c − 30)/15 > ln 20 / ln 1.05 = 61.40, c − 30 > 921.0: c = 952.
		{"server_model=curve", []string{"answers in 100 ms up to 30 requests inside; every 15 more multiply its latency by 1.05, up to 1 h",
			"From 952 requests inside, its latency passes the clients' 2 s timeout", "after the 15 s pause"}},
		// Linear: 100 ms + 1 ms × c > 2 s from c = 1901.
		{"server_model=linear", []string{"100 ms plus 1 ms per request inside", "From 1901 requests inside"}},
		{"server_model=linear&max_server_delay=1s", []string{"never passes the clients' 2 s timeout"}},
		{"outage=crash", []string{"connects are refused", "starts empty"}},
		{"outage=partition", []string{"every attempt is lost and times out after 2 s"}},
		{"arrival=open&rate=50", []string{"Requests arrive at 50/s, whatever the server does"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q, _ := url.ParseQuery(tc.query)
			sc, errs := scene.Decode(q, kit.DefaultLimits)
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			v := explainOf(&sc.Params)
			text := v.Gist + "\n" + strings.Join(v.Story, "\n")
			if v.Gist == "" {
				t.Error("no gist")
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("story lacks %q:\n%s", w, text)
				}
			}
			healthy := fmt.Sprintf("at most %d requests are inside it for 5 s", scenario.HealthyOf(&sc.Params))
			if !strings.Contains(v.Verdicts, healthy) || !strings.Contains(v.Verdicts, "answers are back to 90 % of the rate before the outage for 5 s") {
				t.Errorf("verdicts %q lack %q", v.Verdicts, healthy)
			}
			if v.Source.URL != "https://github.com/smira/exponential-backoff" || !strings.Contains(v.Source.Text, "Andrey Smirnov's 2014 post") {
				t.Errorf("source %+v", v.Source)
			}
		})
	}
}

// TestEveryOutageHasAStory: every outage kind a run may schedule is told
// by a story of its own, not a pause's.
func TestEveryOutageHasAStory(t *testing.T) {
	for _, k := range scenario.FaultKinds {
		if !k.Outage {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			if _, ok := downStories[k.Name]; !ok {
				t.Fatalf("the outage kind %q has no story in downStories", k.Name)
			}
			p := scenario.Defaults()
			p.Outage = k.Name
			down, flood := downStory(&p)
			if k.Name != scenario.OutagePause {
				pd, pf := downStory(&scenario.Params{Outage: scenario.OutagePause, Timeout: p.Timeout, Backlog: p.Backlog})
				if down == pd || flood == pf {
					t.Errorf("the %s outage is told as a pause: %q", k.Name, down)
				}
			}
		})
	}
}

// TestEveryFaultHasAStory: every fault kind that is not an outage is told
// by a story of its own, which names it.
func TestEveryFaultHasAStory(t *testing.T) {
	for _, k := range scenario.FaultKinds {
		if k.Outage {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			tell, ok := faultStories[k.Name]
			if !ok {
				t.Fatalf("the fault kind %q has no story in faultStories", k.Name)
			}
			p := scenario.Defaults()
			if story := tell(&p, scenario.Fault{Kind: k.Name, At: 20 * time.Second, For: 5 * time.Second, M: 2}); !strings.Contains(story, k.Label) {
				t.Errorf("the %s's story does not name it: %q", k.Label, story)
			}
		})
	}
}

// TestExplainSpeaksOfTheRunsFaults: the panel of a run whose faults are
// none of them outages (the load-spike presets, the herd's) tells of its
// first fault and never of an outage; a run with no fault at all is told
// no outage happened.
func TestExplainSpeaksOfTheRunsFaults(t *testing.T) {
	text := func(v explainView) string { return v.Gist + "\n" + strings.Join(v.Story, "\n") + "\n" + v.Verdicts }
	for name, sc := range spikePresets(t) {
		t.Run(name, func(t *testing.T) {
			got := text(explainOf(&sc.Params))
			if strings.Contains(strings.ToLower(got), "outage") {
				t.Errorf("the panel of a run without an outage speaks of one:\n%s", got)
			}
			if fault := scenario.FaultWords(scenario.AllFaults(&sc.Params)[0].Kind); !strings.Contains(got, fault) {
				t.Errorf("the panel does not tell of %s:\n%s", fault, got)
			}
		})
	}
	t.Run("no fault", func(t *testing.T) {
		q, _ := url.ParseQuery("outage=none")
		sc, errs := scene.Decode(q, kit.DefaultLimits)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		got := text(explainOf(&sc.Params))
		for _, w := range []string{"after an outage", "the outage"} {
			if strings.Contains(got, w) {
				t.Errorf("the panel of a run with no fault says %q:\n%s", w, got)
			}
		}
		if !strings.Contains(got, "No outage or other fault is scheduled") {
			t.Errorf("the panel does not say that nothing is scheduled:\n%s", got)
		}
	})
}
