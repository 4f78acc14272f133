package simengine

import (
	"errors"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/workq"
	"github.com/backofflab/backofflab/scenario"
)

// queueModel is a server of workers: each serves one request at a time for
// a service time drawn from service_dist with mean service_time; the
// requests that find every worker busy wait in the accept backlog, at most
// backlog of them, and a free worker takes the oldest (fifo) or the newest
// (lifo). An abandoned request is still served, and costs a worker, unless
// its lane cancels it (cancel_on_timeout). Its discipline (queue_order,
// queue_timeout, codel) and service times are the real server's, from
// workq.
type queueModel struct {
	workers int
	backlog int
	svc     workq.Service
	line    workq.Line // the live requests in wait, and when it last emptied

	busy   []service       // the requests in service, a min-heap by (done, id)
	wait   chunked[waiter] // the requests waiting for a worker, oldest first
	dead   map[uint64]bool // ids of cancelled requests still in wait
	nextID uint64          // the next request's id: its slot for the lane
	frozen bool            // stopped (SIGSTOP): no service progresses
	since  time.Duration   // when it froze

	// started counts the requests a worker took, and waited sums the time
	// they waited for it: their mean is the mean queue wait.
	started int64
	waited  time.Duration
	// late are the requests a free worker found waiting longer than the
	// queue timeout: answered with an error, for the lane to hear of.
	late []waiter
}

// service is a request in service: done is when its worker finishes it.
type service struct {
	done time.Duration
	id   uint64
	c    int32
}

// waiter is a request waiting for a worker since at; one that waits
// longer than limit (when not 0) is answered with an error.
type waiter struct {
	id    uint64
	at    time.Duration
	limit time.Duration
	c     int32
}

var _ serverModel = (*queueModel)(nil)

// errFull is admit's answer when the backlog is full: the connect is
// dropped and the attempt times out.
var errFull = errors.New("simengine: the backlog is full")

func newQueueModel(p *scenario.Params) serverModel {
	m := &queueModel{svc: workq.ServiceOf(p)}
	m.setParams(p)
	return m
}

func (m *queueModel) setParams(p *scenario.Params) {
	m.workers, m.backlog = p.Workers, p.Backlog
	m.svc.Set(p)
	m.line.Discipline = workq.DisciplineOf(p)
}

func (m *queueModel) admit(now time.Duration, c int32, mem *budget.Account) (uint64, error) {
	id := m.nextID
	m.line.Arrive(now)
	if len(m.busy) < m.workers && !m.frozen {
		m.start(service{done: now + m.svc.Draw(), id: id, c: c})
		m.started++
	} else {
		if m.line.Waiting() >= m.backlog {
			return 0, errFull
		}
		w := waiter{id: id, at: now, c: c, limit: m.line.Limit(now)}
		if _, err := m.wait.push(w, mem); err != nil {
			return 0, err
		}
		m.line.Join()
	}
	m.nextID++
	return id, nil
}

// start puts s in service.
func (m *queueModel) start(s service) {
	m.busy = append(m.busy, s)
	m.up(len(m.busy) - 1)
}

// next first gives free workers waiting requests (workers freed by a
// cancel or added by a live change start now), then returns when the first
// request in service is done.
func (m *queueModel) next(now time.Duration) time.Duration {
	if !m.frozen {
		m.fill(now)
	}
	if len(m.busy) == 0 {
		return never
	}
	return max(now, m.busy[0].done)
}

// complete finishes the request due first and gives its worker the next
// waiting one, which starts at that time.
func (m *queueModel) complete() (uint64, int32) {
	s := m.busy[0]
	m.remove(0)
	m.fill(s.done)
	return s.id, s.c
}

