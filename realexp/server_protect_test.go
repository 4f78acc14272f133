package realexp

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// slowModels are a server of each model whose requests take delay alone:
// long enough that a loaded machine sees every arrival of a test before
// any completes.
func slowModels(delay time.Duration) []struct {
	name string
	cfg  ServerConfig
} {
	linear := DefaultServerConfig()
	linear.Scenario.ServerModel, linear.Scenario.ServerDelay, linear.Scenario.ServerSlope = "linear", delay, 0
	return []struct {
		name string
		cfg  ServerConfig
	}{
		{"curve", serverConfig(scenario.Curve{Base: delay, Limit: 100, Factor: 2, K: 1, Max: time.Hour})},
		{"linear", linear},
		{"queue", queueConfig(1, delay, 100)},
	}
}

// TestServerShedAbove: on every model, with shed_above 2, a third request
// while two are inside is answered at once with 503 and its reason, as
// the server answers when shutting down, and counted as shed.
func TestServerShedAbove(t *testing.T) {
	for _, m := range slowModels(time.Second) {
		t.Run(m.name, func(t *testing.T) {
			cfg := m.cfg
			cfg.Scenario.ShedAbove = 2
			s, addr := startServer(t, cfg, nil)
			tr := traceServer(s)
			hc, url := testClient(t), "http://"+addr+"/api"
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			a, b := goGet(ctx, hc, url), goGet(ctx, hc, url)
			if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 2 }) {
				t.Fatalf("a and b never entered: %+v", s.Stats())
			}
			body, status, _, err := get(context.Background(), hc, url)
			if err != nil || status != http.StatusServiceUnavailable || !strings.Contains(body, "shed_above") {
				t.Fatalf("third request: %d %q %v; want 503 naming shed_above", status, body, err)
			}
			// At once: the server shed it as it arrived, by its own
			// account, not when a delay ended.
			if done, _, _, _ := tr.snapshot(); len(done) != 3 || done[2].state != shed || !done[2].end.IsZero() {
				t.Errorf("trace %+v: want the third request shed on arrival", done)
			}
			if st := s.Stats(); st.Shed != 1 || st.Accepted != 3 {
				t.Errorf("stats %+v; want 1 shed of 3", st)
			}
			ra, rb := <-a, <-b
			if ra.status != http.StatusOK || rb.status != http.StatusOK {
				t.Errorf("a %+v, b %+v; want both served", ra, rb)
			}
		})
	}
}

// TestServerShedFlood: a paused server parks the requests; at the resume
// the first ones fill it up to shed_above and the others are answered
// 503 at once, not after the delay: the server has shed them when Resume
// returns, with nothing completed.
func TestServerShedFlood(t *testing.T) {
	cfg := serverConfig(scenario.Curve{Base: 500 * ms, Limit: 100, Factor: 2, K: 1, Max: time.Hour})
	cfg.Scenario.ShedAbove = 2
	s, addr := startServer(t, cfg, nil)
	hc, url := testClient(t), "http://"+addr+"/api"
	s.Pause()
	var rs []<-chan result
	for range 5 {
		rs = append(rs, goGet(context.Background(), hc, url))
	}
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Backlog == 5 }) {
		t.Fatalf("the requests never parked: %+v", s.Stats())
	}
	s.Resume()
	if st := s.Stats(); st.Shed != 3 || st.Completed != 0 || st.Concurrency != 2 {
		t.Errorf("at the resume: %+v; want 3 shed at once, 2 inside, none completed", st)
	}
	var ok, shedN int
	for _, ch := range rs {
		r := <-ch
		switch {
		case r.err == nil && r.status == http.StatusOK:
			ok++
		case r.err == nil && r.status == http.StatusServiceUnavailable:
			shedN++
		default:
			t.Errorf("request: %+v", r)
		}
	}
	if ok != 2 || shedN != 3 {
		t.Errorf("%d served, %d shed; want 2 and 3", ok, shedN)
	}
	if st := s.Stats(); st.Shed != 3 || st.Completed != 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestServerQueueTimeout: a request that waited for the one worker longer
