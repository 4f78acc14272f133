package kit

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
)

// ErrLeft is the cause of a view's work cancelled because its page
// stopped reading the stream.
var ErrLeft = errors.New("the view's page left")

// Stream is a many-run view's answer: JSON values, one a line (NDJSON),
// each flushed as it is sent, which the page reads with fetch. Whatever
// stops the work, the stream ends with one last line (End): the view's
// own when the work is done, else {"type":"error","message":…} saying
// why it stopped, the server's shutdown included; only a page that left
// gets none, as no one reads it.
type Stream struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	r      *http.Request
	ctx    context.Context
	cancel context.CancelCauseFunc
	stop   func() bool
	log    *slog.Logger
}

// ErrorLine is the last line of a stream whose work stopped.
type ErrorLine struct {
	Type    string `json:"type"` // "error"
	Message string `json:"message"`
}

// OpenStream begins the stream that answers r, a view whose work runs
// under share (Begin's context). It returns the stream and the context
// to run the work under: share's, cancelled also when the server shuts
// down (cause ErrShutdown) or the page stops reading (cause ErrLeft).
// The caller calls Close when it is over.
func (k *Kit) OpenStream(w http.ResponseWriter, r *http.Request, share context.Context) (*Stream, context.Context) {
	h := w.Header()
	h.Set("Content-Type", "application/x-ndjson; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	ctx, cancel := context.WithCancelCause(share)
	stop := context.AfterFunc(k.live, func() { cancel(ErrShutdown) })
	return &Stream{w: w, rc: http.NewResponseController(w), r: r, ctx: ctx, cancel: cancel, stop: stop, log: k.Log}, ctx
}

// pageGone says whether no one reads the stream any more.
func (s *Stream) pageGone() bool {
	return s.r.Context().Err() != nil || context.Cause(s.ctx) == ErrLeft
}

// Send writes v as one line and flushes it. It returns false, and
// cancels the work (ErrLeft), when the page no longer reads.
func (s *Stream) Send(v any) bool {
	if s.pageGone() {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil { // a message type of ours that does not marshal: a bug
		panic(err)
	}
	if _, err := s.w.Write(append(b, '\n')); err != nil || s.rc.Flush() != nil {
		s.cancel(ErrLeft)
		return false
	}
	return true
}

// End writes the stream's last line for the work's err: done when err is
// nil, else an ErrorLine saying why the work stopped (ShutdownMessage
// when the server shuts down, BusyMessage of err otherwise). It returns
// whether the line was sent.
func (s *Stream) End(err error, done any) bool {
	switch {
	case s.pageGone():
		return false
	case err == nil:
		return s.Send(done)
	case context.Cause(s.ctx) == ErrShutdown:
		return s.Send(ErrorLine{Type: "error", Message: ShutdownMessage})
	default:
		s.log.Info("view stopped", "path", s.r.URL.Path, "err", err)
		return s.Send(ErrorLine{Type: "error", Message: BusyMessage(err)})
	}
}

// Body is the stream's writer for bytes after its last line (the seed
// bands' result): its writes fail once the work's context is done.
func (s *Stream) Body() io.Writer { return ctxWriter{s.ctx, s.w} }

// Close releases the stream's context; the work under it ends.
func (s *Stream) Close() {
	s.stop()
	s.cancel(nil)
}

// ctxWriter writes to w until ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(b)
}
