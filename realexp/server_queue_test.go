package realexp

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/scenario"
)

// queueConfig returns a worker-queue server of workers serving each
// request in exactly service, with room for backlog waiting.
func queueConfig(workers int, service time.Duration, backlog int) ServerConfig {
	cfg := DefaultServerConfig()
	p := &cfg.Scenario
	p.ServerModel, p.Workers, p.ServiceTime, p.ServiceDist, p.Backlog =
		scenario.QueueModel, workers, service, scenario.ServiceFixed, backlog
	return cfg
}

// serverTrace records what a server did by its own clock (Server.trace):
// a test of real time checks the times the server worked with, which a
// busy machine cannot shift, rather than when the test's goroutine, which
// it delays, saw the answers.
type serverTrace struct {
	s      *Server
	events []traceEvent // under s.mu
}

// traceServer starts recording what s does; set it before the requests.
func traceServer(s *Server) *serverTrace {
	tr := &serverTrace{s: s}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.trace = func(ev traceEvent) { tr.events = append(tr.events, ev) }
	return tr
}

// served is a request the server had, by its clock: when it arrived (a
// parked one: the resume), when its service ended (for one completed), and
// its state.
type served struct {
	start, end time.Time
	state      uint8
}

// snapshot returns, under the server's lock, the requests so far in the
// order of their arrival, the times of the last pause and resume (zero
// if none), and the stalls (the time the process was seen not to run)
// outside that pause, which shifted the services in progress by their
// length.
func (tr *serverTrace) snapshot() (done []served, pause, resume time.Time, stalls []traceEvent) {
	tr.s.mu.Lock()
	defer tr.s.mu.Unlock()
	for _, ev := range tr.events {
		switch ev.what {
		case "arrive":
			done = append(done, served{ev.r.start, ev.r.end, ev.r.state})
		case "pause":
			pause = ev.at
		case "resume":
			resume = ev.at
		}
	}
	for _, ev := range tr.events {
		// A paused model ignores a stall: its workers were not working.
		if ev.what == "stall" && (pause.IsZero() || !ev.to.After(pause) || !ev.at.Before(resume)) {
			stalls = append(stalls, ev)
		}
	}
	return done, pause, resume, stalls
}

// stalled is how long of [from, to) the stalls cover.
func stalled(stalls []traceEvent, from, to time.Time) time.Duration {
	var d time.Duration
	for _, ev := range stalls {
		if lo, hi := maxTime(ev.at, from), minTime(ev.to, to); hi.After(lo) {
			d += hi.Sub(lo)
		}
	}
	return d
}

