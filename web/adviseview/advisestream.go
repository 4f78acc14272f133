package adviseview

// The advice's protocol: GET /advise/stream?<the request's query> answers
// a stream of JSON values, one a line (NDJSON), which the page reads with
// fetch:
//
//	{"type":"start","phase":"…","total":N,"estimate":seconds,"status":"…"}   at most N runs, about seconds of CPU, said in words
//	{"type":"progress","phase":"…","done":n,"total":N,"left":seconds}   as runs end, the phase in words
//	{"type":"advice","status":"…","advice":{…},"text":"…"}   the last line: the advice as advise.WriteJSON writes it, and as text
//	{"type":"error","message":"…"}                              instead, when the search stopped (kit.Stream)
//
// A bad query is answered 400 before the stream begins, a busy server
// 503, both with an adviseErrors body that names each parameter at
// fault, as is a search whose estimated cost is past the budget of a
// view (Limits.ViewCPU): the estimate runs first (advise.Estimate).
// The search stops when the page cancels or leaves (its fetch aborted:
// the request's context), when the server shuts down (the stream then
// ends with an error line saying so), or at the first failed run.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/backofflab/backofflab/advise"
	"github.com/backofflab/backofflab/web/kit"
)

// adviseMsg is one line of the stream.
type adviseMsg struct {
	Type     string  `json:"type"`
	Phase    string  `json:"phase,omitempty"`
	Done     int     `json:"done"`
	Total    int     `json:"total,omitempty"`
	Estimate float64 `json:"estimate,omitempty"` // seconds of CPU
	// Left is the time left, in seconds, at the search's pace so far;
	// -1 before the first run ends.
	Left float64 `json:"left,omitempty"`
	// Status says in a line what the search will do (the start) or how
	// it ended (the advice), for the page's status.
	Status string `json:"status,omitempty"`
	// Advice is the advice as advise.WriteJSON writes it, Text as
	// advise.WriteText does: the page draws the one and saves both.
	Advice json.RawMessage `json:"advice,omitempty"`
	Text   string          `json:"text,omitempty"`
	// View is what the page draws beside the advice's words: its
	// figures, written in Go (resultView).
	View *resultView `json:"view,omitempty"`
}

// startAdvice takes what a search needs before its first run
// (kit.BeginCosted): a slot of the many-run views and an estimate of its
// cost within the budget of one. It returns the context the search runs
// under, its estimate and the end of its slot, or the HTTP status and
// errors of a search that cannot start.
func startAdvice(r *http.Request, req advise.Request, k *kit.Kit) (context.Context, advise.Estimate, func(), int, []kit.FieldError) {
	var est advise.Estimate
	ctx, end, code, errs := k.BeginCosted(r, kit.Cost{
		Estimate: func(ctx context.Context) (time.Duration, bool, error) {
			var err error
			est, err = advise.EstimateCost(ctx, req, adviseOptions(k, nil))
			return est.CPU, est.Whole, err
		},
		What: "this search", Smaller: "make it smaller: fewer seeds, fewer clients, a shorter outage", Param: "seeds",
	})
	return ctx, est, end, code, errs
}

// adviseOptions are the options of a search on this server: the
// many-run views' cores (its share of them is its context's), each run's
// memory from the server's pool, and progress told to progress.
func adviseOptions(k *kit.Kit, progress func(advise.Progress)) advise.Options {
	return advise.Options{Parallel: k.Limits.ViewCores, Memory: k.NewAccount, Progress: progress}
}

// decodeErrors answers a request whose query is bad, 400 naming each
// parameter at fault: for the page's stream an adviseErrors body, each
// error under its parameter's name; for an export, its lines as text.
// It reports whether it answered.
func decodeErrors(w http.ResponseWriter, raw string, k *kit.Kit, stream bool) (advise.Request, bool) {
	req, _, errs := decodeAdvise(raw, k.Limits)
	if len(errs) == 0 {
		return req, false
	}
	if !stream {
		http.Error(w, kit.ErrorText(errs), http.StatusBadRequest)
		return req, true
	}
	kit.WriteErrors(w, http.StatusBadRequest, kit.FieldErrors(errs))
	return req, true
}

