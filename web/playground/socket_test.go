package playground

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/web/kit"
)

// page is a test's end of a session's socket: a reader goroutine sorts
// the server's messages by type.
type page struct {
	t    *testing.T
	conn *websocket.Conn
	msgs chan map[string]json.RawMessage
	done chan struct{} // closed when the reader ends, with err set
	err  error

	mu   sync.Mutex
	rows [][]any
	// summary is the latest summary message.
	summary map[string]json.RawMessage
}

func dialPage(t *testing.T, srv *httptest.Server, query string) *page {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/ws?"+query, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	conn.SetReadLimit(1 << 24)
	p := &page{t: t, conn: conn, msgs: make(chan map[string]json.RawMessage, 4096), done: make(chan struct{})}
	go p.read()
	t.Cleanup(func() { p.close() })
	return p
}

func (p *page) read() {
	for {
		_, data, err := p.conn.Read(context.Background())
		if err != nil {
			p.err = err
			close(p.msgs)
			close(p.done)
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			p.t.Errorf("server sent bad JSON %q: %v", data, err)
			continue
		}
		if string(m["type"]) == `"tick"` {
			var tm struct{ Ticks [][]any }
			if err := json.Unmarshal(data, &tm); err != nil {
				p.t.Errorf("bad tick %q: %v", data, err)
			}
			p.mu.Lock()
			p.rows = append(p.rows, tm.Ticks...)
			p.mu.Unlock()
		}
		if string(m["type"]) == `"summary"` {
			p.mu.Lock()
			p.summary = m
			p.mu.Unlock()
		}
		select {
		case p.msgs <- m:
		default: // the test does not wait for this one
		}
	}
}

func (p *page) close() {
	p.conn.Close(websocket.StatusNormalClosure, "")
	<-p.done
}

func (p *page) send(v any) {
	p.t.Helper()
	b, _ := json.Marshal(v)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := p.conn.Write(ctx, websocket.MessageText, b); err != nil {
		p.t.Fatalf("send: %v", err)
	}
}

// await returns the next message of type typ for which ok holds, failing
// the test after 10 s.
func (p *page) await(typ string, ok func(map[string]json.RawMessage) bool) map[string]json.RawMessage {
	p.t.Helper()
	// A bound for a failure, not a measure of speed: under the race
	// detector on a busy machine a storm takes long to reach its state.
	deadline := time.After(awaitBound)
	for {
		select {
		case m, open := <-p.msgs:
			if !open {
				p.t.Fatalf("socket closed while waiting for %s", typ)
			}
			if string(m["type"]) == `"`+typ+`"` && (ok == nil || ok(m)) {
				return m
			}
		case <-deadline:
			p.t.Fatalf("no %s message in %v", typ, awaitBound)
		}
	}
}

func (p *page) rowCount() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.rows)
}

func field[T any](t *testing.T, m map[string]json.RawMessage, key string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(m[key], &v); err != nil {
		t.Fatalf("field %s of %v: %v", key, m, err)
	}
	return v
}

