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
	AnyOutage bool // an outage has begun so far
	Scheduled bool // the scheduled outage is still to come
}

// Finished is the phase of a run that has ended, as the command line and
// the presets judge it.
var Finished = Phase{Done: true}

// The tones of a verdict, for the page's colours.
const (
	ToneGood = "good" // the service recovered
	ToneWarn = "warn" // not recovered so far, while the run goes on
	ToneBad  = "bad"  // collapsed at the end, or stopped by a budget
)

// Verdict is a lane's summary in words, and its tone: ToneGood, ToneWarn,
// ToneBad or "" for none.
type Verdict struct {
	// Headline is the baseline, what happened after the outage and the
	// peak concurrency: the figures that change only when the verdict
	// does, so that a page showing it live is not rewritten every tick.
	Headline string `json:"headline"`
	// Text is Headline followed by the counts of attempts and requests;
	// a page that shows the headline alone is sent none.
	Text string `json:"text,omitempty"`
	// Brief is what happened after the outage in a few words ("COLLAPSED",
	// "recovered in 21.8s"), for a label too small for the headline, such
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
	v.Text = v.Headline + fmt.Sprintf("; %d attempts for %d requests (amplification %.2f): %d ok, %d gave up, %d open",
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
	return v
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

// Headline is Verdict without its Text, for a page that shows verdicts
// live and needs only their headlines and tones.
func (s Summary) Headline(ph Phase) Verdict {
	outcome, tone := s.outcome(ph)
	h := fmt.Sprintf("baseline %.1f ok/s; %s; peak concurrency %d", s.BaselineOK, outcome, s.PeakConcurrency)
	if f := s.LayeredFigure(); f != "" {
		h += "; " + f
	}
	return Verdict{Headline: h, Tone: tone}
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
		return bothBack(*server, *service), ToneGood
	case ph.Done && s.Collapsed:
		return "COLLAPSED: neither server nor service recovered", ToneBad
	case ph.Done && server == nil && service == nil:
		return "no outage ended", ""
	case ph.Done && server != nil:
		return serverBack(*server) + ", " + serviceNot("never"), ""
	case ph.Done:
		return serviceBack(*service) + ", " + serverNot("never"), ToneGood
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
		return serverBack(*server) + ", " + serviceNot("not yet"), tone
	case service != nil:
		return serviceBack(*service) + ", " + serverNot("not yet"), ToneGood
	}
	return "not recovered yet", tone
}

// brief is the outcome in a few words. A finished run says only whether
// the service came back and when (what the clients felt: the time to the
// service's recovery), the server's own recovery staying in the headline;
// a run still going says its outcome clause as it is.
func (s Summary) brief(ph Phase) string {
	outcome, tone := s.outcome(ph)
	switch {
	case !ph.Done:
		return outcome
	case tone == ToneBad:
		return "COLLAPSED"
	case s.ServiceRecoveredAfter != nil:
		return fmt.Sprintf("recovered in %.1fs", *s.ServiceRecoveredAfter)
	case s.ServerRecoveredAfter != nil:
		return "service never recovered"
	}
	return outcome // no outage ended
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
// the service and of the server: the rules of Detector, in the words of
// the verdicts, for a reader of the page.
func RecoveryRules(p *Params) string {
	w := recoveryWindow.Seconds()
	return fmt.Sprintf("A lane's verdict says when, after the outage, its service came back (ok/s over %g s at %.0f %% of its baseline, the ok/s before the outage) "+
		"and when its server did (at most %d requests inside for %g s, its healthy level). Answers may flow again while a queue still drains, so either may come first. "+
		"COLLAPSED: neither came back by the end of the run.",
		w, serviceLevel*100, HealthyOf(p), w)
}

// What each recovery measures, as the verdicts word it.
var (
	serviceMeasure = fmt.Sprintf("ok/s at %.0f %% of baseline", serviceLevel*100)
	serverMeasure  = "concurrency at its healthy level"
	serviceMissing = fmt.Sprintf("ok/s under %.0f %% of baseline", serviceLevel*100)
	serverMissing  = "concurrency above its healthy level"
)

func serviceBack(sec float64) string {
	return fmt.Sprintf("service back %.1fs after the outage (%s)", sec, serviceMeasure)
}

func serverBack(sec float64) string {
	return fmt.Sprintf("server back %.1fs after the outage (%s)", sec, serverMeasure)
}

func serviceNot(when string) string { return fmt.Sprintf("service %s (%s)", when, serviceMissing) }

func serverNot(when string) string { return fmt.Sprintf("server %s (%s)", when, serverMissing) }

// bothBack says when the service and the server came back, the first first
// (the service on a tie).
func bothBack(server, service float64) string {
	if server < service {
		return fmt.Sprintf("server back %.1fs after the outage (%s), then service %.1fs after (%s)",
			server, serverMeasure, service, serviceMeasure)
	}
	return fmt.Sprintf("service back %.1fs after the outage (%s), then server %.1fs after (%s)",
		service, serviceMeasure, server, serverMeasure)
}
