package kit

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestInflight: wait returns at once with nothing in flight, names how
// many are when its context ends first, and returns when the last ends.
func TestInflight(t *testing.T) {
	var f inflight
	if err := f.wait(t.Context()); err != nil {
		t.Fatalf("wait with nothing in flight: %v", err)
	}
	for round := range 2 { // idle, busy, idle again: the signal is renewed
		f.add()
		f.add()
		done, cancel := context.WithCancel(t.Context())
		cancel()
		if err := f.wait(done); err == nil || !strings.Contains(err.Error(), "2 sessions or exports") {
			t.Fatalf("round %d: wait with 2 in flight and its context done: %v", round, err)
		}
		f.done()
		waited := make(chan error, 1)
		go func() { waited <- f.wait(context.Background()) }()
		select {
		case err := <-waited:
			t.Fatalf("round %d: wait returned %v with 1 in flight", round, err)
		case <-time.After(20 * time.Millisecond):
		}
		f.done()
		select {
		case err := <-waited:
			if err != nil {
				t.Fatalf("round %d: wait: %v", round, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: wait did not return when the last one ended", round)
		}
	}
}

// TestEndWithServer: how a response ends when the server's live context
// does tells its client whether it is whole.
func TestEndWithServer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request)
		code    int
		body    string
		bodyErr error
	}{
		{"not begun: 503", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Disposition", "attachment")
			<-r.Context().Done()
		}, http.StatusServiceUnavailable, "the server is shutting down", nil},
		{"under way: cut, with what was written", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "t,lane\n1,a\n")
			http.NewResponseController(w).Flush()
			<-r.Context().Done()
			io.WriteString(w, "2,a\n") // sent before the connection closes
		}, http.StatusOK, "t,lane\n1,a\n2,a\n", io.ErrUnexpectedEOF},
		{"over before the shutdown: whole", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "t,lane\n")
		}, http.StatusOK, "t,lane\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live, shutdown := context.WithCancel(t.Context())
			defer shutdown()
			started := make(chan struct{})
			h := endWithServer(live, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				close(started)
				tc.handler(w, r)
			}))
			srv := httptest.NewServer(h)
			defer srv.Close()
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			type result struct {
				resp *http.Response
				body string
				err  error
			}
			got := make(chan result, 1)
			go func() {
				req, _ := http.NewRequest("GET", srv.URL, nil)
				resp, err := tr.RoundTrip(req)
				if err != nil {
					got <- result{err: err}
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				got <- result{resp, string(b), err}
			}()
			<-started
			if tc.bodyErr != nil || tc.code != http.StatusOK {
				shutdown()
			}
			var r result
			select {
			case r = <-got:
			case <-time.After(10 * time.Second):
				t.Fatal("no response 10 s after the shutdown")
			}
			if r.resp == nil {
				t.Fatalf("no response: %v", r.err)
			}
			if r.resp.StatusCode != tc.code || !strings.Contains(r.body, tc.body) || !errors.Is(r.err, tc.bodyErr) {
				t.Errorf("%d %q, body ends with %v; want %d %q, %v", r.resp.StatusCode, r.body, r.err, tc.code, tc.body, tc.bodyErr)
			}
			if cd := r.resp.Header.Get("Content-Disposition"); tc.code != http.StatusOK && cd != "" {
				t.Errorf("a 503 offered as an attachment: Content-Disposition %q", cd)
			}
		})
	}
}