// than queue_timeout is answered 503 when the worker reaches it, after the
// request before it, and the worker goes on to the next.
func TestServerQueueTimeout(t *testing.T) {
	cfg := queueConfig(1, 400*ms, 10)
	cfg.Scenario.QueueTimeout = 200 * ms
	s, addr := startServer(t, cfg, nil)
	hc, url := testClient(t), "http://"+addr+"/api"
	a := goGet(context.Background(), hc, url)
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 1 }) {
		t.Fatal("a never entered")
	}
	b := goGet(context.Background(), hc, url)
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 2 }) {
		t.Fatal("b never entered")
	}
	ra, rb := <-a, <-b
	if ra.status != http.StatusOK {
		t.Fatalf("a: %+v", ra)
	}
	if rb.err != nil || rb.status != http.StatusServiceUnavailable || !strings.Contains(rb.body, "queue timeout") {
		t.Fatalf("b: %+v; want 503 for its queue timeout", rb)
	}
	// b waited about 400 ms, less a's head start: answered with a's end,
	// not at its 200 ms timeout.
	if rb.took < 250*ms {
		t.Errorf("b answered after %v: before the worker reached it", rb.took)
	}
	if st := s.Stats(); st.Expired != 1 || st.Completed != 1 || st.Concurrency != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestServerCoDel: with codel, a request that comes once the queue has
// not emptied for codel_interval is served before an older one (lifo),
// which then has waited past the interval and is answered 503; without,
// they are served in order.
func TestServerCoDel(t *testing.T) {
	// One worker of 400 ms, codel_target 200 ms, codel_interval 150 ms. a
	// is served from its arrival (0) to 400 ms; b waits from about 0, the
	// queue empty until then; c, sent 300 ms after a entered, finds the
	// server overloaded (more than 150 ms without emptying) and may wait
	// 200 ms: taken at 400 ms, newest first, it is served, and b, taken
	// after it, has waited past its 150 ms. A c that a busy machine
	// delivers after 400 ms finds b expired and the worker free: the same
	// answers. Only the order of the answers is timed, by the server's
	// clock (serverTrace).
	for _, codel := range []bool{false, true} {
		t.Run(map[bool]string{false: "off", true: "codel"}[codel], func(t *testing.T) {
			cfg := queueConfig(1, 400*ms, 10)
			if codel {
				cfg.Scenario.QueueControl, cfg.Scenario.CoDelTarget, cfg.Scenario.CoDelInterval =
					scenario.QueueControlCoDel, 200*ms, 150*ms
			}
			s, addr := startServer(t, cfg, nil)
			tr := traceServer(s)
			hc, url := testClient(t), "http://"+addr+"/api"
			a := goGet(context.Background(), hc, url)
			if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 1 }) {
				t.Fatal("a never entered")
			}
			entered := time.Now()
			b := goGet(context.Background(), hc, url)
			if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 2 }) {
				t.Fatal("b never entered")
			}
			time.Sleep(300*ms - time.Since(entered)) // the scenario: c comes 300 ms after a
			c := goGet(context.Background(), hc, url)
			ra, rb, rc := <-a, <-b, <-c
			if ra.status != http.StatusOK || rc.status != http.StatusOK {
				t.Fatalf("a %+v, c %+v; want both served", ra, rc)
			}
			if !codel {
				done, _, _, _ := tr.snapshot()
				if len(done) != 3 {
					t.Fatalf("trace: %+v; want a, b and c", done)
				}
				if rb.status != http.StatusOK || !done[1].end.Before(done[2].end) {
					t.Errorf("fifo: b %+v, c %+v; want b served before c", rb, rc)
				}
				return
			}
			if rb.status != http.StatusServiceUnavailable || !strings.Contains(rb.body, "queue timeout") {
				t.Errorf("codel: b %+v; want 503 for its queue timeout", rb)
			}
			if st := s.Stats(); st.Expired != 1 || st.Completed != 2 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// TestClientCountsShedAsError: the real clients count a 503 as an error,
