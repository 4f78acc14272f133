package scenario

import (
	"fmt"
	"strings"
)

// Phase is what a lane's verdict needs to know of the run besides the
// lane's Summary. A run still going is judged with care: a lane that has not
// recovered yet may still do so.
type Phase struct {
	Done      bool // the run is over
	Down      bool // an outage is in effect now
	AnyOutage bool // an outage or another fault (a load spike…) has begun so far
	Scheduled bool // the scheduled outage is still to come
}

// Finished is the phase of a run that has ended, as the command line and
// the presets judge it.
var Finished = Phase{Done: true}

// The tones of a verdict, for the page's colours.
const (
	ToneGood = "good" // the service recovered
	ToneWarn = "warn" // not recovered so far, while the run goes on, or still recovering at its end
	ToneBad  = "bad"  // collapsed at the end, or stopped by a budget
)

// Verdict is a lane's summary in words, and its tone: ToneGood, ToneWarn,
// ToneBad or "" for none.
type Verdict struct {
	// Headline is the outcome in plain words, for a reader who has never
	// seen the vocabulary ("Never recovered — a retry storm", "Recovered
	// 22 s after the outage"). It changes only when the outcome does, so
	// that a page showing it live (and a screen reader announcing it) is
	// not rewritten every tick.
	Headline string `json:"headline"`
	// Details says the same in plain sentences with the run's figures:
	// the rate before the outage, when answers and the server's load came
	// back, the most requests inside the server at once.
	Details string `json:"details"`
	// Figures is the outcome in the measures' own terms (baseline ok/s,
	// each recovery and its rule, peak concurrency), for a reader of the
	// command line who compares runs; a page that shows headlines is sent
	// none.
	Figures string `json:"figures,omitempty"`
	// Text is what the command line prints: Headline, then Figures and the
	// counts of attempts and requests. Like Figures, a page that shows
	// headlines is sent none.
	Text string `json:"text,omitempty"`
	// Brief is what happened after the outage in a few words ("never
	// recovered", "recovered in 22 s"), for a label too small for the headline, such
	// as a preset's chip; like Text, a page that shows headlines alone is
	// sent none.
	Brief string `json:"brief,omitempty"`
	Tone  string `json:"tone"`
}

// Verdict puts s into words for the run's phase ph. It is the one place
// that does: the command line prints it, the presets quote it and the page
// shows it as the server sends it.
func (s Summary) Verdict(ph Phase) Verdict {
	v := s.Headline(ph)
	v.Brief = s.brief(ph)
	v.Figures = s.figures(ph)
	v.Text = v.Headline + ". " + v.Figures + fmt.Sprintf("; %d attempts for %d requests (amplification %.2f): %d ok, %d gave up, %d open",
		s.Attempts, s.Requests, s.Amplification, s.Succeeded, s.GaveUp, s.Open)
	for i, n := range s.TierAttempts {
		sep := ", "
		if i == 0 {
			sep = "; attempts sent by "
		}
		v.Text += fmt.Sprintf("%stier %d: %d", sep, i+2, n)
	}
	if len(s.TierAttempts) > 0 {
		v.Text += fmt.Sprintf(" (%.2f at the server per request)", s.BottomAmplification)
	}
	v.Text += s.requestFigures()
	return v
}

// requestFigures is what users saw of the lane's requests one by one, for
// the command line's text: their latencies' percentiles, the share that
// succeeded within the patience, and the peak attempt rate; "" for a lane
// whose requests were not counted one by one (a real lane), which has no
// patience.
func (s Summary) requestFigures() string {
	if s.Patience == 0 {
		return ""
	}
	return fmt.Sprintf("; per request: p50 %s, p99 %s, p99.9 %s; %.2f %% succeeded within the patience of %s (%d open past it); peak %.0f attempts/s",
		latencyText(s.RequestP50), latencyText(s.RequestP99), latencyText(s.RequestP999),
		100*s.SucceededWithin, latencyText(s.Patience), s.OpenPastPatience, s.PeakAttemptRate)
}

// latencyText writes sec seconds to three significant digits, whole
// seconds from 100 s.
func latencyText(sec float64) string {
	if sec >= 100 {
		return fmt.Sprintf("%.0f s", sec)
	}
	return fmt.Sprintf("%.3g s", sec)
}

