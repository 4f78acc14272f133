package advise

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/backofflab/backofflab/internal/present"
)

// secs writes seconds as the pages say them (22 s, 500 ms).
func secs(v float64) string { return present.Duration(v, 3) }

// num writes a number to 3 significant digits.
func num(v float64) string { return present.Sig(v, 3) }

// PerRequest says v attempts per request as the advice writes it (three
// significant figures), in the singular for exactly one.
func PerRequest(v float64) string {
	if n := num(v); n != "1" {
		return n + " attempts per request"
	}
	return "1 attempt per request"
}

// CellNotAllowed is a map's cell that is not a setting: one the library
// cannot express, or a max_delay under its min_delay.
const CellNotAllowed = "not_allowed"

// outcomeWords says a candidate's result over the seeds: each goal's
// worst figure.
func outcomeWords(c *Candidate, seeds int) string {
	var w []string
	for _, g := range c.Goals {
		w = append(w, goalWords(g))
	}
	if c.Dropped != "" {
		return fmt.Sprintf("was dropped after a run missed a goal; its runs at worst: %s", strings.Join(w, "; "))
	}
	if len(w) == 0 {
		return fmt.Sprintf("ran on %d seeds", seeds)
	}
	return "measured at worst: " + strings.Join(w, "; ")
}

// tradeOffs says, goal by goal, what the recommendation rec gave up: the
// candidate of cs (those that ran the whole suite) best on that goal
// alone, its figure against rec's, and whether it met the other goals.
func tradeOffs(cs []Candidate, rec *Candidate) []string {
	var out []string
	for gi, res := range rec.Goals {
		g := lookupGoal(res.Goal)
		best := -1
		for i := range cs {
			c := &cs[i]
			if c.Dropped != "" || len(c.Goals) != len(rec.Goals) || c.Goals[gi].Worst == nil {
				continue
			}
			if best < 0 || c.Goals[gi].Slack > cs[best].Goals[gi].Slack {
				best = i
			}
		}
		if best < 0 || res.Worst == nil || cs[best].LaneQuery == rec.LaneQuery || cs[best].Goals[gi].Slack <= res.Slack+tieTolerance {
			continue
		}
		b := &cs[best]
		w := fmt.Sprintf("On %s alone the best setting is %s: at worst %s, where the recommendation has %s",
			g.label, b.Words, g.saying(*b.Goals[gi].Worst), g.saying(*res.Worst))
		if b.Meets.All {
			w += fmt.Sprintf("; it meets every goal too, with a margin of %s against %s", num(b.Margin), num(rec.Margin))
		} else {
			var missed []string
			for _, o := range b.Goals {
				if !o.Met {
					missed = append(missed, goalWords(o))
				}
			}
			w += "; but it misses " + strings.Join(missed, "; ")
		}
		out = append(out, w+".")
	}
	return out
}

