package realexp

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"backofflab/internal/testwait"
	"backofflab/scenario"
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

// TestServerQueueSaturated: clients that keep more requests coming than
// the workers can serve get workers/service_time answers a second; the
// concurrency never passes workers + backlog, and the connects beyond are
// dropped.
func TestServerQueueSaturated(t *testing.T) {
	const workers, service, backlog = 4, 50 * ms, 8
	s, addr := startServer(t, queueConfig(workers, service, backlog), nil)
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
	from, t0 := s.Stats(), time.Now()
	to := sample(2 * time.Second)
	el := time.Since(t0)
	cancel()
	wg.Wait()

	rate := float64(to.Completed-from.Completed) / el.Seconds()
	want := float64(workers) / service.Seconds()
	t.Logf("%.1f completed/s (want %.0f); concurrency ≤ %d, backlog ≤ %d; %d dropped", rate, want, maxC, maxB, to.Dropped)
	if math.Abs(rate-want) > 0.1*want {
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
// served.
func TestServerQueuePause(t *testing.T) {
	s, addr := startServer(t, queueConfig(1, 300*ms, 10), nil)
	hc, url := testClient(t), "http://"+addr+"/api"
	a := goGet(context.Background(), hc, url)
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 1 }) {
		t.Fatal("a never entered")
	}
	time.Sleep(100 * ms) // the scenario: the pause comes 100 ms into a's service
	s.Pause()            // a has about 200 ms left
	b := goGet(context.Background(), hc, url)
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Backlog == 1 }) {
		t.Fatalf("b never parked: %+v", s.Stats())
	}
	// A negative check, so it sleeps: past a's service time, nothing
	// completes while the server is paused.
	time.Sleep(500 * ms)
	if st := s.Stats(); st.Concurrency != 1 || st.Completed != 0 || !st.Paused {
		t.Fatalf("paused: %+v; want a alone in service, nothing completed", st)
	}
	resumed := time.Now()
	s.Resume()
	ra := <-a
	aAfter := time.Since(resumed)
	rb := <-b
	bAfter := time.Since(resumed)
	if ra.err != nil || rb.err != nil || ra.body != "OK" || rb.body != "OK" {
		t.Fatalf("a %+v, b %+v", ra, rb)
	}
	if aAfter < 150*ms || aAfter > 400*ms {
		t.Errorf("a answered %v after the resume, want about the 200 ms it had left", aAfter)
	}
	if bAfter < aAfter+250*ms {
		t.Errorf("b answered %v after the resume, a %v: want b's 300 ms after a's", bAfter, aAfter)
	}
}

// TestServerQueueStopped: a stop of the process (SIGSTOP), which the
// server only sees afterwards, as a wake-up that came too late, does not
// count as work: the request in service still has what it had left.
func TestServerQueueStopped(t *testing.T) {
	s, addr := startServer(t, queueConfig(1, 300*ms, 10), nil)
	a := goGet(context.Background(), testClient(t), "http://"+addr+"/api")
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 1 }) {
		t.Fatal("a never entered")
	}
	start := time.Now()
	// As if the process had stopped for 700 ms since the server last ran:
	// the next call of now sees it.
	s.mu.Lock()
	s.seen = s.seen.Add(-700 * ms)
	s.now()
	s.replan(time.Now())
	s.mu.Unlock()
	r := <-a
	if took := time.Since(start); r.err != nil || took < 850*ms || took > 1500*ms {
		t.Fatalf("a answered %v later (%+v); want about 1 s: its 300 ms and the 700 ms stop", took, r)
	}
}

// TestServerQueueCancel: with cancel_on_timeout, a request whose client
// left frees its worker at once, and the next one is served.
func TestServerQueueCancel(t *testing.T) {
	// Service long enough that a loaded machine notices a's leaving well
	// before a's service would have ended anyway.
	cfg := queueConfig(1, 1500*ms, 10)
	cfg.Scenario.Lanes[0].CancelOnTimeout = true
	s, addr := startServer(t, cfg, nil)
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
	start := time.Now()
	rb := <-b
	if took := time.Since(start); rb.err != nil || took > 2500*ms {
		t.Fatalf("b answered %v after a left (%+v): want its 1.5 s from then, not a's worker held (2.9 s)", took, rb)
	}
	if st := s.Stats(); st.Completed != 1 || st.Abandoned != 1 || st.Concurrency != 0 {
		t.Errorf("stats %+v", st)
	}
}
