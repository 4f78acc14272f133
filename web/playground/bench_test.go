package playground

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/scene"
)

// BenchmarkTickMessage reports the size of one tick message of 001's two
// lanes, as the page receives it when it keeps up (one tick per message).
func BenchmarkTickMessage(b *testing.B) {
	e, err := simengine.New(scenario.Defaults())
	if err != nil {
		b.Fatal(err)
	}
	var rows [][]float64
	e.AdvanceTo(120*time.Second, func(t scenario.Tick) { rows = append(rows, TickRow(t, nil, e)) })
	var size int
	for i := 0; b.Loop(); i++ {
		msg := mustJSON(tickMsg{Type: "tick", Ticks: rows[i%len(rows) : i%len(rows)+1]})
		size += len(msg)
	}
	b.ReportMetric(float64(size)/float64(b.N), "B/tick")
}

// BenchmarkSessions runs pages against the server on loopback for a few
// wall seconds and reports the process's CPU time per session-second, and
// how far each session's virtual time got against what its speed asks
// (1.0: it kept real time). The pages read and discard their messages, so
// the CPU figure includes their small share.
func BenchmarkSessions(b *testing.B) {
	for _, bc := range []struct {
		name     string
		sessions int
		speed    string
	}{
		{"1x-200", 200, "1"},
		{"10x-50", 50, "10"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			const wall = 3 * time.Second
			var cpu, kept float64
			for b.Loop() {
				c, k := runSessions(b, bc.sessions, bc.speed, wall)
				cpu += c
				kept += k
			}
			n := float64(b.N)
			b.ReportMetric(cpu/n/(float64(bc.sessions)*wall.Seconds())*1000, "cpu-ms/session-s")
			b.ReportMetric(kept/n, "kept-real-time")
		})
	}
}

// runSessions returns the CPU seconds the process used while n sessions ran
// for wall, and the slowest session's virtual time over what its speed asks.
func runSessions(b *testing.B, n int, speed string, wall time.Duration) (cpu, kept float64) {
	b.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptestServer(ctx, Limits{MaxSessions: n + 10, MaxClients: 1000, MaxDuration: time.Hour})
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws?duration=1h&speed=" + speed
	var mu sync.Mutex
	reached := make([]float64, n)
	began := make([]time.Time, n)
	var wg sync.WaitGroup
	before := cpuSeconds()
	for i := range n {
		conn, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			b.Fatal(err)
		}
		conn.SetReadLimit(1 << 24)
		began[i] = time.Now()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.CloseNow()
			for {
				_, data, err := conn.Read(ctx)
				if err != nil {
					return
				}
				if t, ok := lastTickT(data); ok {
					mu.Lock()
					reached[i] = t
					mu.Unlock()
				}
			}
		}()
	}
	time.Sleep(wall) // the span measured: sessions run for a fixed wall time
	end := time.Now()
	cpu = cpuSeconds() - before
	cancel()
	wg.Wait()
	factor := scene.SpeedOf(speed).Factor
	kept = 1e9
	mu.Lock()
	defer mu.Unlock()
	for i, t := range reached {
		// The last tick seen lags by up to a step and a tick.
		kept = min(kept, (t+(stepEvery+100*time.Millisecond).Seconds()*factor)/(end.Sub(began[i]).Seconds()*factor))
	}
	return cpu, kept
}

var tickT = regexp.MustCompile(`\[([0-9.]+),[^\[]*\]\]\}$`)

// lastTickT reads the t of the last row of a tick message without decoding it.
func lastTickT(msg []byte) (float64, bool) {
	if !bytes.HasPrefix(msg, []byte(`{"type":"tick"`)) {
		return 0, false
	}
	m := tickT.FindSubmatch(msg)
	if m == nil {
		return 0, false
	}
	var t float64
	err := json.Unmarshal(m[1], &t)
	return t, err == nil
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// BenchmarkPageTransfer reports what the landing page costs to load: the
// HTML and every asset it references, uncompressed and gzipped as served.
func BenchmarkPageTransfer(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptestServer(ctx, Limits{})
	defer srv.Close()
	var plain, gz int
	for b.Loop() {
		plain, gz = 0, 0
		html := fetch(b, srv.URL+"/", false)
		plain += len(html)
		gz += len(fetch(b, srv.URL+"/", true))
		for _, m := range regexp.MustCompile(`(?:src|href)="(/static/[^"]+)"`).FindAllSubmatch(html, -1) {
			plain += len(fetch(b, srv.URL+string(m[1]), false))
			gz += len(fetch(b, srv.URL+string(m[1]), true))
		}
	}
	b.ReportMetric(float64(plain), "page-B")
	b.ReportMetric(float64(gz), "page-gzip-B")
}

func fetch(b *testing.B, u string, gzipped bool) []byte {
	b.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	if gzipped {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		b.Fatalf("GET %s: %d %v", u, resp.StatusCode, err)
	}
	return body
}

func httptestServer(ctx context.Context, lim Limits) *httptest.Server {
	srv, _ := serveMounted(ctx, lim)
	return srv
}

// BenchmarkRequestsMessage reports what a session's requests message
// costs at the worst a page may ask (four lanes of 20 000 clients with
// requests of every latency from 1 ms to an hour's run): the copies of
// the lanes' histograms (Engine.Requests), their bins and the JSON, and
// the message's size. A playing session sends one at most every
// requestsEvery.
func BenchmarkRequestsMessage(b *testing.B) {
	p := scenario.Defaults()
	p.Clients, p.Think, p.Timeout, p.Tick = 20_000, time.Millisecond, time.Millisecond, 10*time.Millisecond
	p.Duration = time.Hour
	p.Lanes = nil
	for range scenario.MaxLanes {
		l := scenario.DefaultLane(0)
		l.MinDelay = time.Millisecond
		p.Lanes = append(p.Lanes, l)
	}
	e, err := simengine.New(p)
	if err != nil {
		b.Fatal(err)
	}
	for range 20 {
		e.Step(p.Duration, simengine.SliceEvents, nil)
	}
	lanes := make([]laneSource, len(p.Lanes))
	for i := range lanes {
		lanes[i] = simLane{}
	}
	var size int
	b.ReportAllocs()
	for b.Loop() {
		sums := e.Summaries()
		reqs := make([]*simengine.Requests, len(sums))
		for i := range sums {
			reqs[i] = lanes[i].requests(i, e)
		}
		size = len(mustJSON(requestsOf(reqs, sums, p.Duration)))
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*1e3, "ms/message")
	b.ReportMetric(float64(size), "B/message")
}
