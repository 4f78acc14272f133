package web

import (
	"fmt"
	"strings"

	"backofflab/scenario"
	"backofflab/simengine"
)

// runPhase is what a lane's verdict needs to know of the run besides the
// lane's summary: whether the run is over, the server down now, an outage
// seen so far, and the scheduled one still to come.
type runPhase struct {
	done, down, anyOutage, scheduled bool
}

// phaseOf returns the phase of e's run of p.
func phaseOf(e *simengine.Engine, p scenario.Params) runPhase {
	return runPhase{
		done:      e.Now() >= p.Duration,
		down:      e.Down(),
		anyOutage: e.OutageCount() > 0,
		scheduled: p.Outage != scenario.OutageNone && p.OutageFor > 0 && p.OutageAt > e.Now(),
	}
}

// verdictMsg is a lane's verdict in words, as the page shows it beside the
// lane's name, and its tone: good (the service recovered), warn (collapsed
// so far), bad (collapsed, or stopped by a budget) or "".
type verdictMsg struct {
	Text string `json:"text"`
	Tone string `json:"tone"`
}

// verdictOf puts a lane's summary in words for the page, in the run's phase
// ph: the page computes none of it.
func verdictOf(s scenario.Summary, ph runPhase) verdictMsg {
	parts := []string{fmt.Sprintf("baseline %.1f ok/s", s.BaselineOK)}
	tone := ""
	if r := s.ServerRecoveredAfter; r != nil {
		parts = append(parts, fmt.Sprintf("server recovered %.1f s after the outage", *r))
	}
	if r := s.ServiceRecoveredAfter; r != nil {
		parts = append(parts, fmt.Sprintf("service recovered %.1f s after", *r))
		tone = "good"
	}
	switch {
	case s.Stopped != "":
		parts, tone = append(parts, s.Stopped), "bad"
	case s.Collapsed && ph.done:
		parts, tone = append(parts, "collapsed: neither recovered"), "bad"
	case s.ServerRecoveredAfter == nil || s.ServiceRecoveredAfter == nil:
		what := "not recovered yet"
		switch {
		case ph.down:
			what = "outage in progress"
		case !ph.anyOutage && ph.scheduled:
			what = "no outage yet"
		case !ph.anyOutage:
			what = "no outage"
		case s.ServerRecoveredAfter != nil:
			what = "service not recovered yet"
		}
		parts = append(parts, what)
		if s.Collapsed {
			tone = "warn"
		}
	}
	parts = append(parts, fmt.Sprintf("peak concurrency %d", s.PeakConcurrency),
		fmt.Sprintf("%.2f attempts per request", s.Amplification))
	return verdictMsg{Text: strings.Join(parts, " · "), Tone: tone}
}
