package realexp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/scenario"
)

// serverConfig returns the default server with the latency curve cv.
func serverConfig(cv scenario.Curve) ServerConfig {
	cfg := DefaultServerConfig()
	p := &cfg.Scenario
	p.ServerDelay, p.ServerLimit, p.ServerFactor, p.ServerK, p.MaxServerDelay = cv.Base, cv.Limit, cv.Factor, cv.K, cv.Max
	return cfg
}

// defaultCurve is the default server's latency curve.
func defaultCurve() scenario.Curve {
	p := DefaultServerConfig().Scenario
	return scenario.CurveOf(&p)
}

// get GETs url and reports the body, the status and how long it took.
func get(ctx context.Context, hc *http.Client, url string) (string, int, time.Duration, error) {
	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := hc.Do(req)
	if err != nil {
		return "", 0, time.Since(start), err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), resp.StatusCode, time.Since(start), err
}

type result struct {
	body   string
	status int
	took   time.Duration
	err    error
}

// goGet GETs url in the background; the result arrives on the channel.
func goGet(ctx context.Context, hc *http.Client, url string) <-chan result {
	ch := make(chan result, 1)
	go func() {
		b, s, d, err := get(ctx, hc, url)
		ch <- result{b, s, d, err}
	}()
	return ch
}

// TestServerAnswersOKAfterDelay: a request alone is answered OK after the
// curve's delay at a concurrency of 1: no sooner, and by the server's own
// account that delay, which a busy machine may make late but not longer.
func TestServerAnswersOKAfterDelay(t *testing.T) {
	s, addr := startServer(t, serverConfig(curve2), nil)
	body, status, took, err := get(context.Background(), testClient(t), "http://"+addr+"/api")
	if err != nil || status != 200 || body != "OK" {
		t.Fatalf("GET /api: %q %d %v", body, status, err)
	}
	if took < 100*ms {
		t.Errorf("took %v, want at least the 100ms delay", took)
	}
	if st := s.Stats(); st.LastDelay != 100*ms || st.Completed != 1 {
		t.Errorf("stats %+v: want one completed after a delay of 100ms", st)
	}
}

// TestServerFollowsConcurrency: a request's wait is re-evaluated as the
// concurrency changes: alone it would take 400 ms, with a second request
// inside it takes 800 ms, and the second completes right after it. The
// second is sent once the first is inside, so it arrives during the first's
// service; the 400 ms are room for it to arrive on a loaded machine.
func TestServerFollowsConcurrency(t *testing.T) {
	curve := curve2
	curve.Base = 400 * ms
	s, addr := startServer(t, serverConfig(curve), nil)
	hc, url := testClient(t), "http://"+addr+"/api"
	a := goGet(context.Background(), hc, url)
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 1 }) {
		t.Fatal("a never entered")
	}
	b := goGet(context.Background(), hc, url)
	ra := <-a
	rb := <-b
	if ra.err != nil || rb.err != nil {
		t.Fatal(ra.err, rb.err)
	}
	if ra.took < 760*ms {
		t.Errorf("a took %v: want ≥ 800ms, the delay at concurrency 2", ra.took)
	}
	if st := s.Stats(); st.Completed != 2 || st.Concurrency != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestServerPauseResume: paused, the request inside does not complete and a
