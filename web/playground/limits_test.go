package playground

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// This file tests the bounds that keep one page or export from taking the
// server down: the memory budgets, the export cap, bounded slices, what a
// closed page gives back, state messages that carry only what changed, and
// messages the page should not send.

// stormQuery is a retry storm that grows lane a's queue by about 40 000
// abandoned requests a second of virtual time, for an hour, at speed max.
const stormQuery = "server_model=curve&lanes=2&clients=2000&think=100ms&timeout=50ms&a.strategy=fixed&a.min_delay=10ms&b.strategy=exponential&b.max_delay=10s" +
	"&outage_at=1s&outage_for=2s&max_server_delay=24h&duration=1h&speed=max"

// newPoolServer is newTestServer with the memory pool in the test's hands.
func newPoolServer(t *testing.T, lim Limits, pool *budget.Pool) *httptest.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	srv, _ := serveMountedPool(ctx, lim, pool)
	t.Cleanup(func() {
		cancel()
		srv.Close()
	})
	return srv
}

// TestRunMemoryHaltsLane: a page's storm lane stops at the run's budget
// with a verdict that names it, the other lane runs on, the pool never
// holds more than the budget, and a closed page gives all of it back.
func TestRunMemoryHaltsLane(t *testing.T) {
	before := runtime.NumGoroutine()
	pool := budget.NewPool(1 << 30)
	srv := newPoolServer(t, Limits{RunMemory: 8 << 20}, pool)
	p := dialPage(t, srv, stormQuery)
	m := p.await("summary", func(m map[string]json.RawMessage) bool {
		return field[[]map[string]any](t, m, "lanes")[0]["stopped"] != nil
	})
	lanes := field[[]map[string]any](t, m, "lanes")
	stopped, _ := lanes[0]["stopped"].(string)
	if !strings.HasPrefix(stopped, "collapsed: stopped at ") || !strings.Contains(stopped, "the memory budget of a run (8 MiB; 4 MiB a lane)") {
		t.Errorf("lane a stopped: %q", stopped)
	}
	if lanes[1]["stopped"] != nil {
		t.Errorf("lane b stopped too: %v", lanes[1]["stopped"])
	}
	if used := pool.Used(); used > 8<<20 || used == 0 {
		t.Errorf("the pool holds %d B for one page of an 8 MiB budget", used)
	}
	// Ticks go on after the stop: lane a's values are null, lane b's not.
	p.await("tick", func(m map[string]json.RawMessage) bool {
		var tm struct{ Ticks [][]*float64 }
		json.Unmarshal(mustJSONRaw(m), &tm)
		last := tm.Ticks[len(tm.Ticks)-1]
		return last[1] == nil && last[1+len(scenario.Columns)] != nil
	})
	p.close()
	testwait.Eventually(t, "the closed page's memory back in the pool", func() bool { return pool.Used() == 0 })
	waitGoroutines(t, before)
}

// mustJSONRaw puts a message the page's reader split back together.
func mustJSONRaw(m map[string]json.RawMessage) []byte {
	b, _ := json.Marshal(m)
	return b
}

// TestMemoryBusy: when the server's budget is taken, a new page and a new
// export are refused as busy, with the reason.
func TestMemoryBusy(t *testing.T) {
	pool := budget.NewPool(1 << 20)
	srv := newPoolServer(t, Limits{RunMemory: 64 << 20}, pool)
	p := dialPage(t, srv, "clients=100")
	m := p.await("error", nil)
	if msg := field[string](t, m, "message"); !strings.Contains(msg, "server busy: its memory budget is taken") {
		t.Errorf("page refused with %q", msg)
	}
	if <-p.done; websocket.CloseStatus(p.err) != websocket.StatusTryAgainLater {
		t.Errorf("refused page closed with %v", p.err)
	}
	resp, body := get(t, srv.URL+"/export.csv?clients=100", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "server busy: its memory budget is taken") {
		t.Errorf("export: %d %s", resp.StatusCode, body)
	}
	// A run whose initial state alone outgrows its budget is refused too.
	srv = newPoolServer(t, Limits{RunMemory: 1 << 20}, budget.NewPool(1<<30))
	resp, body = get(t, srv.URL+"/export.csv?clients=20000&lanes=4", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "does not fit in the memory budget of a run (1 MiB; 256 KiB a lane)") {
		t.Errorf("oversized export: %d %s", resp.StatusCode, body)
	}
}

// TestExportCap: past MaxExports running exports, another is refused as
// busy; an export whose client leaves stops and frees its place.
func TestExportCap(t *testing.T) {
	pool := budget.NewPool(1 << 30)
	srv := newPoolServer(t, Limits{MaxExports: 1}, pool)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/export.csv?"+stormQuery, nil)
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("first export: %d", resp.StatusCode)
	}
	buf := make([]byte, 1024)
	if _, err := resp.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	second, body := get(t, srv.URL+"/export.json?clients=10", nil)
	if second.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "1 exports are running") {
		t.Errorf("second export: %d %s", second.StatusCode, body)
	}
	cancel() // the first export's client leaves
	resp.Body.Close()
	testwait.Eventually(t, "the export's place and memory back", func() bool {
		r, _ := get(t, srv.URL+"/export.json?clients=10&duration=1s", nil)
		return r.StatusCode == 200 && pool.Used() == 0
	})
}

