package web

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/simengine"
)

// serveWeb serves NewServer with opts on loopback until the test ends;
// it returns the test server, its port and the handler.
func serveWeb(t *testing.T, ctx context.Context, opts Options) (*httptest.Server, string, *Server) {
	t.Helper()
	h := NewServer(ctx, opts)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	return srv, port, h
}

// send makes one request with Host host (the URL's when empty) and hdr,
// and returns its status and body.
func send(t *testing.T, method, u, host string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{DisableKeepAlives: true}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestShutdownCutsExports: when the server's context ends, an hour-long
// export ends at once, and its client can tell it is cut: a CSV under way
// ends without its chunked body's last chunk, a JSON export is cut the same
// way or, if it has sent nothing yet, is a 503. Later exports and sessions
// are refused, and Wait returns.
func TestShutdownCutsExports(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv, _, h := serveWeb(t, ctx, Options{})
	u := srv.URL
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	const long = "?duration=1h&clients=20000"

	req, _ := http.NewRequest("GET", u+"/export.csv"+long, nil)
	csvResp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer csvResp.Body.Close()
	csvBody := bufio.NewReader(csvResp.Body)
	if line, err := csvBody.ReadString('\n'); err != nil || line != simengine.CSVHeader() {
		t.Fatalf("CSV export starts with %q (%v), want its header", line, err)
	}
	type result struct {
		code int
		body string
		err  error
	}
	jsonDone := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest("GET", u+"/export.json"+long, nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			jsonDone <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		jsonDone <- result{resp.StatusCode, string(b), err}
	}()
	testwait.Eventually(t, "both exports in flight", func() bool { return h.kit.InFlight() == 2 })

	cancel()
	if n, err := io.Copy(io.Discard, csvBody); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("CSV export after shutdown: %d more bytes, then %v; want an unexpected EOF, the sign of a cut body", n, err)
	}
	select {
	case r := <-jsonDone:
		// Not begun (the JSON writer sends nothing before its buffer
		// fills): a 503; under way: a cut body, as for the CSV.
		notBegun := r.err == nil && r.code == http.StatusServiceUnavailable && strings.Contains(r.body, "shutting down")
		cut := r.code == http.StatusOK && errors.Is(r.err, io.ErrUnexpectedEOF)
		if !notBegun && !cut {
			t.Errorf("JSON export after shutdown: %d %.200q (%v), want 503 saying the server is shutting down, or a cut body", r.code, r.body, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("JSON export still running 10 s after the shutdown")
	}
	wctx, wcancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer wcancel()
	if err := h.Wait(wctx); err != nil {
		t.Fatalf("Wait: %v", err)
	}

	t.Run("later requests refused", func(t *testing.T) {
		if code, body := send(t, "GET", u+"/export.csv?duration=1s", "", nil); code != 503 || !strings.Contains(body, "shutting down") {
			t.Errorf("export after shutdown: %d %q, want 503", code, body)
		}
		dctx, dcancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer dcancel()
		c, resp, err := websocket.Dial(dctx, "ws"+strings.TrimPrefix(u, "http")+"/ws", nil)
		if c != nil {
			c.CloseNow()
		}
		if resp == nil || resp.StatusCode != 503 {
			t.Errorf("session after shutdown: %v, %v; want 503", resp, err)
		}
		if code, _ := send(t, "GET", u+"/healthz", "", nil); code != 200 {
			t.Errorf("healthz after shutdown: %d", code)
		}
	})
}