func TestSocketRoundTrips(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	p := dialPage(t, srv, "clients=300&duration=60s&speed=20")
	hello := p.await("hello", nil)
	if q := field[string](t, hello, "query"); !strings.Contains(q, "clients=300") || !strings.Contains(q, "speed=20") {
		t.Fatalf("hello query %q", q)
	}
	if lanes := field[[]laneInfo](t, hello, "lanes"); len(lanes) != 2 || lanes[0].Strategy != "fixed" {
		t.Fatalf("hello lanes %v", lanes)
	}
	p.await("delays", nil)
	p.await("state", nil)
	p.await("tick", nil)

	t.Run("set applies live", func(t *testing.T) {
		p.send(inMsg{Type: "set", Query: "clients=600&duration=60s&speed=20"})
		m := p.await("params", nil)
		if q := field[string](t, m, "settings"); !strings.Contains(q, "clients=600") {
			t.Fatalf("params' settings %q", q)
		}
		// The run's query holds the change, at the virtual time it took.
		if q := field[string](t, m, "query"); !strings.Contains(q, "clients=300") || !strings.Contains(q, "clients=600") || !strings.Contains(q, "changes=@") {
			t.Fatalf("params %q", q)
		}
	})
	t.Run("bad value keeps the session", func(t *testing.T) {
		before := p.rowCount()
		p.send(inMsg{Type: "set", Query: "clients=600&a.factor=abc"})
		m := p.await("error", nil)
		if field[string](t, m, "param") != "a.factor" || !strings.Contains(field[string](t, m, "message"), `"abc"`) {
			t.Fatalf("error %v", m)
		}
		// Delays out of order: the message shows under both delays, one of
		// which the user changed, each naming its own parameter.
		p.send(inMsg{Type: "set", Query: "clients=600&a.strategy=fixed&a.min_delay=2s&a.max_delay=1s"})
		for _, want := range []string{`a.max_delay: "1s" is not allowed`, `a.min_delay: "2s" is not allowed`} {
			name, _, _ := strings.Cut(want, ":")
			m := p.await("error", func(m map[string]json.RawMessage) bool { return field[string](t, m, "param") == name })
			if msg := field[string](t, m, "message"); !strings.HasPrefix(msg, want) {
				t.Errorf("%s's message %q, want it to start %q", name, msg, want)
			}
		}
		p.send(inMsg{Type: "nonsense"})
		p.await("error", func(m map[string]json.RawMessage) bool {
			return strings.Contains(string(m["message"]), "unknown message type")
		})
		p.send(inMsg{Type: "speed", Speed: "0"})
		p.await("error", func(m map[string]json.RawMessage) bool { return string(m["param"]) == `"speed"` })
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		p.conn.Write(ctx, websocket.MessageText, []byte("{not json"))
		cancel()
		p.await("error", nil)
		p.await("tick", func(map[string]json.RawMessage) bool { return p.rowCount() > before+5 })
	})
	t.Run("outage on and off", func(t *testing.T) {
		p.send(inMsg{Type: "outage", On: true})
		p.await("state", func(m map[string]json.RawMessage) bool { return field[bool](t, m, "down") })
		p.send(inMsg{Type: "outage", On: false})
		m := p.await("state", func(m map[string]json.RawMessage) bool { return !field[bool](t, m, "down") })
		if o := field[[][2]float64](t, m, "outages"); len(o) == 0 || o[len(o)-1][1] < 0 {
			t.Fatalf("outages %v", o)
		}
	})
	t.Run("pause stops ticks, play restarts them", func(t *testing.T) {
		p.send(inMsg{Type: "pause"})
		p.await("state", func(m map[string]json.RawMessage) bool { return !field[bool](t, m, "playing") })
		// That no tick comes while paused is TestPacingInVirtualTime's
		// check, exact in a synctest bubble; here, the socket's round trip.
		p.send(inMsg{Type: "play"})
		p.await("tick", nil)
	})
	t.Run("resume, play's old name, still plays", func(t *testing.T) {
		p.send(inMsg{Type: "pause"})
		p.await("state", func(m map[string]json.RawMessage) bool { return !field[bool](t, m, "playing") })
		p.send(inMsg{Type: "resume"})
		p.await("state", func(m map[string]json.RawMessage) bool { return field[bool](t, m, "playing") })
		p.await("tick", nil)
	})
	t.Run("speed", func(t *testing.T) {
		p.send(inMsg{Type: "speed", Speed: "max"})
		m := p.await("state", func(m map[string]json.RawMessage) bool { return field[string](t, m, "speed") == "max" })
		_ = m
		p.await("state", func(m map[string]json.RawMessage) bool { return field[bool](t, m, "done") })
	})
	t.Run("reset", func(t *testing.T) {
		p.send(inMsg{Type: "reset"})
		p.await("hello", nil)
		m := p.await("state", nil)
		if field[float64](t, m, "t") > 1 {
			t.Fatalf("t after reset: %v", m["t"])
		}
	})
	t.Run("lanes change restarts", func(t *testing.T) {
		p.send(inMsg{Type: "set", Query: "lanes=3&clients=300&duration=60s"})
		m := p.await("hello", nil)
		if lanes := field[[]laneInfo](t, m, "lanes"); len(lanes) != 3 {
			t.Fatalf("lanes %v", lanes)
		}
	})
}

func TestSocketBadQueryStillServes(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	p := dialPage(t, srv, "clients=abc&duration=30s")
	p.await("error", func(m map[string]json.RawMessage) bool { return field[string](t, m, "param") == "clients" })
	p.await("tick", nil)
}

func TestSocketOriginChecked(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/ws",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin socket: err %v, resp %v", err, resp)
	}
}

func TestSocketBusy(t *testing.T) {
	srv, _ := newTestServer(t, Limits{MaxSessions: 2, MaxClients: 1000, MaxDuration: time.Minute})
	a := dialPage(t, srv, "clients=100")
	b := dialPage(t, srv, "clients=100")
	a.await("tick", nil)
	b.await("tick", nil)
	c := dialPage(t, srv, "clients=100")
	m := c.await("error", nil)
	if !strings.Contains(field[string](t, m, "message"), "server busy") {
		t.Fatalf("third session: %v", m)
	}
	if <-c.done; websocket.CloseStatus(c.err) != websocket.StatusTryAgainLater {
		t.Fatalf("third session closed with %v", c.err)
	}
}