// seenWithin is the whole length of the stalls the server saw from from to
// to: each delays every service in progress when it is seen by all of its
// length.
func seenWithin(stalls []traceEvent, from, to time.Time) time.Duration {
	var d time.Duration
	for _, ev := range stalls {
		if !ev.to.Before(from) && !ev.to.After(to) {
			d += ev.to.Sub(ev.at)
		}
	}
	return d
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// TestServerQueueSaturated: clients that keep more requests coming than
// the workers can serve get workers/service_time answers a second; the
// concurrency never passes workers + backlog, and the connects beyond are
// dropped. By the server's clock (serverTrace): no worker is idle while a
// request waits, each waiting request's service starts the moment another
// one's ends, so that the workers keep their pace however late a busy
// machine delivers the arrivals; and the services that ended in the
// window, over the window less the time the process was seen stalled,
// are not more than workers/service_time a second. The rate itself is
// checked when the clients kept the queue from emptying.
func TestServerQueueSaturated(t *testing.T) {
	const workers, service, backlog = 4, 50 * ms, 8
	s, addr := startServer(t, queueConfig(workers, service, backlog), nil)
	tr := traceServer(s)
	hc, url := testClient(t), "http://"+addr+"/api"
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 30 {
		wg.Go(func() {
			for ctx.Err() == nil {
				actx, stop := context.WithTimeout(ctx, 500*ms)
				get(actx, hc, url)
				stop()
			}
		})
	}
	maxC, maxB := 0, 0
	sample := func(d time.Duration) Stats {
		var st Stats
		// A window of observation over the storm, not a wait for a state.
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * ms) {
			st = s.Stats()
			maxC, maxB = max(maxC, st.Concurrency), max(maxB, st.Backlog)
		}
		return st
	}
	sample(500 * ms) // the queue fills
	t0 := time.Now()
	to := sample(2 * time.Second)
	t1 := time.Now()
	cancel()
	wg.Wait()
	// Every request admitted is served, its client there or not.
	testwait.Eventually(t, "the server served every request it admitted", func() bool { return s.Stats().Concurrency == 0 })

	done, _, _, stalls := tr.snapshot()
	n, waited, idle := 0, 0, 0
	ends := map[int64]bool{}
	for _, r := range done {
		if r.state == completed {
			ends[r.end.UnixNano()] = true
		}
	}
	for _, r := range done {
		if r.state != completed || r.end.Before(t0) || !r.end.Before(t1) {
			continue
		}
		n++
		from := r.end.Add(-service) // its service began: no stall moved its end
		if seenWithin(stalls, from, r.end.Add(testwait.Bound)) > 0 || !from.After(r.start) {
			continue
		}
		waited++
		if !ends[from.UnixNano()] {
			idle++
		}
	}
	work := t1.Sub(t0) - stalled(stalls, t0, t1)
	rate := float64(n) / work.Seconds()
	want := float64(workers) / service.Seconds()
	t.Logf("%.1f completed/s (want %.0f) over %v of work (%d stalls); %d waited, %d after an idle worker; concurrency ≤ %d, backlog ≤ %d; %d dropped",
		rate, want, work, len(stalls), waited, idle, maxC, maxB, to.Dropped)
	if waited < n/2 || idle > 0 {
		t.Errorf("of %d served, %d waited for a worker, %d of them not taken as one came free: want most to wait, each taken at once", n, waited, idle)
	}
	if rate > 1.1*want || idle == 0 && waited == n && rate < 0.9*want {
		t.Errorf("%.1f completed/s, want %.0f ± 10%%: workers/service_time", rate, want)
	}
	if maxC > workers+backlog || maxB > backlog {
		t.Errorf("concurrency reached %d, backlog %d: want ≤ %d and ≤ %d", maxC, maxB, workers+backlog, backlog)
	}
	if maxC < workers+backlog/2 || to.Dropped == 0 {
		t.Errorf("concurrency ≤ %d, %d dropped: the clients did not saturate the server", maxC, to.Dropped)
	}
	if d := to.LastDelay; d < service || d > service+time.Duration(backlog)*service/workers {
		t.Errorf("last delay %v: want what a new request would take, %v to %v", d, service, service+time.Duration(backlog)*service/workers)
	}
}

// TestServerQueuePause: paused, the request in service stops with the
// service time it had left, and a new one parks, outside the concurrency;
// resumed, the first ends after what it had left, then the second is
// served. The times are the server's own (serverTrace): a's service, from
// its arrival, lasts its service time and the pause, and b's, from a's
// end, its service time, each longer only by a stall of the process that
// the server saw (a loaded machine's), by no more than all of them.
func TestServerQueuePause(t *testing.T) {
	// The pause must come within a's service: 100 ms in, and a busy
	// machine has the 400 ms more to deliver it.
	const service = 500 * ms
	s, addr := startServer(t, queueConfig(1, service, 10), nil)
	tr := traceServer(s)
	hc, url := testClient(t), "http://"+addr+"/api"
	a := goGet(context.Background(), hc, url)
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 1 }) {
		t.Fatal("a never entered")
	}
	time.Sleep(100 * ms) // the scenario: the pause comes 100 ms into a's service
	s.Pause()
	if st := s.Stats(); st.Completed != 0 {
		t.Fatalf("a completed before the pause: %+v; the machine delayed the pause past a's %v", st, service)
	}
	b := goGet(context.Background(), hc, url)
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Backlog == 1 }) {
		t.Fatalf("b never parked: %+v", s.Stats())
	}
	// A negative check, so it sleeps: past a's service time, nothing
	// completes while the server is paused.
	time.Sleep(service)
	if st := s.Stats(); st.Concurrency != 1 || st.Completed != 0 || !st.Paused {
		t.Fatalf("paused: %+v; want a alone in service, nothing completed", st)
	}
	s.Resume()
	ra := <-a
	aSeen := time.Now()
	rb := <-b
	bSeen := time.Now()
	if ra.err != nil || rb.err != nil || ra.body != "OK" || rb.body != "OK" {
		t.Fatalf("a %+v, b %+v", ra, rb)
	}
	done, pause, resume, stalls := tr.snapshot()
	if len(done) != 2 || done[0].state != completed || done[1].state != completed || pause.IsZero() || resume.IsZero() {
		t.Fatalf("trace: %d served, pause %v, resume %v; want a and b, a pause and a resume", len(done), pause, resume)
	}
	sa, sb := done[0], done[1]
	stall := seenWithin(stalls, sa.start, sb.end)
	inA := pause.Sub(sa.start) // a's service before the pause: at least the test's 100 ms
	if extra := sa.end.Sub(sa.start) - service - resume.Sub(pause); extra < 0 || extra > stall {
		t.Errorf("a served %v before the pause, ended %v after the resume: want the %v it had left (+ stalls, %v)",
			inA, sa.end.Sub(resume), service-inA, stall)
	}
	if !sb.start.Equal(resume) {
		t.Errorf("b entered %v after the resume, want at the resume", sb.start.Sub(resume))
	}
	if extra := sb.end.Sub(sa.end) - service; extra < 0 || extra > stall {
		t.Errorf("b ended %v after a: want its %v from a's end (+ stalls, %v)", sb.end.Sub(sa.end), service, stall)
	}
	// And the answers came no sooner than the server's ends.
	if aSeen.Before(sa.end) || bSeen.Before(sb.end) {
		t.Errorf("answers seen %v and %v after the resume, before the ends of the services, %v and %v",
			aSeen.Sub(resume), bSeen.Sub(resume), sa.end.Sub(resume), sb.end.Sub(resume))
	}
}