// LayeredFigure is the headline's clause on layered retries: how many
// tiers the lane chains and the attempts that reach the server per
// request through them, to one decimal, so that a page showing it live is
// rewritten only when that figure changes; "" for a lane without tiers.
func (s Summary) LayeredFigure() string {
	if len(s.TierAttempts) == 0 {
		return ""
	}
	return fmt.Sprintf("%d tiers: %.1f server attempts per request", len(s.TierAttempts)+1, s.BottomAmplification)
}

// Headline is Verdict without its Figures, Text and Brief: the plain
// headline, the details and the tone, for a page that shows verdicts live.
func (s Summary) Headline(ph Phase) Verdict {
	head, tone := s.plainHeadline(ph)
	return Verdict{Headline: head, Details: s.details(ph), Tone: tone}
}

// figures is the outcome in the measures' own terms: the baseline, what
// happened after the outage and the peak concurrency.
func (s Summary) figures(ph Phase) string {
	outcome, _ := s.outcome(ph)
	h := fmt.Sprintf("baseline %.1f ok/s; %s; peak concurrency %d", s.BaselineOK, outcome, s.PeakConcurrency)
	if f := s.LayeredFigure(); f != "" {
		h += "; " + f
	}
	return h
}

// plainHeadline is the outcome in plain words, and the verdict's tone
// (outcome's, which judges by the same rules). The time a lane took to
// recover is the service's, what its clients felt: answers at 90 % of the
// rate before the outage.
func (s Summary) plainHeadline(ph Phase) (string, string) {
	_, tone := s.outcome(ph)
	server, service := s.ServerRecoveredAfter, s.ServiceRecoveredAfter
	switch {
	case s.Stopped != "":
		return "Never recovered — the run was stopped", tone
	case service != nil && *service < 0.05:
		return "Recovered as soon as " + s.from() + " ended", tone
	case service != nil:
		return "Recovered " + plainSeconds(*service) + " after " + s.from(), tone
	case ph.Done && s.Recovering:
		return "Still recovering when the run ended", tone
	case ph.Done && s.Collapsed && s.storm():
		return "Never recovered — a retry storm", tone
	case ph.Done && s.Collapsed:
		return "Never recovered — the server stayed overloaded", tone
	case ph.Done && server == nil:
		return "No outage to recover from", tone
	case ph.Done:
		return "Server calm again, but answers never recovered", tone
	case ph.Down:
		return "Server stopped — outage in progress", tone
	case !ph.AnyOutage && ph.Scheduled:
		return "Running normally until the outage", tone
	case !ph.AnyOutage:
		return "Running normally", tone
	case server != nil:
		return "Server calm again, answers not yet back", tone
	}
	return "Not recovered yet", tone
}

