package playground

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/fdcount"
	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// TestConnBudget: the real lanes' budget leaves the playground its reserve
// whatever the open-file limit and the number of real lanes.
func TestConnBudget(t *testing.T) {
	for _, tc := range []struct {
		limit    uint64
		sessions int
		want     int
	}{
		{20_000, 2, 3_749}, // this playground's machine: see the doc comment
		{1_024, 2, 127},    // an unraised soft limit
		{4_096, 2, 767},
		{1 << 20, 2, maxRealConns},
		{20_000, 1, maxRealConns},
		{20_000, 0, maxRealConns}, // no real lane allowed: as for one
		{20_000, 8, 937},
		{16, 2, 1},
		{0, 2, 1},
	} {
		if got := connBudget(tc.limit, tc.sessions); got != tc.want {
			t.Errorf("connBudget(%d, %d) = %d, want %d", tc.limit, tc.sessions, got, tc.want)
		}
	}
	for _, limit := range []uint64{256, 1_000, 1_024, 4_096, 10_000, 20_000, 65_536, 1 << 20} {
		for s := 1; s <= 8; s++ {
			n := uint64(connBudget(limit, s))
			reserve := realReserve(limit)
			if held := uint64(s) * (2*n + 1); n > 1 && held+reserve > limit {
				t.Errorf("limit %d, %d real lanes of %d: they hold %d, leaving %d < the reserve %d", limit, s, n, held, limit-held, reserve)
			}
			if limit >= 4_096 && reserve < 1_024 {
				t.Errorf("limit %d: reserve %d", limit, reserve)
			}
		}
	}
}

// newBudgetServer is NewServer's playground (its default limits, no host
// check) with a real-lane connection budget of conns per side, until the
// test ends.
func newBudgetServer(t *testing.T, conns int) *httptest.Server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	k := kit.New(ctx, nil, Limits{}, nil)
	live := &sessions{max: int64(k.Limits.MaxSessions), real: &realSlots{max: k.Limits.MaxRealSessions, conns: conns}, Kit: k}
	mux := http.NewServeMux()
	mount(mux, k, live)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		cancel()
		srv.Close()
	})
	return srv
}

// TestRealLaneDescriptorBudget: a real lane in a retry storm (1 000 clients
// timing out at 200 ms and retrying every 100 ms against a paused server)
// holds no more descriptors than its budget, n per side and a listener;
// the page is told when its clients reach their budget; the server's
// other routes (a script of the page's, here) answer throughout; and every descriptor is given back when the page leaves.
func TestRealLaneDescriptorBudget(t *testing.T) {
	if _, err := fdcount.Open(); errors.Is(err, errors.ErrUnsupported) {
		t.Skip("counting descriptors:", err)
	}
	const n = 64
	srv := newBudgetServer(t, n)
	hc := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	probe := func() {
		t.Helper()
		resp, err := hc.Get(srv.URL + "/static/app.js")
		if err != nil {
			t.Fatalf("GET /static/app.js during the storm: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /static/app.js during the storm: %s", resp.Status)
		}
	}
	probe() // its connection is open before the count starts
	// The page's socket: 2 descriptors, the test's probe's connection: 2,
	// and a little room for the runtime and the test's procfs reads.
	const slack = 16
	base, err := fdcount.Open()
	if err != nil {
		t.Fatal(err)
	}
	p := dialPage(t, srv, realCurve+"&b.source=real&clients=1000&think=1s&timeout=200ms&b.strategy=fixed&b.min_delay=100ms"+
		"&duration=60s&outage=pause&outage_at=500ms&outage_for=60s")
	if l := field[[]laneInfo](t, p.await("hello", nil), "lanes"); l[1].Source != scene.SourceReal {
		t.Fatalf("hello lanes %+v", l)
	}

	bound := base + 2*n + 1 + slack
	peak := 0
	// A window of observation, not a wait for a state: the peak is sampled
	// while the storm presses on the budget.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		fds, err := fdcount.Open()
		if err != nil {
			t.Fatal(err)
		}
		peak = max(peak, fds)
		probe()
	}
	t.Logf("descriptors: %d before the real lane, %d at the peak (bound %d)", base, peak, bound)
	if peak > bound {
		t.Errorf("%d descriptors open at the peak, %d before the real lane: want at most %d (2×%d + 1 + %d)", peak, base, bound, n, slack)
	}
	// The clients reached their budget: the storm pressed on it.
	m := p.await("error", func(m map[string]json.RawMessage) bool { return field[string](t, m, "param") == "b.source" })
	if msg := field[string](t, m, "message"); !strings.Contains(msg, "lane b's real clients reached their connection budget (64)") {
		t.Errorf("the page's message: %q", msg)
	}

	p.close()
	testwait.Eventually(t, "the page's descriptors are closed", func() bool {
		fds, err := fdcount.Open()
		if err != nil {
			t.Fatal(err)
		}
		return fds <= base+2 // the probe's connection may have been replaced
	})
}

// TestRealLaneServerCap: a real lane's server accepts at most its budget
// of connections; the others wait in the kernel's accept queue.
func TestRealLaneServerCap(t *testing.T) {
	const n = 4
	sc, errs := scene.Decode(url.Values{"server_model": {"curve"}, "b.source": {"real"}, "clients": {"1"}, "think": {"1h"}, "duration": {"60s"}}, kit.DefaultLimits)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r, err := startReal(sc.Params, sc.RealLane(), 0, slog.New(slog.DiscardHandler), n)
	if err != nil {
		t.Fatal(err)
	}
	defer r.stop()
	r.setDown(true) // every request the server accepts waits, holding its connection
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 3 * n {
		c, err := net.Dial("tcp", r.addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, "GET /api HTTP/1.1\r\nHost: backofflab\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	accepted := func() int64 { return r.srv.Stats().Accepted }
	testwait.Eventually(t, fmt.Sprintf("the server accepts %d requests", n), func() bool { return accepted() >= n })
	// A negative check: the time in which a cap that let more in would show.
	time.Sleep(200 * time.Millisecond)
	if got := accepted(); got != n {
		t.Errorf("the server accepted %d requests of %d open connections, want %d (its budget)", got, len(conns), n)
	}
	// The connections close: the waiting ones come in.
	for _, c := range conns {
		c.Close()
	}
	testwait.Eventually(t, "the waiting connections come in", func() bool { return accepted() > n })
}