func TestSocketShutdownGoesAway(t *testing.T) {
	srv, cancel := newTestServer(t, Limits{})
	p := dialPage(t, srv, "clients=100")
	p.await("tick", nil)
	cancel()
	<-p.done
	if websocket.CloseStatus(p.err) != websocket.StatusGoingAway {
		t.Fatalf("closed with %v, want going away", p.err)
	}
}

// tickRate waits until every page has received ticks more rows than it
// had, and returns each page's rate in ticks per second of wall time over
// that span. The wait ends when the slowest page gets there, so a page that
// lags shows a rate below the others' rather than a count cut short.
func tickRate(t *testing.T, pages []*page, ticks int) []float64 {
	t.Helper()
	start := make([]int, len(pages))
	for i, p := range pages {
		start[i] = p.rowCount()
	}
	began := time.Now()
	testwait.Eventually(t, fmt.Sprintf("every page receives %d ticks", ticks), func() bool {
		for i, p := range pages {
			if p.rowCount()-start[i] < ticks {
				return false
			}
		}
		return true
	})
	wall := time.Since(began).Seconds()
	rates := make([]float64, len(pages))
	for i, p := range pages {
		rates[i] = float64(p.rowCount()-start[i]) / wall
	}
	return rates
}

// TestManySessions runs 200 pages at 10× until each has received 300
// ticks: each must receive them at the rate its speed asks (a tick is 0.1
// virtual seconds, so 100 ticks a second), and the goroutines must come
// back to their count before the sessions. It is a rate test, so it
// measures wall time; it waits for the ticks, about 3 s, rather than for a
// span of time.
func TestManySessions(t *testing.T) {
	if testing.Short() {
		t.Skip("200 sessions for 3 s of wall time: skipped with -short")
	}
	if testrace.Enabled {
		t.Skip("a rate test under -race measures the detector: make test runs it again without -race")
	}
	before := runtime.NumGoroutine()
	srv, _ := newTestServer(t, Limits{MaxSessions: 300, MaxClients: 1000, MaxDuration: time.Hour})
	const n, speed, ticks = 200, 10, 300
	pages := make([]*page, n)
	for i := range pages {
		pages[i] = dialPage(t, srv, "clients=200&duration=1h&speed=10")
	}
	for _, p := range pages {
		p.await("tick", nil)
	}
	want := float64(speed) / 0.1
	for i, got := range tickRate(t, pages, ticks) {
		if got < 0.8*want || got > 1.2*want {
			t.Errorf("session %d: %.1f ticks a second, want %.0f ±20%%", i, got, want)
		}
	}
	for _, p := range pages {
		p.close()
	}
	waitGoroutines(t, before)
}

// TestStalledPageDoesNotSlowOthers opens a page that never reads: its
// session must go on simulating, and another page must keep its rate.
func TestStalledPageDoesNotSlowOthers(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stalled, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/ws?clients=2000&duration=1h&speed=100", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.CloseNow()
	// Read at last, the stalled page's first message can hold many ticks.
	stalled.SetReadLimit(1 << 24)
	p := dialPage(t, srv, "clients=200&duration=1h&speed=10")
	p.await("tick", nil)
	// 200 ticks: about 2 s, in which the stalled page's simulation advances.
	if got := tickRate(t, []*page{p}, 200)[0]; got < 80 || got > 120 {
		t.Fatalf("the reading page got %.1f ticks a second beside a stalled one, want 100 ±20%%", got)
	}
	// The stalled page, read at last, finds its simulation far along: it
	// advanced while nobody read, with its outbox coalesced.
	var last float64
	for {
		_, data, err := stalled.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var st stateMsg
		if json.Unmarshal(data, &st) == nil && st.Type == "state" {
			last = st.T
		}
		if strings.Contains(string(data), `"type":"tick"`) {
			var tm struct{ Ticks [][]any }
			json.Unmarshal(data, &tm)
			if len(tm.Ticks) > 0 {
				last = tm.Ticks[len(tm.Ticks)-1][0].(float64)
			}
		}
		if last > 150 { // 2 s at 100× is 200 virtual seconds
			break
		}
	}
}

func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	if !testwait.Within(testwait.Bound, func() bool { return runtime.NumGoroutine() <= want+2 }) {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
	}
}

