package playground

import (
	"encoding/json"
	"math"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/realexp"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/scene"
)

// realQuery is a small real lane: 200 clients thinking 1 s (≈180 req/s
// against 001's curve server, which answers in 100 ms up to 30 at once, so
// ≈18 inside), a 500 ms timeout, lane b real (think_scaled), lane a
// simulated (fixed).
const realQuery = realCurve + "&a.strategy=fixed&b.strategy=think_scaled&b.source=real&clients=200&think=1s&timeout=500ms&speed=1&duration=30s&outage=none"

// realCurve is the server model of the real lanes' tests: 001's curve,
// whose timings they assert.
const realCurve = "server_model=curve"

// TestRealLaneRefusedHeadless: a headless export refuses a real lane,
// which runs live only, and the page shows a lane's source in its menu
// and its head (the decoding of the sources is web/scene's
// TestDecodeRealLane).
func TestRealLaneRefusedHeadless(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	for _, format := range []string{"csv", "json"} {
		resp, body := get(t, srv.URL+"/export."+format+"?"+realCurve+"&b.source=real", nil)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "b.source") ||
			!strings.Contains(string(body), "real lanes run live only; export from the page") {
			t.Errorf("/export.%s?b.source=real: %d %q", format, resp.StatusCode, body)
		}
	}

	// The page shows the lane's source in its menu and its head.
	v := newView(pageFor(t, realCurve+"&b.source=real"))
	if k := v.Panels[1].Source; k.Name != "b.source" || k.Value != scene.SourceReal || v.Panels[1].SourceLabel == "" || v.Panels[0].Source.Value != scene.SourceSim {
		t.Errorf("lane panels' sources: a %+v, b %+v", v.Panels[0].Source, k)
	}
}

// realRow is one tick row as the test's page reads it.
type realRow []any

func (r realRow) at(i int) float64 {
	if f, ok := r[i].(float64); ok {
		return f
	}
	return -1 // null: a percentile with no value
}

