package playground

import (
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/scene"
)

// laneSource is where one lane's values come from. The engine simulates
// every lane; a source may replace its lane's block of each tick row and
// its summary with values of its own, and, while it runs in real time,
// force the run's virtual time. The session talks to every lane through
// this interface alone, so that a new kind of lane is a new implementation
// (and a case in newLaneSource), not new branches in the session.
//
// Only the session's run goroutine calls a source.
type laneSource interface {
	// source names where the lane's figures come from, for the page
	// (laneInfo.Source): sim or real.
	source() string
	// addr is where the lane's own server listens while it runs, or "".
	addr() string
	// start starts what the lane runs outside the engine, the engine being
	// at virtual time now. The session calls it at each run's start while
	// the run plays; after an error the lane runs simulated instead, and the
	// error is the page's message.
	start(p scenario.Params, now time.Duration) error
	// stop stops what start started, if it runs; its measurements stay.
	stop()
	// live reports whether the lane runs in real time now: then virtual
	// time is the lane's (see virtual), speed is 1, and a pause stops it.
	live() bool
	// virtual returns the virtual time of wall time now, while live.
	virtual(now time.Time) time.Duration
	// nextWake returns how long after now the session must look at the
	// lane again, while live, even when the engine has nothing to do.
	nextWake(now time.Time, p *scenario.Params) time.Duration
	// measure takes the lane's values for the ticks that end at or before
	// virtual time to, at wall time now, while live. It returns what the
	// page must be told about the lane since the last call, or "".
	measure(now time.Time, to time.Duration) string
	// setDown follows the engine's outage: down while it lasts.
	setDown(down bool)
	// tick returns the lane's values for the engine's next tick, of which
	// sim is the engine's own; eng's outages so far are its context.
	tick(sim scenario.LaneTick, eng *simengine.Engine) scenario.LaneTick
	// summary returns the lane's verdicts so far, of which sim is the
	// engine's own.
	summary(sim scenario.Summary, eng *simengine.Engine) scenario.Summary
	// requests returns lane i's requests one by one so far (the engine's
	// own, Engine.Requests), or nil while the lane's figures are not the
	// engine's and are not counted one by one.
	requests(i int, eng *simengine.Engine) *simengine.Requests
	// note says, for the page's status line, how the lane behaves now, or "".
	note() string
	// restarts reports whether the change of the run's parameters from old
	// to p cannot apply to the lane on the fly: the run then restarts.
	restarts(old, p scenario.Params) bool
	// stale reports whether the lane cannot go on from where it stopped:
	// play then restarts the run from 0.
	stale() bool
}

// laneSourceName returns the source of sc's lane i: sim or real.
func laneSourceName(sc scene.Scenario, i int) string {
	if i == sc.RealLane() {
		return scene.SourceReal
	}
	return scene.SourceSim
}

// newLaneSource returns the source of sc's lane i: the session's log and
// slots serve a lane that runs outside the engine.
func newLaneSource(sc scene.Scenario, i int, s *session) laneSource {
	switch laneSourceName(sc, i) {
	case scene.SourceReal:
		return &realLane{lane: i, log: s.log, slots: s.slots}
	default:
		return simLane{}
	}
}

// simLane is a lane the engine alone simulates: its values are the engine's.
type simLane struct{}

func (simLane) source() string                                     { return scene.SourceSim }
func (simLane) addr() string                                       { return "" }
func (simLane) start(scenario.Params, time.Duration) error         { return nil }
func (simLane) stop()                                              {}
func (simLane) live() bool                                         { return false }
func (simLane) virtual(time.Time) time.Duration                    { return 0 }
func (simLane) nextWake(time.Time, *scenario.Params) time.Duration { return time.Hour }
func (simLane) measure(time.Time, time.Duration) string            { return "" }
func (simLane) setDown(bool)                                       {}
func (simLane) note() string                                       { return "" }
func (simLane) restarts(_, _ scenario.Params) bool                 { return false }
func (simLane) stale() bool                                        { return false }

func (simLane) tick(sim scenario.LaneTick, _ *simengine.Engine) scenario.LaneTick { return sim }

func (simLane) summary(sim scenario.Summary, _ *simengine.Engine) scenario.Summary { return sim }

func (simLane) requests(i int, eng *simengine.Engine) *simengine.Requests { return eng.Requests(i) }