// TestSocketRerunsAFinishedRun: once a run has reached its end, a change of
// any value, a reset or another lane runs it again from t = 0 and plays
// it; none leaves the page on a blank, stopped chart.
func TestSocketRerunsAFinishedRun(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	const base = "clients=200&duration=5s&speed=max&outage=none"
	for _, tc := range []struct {
		name  string
		msg   inMsg
		lanes int
	}{
		{"a changed value", inMsg{Type: "set", Query: withQuery(t, base, "clients=300")}, 2},
		{"the same values", inMsg{Type: "set", Query: base}, 2},
		{"reset", inMsg{Type: "reset"}, 2},
		{"another lane", inMsg{Type: "set", Query: base + "&lanes=3"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := dialPage(t, srv, base)
			p.await("state", func(m map[string]json.RawMessage) bool { return field[bool](t, m, "done") })
			p.send(tc.msg)
			hello := p.await("hello", nil)
			if lanes := field[[]laneInfo](t, hello, "lanes"); len(lanes) != tc.lanes {
				t.Fatalf("%d lanes after the rerun, want %d", len(lanes), tc.lanes)
			}
			m := p.await("state", nil)
			if field[bool](t, m, "done") || !field[bool](t, m, "playing") || field[float64](t, m, "t") != 0 {
				t.Fatalf("state after the rerun: %s", mustJSON(m))
			}
			p.await("state", func(m map[string]json.RawMessage) bool { return field[bool](t, m, "done") })
		})
	}
}

// TestSocketResetPlays: a reset of a paused run plays the new one.
func TestSocketResetPlays(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	p := dialPage(t, srv, "clients=200&duration=60s&speed=20&outage=none")
	p.await("tick", nil)
	p.send(inMsg{Type: "pause"})
	p.await("state", func(m map[string]json.RawMessage) bool { return !field[bool](t, m, "playing") })
	p.send(inMsg{Type: "reset"})
	p.await("hello", nil)
	if m := p.await("state", nil); !field[bool](t, m, "playing") {
		t.Fatalf("state after a reset of a paused run: %s", mustJSON(m))
	}
	p.await("tick", nil)
}

// TestSocketSendsMarksAndExplain: the page gets the run's panel with hello
// and, as the run goes, the marks the marker finds (marks_test.go checks
// what they are).
func TestSocketSendsMarksAndExplain(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	p := dialPage(t, srv, "speed=max&duration=60s")
	hello := p.await("hello", nil)
	if ex := field[explainView](t, hello, "explain"); len(ex.StoryParts) == 0 || ex.Source.URL == "" {
		t.Fatalf("hello's explain: %+v", ex)
	}
	p.await("marks", func(m map[string]json.RawMessage) bool {
		for _, mk := range field[[]mark](t, m, "marks") {
			if mk.Kind == markFlood && mk.Lane == 0 && mk.T == 35 {
				return true
			}
		}
		return false
	})
}

// awaitBound is how long a test waits for a page's message before it
// fails.
const awaitBound = time.Minute

// TestSocketRefusesBadQueries: a live session reads its query through
// kit.ParseQuery, as every view does (the server's
// TestEveryViewRefusesBadQueries): a name given twice or a pair with a
// semicolon, in its URL's query or in a set message's, is reported, named.
func TestSocketRefusesBadQueries(t *testing.T) {
	hs, _ := newTestServer(t, Limits{})
	const scen = "clients=300&duration=5s&outage=none"
	bad := []struct {
		name, add, param, value string
	}{
		{"a name twice", "&seed=2&seed=3", "seed", "2,3"},
		{"a semicolon", "&;=1", kit.QueryParam, ";=1"},
	}
	// The live session: its URL's query, and a set message's.
	for _, b := range bad {
		t.Run("ws "+b.name, func(t *testing.T) {
			p := dialPage(t, hs, scen+b.add)
			m := p.await("error", nil)
			if field[string](t, m, "param") != b.param || !strings.Contains(field[string](t, m, "message"), strconv.Quote(b.value)) {
				t.Errorf("the session's URL: error %v, want one naming %s and %q", m, b.param, b.value)
			}
		})
		t.Run("ws set "+b.name, func(t *testing.T) {
			p := dialPage(t, hs, scen)
			p.await("hello", nil)
			p.send(inMsg{Type: "set", Query: scen + b.add})
			m := p.await("error", nil)
			if field[string](t, m, "param") != b.param || !strings.Contains(field[string](t, m, "message"), strconv.Quote(b.value)) {
				t.Errorf("a set message: error %v, want one naming %s and %q", m, b.param, b.value)
			}
		})
	}
}
