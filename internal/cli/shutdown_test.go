package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/backofflab/backofflab/simengine"
)

// startServe runs the playground command with args until ctx ends; it
// returns the URL it printed and where its result will arrive.
func startServe(t *testing.T, ctx context.Context, args ...string) (string, <-chan error) {
	t.Helper()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL printed: %v", err)
	}
	go io.Copy(io.Discard, pr)
	i := strings.Index(line, "http://127.0.0.1:")
	if i < 0 {
		t.Fatalf("printed %q, want the page's URL", line)
	}
	return strings.TrimSpace(line[i:]), done
}

// TestServeShutdown: when its context ends (SIGTERM in main), the
// playground tells every page it goes away and waits for the pages to
// answer before it returns; hour-long exports are cut rather than waited
// for, visibly to their clients; and the shutdown is a success.
func TestServeShutdown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done := startServe(t, ctx)
	ws := "ws" + strings.TrimPrefix(url, "http") + "ws?clients=1000&duration=1h"

	// The last page is slow: it reads nothing for a while after the
	// shutdown begins, so its close handshake ends well after the others.
	const pages = 20
	slow := make(chan struct{})
	closed := make([]error, pages)
	var wg sync.WaitGroup
	for i := range pages {
		dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
		c, _, err := websocket.Dial(dctx, ws, nil)
		dcancel()
		if err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		defer c.CloseNow()
		c.SetReadLimit(1 << 24)
		// Wait for the session's first message: it is live.
		if _, _, err := c.Read(ctx); err != nil {
			t.Fatalf("page %d: %v", i, err)
		}
		wg.Go(func() {
			if i == pages-1 {
				<-slow
			}
			for {
				if _, _, err := c.Read(context.Background()); err != nil {
					closed[i] = err
					return
				}
			}
		})
	}

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	const exports = 2
	ended := make(chan error, exports)
	for i := range exports {
		req, _ := http.NewRequest("GET", url+"export.csv?duration=1h&clients=20000", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatalf("export %d: %v", i, err)
		}
		defer resp.Body.Close()
		body := bufio.NewReader(resp.Body)
		if line, err := body.ReadString('\n'); err != nil || line != simengine.CSVHeader() {
			t.Fatalf("export %d starts with %q (%v), want the CSV header", i, line, err)
		}
		go func() {
			_, err := io.Copy(io.Discard, body)
			ended <- err
		}()
	}

	cancel()
	time.AfterFunc(300*time.Millisecond, func() { close(slow) })
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v after a shutdown, want nil (exit status 0)", err)
		}
		// main exits as soon as serve returns: a session still running
		// then would never finish its close handshake (close status 1006).
		if st := sessionStacks(); st != "" {
			t.Errorf("serve returned while sessions still ran:\n%s", st)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not return 20 s after its context ended")
	}
	for i := range exports {
		select {
		case err := <-ended:
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("export %d ended with %v, want an unexpected EOF (cut, not whole)", i, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("export %d still running after the server returned", i)
		}
	}
	// serve has returned: every page must have its close frame by now.
	wg.Wait()
	for i, err := range closed {
		if websocket.CloseStatus(err) != websocket.StatusGoingAway {
			t.Errorf("page %d: %v, want close status going away (1001)", i, err)
		}
	}
}

// sessionStacks returns the stacks of the goroutines that run a session.
func sessionStacks() string {
	buf := make([]byte, 1<<20)
	var out []string
	for g := range strings.SplitSeq(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "github.com/backofflab/backofflab/web.(*session)") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}
