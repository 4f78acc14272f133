package parallel

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// A Pool shares a fixed number of cores among many requests fairly, where
// handing out cores one job at a time would not: a request whose jobs are
// long (a phase map of storms, each cell seconds of work) would hold every
// core while a request of short jobs (a contention study of sub-millisecond
// runs) waited a whole job for each of its own, and never finished.
//
// A request joins the pool as a share (Join). Every Do under the share's
// context runs its goroutines only while they hold a core of the pool. A
// core is held for a quantum: a goroutine that has held one that long
// gives it up at its next Yield if another share is waiting, and waits
// for its next turn. A core that comes free goes to the waiting share
// that holds the fewest cores, and among those to the one that got a core
// the longest ago: one core a turn, whatever the number of goroutines a
// share has waiting. So n shares that all have work each get about 1/n
// of the cores, and a light request on a busy pool takes about its
// alone-time × the shares running.
//
// A share may also have a budget of core time: once its goroutines have
// held cores that long in all, its Yield and Do return a *BudgetError.
type Pool struct {
	quantum time.Duration
	cores   int
	epoch   time.Time // what turns' start times count from

	mu     sync.Mutex
	free   int      // cores nobody holds
	ring   []*share // the shares with a goroutine waiting
	grants uint64   // cores handed out so far
}

// DefaultQuantum is how long a goroutine keeps a core that others wait
// for: a few of a simulation's slices of events (simengine.SliceEvents),
// long enough that handing cores over costs nothing measurable, short
// enough that a page's light request gets a core within a fraction of a
// second.
const DefaultQuantum = 20 * time.Millisecond

// NewPool returns a pool of cores cores (at least 1) handed out for
// quantum at a time (0: every Yield hands the core over when another
// share waits).
func NewPool(cores int, quantum time.Duration) *Pool {
	cores = max(cores, 1)
	return &Pool{quantum: quantum, cores: cores, free: cores, epoch: time.Now()}
}

// Held returns how many of p's cores are held right now.
func (p *Pool) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cores - p.free
}

// Waiting returns how many shares have a goroutine waiting for a core.
func (p *Pool) Waiting() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ring)
}

// share is one request's part of a pool.
type share struct {
	pool    *Pool
	budget  time.Duration   // 0: none
	waiting []chan struct{} // its goroutines waiting for a core, in order
	used    time.Duration   // core time its ended turns held; pool.mu
	holding int             // cores its turns hold; pool.mu
	running int             // turns that have taken their core; pool.mu
	since   time.Duration   // the sum of their start times since pool.epoch; pool.mu
	granted uint64          // the pool's grants when it last got a core; pool.mu
}

// BudgetError is the error of a share that has used its budget of core
// time.
type BudgetError struct {
	Budget time.Duration // the share's budget
	Used   time.Duration // the core time it had held when stopped
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("stopped after %s of CPU time, this request's budget", e.Used.Round(time.Second))
}

type shareKey struct{}
type turnKey struct{}

// Join returns a context under which every Do runs on p's cores as one
// share, with a budget of core time (0: none). A request joins once, and
// its many Do calls, if any, share its turns.
func (p *Pool) Join(ctx context.Context, budget time.Duration) context.Context {
	return context.WithValue(ctx, shareKey{}, &share{pool: p, budget: budget})
}

// turn is one goroutine's hold on a core of its share's pool.
type turn struct {
	share *share
	since time.Duration // when it took the core, since its pool's epoch
	held  bool
	ch    chan struct{} // where it is told that a core is its
}

// acquire waits for a core for t, in its share's turn, or for ctx's end.
func (t *turn) acquire(ctx context.Context) error {
	s, p := t.share, t.share.pool
	p.mu.Lock()
	if used := s.usedAt(p.now()); s.budget > 0 && used >= s.budget {
		p.mu.Unlock()
		return &BudgetError{Budget: s.budget, Used: used}
	}
	if p.free > 0 {
		p.free--
		p.grant(s)
		p.mu.Unlock()
		t.took()
		return nil
	}
	t.enqueue()
	p.mu.Unlock()
	return t.wait(ctx)
}

// enqueue puts t in its share's queue, and its share in the ring if it
// was not waiting yet; pool.mu is held.
func (t *turn) enqueue() {
	s, p := t.share, t.share.pool
	s.waiting = append(s.waiting, t.ch)
	if len(s.waiting) == 1 {
		p.ring = append(p.ring, s)
	}
}

