package playground

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/backofflab/backofflab/internal/present"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// explain.go writes the page's "What you are seeing" panel: why the run's
// server storms or recovers after an outage, in a few sentences that carry
// the run's own numbers; how to read a verdict; and where the experiment
// comes from. It is the one place the page's explanation lives: the script
// shows it as it comes (helloMsg.Explain, paramsMsg.Explain), and the
// README points here rather than keeping a second copy.

// explainView is the panel for one run. The page gets its sentences as
// prose parts, the vocabulary's names in them set apart as code.
type explainView struct {
	Title string `json:"title"`
	// Gist is the story in a sentence, shown while the panel is closed.
	Gist string `json:"-"`
	// Story is the server model's mechanism, paragraph by paragraph, with
	// the run's numbers.
	Story []string `json:"-"`
	// Verdicts says how a verdict's recovery is measured.
	Verdicts string `json:"-"`
	// GistParts, StoryParts and VerdictParts are Gist, Story and Verdicts
	// as the page shows them (prose).
	GistParts    []scene.ProsePart   `json:"gist"`
	StoryParts   [][]scene.ProsePart `json:"story"`
	VerdictParts []scene.ProsePart   `json:"verdicts"`
	// Source names and links 001, the experiment the playground
	// reproduces.
	Source sourceLink `json:"source"`
}

// sourceLink is a document the page names, with its address.
type sourceLink struct {
	Text string `json:"text"` // what it is, in a sentence
	Link string `json:"link"` // the link's words
	URL  string `json:"url"`
}

// source001 is 001: Andrey Smirnov's 2014 post on exponential backoff on
// smira.ru (in Russian), whose Go client and server the simulator
// reproduces. The post links its code on GitHub, the address given here.
var source001 = sourceLink{
	Text: "The experiment comes from Andrey Smirnov's 2014 post on exponential backoff (smira.ru, in Russian): 1000 Go clients against one Go server, paused with SIGSTOP for 15 s and resumed. The simulator reproduces its client and server; its code is",
	Link: "github.com/smira/exponential-backoff",
	URL:  "https://github.com/smira/exponential-backoff",
}

// storyOf is each server model's story, by server_model: the model table
// (scenario.ServerModels) has one row per model, and
// TestEveryServerModelHasAStory keeps the two in step.
var storyOf = map[string]func(p *scenario.Params) (gist string, story []string){
	"curve":             curveStory,
	"linear":            linearStory,
	scenario.QueueModel: queueStory,
}

// explainOf returns the panel of p's run.
func explainOf(p *scenario.Params) explainView {
	m := scenario.ServerModelOf(p)
	v := explainView{Title: "What you are seeing", Verdicts: scenario.RecoveryRules(p), Source: source001}
	if f, ok := storyOf[m.Name]; ok {
		v.Gist, v.Story = f(p)
	}
	v.GistParts, v.StoryParts, v.VerdictParts = scene.ProseOf(v.Gist), scene.ProseOfAll(v.Story), scene.ProseOf(v.Verdicts)
	return v
}

// downStories tell, by outage kind, what happens while the server is
// down and how the resume begins. Every outage kind of
// scenario.FaultKinds has one (TestEveryOutageHasAStory): a new kind
// without one would be told as something it is not.
var downStories = map[string]func(p *scenario.Params) (down, flood string){
	scenario.OutagePause: func(p *scenario.Params) (string, string) {
		return fmt.Sprintf("While the server is paused (shaded), every attempt times out after %s and its client retries after its strategy's delay: "+
				"the connections pile up in the accept backlog (up to %d), waiting for the resume.",
				say(p.Timeout), p.Backlog),
			"At the resume the whole backlog floods in at once, abandoned requests included."
	},
	scenario.OutageCrash: func(p *scenario.Params) (string, string) {
		return "While the server is down (shaded: crashed), connects are refused and the work inside is lost: attempts fail at once, and their clients retry after their strategy's delay. " +
				"Nothing waits for the server, so no backlog floods in when it comes back.",
			"When the server comes back, it starts empty."
	},
	scenario.OutagePartition: func(p *scenario.Params) (string, string) {
		return fmt.Sprintf("While the network is down (shaded: partitioned), every attempt is lost and times out after %s, and its client retries after its strategy's delay. "+
				"Nothing reaches the server, so no backlog floods in when the network comes back.", say(p.Timeout)),
			"When the network comes back, the attempts reach the server as they come."
	},
}

// downStory is what happens while the server is down, by the outage kind,
// and flood is how the resume begins. A run that schedules no outage is
// told a pause's: Stop server pauses it.
func downStory(p *scenario.Params) (down, flood string) {
	if tell, ok := downStories[p.Outage]; ok {
		return tell(p)
	}
	return downStories[scenario.OutagePause](p)
}

