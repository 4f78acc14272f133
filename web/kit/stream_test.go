package kit

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// brokenWriter is a response whose page has stopped reading.
type brokenWriter struct{ http.ResponseWriter }

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("connection reset") }

// TestStreamLastLine: whatever stops the work, a stream ends with one last
// line: the view's own when it is done, the shutdown's message when the
// server shuts down, the busy message of the work's error otherwise, and
// none for a page that left.
func TestStreamLastLine(t *testing.T) {
	type done struct {
		Type string `json:"type"`
	}
	for _, tc := range []struct {
		name     string
		err      error
		shutdown bool
		want     string
	}{
		{"done", nil, false, `{"type":"done"}` + "\n"},
		{"a failed run", errors.New("boom"), false, `{"type":"error","message":"boom"}` + "\n"},
		{"the server shuts down", context.Canceled, true, `{"type":"error","message":"` + ShutdownMessage + `"}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			live, shutdown := context.WithCancel(t.Context())
			defer shutdown()
			k := New(live, nil, Limits{}, nil)
			w := httptest.NewRecorder()
			r := httptest.NewRequest("GET", "/view/stream", nil)
			stream, ctx := k.OpenStream(w, r, r.Context())
			defer stream.Close()
			if tc.shutdown {
				shutdown()
				<-ctx.Done()
				if context.Cause(ctx) != ErrShutdown {
					t.Fatalf("cause %v, want ErrShutdown", context.Cause(ctx))
				}
			}
			if !stream.End(tc.err, done{"done"}) {
				t.Fatal("End sent no line")
			}
			if got := w.Body.String(); got != tc.want {
				t.Errorf("body %q, want %q", got, tc.want)
			}
			if got := w.Header().Get("Content-Type"); got != "application/x-ndjson; charset=utf-8" {
				t.Errorf("Content-Type %q", got)
			}
		})
	}
	t.Run("the page left", func(t *testing.T) {
		k := New(t.Context(), nil, Limits{}, nil)
		r := httptest.NewRequest("GET", "/view/stream", nil)
		stream, ctx := k.OpenStream(brokenWriter{httptest.NewRecorder()}, r, r.Context())
		defer stream.Close()
		if stream.Send(done{"start"}) {
			t.Fatal("a send to a page that left succeeded")
		}
		if context.Cause(ctx) != ErrLeft {
			t.Fatalf("the work's cause %v, want ErrLeft: the work must stop", context.Cause(ctx))
		}
		if stream.End(errors.New("cut"), done{"done"}) {
			t.Error("End sent a line to a page that left")
		}
		if _, err := stream.Body().Write([]byte("x")); err == nil {
			t.Error("the body writes after the work was cancelled")
		}
	})
}

// TestTooDear: a view within its budget passes; past it, the message says
// how much, how it was estimated and how to make it smaller.
func TestTooDear(t *testing.T) {
	lim := Limits{ViewCPU: 10 * 60e9, ViewCores: 2}
	if msg := TooDear(lim.ViewCPU, true, lim, "this map", "fewer steps"); msg != "" {
		t.Errorf("at its budget: %q", msg)
	}
	msg := TooDear(2*lim.ViewCPU, false, lim, "this map", "fewer steps")
	for _, want := range []string{"this map would take about 20 min", "10 min on its 2 cores", "extrapolated", "past the 10 min", "fewer steps"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
}

// TestBeginCostedKeeps: a view's kept memory is taken after its slot and
// given back with it; a view whose memory does not fit is refused 503 in
// BusyMessage's words, its slot given back.
func TestBeginCostedKeeps(t *testing.T) {
	for _, tc := range []struct {
		name  string
		keeps int64
		code  int
		want  string
	}{
		{"nothing kept", 0, 0, ""},
		{"within a run's budget", 1 << 20, 0, ""},
		{"past a run's budget", 1 << 40, http.StatusServiceUnavailable, "server busy: this run does not fit in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := New(t.Context(), nil, Limits{MaxViews: 1}, nil)
			r := httptest.NewRequest("GET", "/view/stream", nil)
			_, end, code, errs := k.BeginCosted(r, Cost{Keeps: tc.keeps})
			if code != tc.code {
				t.Fatalf("code %d %v, want %d", code, errs, tc.code)
			}
			if tc.want != "" {
				if len(errs) != 1 || !strings.Contains(errs[0].Message, tc.want) {
					t.Fatalf("errors %v, want %q", errs, tc.want)
				}
			} else {
				if used := k.pool.Used(); used < tc.keeps {
					t.Errorf("the pool has %d bytes in use, want at least the %d kept", used, tc.keeps)
				}
				end()
			}
			if used := k.pool.Used(); used != 0 {
				t.Errorf("after the end, %d bytes still in use", used)
			}
			if _, end, _, errs := k.BeginCosted(r, Cost{}); errs != nil {
				t.Errorf("the slot was not given back: %v", errs)
			} else {
				end()
			}
		})
	}
}