// handleAdviseStream runs the search its query names and streams its
// progress and its advice (startAdvice, kit.Stream), each run's memory
// from the server's pool (k.NewAccount); it stops when its request's
// context ends or the server shuts down, which its last line says.
func handleAdviseStream(k *kit.Kit) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, bad := decodeErrors(w, r.URL.RawQuery, k, true)
		if bad {
			return
		}
		share, est, end, code, errs := startAdvice(r, req, k)
		if errs != nil {
			kit.WriteErrors(w, code, errs)
			return
		}
		defer end()
		stream, ctx := k.OpenStream(w, r, share)
		defer stream.Close()
		if !stream.Send(adviseMsg{Type: "start", Phase: advise.PhaseSearch, Total: est.Runs, Estimate: est.CPU.Seconds(),
			Status: fmt.Sprintf("starting: at most %d runs, about %s of the server's CPU", est.Runs, kit.Say(est.CPU))}) {
			return
		}
		adv, err := runAdvice(ctx, stream, req, k)
		var done adviseMsg
		if err == nil {
			done, err = adviceLine(adv)
		}
		stream.End(err, done)
	})
}

// progressEvery is the least time between two progress lines of a phase.
const progressEvery = 100 * time.Millisecond

// runAdvice runs req's search on the cores of ctx's share of the many-run
// views and sends its progress as runs end (kit.Forward): at most one
// line in progressEvery, but each phase's first, so that a fast search is
// not a flood of lines.
func runAdvice(ctx context.Context, stream *kit.Stream, req advise.Request, k *kit.Kit) (adv *advise.Advice, err error) {
	began := time.Now()
	kit.Forward(func(report func(advise.Progress)) {
		adv, err = advise.Run(ctx, req, adviseOptions(k, report))
	}, func(p advise.Progress) {
		stream.Send(adviseMsg{Type: "progress", Phase: p.Phase, Done: p.Done, Total: p.Total,
			Left: kit.TimeLeft(began, float64(p.Done), float64(p.Total))})
	}, func(sent, next advise.Progress) time.Duration {
		if next.Phase == sent.Phase {
			return progressEvery
		}
		return 0
	})
	return adv, err
}

// adviceLine is the stream's last line of a finished search.
func adviceLine(a *advise.Advice) (adviseMsg, error) {
	var js, text bytes.Buffer
	if err := advise.WriteJSON(&js, a); err != nil {
		return adviseMsg{}, err
	}
	if err := advise.WriteText(&text, a); err != nil {
		return adviseMsg{}, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, js.Bytes()); err != nil {
		return adviseMsg{}, err
	}
	v := newResultView(a)
	status := fmt.Sprintf("done: %d settings searched, %d runs", a.Candidates, a.Runs)
	return adviseMsg{Type: "advice", Status: status, Advice: compact.Bytes(), Text: text.String(), View: &v}, nil
}

// Formats of the exports.
const (
	formatJSON = "json"
	formatText = "txt"
)

// handleAdviseExport runs the search its query names, headless, and
// writes its advice as "backofflab advise" does, JSON or text: the same
// request and seed give the same advice.
func handleAdviseExport(k *kit.Kit, format string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, bad := decodeErrors(w, r.URL.RawQuery, k, false)
		if bad {
			return
		}
		share, _, end, code, errs := startAdvice(r, req, k)
		if errs != nil {
			kit.WriteErrorText(w, code, errs)
			return
		}
		defer end()
		adv, err := advise.Run(share, req, adviseOptions(k, nil))
		if err != nil {
			if r.Context().Err() == nil && !errors.Is(err, context.Canceled) {
				http.Error(w, "the search stopped: "+kit.BusyMessage(err), http.StatusServiceUnavailable)
			}
			return
		}
		var buf bytes.Buffer
		write := advise.WriteJSON
		if format == formatText {
			write = advise.WriteText
		}
		if err := write(&buf, adv); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		kit.ExportHeaders(w, format, "backofflab-advice")
		w.Write(buf.Bytes())
	})
}