// faultStories tell, by the kind of a fault that is not an outage, what
// happens while it lasts. Every such kind of scenario.FaultKinds has one
// (TestEveryFaultHasAStory): a run whose only fault is a load spike must
// not be told of an outage it never had.
var faultStories = map[string]func(p *scenario.Params, f scenario.Fault) string{
	scenario.FaultLoadSpike: func(p *scenario.Params, f scenario.Fault) string {
		load := "its clients think " + trimNum(f.M) + " times less between requests"
		if p.Arrival == scenario.ArrivalOpen {
			load = fmt.Sprintf("requests arrive at %s/s", fmtRate(p.Rate*f.M))
		}
		return fmt.Sprintf("During the load spike (shaded, %s from %s), the offered load is %s times its usual: %s. "+
			"Attempts wait longer, those that wait past the %s timeout are retried, and the retries add to the load.",
			say(f.For), say(f.At), trimNum(f.M), load, say(p.Timeout))
	},
	scenario.FaultLatencySpike: func(p *scenario.Params, f scenario.Fault) string {
		return fmt.Sprintf("During the latency spike (shaded, %s from %s), the server takes %s times as long over each request, so it serves fewer a second; "+
			"attempts that wait past the %s timeout are retried, and the retries add to the load.",
			say(f.For), say(f.At), trimNum(f.M), say(p.Timeout))
	},
	scenario.FaultCapacityDrop: func(p *scenario.Params, f scenario.Fault) string {
		return fmt.Sprintf("During the capacity drop (shaded, %s from %s), the server keeps %s of its capacity; "+
			"attempts that wait past the %s timeout are retried, and the retries add to the load.",
			say(f.For), say(f.At), trimNum(f.M), say(p.Timeout))
	},
	scenario.FaultErrorBurst: func(p *scenario.Params, f scenario.Fault) string {
		return fmt.Sprintf("During the error burst (shaded, %s from %s), a share of %s of the answers fail at once with an error, "+
			"and their clients retry after their strategy's delay.", say(f.For), say(f.At), trimNum(f.M))
	},
	scenario.FaultHerd: func(p *scenario.Params, f scenario.Fault) string {
		when := "at " + say(f.At)
		if f.For > 0 {
			when = fmt.Sprintf("spread over %s from %s", say(f.For), say(f.At))
		}
		wave := fmt.Sprintf("a share of %s of the clients that are thinking send their next request at once, %s", trimNum(f.M), when)
		if f.M == 1 {
			wave = "every client that is thinking sends its next request at once, " + when
		}
		if p.Arrival == scenario.ArrivalOpen {
			wave = fmt.Sprintf("the requests that would arrive over %s from %s (about %s, a share of %s of them) arrive at once, at its start",
				say(f.For), say(f.At), fmtRate(f.M*p.Rate*f.For.Seconds()), trimNum(f.M))
		}
		return fmt.Sprintf("At the herd (shaded), %s, as after a cache expiry or a deploy of the clients. "+
			"Those that wait past the %s timeout are retried: with no jitter their retries come back together, a wave at every retry interval, and jitter spreads them.",
			wave, say(p.Timeout))
	},
}

// disruption is what the explanation tells of what disrupts p's run:
// what, its name in a gist ("an outage", "a load spike"); down, what
// happens while it lasts; and flood, how its end begins. A run with an
// outage is told its outage (downStory); a run whose faults are none of
// them outages is told its first fault, with no word of an outage; a run
// with neither is told what Stop server would do, as what it would do.
func disruption(p *scenario.Params) (what, down, flood string, outage bool) {
	all := scenario.AllFaults(p)
	for _, f := range all {
		if scenario.IsOutage(f.Kind) {
			down, flood = downStory(p)
			return "an outage", down, flood, true
		}
	}
	if len(all) > 0 {
		f := all[0]
		if tell, ok := faultStories[f.Kind]; ok {
			words := strings.TrimPrefix(scenario.FaultWords(f.Kind), "the ")
			flood = "When it ends, the requests that piled up during it are still there, and their retries with them."
			if scenario.IsWave(f.Kind) {
				flood = "After it, the requests it sent at once are still there, and their retries with them."
			}
			return "a " + words, tell(p, f), flood, false
		}
	}
	down, flood = downStories[scenario.OutagePause](p)
	return "the server's stop by hand", "No outage or other fault is scheduled in this run: the server serves its load. Stop server pauses it by hand. " + down, flood, true
}

// abandoned is the sentence on the work the server does for clients that left.
const abandoned = "The server never learns that a client gave up (unless its lane sets cancel_on_timeout), so it works on abandoned requests too."

func queueStory(p *scenario.Params) (string, []string) {
	capacity := float64(p.Workers) / p.ServiceTime.Seconds()
	what, down, flood, _ := disruption(p)
	gist := fmt.Sprintf("after %s, a lane whose clients retry faster than the workers serve (%s/s) keeps their queue full: a retry storm; a lane that backs off lets it drain.",
		what, fmtRate(capacity))
	return gist, []string{
		fmt.Sprintf("%d workers serve one request each, %s on average: %s requests/s (the dashed line on the throughput chart). %s.",
			p.Workers, say(p.ServiceTime), fmtRate(capacity), loadSentence(p, p.ServiceTime, capacity, what)),
		down,
		fmt.Sprintf("%s %s A request that waited over %s is answered to nobody: its client has already retried. "+
			"Clients that send attempts faster than %s/s keep the queue full and no answer comes in time again: a retry storm. "+
			"A backoff that slows them below that rate lets the queue drain.",
			flood, abandoned, say(p.Timeout), fmtRate(capacity)),
	}
}

