package simengine

import (
	"math"
	"slices"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// faultState is what the faults and outages have made of the run at a
// time: the engine's at Now, which its methods report, and, while lanes
// advance apart, a copy that runs ahead to tell each lane what to do at
// each scheduled transition (laneStep), whenever the lane gets there.
type faultState struct {
	// eff is the run's parameters with the faults in effect applied
	// (load, latency, capacity): what the lanes read. It is never
	// changed in place, so that a lane ahead and one behind may read two
	// of them at once. errFrac is the share of answers an error burst
	// turns into errors.
	eff     *scenario.Params
	effects []scenario.Fault
	errFrac float64

	down      bool // an outage is in effect
	scheduled bool // the outage in effect is a scheduled one
	downs     int  // outages started since the run's start
	// outages are the latest MaxOutages fault windows: start, end (never
	// while it lasts) and kind; dropped counts the older ones.
	outages []window
	dropped int
	// waved are the herds whose wave was released at wavedAt, the
	// latest time one was: a change of the faults at that very time
	// must not release them again, nor lose one not yet released.
	waved   []scenario.Fault
	wavedAt time.Duration
}

// clone returns a copy of s that shares nothing s may change.
func (s *faultState) clone() faultState {
	c := *s
	c.effects = slices.Clone(s.effects)
	c.outages = slices.Clone(s.outages)
	c.waved = slices.Clone(s.waved)
	return c
}

// released reports whether herd f's wave was released at time at.
func (s *faultState) released(f scenario.Fault, at time.Duration) bool {
	return s.wavedAt == at && slices.Contains(s.waved, f)
}

// laneStep is what a lane does at a scheduled transition: the server goes
// down with fail, or up, or the lane reads new parameters; or nothing (an
// outage starts while one by hand is in effect).
type laneStep struct {
	at      time.Duration
	kind    stepKind
	fail    *failure
	eff     *scenario.Params
	errFrac float64
	// faults is how many faults other than outages are in effect after
	// a stepEffects, fault the kind of the one that started or ended:
	// what the lane's Detector judges recoveries from.
	faults int
	fault  string
	// wave is the herd that starts at a stepEffects, whose wave of
	// requests each lane releases there (Kind empty: none).
	wave scenario.Fault
}

// stepKind is what a laneStep does.
type stepKind uint8

const (
	stepNone stepKind = iota
	stepDown
	stepUp
	stepEffects
)

// take applies transition tr to s, p being the run's parameters, and
// returns what each lane does there.
func (s *faultState) take(tr transition, p *scenario.Params) laneStep {
	switch {
	case scenario.IsOutage(tr.f.Kind):
		st := s.outage(tr.start, tr.f.Kind, tr.at)
		s.scheduled = tr.start
		return st
	case tr.start:
		s.effects = append(s.effects, tr.f)
		s.window(tr.f.Kind, tr.at)
	default:
		if i := slices.Index(s.effects, tr.f); i >= 0 {
			s.effects = slices.Delete(s.effects, i, i+1)
		}
		s.closeWindow(kindIs(tr.f.Kind), tr.at)
	}
	s.effective(p)
	st := laneStep{at: tr.at, kind: stepEffects, eff: s.eff, errFrac: s.errFrac, faults: len(s.effects), fault: tr.f.Kind}
	if tr.start && scenario.IsWave(tr.f.Kind) {
		st.wave = tr.f
		if s.wavedAt != tr.at {
			s.waved, s.wavedAt = s.waved[:0], tr.at
		}
		s.waved = append(s.waved, tr.f)
	}
	return st
}

// outage starts (on) or ends the outage of kind at time at, and returns
// what each lane does then.
func (s *faultState) outage(on bool, kind string, at time.Duration) laneStep {
	if on == s.down {
		return laneStep{at: at}
	}
	s.down = on
	if !on {
		// The outage in effect ends, whatever the kind that ends it says.
		s.closeWindow(scenario.IsOutage, at)
		return laneStep{at: at, kind: stepUp}
	}
	s.downs++
	s.window(kind, at)
	return laneStep{at: at, kind: stepDown, fail: failureOf(kind)}
}

// effective sets eff and errFrac from p and the faults in effect: a load
// spike divides think time and multiplies rate, a latency spike
// multiplies the service time and the curve's delays, a capacity drop
// multiplies workers and server_limit (and divides the linear slope), and
// error bursts make a share of the answers errors. Two faults of a kind
// compose: their magnitudes multiply. A herd changes no parameter: its
// wave is released once, at its start (lane.herd).
func (s *faultState) effective(p *scenario.Params) {
	eff := p.Clone()
	keep := 1.0 // the share of answers no burst turns into an error
	for _, f := range s.effects {
		switch f.Kind {
		case scenario.FaultLoadSpike:
			eff.Think = time.Duration(float64(eff.Think) / f.M)
			eff.Rate *= f.M
		case scenario.FaultLatencySpike:
			eff.ServiceTime = time.Duration(float64(eff.ServiceTime) * f.M)
			eff.ServerDelay = time.Duration(float64(eff.ServerDelay) * f.M)
			eff.ServerSlope = time.Duration(float64(eff.ServerSlope) * f.M)
		case scenario.FaultCapacityDrop:
			eff.Workers = max(1, int(math.Round(float64(eff.Workers)*f.M)))
			eff.ServerLimit = max(1, int(math.Round(float64(eff.ServerLimit)*f.M)))
			eff.ServerSlope = time.Duration(float64(eff.ServerSlope) / f.M)
		case scenario.FaultErrorBurst:
			keep *= 1 - f.M
		}
	}
	eff.Think = max(eff.Think, 1)
	s.eff, s.errFrac = &eff, 1-keep
}

// window opens a window of kind at time at.
func (s *faultState) window(kind string, at time.Duration) {
	if len(s.outages) == MaxOutages {
		s.outages = append(s.outages[:0], s.outages[1:]...)
		s.dropped++
	}
	s.outages = append(s.outages, window{span: [2]time.Duration{at, never}, kind: kind})
}

// closeWindow ends at time at the latest open window whose kind is, by
// its kind, the one to end.
func (s *faultState) closeWindow(is func(kind string) bool, at time.Duration) {
	for i := len(s.outages) - 1; i >= 0; i-- {
		if o := &s.outages[i]; is(o.kind) && o.span[1] == never {
			o.span[1] = at
			return
		}
	}
}

// kindIs returns the test of closeWindow for one kind.
func kindIs(kind string) func(string) bool { return func(k string) bool { return k == kind } }

// takeStep does what st says, now: the lane is at st.at.
func (l *lane) takeStep(st *laneStep) {
	switch st.kind {
	case stepDown:
		l.det.OutageStarted()
		l.setFailure(st.fail)
	case stepUp:
		l.det.OutageEnded(st.at)
		l.setFailure(nil)
	case stepEffects:
		l.p = st.eff
		l.det.Faults(st.faults, st.fault, st.at)
		l.setEffects(st.errFrac)
		if st.wave.Kind != "" {
			l.herd(st.wave)
		}
	}
}