// new one waits outside the concurrency; resumed, both complete.
func TestServerPauseResume(t *testing.T) {
	s, addr := startServer(t, serverConfig(scenario.Curve{Base: 200 * ms, Limit: 10, Factor: 2, K: 1, Max: time.Hour}), nil)
	hc, base := testClient(t), "http://"+addr
	a := goGet(context.Background(), hc, base+"/api")
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 1 }) {
		t.Fatal("a never entered")
	}
	resp, err := hc.Post(base+"/control/pause", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var st Stats
	json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if !st.Paused {
		t.Fatalf("pause answered %+v", st)
	}
	b := goGet(context.Background(), hc, base+"/api")
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Backlog == 1 }) {
		t.Fatalf("b never reached the backlog: %+v", s.Stats())
	}
	// A negative check, so it sleeps: a is 400 ms over its delay and still
	// must not complete while the server is paused.
	time.Sleep(400 * ms)
	if st := s.Stats(); st.Completed != 0 || st.Concurrency != 1 {
		t.Fatalf("paused: %+v; want nothing completed, a alone inside", st)
	}
	select {
	case r := <-a:
		t.Fatalf("a answered while paused: %+v", r)
	default:
	}
	resumed := time.Now()
	resp, err = hc.Post(base+"/control/resume", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ra, rb := <-a, <-b
	if ra.err != nil || rb.err != nil || ra.body != "OK" || rb.body != "OK" {
		t.Fatalf("a %+v, b %+v", ra, rb)
	}
	// b entered at the resume: it waited its 200 ms from then.
	if d := time.Since(resumed); d < 190*ms {
		t.Errorf("b answered %v after the resume, want ≥ 200ms", d)
	}
}

// TestServerCancelOnTimeout: by default a request whose client left stays
// inside until its delay ends (001's server); with CancelOnTimeout it
// leaves at once.
func TestServerCancelOnTimeout(t *testing.T) {
	for _, cancel := range []bool{false, true} {
		cfg := serverConfig(scenario.Curve{Base: 700 * ms, Limit: 10, Factor: 2, K: 1, Max: time.Hour})
		cfg.Scenario.Lanes[0].CancelOnTimeout = cancel
		s, addr := startServer(t, cfg, nil)
		ctx, stop := context.WithTimeout(context.Background(), 100*ms)
		_, _, _, err := get(ctx, testClient(t), "http://"+addr+"/api")
		stop()
		if err == nil {
			t.Fatalf("cancel %v: the attempt did not time out", cancel)
		}
		if cancel {
			if !testwait.Within(testwait.Bound, func() bool { st := s.Stats(); return st.Concurrency == 0 && st.Abandoned == 1 }) {
				t.Fatalf("cancel on: %+v; want the request withdrawn", s.Stats())
			}
			if st := s.Stats(); st.Completed != 0 {
				t.Errorf("cancel on: %+v; want nothing completed", st)
			}
			continue
		}
		time.Sleep(200 * ms) // the scenario: 300 ms into a service of more
		if st := s.Stats(); st.Concurrency != 1 {
			t.Fatalf("cancel off, 300 ms in: %+v; want the abandoned request still inside", st)
		}
		if !testwait.Within(testwait.Bound, func() bool { st := s.Stats(); return st.Completed == 1 && st.Abandoned == 1 }) {
			t.Fatalf("cancel off: %+v; want it completed for nobody", s.Stats())
		}
	}
}

// TestServerClosesLeftConn: when a client leaves, the server closes its
// end of the connection at once, without an answer, rather than hold it in
// CLOSE-WAIT until the delay ends; the request stays inside all the same
// (cancel_on_timeout off), answered for nobody when its delay ends.
func TestServerClosesLeftConn(t *testing.T) {
	s, addr := startServer(t, serverConfig(scenario.Curve{Base: 10 * time.Second, Limit: 10, Factor: 2, K: 1, Max: time.Hour}), nil)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET /api HTTP/1.1\r\nHost: backofflab\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Concurrency == 1 }) {
		t.Fatalf("the request did not arrive: %+v", s.Stats())
	}
	c.(*net.TCPConn).CloseWrite() // the client leaves: the server reads its FIN
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.Read(make([]byte, 512))
	if n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("read %d bytes, %v; want the server to close the connection without an answer", n, err)
	}
	if st := s.Stats(); st.Concurrency != 1 || st.Completed != 0 {
		t.Errorf("after the client left: %+v; want its request still inside", st)
	}
}