// TestPauseAnsweredInStorm: at the worst parameters, a page's pause is
// answered while the run is far from its end: the engine works in slices
// and reads the page's messages between them.
func TestPauseAnsweredInStorm(t *testing.T) {
	srv := newPoolServer(t, Limits{}, nil)
	p := dialPage(t, srv, "lanes=4&a.strategy=fixed&b.strategy=fixed&c.strategy=fixed&d.strategy=fixed"+
		"&clients=20000&duration=1h&speed=max&timeout=1ms&think=1ms&a.min_delay=1ms&b.min_delay=1ms"+
		"&c.min_delay=1ms&d.min_delay=1ms&tick=10ms&max_server_delay=24h&backlog=1000000")
	p.await("tick", nil)
	p.send(inMsg{Type: "pause"})
	m := p.await("state", func(m map[string]json.RawMessage) bool { return !field[bool](t, m, "playing") })
	if at := field[float64](t, m, "t"); at >= 3600 {
		t.Fatalf("paused at t = %v: the run ended before the pause was read", at)
	}
	p.send(inMsg{Type: "outage", On: true}) // a change mid-slice applies at one time
	p.await("state", func(m map[string]json.RawMessage) bool { return field[bool](t, m, "down") })
}

// TestStateCarriesChanges: a page that toggles the server many times gets
// state messages that carry the windows that changed, not the history.
func TestStateCarriesChanges(t *testing.T) {
	srv := newPoolServer(t, Limits{}, nil)
	p := dialPage(t, srv, "clients=100&outage=none&speed=1")
	p.await("tick", nil)
	// More windows than the run keeps, so that the state's numbering
	// counts the ones it dropped.
	const toggles = 2 * (simengine.MaxOutages + 20)
	for k := range toggles {
		p.send(inMsg{Type: "outage", On: k%2 == 0})
	}
	states, most, from := 0, 0, 0
	p.await("state", func(m map[string]json.RawMessage) bool {
		states++
		o := field[[][2]float64](t, m, "outages")
		most = max(most, len(o))
		from = field[int](t, m, "outages_from")
		return from+len(o) == toggles/2 && o[len(o)-1][1] >= 0
	})
	if most > 2 {
		t.Errorf("a state message carried %d windows, want at most 2 (the one that closed, and a new one)", most)
	}
	if from != toggles/2-1 {
		t.Errorf("the last state starts at window %d, want %d", from, toggles/2-1)
	}
}

// TestBadMessagesKeepSession: a field of the wrong JSON type is named, a
// message over the limit is refused, and the session goes on.
func TestBadMessagesKeepSession(t *testing.T) {
	srv := newPoolServer(t, Limits{}, nil)
	p := dialPage(t, srv, "clients=100&speed=10")
	p.await("tick", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.conn.Write(ctx, websocket.MessageText, []byte(`{"type":"outage","on":"yes"}`))
	m := p.await("error", nil)
	if field[string](t, m, "param") != "on" || !strings.Contains(field[string](t, m, "message"), `"on" must be a JSON boolean`) {
		t.Errorf("type error: %v", m)
	}
	huge := `{"type":"set","query":"` + strings.Repeat("x", 200<<10) + `"}`
	p.conn.Write(ctx, websocket.MessageText, []byte(huge))
	m = p.await("error", nil)
	if msg := field[string](t, m, "message"); !strings.Contains(msg, "message too long") || !strings.Contains(msg, "at most 65536") {
		t.Errorf("long message: %q", msg)
	}
	n := p.rowCount()
	p.await("tick", func(map[string]json.RawMessage) bool { return p.rowCount() > n+3 })
}

// TestPausedStateGivesLastRow: the state that says a run paused gives the
// time of the last row queued before it, and that row arrives, so that a
// page knows when the rows sent before the pause are all in without
// waiting for a quiet spell.
func TestPausedStateGivesLastRow(t *testing.T) {
	srv := newPoolServer(t, Limits{}, nil)
	p := dialPage(t, srv, "clients=100&duration=1h&speed=max")
	p.await("tick", nil)
	p.send(inMsg{Type: "pause"})
	m := p.await("state", func(m map[string]json.RawMessage) bool { return !field[bool](t, m, "playing") })
	last, at := field[float64](t, m, "last_row_t"), field[float64](t, m, "t")
	if last < 0 || last > at {
		t.Fatalf("paused at t = %v with the last row at %v", at, last)
	}
	lastRowIs := func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.rows) > 0 && p.rows[len(p.rows)-1][0] == last
	}
	if !lastRowIs() {
		p.await("tick", func(map[string]json.RawMessage) bool { return lastRowIs() })
	}
}