// details says the outcome in plain sentences with the run's figures.
func (s Summary) details(ph Phase) string {
	var b strings.Builder
	server, service := s.ServerRecoveredAfter, s.ServiceRecoveredAfter
	// A run without an outage (none yet, or none that ended) has a rate,
	// not a rate before an outage.
	noOutage := (!ph.Done && !ph.AnyOutage && !ph.Down) || (ph.Done && server == nil && service == nil && !s.Collapsed && s.Stopped == "")
	after := "After " + s.from() + ","
	if noOutage {
		fmt.Fprintf(&b, "The server answered %s requests a second.", plainRate(s.BaselineOK))
	} else {
		fmt.Fprintf(&b, "Before %s, the server answered %s requests a second.", s.from(), plainRate(s.BaselineOK))
	}
	answers := fmt.Sprintf("answers came back to %.0f %% of that rate", serviceLevel*100)
	load := "the server's load was back to its healthy level"
	switch {
	case s.Stopped != "":
		fmt.Fprintf(&b, " The run stopped this lane: %s.", strings.TrimPrefix(s.Stopped, "collapsed: "))
	case server != nil && service != nil:
		fmt.Fprintf(&b, " %s %s in %s; %s in %s.", after, answers, plainSeconds(*service), load, plainSeconds(*server))
	case service != nil:
		fmt.Fprintf(&b, " %s %s in %s; the server stayed overloaded%s.", after, answers, plainSeconds(*service), soFar(ph))
	case server != nil:
		fmt.Fprintf(&b, " %s %s in %s, but answers stayed under %.0f %% of that rate%s.", after, load, plainSeconds(*server), serviceLevel*100, soFar(ph))
	case ph.Done && s.Recovering:
		w := plainSeconds(recoveryWindow.Seconds())
		fmt.Fprintf(&b, " %s neither answers nor the server's load came back before the run ended, but both were on their way: over the last %s its clients sent %s attempts a second and the server held %.0f requests, down from %s and %.0f in the %s before. A longer run would tell when it recovers.",
			after, w, plainRate(s.RecentAttempts), s.RecentLoad, plainRate(s.EarlierAttempts), s.EarlierLoad, w)
	case ph.Done && s.Collapsed && s.storm():
		fmt.Fprintf(&b, " %s neither answers nor the server's load came back before the run ended: its clients kept retrying faster than the server could answer, %.1f attempts per request.", after, s.Amplification)
	case ph.Done && s.Collapsed:
		fmt.Fprintf(&b, " %s neither answers nor the server's load came back before the run ended: the server never worked through its load.", after)
	case ph.Down:
		b.WriteString(" The server is stopped now.")
	case ph.AnyOutage:
		fmt.Fprintf(&b, " Since the outage, answers have stayed under %.0f %% of that rate.", serviceLevel*100)
	}
	fmt.Fprintf(&b, " At most %d requests were inside the server at once.", s.PeakConcurrency)
	if len(s.TierAttempts) > 0 {
		fmt.Fprintf(&b, " Its %d layers of retries sent %.1f attempts to the server per request.", len(s.TierAttempts)+1, s.BottomAmplification)
	}
	return b.String()
}

// from names what the lane's recoveries are measured from: "the outage",
// or the fault other than an outage whose end they follow ("the load
// spike").
func (s Summary) from() string { return FaultWords(s.Fault) }

// stormAmplification is the attempts per request from which a lane that
// never recovered is said to have stormed: from 2 on, its clients sent more
// retries than first attempts, so retries were most of the load that kept
// the server down. Below it, the load itself did (a flood at the resume, or
// more clients than the server serves), and retries cannot be blamed.
const stormAmplification = 2

// storm reports whether the lane's retries were most of its load.
func (s Summary) storm() bool { return s.Amplification >= stormAmplification }

// soFar ends a sentence on what has not happened: by the end of a
// finished run, or so far.
func soFar(ph Phase) string {
	if ph.Done {
		return " to the end of the run"
	}
	return " so far"
}

// plainSeconds writes a time as a reader says it: 22 s, 3.5 s.
func plainSeconds(sec float64) string {
	if sec >= 10 {
		return fmt.Sprintf("%.0f s", sec)
	}
	return fmt.Sprintf("%.1f s", sec)
}

