package simengine

import (
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
)

// curveModel is 001's server, and every server whose latency is a function
// of its concurrency (a scenario.Latency): every request inside shares the
// latency of the current concurrency, so requests complete oldest first, as
// soon as their age reaches it; one planned completion, re-planned at every
// change of concurrency, stands for all of them.
type curveModel struct {
	q     fifo // requests inside, oldest first; cancelled ones are dead entries
	live  int  // requests in q not cancelled
	curve curve
}

var _ serverModel = (*curveModel)(nil)

func newCurveModel(p *scenario.Params) serverModel { return &curveModel{curve: newCurve(p)} }

func (m *curveModel) admit(now time.Duration, c int32, mem *budget.Account) (uint64, error) {
	slot, err := m.q.push(now, c, mem)
	if err == nil {
		m.live++
	}
	return slot, err
}

// next drops the cancelled requests at the front, so that the oldest
// request inside is a live one, and plans its completion.
func (m *curveModel) next(now time.Duration) time.Duration {
	for m.q.len() > 0 && m.q.frontCancelled() {
		m.q.pop()
	}
	if m.live == 0 {
		return never
	}
	return max(now, m.q.start+m.curve.delay(m.live))
}

func (m *curveModel) complete() (uint64, int32) {
	m.live--
	return m.q.pop()
}

func (m *curveModel) cancel(slot uint64, c int32) bool {
	if !m.q.cancel(slot, c) {
		return false
	}
	m.live--
	return true
}

func (m *curveModel) abandon(slot uint64, c int32) { m.q.abandon(slot, c) }

func (m *curveModel) drop(lost func(uint64, int32)) {
	m.q.owners.each(func(o owner) {
		if o.c >= 0 {
			lost(o.abs, o.c)
		}
	})
	m.q.clear()
	m.live = 0
}

func (m *curveModel) concurrency() int { return m.live }
func (m *curveModel) queued() int      { return 0 }

// rejected has nothing to report: the curve answers every request.
func (m *curveModel) rejected(func(uint64, int32)) {}

// freeze and thaw do nothing: a request's latency counts from its start,
// so a stopped curve server's requests keep ageing and flood out at once
// when it resumes, as 001's did.
func (m *curveModel) freeze(time.Duration)         {}
func (m *curveModel) thaw(time.Duration)           {}
func (m *curveModel) latency() time.Duration       { return m.curve.delay(m.live) }
func (m *curveModel) held() int                    { return m.q.len() }
func (m *curveModel) setParams(p *scenario.Params) { m.curve = newCurve(p) }

// free drops every request: an empty fifo's start and last are set anew
// by its next push.
func (m *curveModel) free(mem *budget.Account) {
	m.q.free(mem)
	m.live = 0
}