func curveStory(p *scenario.Params) (string, []string) {
	what, down, flood, outage := disruption(p)
	gist := "after " + what + ", the requests waiting to get in flood the server at once; the more they are, the slower it answers, " +
		"until every attempt times out and is retried: a retry storm. A lane whose first retry comes after the server is back keeps the flood small."
	saves := fmt.Sprintf("What saves a lane here is a small backlog at the resume, that is a first retry that comes after the %s pause rather than during it.", say(p.OutageFor))
	if len(scenario.AllFaults(p)) == 0 {
		saves = "What saves a lane here is a small backlog at the resume, that is a first retry that comes after the pause rather than during it."
	}
	if !outage {
		gist = "after " + what + ", the requests that piled up inside slow the server down; the more they are, the slower it answers, " +
			"until every attempt times out and is retried: a retry storm. A lane that retries less keeps the pile small."
		saves = "What saves a lane here is a small pile when the fault ends: fewer retries while it lasts."
	}
	return gist, []string{
		fmt.Sprintf("The 2014 experiment's server answers in %s up to %d requests inside; every %s more multiply its latency by %s, up to %s. %s.",
			say(p.ServerDelay), p.ServerLimit, fmtNum(p.ServerK), fmtNum(p.ServerFactor), say(p.MaxServerDelay),
			loadSentence(p, p.ServerDelay, math.NaN(), what)),
		down,
		fmt.Sprintf("%s %s Past that, every attempt times out and is retried, and %s: a retry storm. %s",
			flood, timeoutCrossing(p), lowerFirst(strings.TrimSuffix(abandoned, ".")), saves),
	}
}

func linearStory(p *scenario.Params) (string, []string) {
	what, down, flood, outage := disruption(p)
	gist := "after " + what + ", the requests waiting to get in flood the server at once; the more they are, the slower it answers, " +
		"and past its clients' timeout every attempt is retried: a lane that retries fast enough keeps it there."
	if !outage {
		gist = "after " + what + ", the requests that piled up inside slow the server down; the more they are, the slower it answers, " +
			"and past its clients' timeout every attempt is retried: a lane that retries fast enough keeps it there."
	}
	return gist, []string{
		fmt.Sprintf("The server answers in %s plus %s per request inside, up to %s. %s.",
			say(p.ServerDelay), say(p.ServerSlope), say(p.MaxServerDelay), loadSentence(p, p.ServerDelay, math.NaN(), what)),
		down,
		fmt.Sprintf("%s %s Past that, every attempt times out and is retried, and %s: a lane that retries fast enough keeps it there.",
			flood, timeoutCrossing(p), lowerFirst(strings.TrimSuffix(abandoned, "."))),
	}
}

// lowerFirst lowers a sentence's first letter, to go on after a comma.
func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

// loadSentence says the load the clients offer: 001's closed loop (clients
// thinking between requests) or an open loop's rate, against the
// server's capacity when it has one (NaN for none), and what disrupts the
// run (disruption's what).
func loadSentence(p *scenario.Params, latency time.Duration, capacity float64, what string) string {
	var load float64
	var s string
	if p.Arrival == scenario.ArrivalOpen {
		load = p.Rate
		s = fmt.Sprintf("Requests arrive at %s/s, whatever the server does", fmtRate(load))
	} else {
		load = float64(p.Clients) / (p.Think + latency).Seconds()
		s = fmt.Sprintf("%d clients thinking %s on average between requests offer about %s/s", p.Clients, say(p.Think), fmtRate(load))
	}
	if !math.IsNaN(capacity) {
		if load < capacity {
			s += ", so normally no request waits"
		} else {
			s += ", more than the workers serve, even without " + what
		}
	}
	return s
}

// timeoutCrossing says from how many requests inside the server's latency
// passes the clients' timeout, for a latency of the concurrency.
func timeoutCrossing(p *scenario.Params) string {
	lat := scenario.LatencyOf(p)
	if lat == nil {
		return ""
	}
	if lat.Delay(math.MaxInt) <= p.Timeout {
		return fmt.Sprintf("Its latency never passes the clients' %s timeout, however many wait.", say(p.Timeout))
	}
	lo, hi := 0, 1<<40 // Delay does not decrease: the first c with Delay(c) > timeout
	for lo < hi {
		mid := lo + (hi-lo)/2
		if lat.Delay(mid) > p.Timeout {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return fmt.Sprintf("From %d requests inside, its latency passes the clients' %s timeout.", lo, say(p.Timeout))
}

// say writes a duration as a reader says it: 100 ms, 20 s, 2.5 min,
// 1 h 15 min (kit.Say, by internal/present's rule, which the page's
// script shares).
func say(d time.Duration) string { return kit.Say(d) }

// trimNum writes v with at most 3 significant digits, in plain decimal.
func trimNum(v float64) string { return present.Sig(v, 3) }

// fmtRate writes a rate per second, whole and grouped from 100 up.
func fmtRate(v float64) string { return present.Rate(v) }