// TestServerQueueStopped: a stop of the process (SIGSTOP), which the
// server only sees afterwards, as a wake-up that came too late, does not
// count as work: the request in service still has what it had left. By
// the server's clock (serverTrace), a's service lasts its service time and
// the stop, longer only by another stall the server saw.
func TestServerQueueStopped(t *testing.T) {
	const service, stop = 300 * ms, 700 * ms
	s, addr := startServer(t, queueConfig(1, service, 10), nil)
	tr := traceServer(s)
	a := goGet(context.Background(), testClient(t), "http://"+addr+"/api")
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 1 }) {
		t.Fatal("a never entered")
	}
	// As if the process had stopped for 700 ms since the server last ran:
	// the next call of now sees it.
	s.mu.Lock()
	s.seen = s.seen.Add(-stop)
	s.now()
	s.replan(time.Now())
	s.mu.Unlock()
	r := <-a
	seen := time.Now()
	if r.err != nil || r.body != "OK" {
		t.Fatalf("a: %+v", r)
	}
	done, _, _, stalls := tr.snapshot()
	if len(done) != 1 || done[0].state != completed || len(stalls) == 0 {
		t.Fatalf("trace: %d served, stalls %v; want a, and the stop", len(done), stalls)
	}
	sa := done[0]
	all := seenWithin(stalls, sa.start, sa.end)
	if took := sa.end.Sub(sa.start); took < service+stop || took > service+all {
		t.Errorf("a served in %v: want its %v and the %v stop (stalls seen: %v)", took, service, stop, all)
	}
	if seen.Before(sa.end) {
		t.Errorf("a answered %v before its service ended", sa.end.Sub(seen))
	}
}

// TestServerQueueCancel: with cancel_on_timeout, a request whose client
// left frees its worker at once, and the next one is served. By the
// server's clock (serverTrace), b's service ends before a's would have
// ended and b's after it, had a kept the worker: 2 service times after a
// came, more only by the stalls the server saw.
func TestServerQueueCancel(t *testing.T) {
	// Service long enough that a loaded machine notices a's leaving well
	// before a's service would have ended anyway.
	const service = 1500 * ms
	cfg := queueConfig(1, service, 10)
	cfg.Scenario.Lanes[0].CancelOnTimeout = true
	s, addr := startServer(t, cfg, nil)
	tr := traceServer(s)
	hc, url := testClient(t), "http://"+addr+"/api"
	ctx, stop := context.WithTimeout(context.Background(), 100*ms)
	defer stop()
	a := goGet(ctx, hc, url)
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 1 }) {
		t.Fatal("a never entered")
	}
	b := goGet(context.Background(), hc, url)
	if ra := <-a; ra.err == nil {
		t.Fatalf("a did not time out: %+v", ra)
	}
	rb := <-b
	if rb.err != nil || rb.body != "OK" {
		t.Fatalf("b: %+v", rb)
	}
	if st := s.Stats(); st.Completed != 1 || st.Abandoned != 1 || st.Concurrency != 0 {
		t.Errorf("stats %+v", st)
	}
	done, _, _, stalls := tr.snapshot()
	if len(done) != 2 || done[0].state != withdrawn || done[1].state != completed {
		t.Fatalf("trace: %+v; want a withdrawn, b served", done)
	}
	sa, sb := done[0], done[1]
	held := 2*service + seenWithin(stalls, sa.start, sb.end)
	if took := sb.end.Sub(sa.start); took < service || took >= held {
		t.Errorf("b's service ended %v after a came: want before %v, a's worker held and b's service after it", took, held)
	}
}