// fill gives free workers waiting requests, starting at now.
func (m *queueModel) fill(now time.Duration) {
	for len(m.busy) < m.workers && m.line.Waiting() > 0 {
		w := workq.Take[waiter](&m.line, m, now)
		if workq.Expired(w.limit, now-w.at) {
			m.late = append(m.late, w) // answered at once: it costs no worker
			continue
		}
		m.start(service{done: now + m.svc.Draw(), id: w.id, c: w.c})
		m.started++
		m.waited += now - w.at
	}
}

// PopFront, PopBack and Withdrawn make the wait list a workq.List: a
// cancelled request is known by its id, forgotten once passed over.
func (m *queueModel) PopFront() waiter {
	_, w := m.wait.pop()
	return w
}

func (m *queueModel) PopBack() waiter {
	_, w := m.wait.popBack()
	return w
}

func (m *queueModel) Withdrawn(w waiter) bool {
	if m.dead[w.id] {
		delete(m.dead, w.id)
		return true
	}
	return false
}

// cancel withdraws the request id, which the lane knows to be inside: in
// service, its worker is free for the next (from the next call of next);
// waiting, it is passed over when its turn comes.
// abandon has nothing to forget: a waiting or served request keeps its
// client, as a worker answers it even so.
func (m *queueModel) abandon(uint64, int32) {}

func (m *queueModel) cancel(id uint64, c int32) bool {
	for i, s := range m.busy {
		if s.id == id && s.c == c {
			m.remove(i)
			return true
		}
	}
	if m.dead[id] || m.line.Waiting() == 0 {
		return false
	}
	if m.dead == nil {
		m.dead = map[uint64]bool{}
	}
	m.dead[id] = true
	m.line.Withdraw()
	return true
}

func (m *queueModel) drop(lost func(uint64, int32)) {
	for _, s := range m.busy {
		lost(s.id, s.c)
	}
	m.busy = m.busy[:0]
	for m.wait.n > 0 {
		_, w := m.wait.pop()
		if !m.dead[w.id] {
			lost(w.id, w.c)
		}
	}
	m.line.Drop()
	m.dead = nil
}

func (m *queueModel) rejected(f func(uint64, int32)) {
	for _, w := range m.late {
		f(w.id, w.c)
	}
	m.late = m.late[:0]
}

func (m *queueModel) concurrency() int { return len(m.busy) + m.line.Waiting() }
func (m *queueModel) queued() int      { return m.line.Waiting() }

// latency is what a request arriving now would take in fifo order.
func (m *queueModel) latency() time.Duration {
	return m.svc.Latency(m.line.Waiting(), m.workers)
}

func (m *queueModel) held() int { return len(m.busy) + m.wait.n }

func (m *queueModel) free(mem *budget.Account) {
	m.busy = m.busy[:0]
	m.wait.free(mem)
	m.line.Drop()
	m.dead = nil
}

// freeze stops every worker at now (a SIGSTOP); thaw restarts them at now,
// each with the service time it had left.
func (m *queueModel) freeze(now time.Duration) { m.frozen, m.since = true, now }

func (m *queueModel) thaw(now time.Duration) {
	if !m.frozen {
		return
	}
	for i := range m.busy {
		m.busy[i].done += now - m.since
	}
	m.frozen = false
}

// The heap of busy workers, by (done, id).
func (m *queueModel) less(i, j int) bool {
	a, b := &m.busy[i], &m.busy[j]
	return a.done < b.done || a.done == b.done && a.id < b.id
}

func (m *queueModel) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !m.less(i, p) {
			return
		}
		m.busy[i], m.busy[p] = m.busy[p], m.busy[i]
		i = p
	}
}

func (m *queueModel) down(i int) {
	n := len(m.busy)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && m.less(r, l) {
			j = r
		}
		if !m.less(j, i) {
			return
		}
		m.busy[i], m.busy[j] = m.busy[j], m.busy[i]
		i = j
	}
}

func (m *queueModel) remove(i int) {
	n := len(m.busy) - 1
	m.busy[i] = m.busy[n]
	m.busy = m.busy[:n]
	if i < n {
		m.down(i)
		m.up(i)
	}
}