// wait waits until a core is handed to t, queued, or ctx ends.
func (t *turn) wait(ctx context.Context) error {
	s, p := t.share, t.share.pool
	select {
	case <-t.ch:
		t.took()
		return nil
	case <-ctx.Done():
	}
	p.mu.Lock()
	if i := slices.Index(s.waiting, t.ch); i >= 0 {
		s.waiting = slices.Delete(s.waiting, i, i+1)
		if len(s.waiting) == 0 {
			p.ring = slices.DeleteFunc(p.ring, func(o *share) bool { return o == s })
		}
		p.mu.Unlock()
		return ctx.Err()
	}
	p.mu.Unlock()
	// A core was handed to t as ctx ended: pass it on.
	<-t.ch
	t.took()
	t.release()
	return ctx.Err()
}

func (t *turn) took() {
	s, p := t.share, t.share.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	t.since = p.now()
	t.held = true
	s.running++
	s.since += t.since
}

// now is the time since p's epoch, on the monotonic clock.
func (p *Pool) now() time.Duration { return time.Since(p.epoch) }

// usedAt is the core time s has used by now: its ended turns' and so far
// its running ones'; pool.mu is held.
func (s *share) usedAt(now time.Duration) time.Duration {
	return s.used + time.Duration(s.running)*now - s.since
}

// release gives t's core to the next share in turn, or back to the pool.
func (t *turn) release() {
	if !t.held {
		return
	}
	p := t.share.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	t.handOn()
}

// handOn ends t's turn and hands its core to the next share in turn, or
// back to the pool; pool.mu is held.
func (t *turn) handOn() {
	t.held = false
	s, p := t.share, t.share.pool
	s.used += p.now() - t.since
	s.running--
	s.since -= t.since
	s.holding--
	if len(p.ring) == 0 {
		p.free++
		return
	}
	at := 0
	for i, o := range p.ring {
		if first := p.ring[at]; o.holding < first.holding || o.holding == first.holding && o.granted < first.granted {
			at = i
		}
	}
	next := p.ring[at]
	ch := next.waiting[0]
	next.waiting = slices.Delete(next.waiting, 0, 1)
	if len(next.waiting) == 0 {
		p.ring = slices.Delete(p.ring, at, at+1)
	}
	p.grant(next)
	ch <- struct{}{} // its buffer holds one: the receiver may not be there yet
}

// grant counts a core handed to s; p.mu is held.
func (p *Pool) grant(s *share) {
	p.grants++
	s.granted = p.grants
	s.holding++
}

// othersWait reports whether a share other than t's waits for a core.
func (t *turn) othersWait() bool {
	p := t.share.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.ring) > 1 || len(p.ring) == 1 && p.ring[0] != t.share
}

// Yield returns ctx's error if ctx is done. Within a job that Do runs
// under a Pool's share (Join), it also gives the core up when the job has
// held it for the pool's quantum and another share waits, and waits for
// its next turn; and it returns a *BudgetError once the share has used its
// budget. A long job calls it every few milliseconds of work.
func Yield(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	t, _ := ctx.Value(turnKey{}).(*turn)
	if t == nil || !t.held {
		return nil
	}
	s, p := t.share, t.share.pool
	now := p.now()
	held := now - t.since
	if s.budget > 0 {
		// Every running turn of the share counts, not only this one:
		// turns that nobody waits for are never ended, and a share of
		// two cores held alone would otherwise use twice its budget.
		p.mu.Lock()
		used := s.usedAt(now)
		p.mu.Unlock()
		if used >= s.budget {
			return &BudgetError{Budget: s.budget, Used: used}
		}
	}
	if held < p.quantum || !t.othersWait() {
		return nil
	}
	// t joins the queue before its core is handed on, under one lock: a
	// goroutine descheduled between the two would leave its share out of
	// the ring while the one it handed the core to asks whether others
	// wait, and that one would keep the core turn after turn.
	p.mu.Lock()
	t.enqueue()
	t.handOn()
	p.mu.Unlock()
	return t.wait(ctx)
}

// doShared is Do under a share: each of its goroutines holds a core of
// the share's pool while it runs jobs.
func doShared(ctx context.Context, s *share, workers, n int, job func(ctx context.Context, i int) error) error {
	return doOn(ctx, workers, n, func(ctx context.Context, next func() (int, bool)) error {
		t := &turn{share: s, ch: make(chan struct{}, 1)}
		ctx = context.WithValue(ctx, turnKey{}, t)
		// An acquire that fails because ctx ended leaves the error to Do,
		// which says whether every job was handed out.
		if err := t.acquire(ctx); err != nil {
			return orNil(ctx, err)
		}
		defer t.release()
		return runJobs(ctx, next, job)
	})
}

// orNil is err, or nil when ctx is done.
func orNil(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