// not a timeout, and hear every shed answer the server gave while they
// waited.
func TestClientCountsShedAsError(t *testing.T) {
	cfg := serverConfig(scenario.Curve{Base: 200 * ms, Limit: 100, Factor: 2, K: 1, Max: time.Hour})
	cfg.Scenario.ShedAbove = 2
	s, addr := startServer(t, cfg, nil)
	sp, _ := strategies.Defaults(strategies.NameFixed)
	// A timeout no busy machine reaches on a 200 ms answer; the run lasts
	// until 20 shed answers, however slowly it runs.
	ccfg := ClientConfig{Addr: addr, Clients: 6, Think: 20 * ms, Timeout: testwait.Bound, Strategy: sp, Seed: 1, Report: 50 * ms}
	ctx, cancel := context.WithTimeout(context.Background(), testwait.Bound)
	defer cancel()
	var errs int64
	tot, err := RunClients(ctx, ccfg, func(w Window) {
		if errs += w.Errors; errs >= 20 {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	t.Logf("clients %+v; server %+v", tot, st)
	// An answer on its way when the clients stop is not counted: at most
	// one per client.
	if tot.Timeouts != 0 || tot.Errors == 0 || tot.Errors > st.Shed || tot.Errors < st.Shed-int64(ccfg.Clients) {
		t.Errorf("clients: %d errors, %d timeouts; server shed %d: want the shed answers as errors", tot.Errors, tot.Timeouts, st.Shed)
	}
}

// TestServerCancelOnTimeoutReal: on every model, with cancel_on_timeout,
// the real clients' attempts that time out leave the server at once (its
// concurrency stays within the clients, one attempt each, and nothing is
// served for nobody); without it, they stay inside and pile up. The
// requests take 5 s, longer than the test waits, so that every abandoned
// one is still inside at the end unless withdrawn.
func TestServerCancelOnTimeoutReal(t *testing.T) {
	const clients, enough = 5, 3 * 5 // timeouts to tell the two apart
	for _, m := range slowModels(5 * time.Second) {
		for _, cancelOn := range []bool{false, true} {
			t.Run(m.name+map[bool]string{false: "/kept", true: "/cancelled"}[cancelOn], func(t *testing.T) {
				cfg := m.cfg
				cfg.Scenario.Lanes[0].CancelOnTimeout = cancelOn
				s, addr := startServer(t, cfg, nil)
				sp, _ := strategies.Defaults(strategies.NameFixed)
				pop, err := NewPopulation(ClientConfig{Addr: addr, Clients: clients, Think: 10 * ms, Timeout: 100 * ms, Strategy: sp, Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				// Until enough attempts timed out, or 4 s on a machine too
				// busy to make them.
				ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
				defer cancel()
				done := make(chan struct{})
				go func() {
					pop.Run(ctx)
					close(done)
				}()
				maxC := 0
				for ctx.Err() == nil && pop.Totals().Timeouts < enough {
					maxC = max(maxC, s.Stats().Concurrency)
					time.Sleep(10 * ms) // samples the peak while it waits for the timeouts
				}
				cancel()
				<-done
				tot := pop.Totals()
				if cancelOn && !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 0 }) {
					t.Fatalf("the clients stopped, %+v still inside", s.Stats())
				}
				st := s.Stats()
				maxC = max(maxC, st.Concurrency)
				t.Logf("concurrency ≤ %d; clients %+v; server %+v", maxC, tot, st)
				if tot.Timeouts < enough {
					t.Skipf("%d timeouts in 4 s: the machine is too busy to tell", tot.Timeouts)
				}
				if cancelOn {
					if maxC > clients || st.Completed != 0 {
						t.Errorf("cancelled: concurrency reached %d (want ≤ %d), %d completed (want 0)", maxC, clients, st.Completed)
					}
					return
				}
				if st.Concurrency < int(tot.Timeouts) || st.Completed != 0 {
					t.Errorf("kept: %d inside, %d completed, for %d attempts abandoned: want every one still inside", st.Concurrency, st.Completed, tot.Timeouts)
				}
			})
		}
	}
}