// TestServerControlLoopbackOnly: the control endpoints refuse remote callers.
func TestServerControlLoopbackOnly(t *testing.T) {
	s := NewServer(DefaultServerConfig())
	defer s.Close()
	h := s.Handler()
	for _, tc := range []struct {
		method, path, remote string
		want                 int
	}{
		{"GET", "/control/stats", "127.0.0.1:5000", 200},
		{"GET", "/control/stats", "[::1]:5000", 200},
		{"GET", "/control/stats", "[::ffff:127.0.0.1]:5000", 200},
		{"GET", "/control/stats", "192.0.2.7:5000", 403},
		{"POST", "/control/pause", "192.0.2.7:5000", 403},
		{"POST", "/control/resume", "[2001:db8::1]:5000", 403},
		{"GET", "/control/pause", "127.0.0.1:5000", 405},
		{"POST", "/control/pause", "127.0.0.1:5000", 200},
		{"POST", "/control/resume", "127.0.0.1:5000", 200},
	} {
		req := httptest.NewRequest(tc.method, "http://127.0.0.1:8070"+tc.path, nil)
		req.RemoteAddr = tc.remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != tc.want {
			t.Errorf("%s %s from %s: %d, want %d", tc.method, tc.path, tc.remote, w.Code, tc.want)
		}
		if tc.want == 200 && !strings.Contains(w.Body.String(), `"concurrency":`) {
			t.Errorf("%s %s: body %q", tc.method, tc.path, w.Body)
		}
	}
	if s.Stats().Paused {
		t.Error("a remote pause was obeyed")
	}
}

// TestServerReportLines: Run prints 001's line at every interval.
func TestServerReportLines(t *testing.T) {
	cfg := DefaultServerConfig()
	cfg.ReportEvery = 50 * ms
	var out testwait.Buffer
	s, _ := startServer(t, cfg, &out)
	line := regexp.MustCompile(`^[A-Z][a-z]{2} [ 0-9]\d \d\d:\d\d:\d\d\.\d{3}: concurrency: +\d+, last delay: \S+( \(paused, backlog: \d+\))?$`)
	if !testwait.Within(testwait.Bound, func() bool { return strings.Count(out.String(), "\n") >= 2 }) {
		t.Fatalf("no report lines: %q", out.String())
	}
	s.Pause()
	if !testwait.Within(testwait.Bound, func() bool { return strings.Contains(out.String(), "paused") }) {
		t.Fatalf("no paused line: %q", out.String())
	}
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if !line.MatchString(l) {
			t.Errorf("report line %q does not match %v", l, line)
		}
	}
}

// TestServerShutdownReleases: ending Run's context answers the requests
// still waiting (here: parked by a pause) at once, rather than when their
// delay would end: parked by a pause that never ends, they would not be
// answered at all but by the release, and nothing completes.
func TestServerShutdownReleases(t *testing.T) {
	s, addr := startServer(t, serverConfig(curve2), nil)
	s.Pause()
	hc := testClient(t)
	var rs []<-chan result
	for range 5 {
		rs = append(rs, goGet(context.Background(), hc, "http://"+addr+"/api"))
	}
	if !testwait.Within(testwait.Bound, func() bool { return s.Stats().Backlog == 5 }) {
		t.Fatalf("stats %+v", s.Stats())
	}
	s.Close() // what Run does when its context ends
	for i, ch := range rs {
		var r result
		if !testwait.Within(testwait.Bound, func() bool {
			select {
			case r = <-ch:
				return true
			default:
				return false
			}
		}) {
			t.Fatalf("request %d not released", i)
		}
		if r.err == nil && r.status != http.StatusServiceUnavailable {
			t.Errorf("released request: %+v, want 503", r)
		}
	}
	if st := s.Stats(); st.Completed != 0 || !st.Paused {
		t.Errorf("stats %+v: want the requests released by the close, paused, none completed", st)
	}
}