// keptDefaults says which knobs the recommendation rec keeps at today's
// value because changing them changes no goal beyond tieTolerance: every
// candidate of cs that differs from rec in that knob alone meets every
// goal with a margin within tieTolerance of rec's.
func keptDefaults(cs []Candidate, rec, today *Candidate) []string {
	alone := map[string][]*Candidate{}
	for i := range cs {
		c := &cs[i]
		if c.Dropped != "" {
			continue
		}
		var diff []string
		for k, v := range c.Settings {
			if rec.Settings[k] != v {
				diff = append(diff, k)
			}
		}
		if len(diff) == 1 && len(c.Settings) == len(rec.Settings) {
			alone[diff[0]] = append(alone[diff[0]], c)
		}
	}
	var kept []string
	for _, k := range slices.Sorted(maps.Keys(alone)) {
		if rec.Settings[k] != today.Settings[k] {
			continue
		}
		if !slices.ContainsFunc(alone[k], func(c *Candidate) bool { return !c.Meets.All || math.Abs(c.Margin-rec.Margin) > tieTolerance }) {
			var vals []string
			for _, c := range alone[k] {
				vals = append(vals, c.Settings[k])
			}
			kept = append(kept, fmt.Sprintf("%s (tried %s too)", k, strings.Join(vals, ", ")))
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("Kept at today's value, as no other value tried changed any goal by more than %s of the goal's size (the margin's tolerance): %s.",
		num(tieTolerance), strings.Join(kept, "; "))}
}

// words writes a's Headline and Details; advised is the candidate the
// margin, map and snippet are of.
func (s *search) words(a *Advice, advised *Candidate) {
	k := s.r.Seeds
	switch {
	case a.Recommended == nil:
		a.Headline = fmt.Sprintf("%s has no setting to search here.", s.title)
	case a.Met && a.Today.Meets.All:
		a.Headline = fmt.Sprintf("Your settings today already meet your goals on all %d seeds: they %s. The best setting found, %s, %s.",
			k, outcomeWords(&a.Today, k), a.Recommended.Words, outcomeWords(a.Recommended, k))
	case a.Met:
		a.Headline = fmt.Sprintf("Use %s. It meets your goals on all %d seeds: it %s.", a.Recommended.Words, k, outcomeWords(a.Recommended, k))
	case a.Suggestion != nil && a.Suggestion.Meets.All:
		a.Headline = fmt.Sprintf("No setting of %s meets your goals on every seed; adding %s does: it %s.",
			s.title, protWords(a.Suggestion), outcomeWords(a.Suggestion, k))
	case a.Recommended.Recovery == nil && (a.Suggestion == nil || a.Suggestion.Recovery == nil):
		a.Headline = fmt.Sprintf("No setting of %s recovers on every seed, and no protection tried makes one.", s.title)
	default:
		a.Headline = fmt.Sprintf("No setting of %s meets your goals on every seed, and no protection tried does; the closest: %s, which %s.",
			s.title, advised.Words, outcomeWords(advised, k))
	}
	if f := a.FreshCheck; f != nil && advised != nil && advised.Meets.All && !a.Claimed {
		// The search's seeds alone make no claim: the fresh ones did not
		// bear it out.
		a.Headline = fmt.Sprintf("No recommendation: %s met your goals on all %d seeds of the search, but on %d fresh seeds it %s.",
			advised.Words, k, len(f.Seeds), f.Advised.Summary)
	}
	var d []string
	var knobs []string
	for _, kn := range s.knobs {
		knobs = append(knobs, kn.param)
	}
	d = append(d, fmt.Sprintf("The goals: %s.", a.Goals.Words))
	d = append(d, fmt.Sprintf("Searched %d settings of %s, over its knobs %s (%d on a grid of round values with today's among them, %d more on the map around the best), each a whole run of %s on seeds %d to %d: %d runs in all.",
		a.Candidates, s.title, strings.Join(knobs, ", "), s.grid0, a.Candidates-s.grid0, s.system(), a.Seeds[0], a.Seeds[len(a.Seeds)-1], a.Runs))
	d = append(d, fmt.Sprintf("Today, %s %s.", a.Today.Words, outcomeWords(&a.Today, k)))
	if a.Met {
		d = append(d, fmt.Sprintf("The recommendation, %s, %s.", a.Recommended.Words, outcomeWords(a.Recommended, k)))
	} else if a.Recommended != nil {
		d = append(d, fmt.Sprintf("No setting met every goal on every seed. The best, %s, %s.", a.Recommended.Words, outcomeWords(a.Recommended, k)))
		for _, g := range a.Closest {
			d = append(d, "How close: "+g.Words+".")
		}
		if a.Suggestion != nil {
			verb := "meets every goal"
			if !a.Suggestion.Meets.All {
				verb = "came closest, though it does not meet every goal"
			}
			var names []string
			for _, p := range a.Protections {
				names = append(names, p.Protection)
			}
			d = append(d, fmt.Sprintf("Tried %d protections on it (%s); %s %s: it %s.", len(a.Protections), strings.Join(names, "; "), protWords(a.Suggestion), verb, outcomeWords(a.Suggestion, k)))
		}
	}
	if a.Margin != nil {
		d = append(d, a.Margin.Outage.Words, a.Margin.Load.Words)
	}
	if a.FreshCheck != nil {
		d = append(d, a.FreshCheck.Words)
	}
	if a.Met {
		d = append(d, fmt.Sprintf("Recommended for its margin, %s: the largest worst-goal slack, or within %s of it nearest today's settings, then with jitter, then with a bounded max_attempts.",
			num(a.Recommended.Margin), num(tieTolerance)))
		d = append(d, tradeOffs(a.Searched, a.Recommended)...)
		d = append(d, keptDefaults(a.Searched, a.Recommended, &a.Today)...)
	}
	d = append(d, fmt.Sprintf("Dropped early: %d settings of %d, each after a run that missed a goal (the outage's first seed, then the ordinary day's, then the herd's; a goal must hold on every seed, so one miss is decisive).",
		dropped(a.Searched), len(a.Searched)))
	d = append(d, "How it is measured: every setting runs the suite, "+s.suiteWords()+"; "+
		"a run recovers once its answers are back to 90 % of the rate before the disruption for 5 s, timed from its end; "+
		"attempts per request are the outage's run's (every attempt sent over every request begun); "+
		"a request succeeds when its answer comes within the patience, and its latency runs from its first attempt to its final answer, waits included; "+
		"a setting meets a goal only when every seed of every scenario the goal judges does, and the advice is claimed only when it holds on as many fresh seeds too.")
	a.Details = d
}

// dropped counts the candidates of cs a staged search dropped.
func dropped(cs []Candidate) int {
	n := 0
	for _, c := range cs {
		if c.Dropped != "" {
			n++
		}
	}
	return n
}

// suiteWords says the suite's scenarios for the request.
func (s *search) suiteWords() string {
	p := &s.r.Scenario
	return fmt.Sprintf("the ordinary day (no outage, %s of answers failing fast), the outage (%s %s at %s) and the herd (no outage, every client sending at once at %s)",
		share(s.r.Errors), secs(p.OutageFor.Seconds()), p.Outage, secs(p.OutageAt.Seconds()), secs(p.OutageAt.Seconds()))
}

// system says the request's system and outage in a few words.
func (s *search) system() string {
	p := &s.r.Scenario
	load := fmt.Sprintf("%d clients thinking %s", p.Clients, secs(p.Think.Seconds()))
	if p.Arrival == "open" {
		load = fmt.Sprintf("%s requests a second", num(p.Rate))
	}
	return fmt.Sprintf("%s against the %s server with a %s %s at %s", load, p.ServerModel, secs(p.OutageFor.Seconds()), p.Outage, secs(p.OutageAt.Seconds()))
}

// protWords is the protection of a candidate in words: what follows
// "with" in its Words.
func protWords(c *Candidate) string {
	if _, w, ok := strings.Cut(c.Words, ", with "); ok {
		return w
	}
	return c.Words
}
