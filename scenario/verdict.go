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
	Tone string `json:"tone"`
}

// Verdict puts s into words for the run's phase ph. It is the one place
// that does: the command line prints it, the presets quote it and the page
// shows it as the server sends it.
func (s Summary) Verdict(ph Phase) Verdict {
	v := s.Headline(ph)
	v.Text = v.Headline + fmt.Sprintf("; %d attempts for %d requests (amplification %.2f): %d ok, %d gave up, %d open",
		s.Attempts, s.Requests, s.Amplification, s.Succeeded, s.GaveUp, s.Open)
	return v
}

// Headline is Verdict without its Text, for a page that shows verdicts
// live and needs only their headlines and tones.
func (s Summary) Headline(ph Phase) Verdict {
	outcome, tone := s.outcome(ph)
	return Verdict{
		Headline: fmt.Sprintf("baseline %.1f ok/s; %s; peak concurrency %d", s.BaselineOK, outcome, s.PeakConcurrency),
		Tone:     tone,
	}
}

// outcome is the verdict's middle clause: what happened after the outage.
func (s Summary) outcome(ph Phase) (string, string) {
	server, service := s.ServerRecoveredAfter, s.ServiceRecoveredAfter
	switch {
	case s.Stopped != "":
		return "COLLAPSED: " + strings.TrimPrefix(s.Stopped, "collapsed: "), ToneBad
	case server != nil && service != nil:
		return fmt.Sprintf("server recovered %s, service recovered %s", after(server), after(service)), ToneGood
	case ph.Done && s.Collapsed:
		return "COLLAPSED: neither server nor service recovered", ToneBad
	case ph.Done && server == nil && service == nil:
		return "no outage ended", ""
	case ph.Done:
		tone := ""
		if service != nil {
			tone = ToneGood
		}
		return fmt.Sprintf("server recovered %s, service recovered %s", after(server), after(service)), tone
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
		return fmt.Sprintf("server recovered %s, service not yet", after(server)), tone
	case service != nil:
		return fmt.Sprintf("service recovered %s, server not yet", after(service)), ToneGood
	}
	return "not recovered yet", tone
}

func after(sec *float64) string {
	if sec == nil {
		return "never"
	}
	return fmt.Sprintf("%.1fs after the outage", *sec)
}
