// Package workq is the worker queue's disciplines and bookkeeping, one
// implementation for the simulator's queue model and the real server's
// alike: the order in which a free worker takes a waiting request
// (queue_order, and CoDel's adaptive LIFO), how long a request may wait
// (queue_timeout, codel_target, codel_interval), the count of the live
// waiting requests and when the queue last emptied, and the service times.
//
// Its clock is a time.Duration since any fixed origin: the simulator's
// virtual time, or the real server's time since its first request. Only
// differences of times are used, so the origin does not matter.
package workq

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// Discipline is how a worker queue orders and limits its waiting requests.
type Discipline struct {
	// LIFO is queue_order=lifo: a free worker takes the newest request.
	LIFO bool
	// Timeout is queue_timeout: a request that waited longer is answered
	// with an error when a worker reaches it; 0 for no limit.
	Timeout time.Duration
	// CoDel is queue_control=codel, Fail at Scale's controlled delay and
	// adaptive LIFO: while the queue has not been empty for Interval, the
	// server is overloaded; a worker then takes the newest request, and a
	// request joining may wait Target, else Interval.
	CoDel            bool
	Target, Interval time.Duration
}

// DisciplineOf returns the discipline of p's worker queue.
func DisciplineOf(p *scenario.Params) Discipline {
	return Discipline{
		LIFO:    p.QueueOrder == scenario.QueueLIFO,
		Timeout: p.QueueTimeout,
		CoDel:   p.QueueControl == scenario.QueueControlCoDel,
		Target:  p.CoDelTarget, Interval: p.CoDelInterval,
	}
}

// Expired reports whether a request that waited for waited with its limit
// (0 for none) is answered with an error rather than served.
func Expired(limit, waited time.Duration) bool { return limit > 0 && waited > limit }

// Line is the bookkeeping of a worker queue's wait list under its
// Discipline: how many live requests wait (not withdrawn), and when the
// queue was last seen empty, which CoDel reads. The queue counts as empty
// when an arriving request finds nobody waiting (Arrive) or a worker takes
// the last waiting one (Take); a withdrawn request that leaves it empty
// does not count until the next arrival sees it so.
type Line struct {
	Discipline
	waiting int           // live requests waiting
	emptyAt time.Duration // when the queue was last seen empty
}

// Waiting returns how many live requests wait.
func (l *Line) Waiting() int { return l.waiting }

// Arrive notes a request arriving at now, before it takes a worker or
// joins the queue: a queue it finds empty has been empty until now.
func (l *Line) Arrive(now time.Duration) {
	if l.waiting == 0 {
		l.emptyAt = now
	}
}

// Overloaded reports whether, under CoDel, the queue has not been empty
// for longer than the interval at now (for exactly the interval, it is
// not yet).
func (l *Line) Overloaded(now time.Duration) bool {
	return l.CoDel && now-l.emptyAt > l.Interval
}

// Limit returns how long a request joining the queue at now may wait for
// a worker: the queue timeout, and under CoDel the shorter of it and the
// target while overloaded, the interval otherwise; 0 for no limit.
func (l *Line) Limit(now time.Duration) time.Duration {
	lim := l.Timeout
	if l.CoDel {
		c := l.Interval
		if l.Overloaded(now) {
			c = l.Target
		}
		if lim == 0 || c < lim {
			lim = c
		}
	}
	return lim
}

// Join counts in a request that now waits in the list.
func (l *Line) Join() { l.waiting++ }

// Withdraw counts out a waiting request that left (its client left and
// the server learned it); it stays in the list, for Take to pass over.
func (l *Line) Withdraw() { l.waiting-- }

// Drop counts out every waiting request (the process died). When the
// queue emptied is left as it was, until the next arrival sees it empty.
func (l *Line) Drop() { l.waiting = 0 }

// List is what Take needs of a wait list of W, oldest first: to remove
// its oldest or its newest request, and to tell a withdrawn one.
type List[W any] interface {
	// PopFront and PopBack remove and return the oldest and the newest
	// request; one is there.
	PopFront() W
	PopBack() W
	// Withdrawn reports whether w, just removed, had been withdrawn; Take
	// passes over it, so the list may forget it.
	Withdrawn(w W) bool
}

// Take removes from list the live request that a worker freed at now
// takes: the newest under queue_order=lifo or while CoDel finds the queue
// overloaded, else the oldest; it passes over withdrawn ones. One live
// request waits. Taking the last leaves the queue empty at now.
func Take[W any, L List[W]](l *Line, list L, now time.Duration) W {
	newest := l.LIFO || l.Overloaded(now)
	for {
		var w W
		if newest {
			w = list.PopBack()
		} else {
			w = list.PopFront()
		}
		if list.Withdrawn(w) {
			continue
		}
		l.waiting--
		if l.waiting == 0 {
			l.emptyAt = now
		}
		return w
	}
}

// Service is a worker's service times: service_time's mean, every one
// that mean (service_dist=fixed) or drawn from an exponential, from a
// seeded stream of their own so that the clients' draws do not shift them.
type Service struct {
	Mean  time.Duration
	Fixed bool
	rng   *rand.Rand
}

// serviceStream is the PCG stream of the service times.
const serviceStream = 0x2545f4914f6cdd1d

// ServiceOf returns the service times of p's workers, seeded by p's seed.
func ServiceOf(p *scenario.Params) Service {
	s := Service{rng: rand.New(rand.NewPCG(p.Seed, serviceStream))}
	s.Set(p)
	return s
}

// Set applies p's service_time and service_dist from the next draw on,
// going on with the same stream.
func (s *Service) Set(p *scenario.Params) {
	s.Mean, s.Fixed = p.ServiceTime, p.ServiceDist == scenario.ServiceFixed
}

// Draw returns the next service time.
func (s *Service) Draw() time.Duration {
	if s.Fixed {
		return s.Mean
	}
	return time.Duration(-math.Log1p(-s.rng.Float64()) * float64(s.Mean))
}

// Latency is what a request arriving now would take in fifo order, with
// waiting requests before it and workers serving: its wait for the ones
// before it, then its own service.
func (s *Service) Latency(waiting, workers int) time.Duration {
	return s.Mean + time.Duration(float64(s.Mean)*float64(waiting)/float64(workers))
}
