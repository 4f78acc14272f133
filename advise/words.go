package advise

import (
	"fmt"
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

// outcomeWords says a candidate's result over the seeds.
func outcomeWords(c *Candidate, seeds int) string {
	if c.Recovery == nil {
		return fmt.Sprintf("did not recover on %d of %d seeds (seed %d first), with up to %s",
			seeds-recovered(c), seeds, c.WorstSeed, PerRequest(c.AttemptsPerRequest))
	}
	w := fmt.Sprintf("recovered within %s on every seed (the slowest, seed %d), with at most %s",
		secs(*c.Recovery), c.WorstSeed, PerRequest(c.AttemptsPerRequest))
	if *c.Recovery < 0.05 {
		w = fmt.Sprintf("recovered as soon as the outage ended on every seed, with at most %s", PerRequest(c.AttemptsPerRequest))
	}
	if c.P99 > 0 {
		w += fmt.Sprintf(" and a p99 of at most %s once recovered", secs(c.P99))
	}
	return w
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
	if a.Recommended != nil && a.Recommended.Settings["min_delay"] != a.Today.Settings["min_delay"] {
		d = append(d, "A longer first wait (min_delay) helps a server that is down, and delays by as much every retry of a lone failure while it is up: these goals do not weigh that, a p99 goal (latency once recovered) does in part.")
	}
	d = append(d, "How it is measured: a run recovers once its answers are back to 90 % of the rate before the outage for 5 s, timed from the outage's end; "+
		"attempts per request are the run's (every attempt sent over every request begun, the outage included: without failures every policy sends 1.0); "+
		"a setting meets a goal only when every seed does, and the advice is claimed only when it holds on as many fresh seeds too.")
	a.Details = d
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