// waitRows polls p's rows until cond holds for the rows so far, failing
// after within.
func waitRows(t *testing.T, p *page, what string, within time.Duration, cond func([]realRow) bool) []realRow {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		p.mu.Lock()
		rows := make([]realRow, len(p.rows))
		for i, r := range p.rows {
			rows[i] = r
		}
		p.mu.Unlock()
		if cond(rows) {
			return rows
		}
		if time.Now().After(deadline) {
			n := len(rows)
			t.Fatalf("%s: not within %v (%d rows, last %v)", what, within, n, rows[max(n-1, 0):])
		}
		select {
		case <-p.done:
			t.Fatalf("%s: the socket closed: %v", what, p.err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// after returns the rows whose t is past from.
func after(rows []realRow, from float64) []realRow {
	for i, r := range rows {
		if r.at(0) > from {
			return rows[i:]
		}
	}
	return nil
}

// control POSTs to a real lane's control endpoint (or GETs its stats).
func control(t *testing.T, addr, what string) realexp.Stats {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	method := http.MethodPost
	if what == "stats" {
		method = http.MethodGet
	}
	req, _ := http.NewRequest(method, "http://"+addr+"/control/"+what, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s on the real server: %v", what, err)
	}
	defer resp.Body.Close()
	var st realexp.Stats
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return st
}

// refused reports whether nothing listens at addr any more.
func refused(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err != nil
}

// realWait bounds the waits on a real lane: real time, on a loaded 2-core
// machine, slower under -race.
func realWait() time.Duration {
	if testrace.Enabled {
		return 8 * time.Second
	}
	return 4 * time.Second
}

// TestRealLaneStreams: a session with a real lane streams rows whose lane b
// block is the real experiment's (ok within seconds; the real server's
// backlog when that server is paused behind the engine's back), while lane a
// stays simulated; the stop/resume message pauses and resumes the real
// server.
func TestRealLaneStreams(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	start := time.Now()
	p := dialPage(t, srv, realQuery)
	hello := p.await("hello", nil)
	lanes := field[[]laneInfo](t, hello, "lanes")
	if len(lanes) != 2 || lanes[0].Source != scene.SourceSim || lanes[1].Source != scene.SourceReal || !strings.HasPrefix(lanes[1].Addr, "127.0.0.1:") {
		t.Fatalf("hello lanes %+v", lanes)
	}
	if q := field[string](t, hello, "query"); !strings.Contains(q, "b.source=real") {
		t.Fatalf("hello query %q lacks b.source=real", q)
	}
	addr := lanes[1].Addr
	if st := p.await("state", nil); !strings.Contains(field[string](t, st, "note"), "lane b is real") {
		t.Errorf("state note %s", st["note"])
	}
	okA, okB := col(t, 0, "ok"), col(t, 1, "ok")
	toB, cB, blB, blA := col(t, 1, "timeouts"), col(t, 1, "concurrency"), col(t, 1, "backlog"), col(t, 0, "backlog")
	p50B := col(t, 1, "p50")
	waitRows(t, p, "lane b has ok > 0", realWait(), func(rows []realRow) bool {
		return len(rows) > 0 && rows[len(rows)-1].at(okB) > 0
	})
	t.Logf("lane b's first ok after %v", time.Since(start).Round(time.Millisecond))

	t.Run("rows follow the wall clock", func(t *testing.T) {
		rows := waitRows(t, p, "a row at t ≥ 1.5 s", realWait(), func(rows []realRow) bool {
			return len(rows) > 0 && rows[len(rows)-1].at(0) >= 1.5
		})
		for i, r := range rows {
			if want := float64(i+1) / 10; r.at(0) < want-1e-9 || r.at(0) > want+1e-9 {
				t.Fatalf("row %d at t = %v, want %v: every tick, in order", i, r.at(0), want)
			}
		}
		last := rows[len(rows)-1]
		if el := time.Since(start).Seconds(); last.at(0) > el+0.2 {
			t.Errorf("t = %v s after %.2f s of wall time: the real lane runs at 1×", last.at(0), el)
		}
		var lat []float64
		for _, r := range rows {
			if v := r.at(p50B); v >= 0 {
				lat = append(lat, v)
			}
		}
		if len(lat) == 0 || lat[len(lat)-1] < 0.09 || lat[len(lat)-1] > 0.5 {
			t.Errorf("lane b's p50 %v, want the server's 100 ms and a little", lat)
		}
	})

	t.Run("lane b is the real server's", func(t *testing.T) {
		// Pause the real server behind the engine's back: only lane b
		// sees it (its backlog fills, its ok falls to 0), the engine is up.
		st := control(t, addr, "stats")
		if st.Accepted == 0 {
			t.Fatalf("the real server saw no request: %+v", st)
		}
		control(t, addr, "pause")
		now := waitRows(t, p, "rows", time.Second, func([]realRow) bool { return true })
		from := now[len(now)-1].at(0) + 0.6
		rows := waitRows(t, p, "lane b's backlog fills and its ok stops", realWait(), func(rows []realRow) bool {
			a := after(rows, from)
			return len(a) >= 3 && a[len(a)-1].at(blB) > 0 && a[len(a)-1].at(okB) == 0
		})
		last := rows[len(rows)-1]
		if last.at(blA) != 0 || last.at(okA) == 0 {
			t.Errorf("lane a (simulated) has backlog %v and ok %v: the engine is not down", last.at(blA), last.at(okA))
		}
		if st := control(t, addr, "stats"); !st.Paused || st.Backlog == 0 {
			t.Errorf("the real server: %+v", st)
		}
		control(t, addr, "resume")
		from = last.at(0) + 0.5
		waitRows(t, p, "lane b serves again", realWait(), func(rows []realRow) bool {
			a := after(rows, from)
			return len(a) > 0 && a[len(a)-1].at(okB) > 0 && a[len(a)-1].at(blB) == 0
		})
	})

	t.Run("stop and resume the server", func(t *testing.T) {
		p.send(inMsg{Type: "outage", On: true})
		down := p.await("state", func(m map[string]json.RawMessage) bool { return field[bool](t, m, "down") })
		stopped := field[float64](t, down, "t")
		if st := control(t, addr, "stats"); !st.Paused {
			t.Fatalf("the engine's outage started at %v s, the real server is not paused: %+v", stopped, st)
		}
		rows := waitRows(t, p, "lane b times out and its ok falls to 0", realWait(), func(rows []realRow) bool {
			a := after(rows, stopped+0.6)
			if len(a) < 2 || a[len(a)-1].at(okB) != 0 {
				return false
			}
			for _, r := range a {
				if r.at(toB) > 0 {
					return true
				}
			}
			return false
		})
		p.send(inMsg{Type: "outage", On: false})
		up := p.await("state", func(m map[string]json.RawMessage) bool { return !field[bool](t, m, "down") })
		resumed := field[float64](t, up, "t")
		if st := control(t, addr, "stats"); st.Paused {
			t.Fatalf("the outage ended at %v s, the real server is still paused: %+v", resumed, st)
		}
		rows = waitRows(t, p, "lane b's ok comes back and its timeouts stop", realWait(), func(rows []realRow) bool {
			a := after(rows, resumed+0.6)
			return len(a) >= 2 && a[len(a)-1].at(okB) > 0 && a[len(a)-1].at(toB) == 0
		})
		peak := 0.0
		for _, r := range after(rows, stopped) {
			peak = max(peak, r.at(cB))
		}
		t.Logf("stopped at %.1f s, resumed at %.1f s; lane b's concurrency peaked at %v", stopped, resumed, peak)
	})

	t.Run("speed stays 1", func(t *testing.T) {
		p.send(inMsg{Type: "speed", Speed: "10"})
		m := p.await("error", nil)
		if field[string](t, m, "param") != scene.SpeedParam || !strings.Contains(field[string](t, m, "message"), "1 while a lane is real") {
			t.Errorf("speed 10 with a real lane: %v", m)
		}
		p.send(inMsg{Type: "set", Query: withQuery(t, realQuery, "outage=crash")})
		m = p.await("error", nil)
		if field[string](t, m, "param") != "outage" {
			t.Errorf("outage=crash with a real lane: %v", m)
		}
	})
}

// TestRealLaneVerdict: the scheduled outage pauses and resumes the real
// server on time, and the real lane's verdict comes from its own ticks.
func TestRealLaneVerdict(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	// A server limit well above the steady ≈18 inside: real concurrency
	// has bursts (a late timer, a GC pause) that a limit of 30 would count
	// as "not recovered" for seconds.
	p := dialPage(t, srv, realCurve+"&a.strategy=fixed&b.strategy=think_scaled&b.source=real&clients=200&think=1s&timeout=500ms&server_limit=60&duration=30s&outage=pause&outage_at=1500ms&outage_for=1s")
	addr := field[[]laneInfo](t, p.await("hello", nil), "lanes")[1].Addr
	okB, toB := col(t, 1, "ok"), col(t, 1, "timeouts")
	p.await("state", func(m map[string]json.RawMessage) bool { return field[bool](t, m, "down") })
	if st := control(t, addr, "stats"); !st.Paused {
		t.Fatalf("the scheduled outage started; the real server: %+v", st)
	}
	p.await("state", func(m map[string]json.RawMessage) bool { return !field[bool](t, m, "down") })
	if st := control(t, addr, "stats"); st.Paused {
		t.Fatalf("the scheduled outage ended; the real server: %+v", st)
	}
	rows := waitRows(t, p, "a row at t ≥ 3 s", realWait(), func(rows []realRow) bool {
		return len(rows) > 0 && rows[len(rows)-1].at(0) >= 3
	})
	var before, during, timeouts float64
	for _, r := range rows {
		switch t := r.at(0); {
		case t > 0.5 && t <= 1.5:
			before += r.at(okB)
		case t > 1.9 && t <= 2.5: // a margin for a late wake on a loaded machine
			during += r.at(okB)
			timeouts += r.at(toB)
		}
	}
	if before == 0 || during != 0 || timeouts == 0 {
		t.Errorf("lane b: ok %v before the outage, ok %v and timeouts %v during it", before, during, timeouts)
	}
	// Recovery needs 5 s under the limit after the outage's end (2.5 s). A
	// stall of this machine (another test, a GC pause) makes a burst over
	// the limit that restarts those 5 s: the bound leaves room for two.
	deadline := time.After(20*time.Second + realWait())
	for {
		var sum scenario.Summary
		select {
		case m := <-p.msgs:
			if m == nil {
				t.Fatalf("socket closed: %v", p.err)
			}
			if string(m["type"]) != `"summary"` {
				continue
			}
			sum = field[[]scenario.Summary](t, m, "lanes")[1]
		case <-deadline:
			t.Fatalf("lane b's server never recovered")
		}
		if sum.ServerRecoveredAfter == nil {
			continue
		}
		t.Logf("lane b (real): %+v, server recovered %.1f s after the outage", sum, *sum.ServerRecoveredAfter)
		if sum.BaselineOK < 90 || sum.BaselineOK > 270 || sum.Collapsed || sum.Requests == 0 || sum.Attempts < sum.Requests {
			t.Errorf("lane b's verdict %+v, want a baseline of about 180 ok/s", sum)
		}
		if *sum.ServerRecoveredAfter > 12 {
			t.Errorf("lane b's server recovered %.1f s after the outage, want within a second or so (12 s with stalls)", *sum.ServerRecoveredAfter)
		}
		return
	}
}

// TestRealLaneQueue: a real lane whose server is the worker queue runs:
// two workers of 100 ms serve its ≈50 req/s at 20/s, the rest wait, and
// its rows show the real server's concurrency (at most the workers and the
// clients waiting) and latency (what a new request would take).
func TestRealLaneQueue(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	p := dialPage(t, srv, "b.source=real&clients=50&think=1s&timeout=2s&speed=1&duration=30s&outage=none"+
		"&server_model=queue&workers=2&service_time=100ms&service_dist=fixed")
	addr := field[[]laneInfo](t, p.await("hello", nil), "lanes")[1].Addr
	okB, cB, latB := col(t, 1, "ok"), col(t, 1, "concurrency"), col(t, 1, "server_latency")
	qB, thB, alB := col(t, 1, "queued"), col(t, 1, "thinking"), col(t, 1, "alive")
	rows := waitRows(t, p, "lane b's queue builds up", 2*realWait(), func(rows []realRow) bool {
		return len(rows) > 0 && rows[len(rows)-1].at(0) >= 3 && rows[len(rows)-1].at(cB) > 10
	})
	var ok, n float64
	for _, r := range after(rows, 1) {
		ok += r.at(okB)
		n++
		if r.at(latB) <= 0 {
			continue // a tick no reading covered (a stall of this machine)
		}
		if c := r.at(cB); c > 2+50 {
			t.Fatalf("t = %v: concurrency %v, want at most the 2 workers and the 50 clients", r.at(0), c)
		}
		// The real server's queued are those inside its two workers do not
		// serve; the clients not under way think (the counters are read
		// one by one, so a client may be counted twice).
		if c, q := r.at(cB), r.at(qB); q != max(0, c-2) {
			t.Fatalf("t = %v: %v queued of %v inside, want all but the 2 workers' %v", r.at(0), q, c, max(0, c-2))
		}
		if th, al := r.at(thB), r.at(alB); th < 0 || th+al < 49 || th+al > 51 {
			t.Fatalf("t = %v: %v thinking and %v under way, want the 50 clients", r.at(0), th, al)
		}
		if lat, c := r.at(latB), r.at(cB); lat < 0.1 || c > 2 && math.Abs(lat-(0.1+0.05*(c-2))) > 1e-6 {
			t.Fatalf("t = %v: latency %v at concurrency %v, want 100 ms and 50 ms per request waiting", r.at(0), lat, c)
		}
	}
	if mean := ok / n; mean < 10 || mean > 26 {
		t.Errorf("lane b: %.1f ok/s, want the two workers' 20", mean)
	}
	if st := control(t, addr, "stats"); st.Concurrency < 3 || st.Backlog != st.Concurrency-2 {
		t.Errorf("the real server: %+v; want its two workers busy and the others waiting", st)
	}
}

// TestRealLaneLifecycle: reset, pause, a change of the real lane's
// parameters and the lane turning sim each stop the real server (its port
// refuses connections); closing the socket releases every goroutine.
func TestRealLaneLifecycle(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	before := settledGoroutines()
	p := dialPage(t, srv, realQuery)
	addrOf := func(m map[string]json.RawMessage) string { return field[[]laneInfo](t, m, "lanes")[1].Addr }
	addr := addrOf(p.await("hello", nil))
	okB := col(t, 1, "ok")
	waitRows(t, p, "lane b has ok > 0", realWait(), func(rows []realRow) bool {
		return len(rows) > 0 && rows[len(rows)-1].at(okB) > 0
	})

	p.send(inMsg{Type: "reset"})
	addr2 := addrOf(p.await("hello", nil))
	if addr2 == "" || addr2 == addr || !refused(addr) {
		t.Fatalf("reset: real server %s → %s; the old one still listens: %v", addr, addr2, !refused(addr))
	}

	p.send(inMsg{Type: "pause"})
	st := p.await("state", func(m map[string]json.RawMessage) bool { return !field[bool](t, m, "playing") })
	if note := field[string](t, st, "note"); !strings.Contains(note, "stopped") || !strings.Contains(note, "restarts the run from 0") {
		t.Errorf("paused: note %q", note)
	}
	if !refused(addr2) {
		t.Errorf("paused: the real server %s still listens", addr2)
	}
	p.send(inMsg{Type: "play"})
	h := p.await("hello", nil)
	addr3 := addrOf(h)
	if addr3 == "" || refused(addr3) {
		t.Fatalf("resume: no real server (%q)", addr3)
	}
	if st := p.await("state", nil); field[float64](t, st, "t") > 0.5 {
		t.Errorf("resume after pause: the run goes on at %v s, want it restarted from 0", st["t"])
	}

	// A change of a simulated lane applies live; of the real one, restarts.
	p.send(inMsg{Type: "set", Query: withQuery(t, realQuery, "a.strategy=full_jitter")})
	p.await("params", nil)
	if refused(addr3) {
		t.Errorf("a change of lane a stopped lane b's real server")
	}
	p.send(inMsg{Type: "set", Query: withQuery(t, realQuery, "a.strategy=full_jitter&clients=300")})
	addr4 := addrOf(p.await("hello", nil))
	if addr4 == addr3 || !refused(addr3) {
		t.Errorf("clients 200 → 300: real server %s → %s", addr3, addr4)
	}
	p.send(inMsg{Type: "set", Query: strings.Replace(realQuery, "b.source=real", "b.source=sim", 1)})
	lanes := field[[]laneInfo](t, p.await("hello", nil), "lanes")
	if lanes[1].Source != scene.SourceSim || lanes[1].Addr != "" || !refused(addr4) {
		t.Errorf("b.source=sim: lanes %+v; the real server still listens: %v", lanes, !refused(addr4))
	}
	p.send(inMsg{Type: "set", Query: realQuery})
	addr5 := addrOf(p.await("hello", nil))
	waitRows(t, p, "lane b has ok > 0 again", realWait(), func(rows []realRow) bool {
		return len(rows) > 0 && rows[len(rows)-1].at(okB) > 0
	})

	p.close() // the server's end of the session winds down after this
	testwait.Eventually(t, "the ended session's real server "+addr5+" stops listening", func() bool { return refused(addr5) })
	waitGoroutines(t, before)
}

// settledGoroutines returns the goroutine count once the previous tests'
// goroutines have wound down (it holds for 200 ms), or after 5 s.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	// Quiet is a span of time with no change, so this sleeps: there is no
	// state to wait for.
	for deadline, stable := time.Now().Add(5*time.Second), time.Now(); time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		if m := runtime.NumGoroutine(); m != n {
			n, stable = m, time.Now()
		} else if time.Since(stable) >= 200*time.Millisecond {
			break
		}
	}
	return n
}

// TestRealLaneBusy: past Limits.MaxRealSessions a page's real lane runs
// simulated, with a message, and a set that would add one is refused.
func TestRealLaneBusy(t *testing.T) {
	srv, _ := newTestServer(t, Limits{MaxSessions: 10, MaxClients: 20_000, MaxDuration: time.Hour, MaxRealSessions: 1})
	a := dialPage(t, srv, realQuery)
	if l := field[[]laneInfo](t, a.await("hello", nil), "lanes"); l[1].Source != scene.SourceReal {
		t.Fatalf("first page: lanes %+v", l)
	}
	b := dialPage(t, srv, realQuery)
	h := b.await("hello", nil)
	if l := field[[]laneInfo](t, h, "lanes"); l[1].Source != scene.SourceSim || strings.Contains(field[string](t, h, "query"), "source") {
		t.Fatalf("second page: lanes %+v, query %s", l, h["query"])
	}
	m := b.await("error", nil)
	if field[string](t, m, "param") != "b.source" || !strings.HasPrefix(field[string](t, m, "message"), busyReal) ||
		!strings.Contains(field[string](t, m, "message"), "runs simulated instead") {
		t.Errorf("second page's error: %v", m)
	}
	b.await("tick", nil)

	b.send(inMsg{Type: "set", Query: realQuery})
	m = b.await("error", nil)
	if field[string](t, m, "param") != "b.source" || field[string](t, m, "message") != busyReal {
		t.Errorf("a set adding a real lane: %v", m)
	}
	a.send(inMsg{Type: "set", Query: "clients=200&duration=30s"}) // a's lane b goes sim: its slot frees
	a.await("hello", nil)
	b.send(inMsg{Type: "set", Query: realQuery})
	if l := field[[]laneInfo](t, b.await("hello", nil), "lanes"); l[1].Source != scene.SourceReal {
		t.Errorf("after the slot freed: lanes %+v", l)
	}

	// No real lane at all on a server that allows none.
	srv2, _ := newTestServer(t, Limits{MaxSessions: 10, MaxClients: 20_000, MaxDuration: time.Hour, MaxRealSessions: -1})
	c := dialPage(t, srv2, realQuery)
	if l := field[[]laneInfo](t, c.await("hello", nil), "lanes"); l[1].Source != scene.SourceSim {
		t.Errorf("MaxRealSessions -1: lanes %+v", l)
	}
}

// TestRealNextWake: the session wakes at each tick's end and at the
// scheduled outage's transitions.
func TestRealNextWake(t *testing.T) {
	p := scenario.Defaults()
	p.OutageAt, p.OutageFor = 1050*time.Millisecond, time.Second
	r := &realRun{tick: p.Tick, start: time.Unix(100, 0)}
	at := func(v time.Duration) time.Time { return r.start.Add(v) }
	for _, tc := range []struct{ v, want time.Duration }{
		{0, 100 * time.Millisecond},
		{130 * time.Millisecond, 70 * time.Millisecond},
		{time.Second, 50 * time.Millisecond},             // the outage starts at 1.05 s
		{1050 * time.Millisecond, 50 * time.Millisecond}, // then the tick at 1.1 s
		{2 * time.Second, 50 * time.Millisecond},         // it ends at 2.05 s
	} {
		if got := r.nextWake(at(tc.v), &p); got != tc.want {
			t.Errorf("at %v: wake in %v, want %v", tc.v, got, tc.want)
		}
	}
	p.Outage = scenario.OutageNone
	if got := r.nextWake(at(time.Second), &p); got != 100*time.Millisecond {
		t.Errorf("no outage: wake in %v", got)
	}
	p.Duration = 1030 * time.Millisecond
	if got := r.nextWake(at(time.Second), &p); got != 30*time.Millisecond {
		t.Errorf("the run's end: wake in %v", got)
	}
}