// plainRate writes a rate to whole units, one decimal under 10.
func plainRate(v float64) string {
	if v >= 10 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// outcome is the verdict's middle clause: what happened after the outage.
// The service (answers) and the server (its load) recover by two measures
// that need not agree: answers may flow again while a queue still drains.
// The clause says which came back first and what each measure is, so that
// "service back 0.0s after the outage, then server 1.2s after" reads as it
// happened.
func (s Summary) outcome(ph Phase) (string, string) {
	server, service := s.ServerRecoveredAfter, s.ServiceRecoveredAfter
	switch {
	case s.Stopped != "":
		return "COLLAPSED: " + strings.TrimPrefix(s.Stopped, "collapsed: "), ToneBad
	case server != nil && service != nil:
		return bothBack(*server, *service, s.from()), ToneGood
	case ph.Done && s.Recovering:
		return fmt.Sprintf("STILL RECOVERING: neither server nor service recovered yet, falling over the last %gs: attempts %.1f/s from %.1f/s, concurrency %.0f from %.0f",
			recoveryWindow.Seconds(), s.RecentAttempts, s.EarlierAttempts, s.RecentLoad, s.EarlierLoad), ToneWarn
	case ph.Done && s.Collapsed:
		return "COLLAPSED: neither server nor service recovered", ToneBad
	case ph.Done && server == nil && service == nil:
		return "no outage ended", ""
	case ph.Done && server != nil:
		return serverBack(*server, s.from()) + ", " + serviceNot("never"), ""
	case ph.Done:
		return serviceBack(*service, s.from()) + ", " + serverNot("never"), ToneGood
	}
	tone := ""
	if s.Collapsed {
		tone = ToneWarn
	}
	switch {
	case ph.Down:
		return "outage in progress", tone
	case !ph.AnyOutage && ph.Scheduled:
		return "no outage yet", tone
	case !ph.AnyOutage:
		return "no outage", tone
	case server != nil:
		return serverBack(*server, s.from()) + ", " + serviceNot("not yet"), tone
	case service != nil:
		return serviceBack(*service, s.from()) + ", " + serverNot("not yet"), ToneGood
	}
	return "not recovered yet", tone
}

// brief is the outcome in a few plain words. A finished run says only
// whether the service came back and when (what the clients felt: the time
// to the service's recovery), the server's own recovery staying in the
// details; a run still going says its outcome clause as it is.
func (s Summary) brief(ph Phase) string {
	outcome, tone := s.outcome(ph)
	switch {
	case !ph.Done:
		return outcome
	case s.Recovering:
		return "still recovering"
	case tone == ToneBad:
		return "never recovered"
	case s.ServiceRecoveredAfter != nil && *s.ServiceRecoveredAfter < 0.05:
		return "recovered at once"
	case s.ServiceRecoveredAfter != nil:
		return "recovered in " + plainSeconds(*s.ServiceRecoveredAfter)
	case s.ServerRecoveredAfter != nil:
		return "answers never recovered"
	}
	return "no outage to recover from"
}

// ServiceLevel and RecoveryWindow are the Detector's rules for the
// page's annotations: the service is back once the ok rate over
// RecoveryWindow reaches ServiceLevel of the baseline, the server once its
// concurrency stays at or under its healthy level for RecoveryWindow.
const (
	ServiceLevel   = serviceLevel
	RecoveryWindow = recoveryWindow
)

// RecoveryRules says, for p's run, how a verdict measures the recovery of
// the service and of the server after what disrupts the run (Disruption): the rules of Detector, in plain words,
// for a reader of the page.
func RecoveryRules(p *Params) string {
	w := recoveryWindow.Seconds()
	return fmt.Sprintf("How a lane is judged: it has recovered once its answers are back to %.0f %% of the rate before %s for %g s, "+
		"and its server is calm again once at most %d requests are inside it for %g s, its healthy level. Answers may flow again while a queue still drains, so either may come first. "+
		"A lane that gets neither back before the run ends never recovered.",
		serviceLevel*100, Disruption(p), w, HealthyOf(p), w)
}

// What each recovery measures, as the verdicts word it.
var (
	serviceMeasure = fmt.Sprintf("ok/s at %.0f %% of baseline", serviceLevel*100)
	serverMeasure  = "concurrency at its healthy level"
	serviceMissing = fmt.Sprintf("ok/s under %.0f %% of baseline", serviceLevel*100)
	serverMissing  = "concurrency above its healthy level"
)

func serviceBack(sec float64, from string) string {
	return fmt.Sprintf("service back %.1fs after %s (%s)", sec, from, serviceMeasure)
}

func serverBack(sec float64, from string) string {
	return fmt.Sprintf("server back %.1fs after %s (%s)", sec, from, serverMeasure)
}

func serviceNot(when string) string { return fmt.Sprintf("service %s (%s)", when, serviceMissing) }

func serverNot(when string) string { return fmt.Sprintf("server %s (%s)", when, serverMissing) }

// bothBack says when the service and the server came back after from
// ("the outage"), the first first (the service on a tie).
func bothBack(server, service float64, from string) string {
	if server < service {
		return fmt.Sprintf("server back %.1fs after %s (%s), then service %.1fs after (%s)",
			server, from, serverMeasure, service, serviceMeasure)
	}
	return fmt.Sprintf("service back %.1fs after %s (%s), then server %.1fs after (%s)",
		service, from, serviceMeasure, server, serverMeasure)
}
