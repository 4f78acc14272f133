package simengine

import (
	"errors"
	"math"
	"math/rand/v2"
	"time"

	"backofflab/budget"
	"backofflab/scenario"
)

// queueModel is a server of workers: each serves one request at a time for
// a service time drawn from service_dist with mean service_time; the
// requests that find every worker busy wait in the accept backlog, at most
// backlog of them, and a free worker takes the oldest (fifo) or the newest
// (lifo). An abandoned request is still served, and costs a worker, unless
// its lane cancels it (cancel_on_timeout).
type queueModel struct {
	workers int
	mean    time.Duration
	fixed   bool // every service takes mean
	lifo    bool
	backlog int
	timeout time.Duration // queue_timeout: a longer wait is answered with an error; 0 for none
	// codel is queue_control=codel: while the queue has not been empty for
	// interval, the server is overloaded: it serves the newest first and
	// gives a request target to find a worker, else interval.
	codel            bool
	target, interval time.Duration
	emptyAt          time.Duration // when the queue was last seen empty
	rng              *rand.Rand    // service times: its own stream, so the clients' draws do not shift

	busy   []service       // the requests in service, a min-heap by (done, id)
	wait   chunked[waiter] // the requests waiting for a worker, oldest first
	waitN  int             // live ones among them
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

// serviceStream is the PCG stream of a queue server's service times.
const serviceStream = 0x2545f4914f6cdd1d

func newQueueModel(p *scenario.Params) serverModel {
	m := &queueModel{rng: rand.New(rand.NewPCG(p.Seed, serviceStream))}
	m.setParams(p)
	return m
}

func (m *queueModel) setParams(p *scenario.Params) {
	m.workers, m.mean, m.backlog = p.Workers, p.ServiceTime, p.Backlog
	m.fixed, m.lifo = p.ServiceDist == scenario.ServiceFixed, p.QueueOrder == scenario.QueueLIFO
	m.timeout = p.QueueTimeout
	m.codel = p.QueueControl == scenario.QueueControlCoDel
	m.target, m.interval = p.CoDelTarget, p.CoDelInterval
}

// draw returns a service time.
func (m *queueModel) draw() time.Duration {
	if m.fixed {
		return m.mean
	}
	return time.Duration(-math.Log1p(-m.rng.Float64()) * float64(m.mean))
}

func (m *queueModel) admit(now time.Duration, c int32, mem *budget.Run) (uint64, error) {
	id := m.nextID
	if m.waitN == 0 {
		m.emptyAt = now // the queue is empty until this request joins it
	}
	if len(m.busy) < m.workers && !m.frozen {
		m.start(service{done: now + m.draw(), id: id, c: c})
		m.started++
	} else {
		if m.waitN >= m.backlog {
			return 0, errFull
		}
		w := waiter{id: id, at: now, c: c, limit: m.timeout}
		if m.codel {
			// Fail at Scale's controlled delay: a queue that has not
			// emptied for an interval lets a new request wait target.
			lim := m.interval
			if now-m.emptyAt > m.interval {
				lim = m.target
			}
			if w.limit == 0 || lim < w.limit {
				w.limit = lim
			}
		}
		if _, err := m.wait.push(w, mem); err != nil {
			return 0, err
		}
		m.waitN++
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
	for len(m.busy) < m.workers && m.waitN > 0 {
		w := m.take(now)
		if w.limit > 0 && now-w.at > w.limit {
			m.late = append(m.late, w) // answered at once: it costs no worker
			continue
		}
		m.start(service{done: now + m.draw(), id: w.id, c: w.c})
		m.started++
		m.waited += now - w.at
	}
}

// take removes the live waiting request queue_order picks (under codel,
// the newest while the server is overloaded), passing over cancelled ones;
// one is waiting.
func (m *queueModel) take(now time.Duration) waiter {
	lifo := m.lifo || m.codel && now-m.emptyAt > m.interval
	for {
		var w waiter
		if lifo {
			_, w = m.wait.popBack()
		} else {
			_, w = m.wait.pop()
		}
		if m.dead[w.id] {
			delete(m.dead, w.id)
			continue
		}
		m.waitN--
		if m.waitN == 0 {
			m.emptyAt = now
		}
		return w
	}
}

// cancel withdraws the request id, which the lane knows to be inside: in
// service, its worker is free for the next (from the next call of next);
// waiting, it is passed over when its turn comes.
func (m *queueModel) cancel(id uint64, c int32) bool {
	for i, s := range m.busy {
		if s.id == id && s.c == c {
			m.remove(i)
			return true
		}
	}
	if m.dead[id] || m.waitN == 0 {
		return false
	}
	if m.dead == nil {
		m.dead = map[uint64]bool{}
	}
	m.dead[id] = true
	m.waitN--
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
	m.waitN, m.dead = 0, nil
}

func (m *queueModel) rejected(f func(uint64, int32)) {
	for _, w := range m.late {
		f(w.id, w.c)
	}
	m.late = m.late[:0]
}

func (m *queueModel) concurrency() int { return len(m.busy) + m.waitN }
func (m *queueModel) queued() int      { return m.waitN }

// latency is what a request arriving now would take in fifo order: its
// wait for the ones before it, then its own service.
func (m *queueModel) latency() time.Duration {
	return m.mean + time.Duration(float64(m.mean)*float64(m.waitN)/float64(m.workers))
}

func (m *queueModel) held() int { return len(m.busy) + m.wait.n }

func (m *queueModel) free(mem *budget.Run) {
	m.busy = m.busy[:0]
	m.wait.free(mem)
	m.waitN, m.dead = 0, nil
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
