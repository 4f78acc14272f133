// Package contentionview is the contention study's view (/contention):
// the AWS blog's two charts, calls and completion time against N, one
// line per strategy, computed by package contention as the CLI's
// "backofflab contention" computes them. The page is a templ page
// (contention.templ) whose script (contention.js, embedded here and
// served as /static/contention.js) streams the study from
// /contention/stream as NDJSON, one line per finished point, and aborts
// the stream when the page is left, which cancels the study.
package contentionview

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/backofflab/backofflab/contention"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/kit"
)

// Mount adds the study's routes: its page, its stream, its exports and
// its script.
func Mount(mux *http.ServeMux, k *kit.Kit) {
	mux.Handle("GET /contention", handleContentionPage(k))
	mux.Handle("GET /contention/stream", k.Stream(handleContentionStream(k)))
	mux.Handle("GET /contention.csv", k.Export(handleContentionExport(k, "csv")))
	mux.Handle("GET /contention.json", k.Export(handleContentionExport(k, "json")))
	mux.Handle("GET /static/contention.js", kit.Assets(contentionAssets))
}

// contentionAssets holds the page's script.
//
//go:embed contention.js
var contentionAssets embed.FS

// contentionLimits are lim's caps on a study's size.
func contentionLimits(lim kit.Limits) contention.Limits {
	return contention.Limits{MaxClients: lim.ContentionMaxClients, MaxSeeds: lim.ContentionMaxSeeds, MaxPoints: lim.ContentionMaxPoints}
}

// decodeContention reads a study from a URL's raw query within lim: the
// one place the page, the stream and the exports decode it. It returns
// the values it read too, for the page's form.
func decodeContention(raw string, lim kit.Limits) (contention.Spec, url.Values, error) {
	q, errs := kit.ParseQuery(raw)
	if len(errs) > 0 {
		return contention.Spec{}, q, errors.New(kit.ErrorText(errs))
	}
	spec, err := contention.Parse(q, contentionLimits(lim))
	return spec, q, err
}

// contentionParam is one of the study's parameters as the page shows it:
// the table's row and the URL's value.
type contentionParam struct {
	scenario.Param
	Value string
}

// contentionLine is one strategy's line as the page draws it.
type contentionLine struct {
	Strategy string `json:"strategy"`
	Label    string `json:"label"`
	Blog     string `json:"blog"`
	On       bool   `json:"on"` // in the study
}

// contentionInput is what the page needs: the parameters with their
// values, the lines, and the error of a bad URL.
type contentionInput struct {
	Params []contentionParam
	Lines  []contentionLine
	Query  string // the study's URL query, every parameter set; "" when the URL is bad
	Error  string
	Limits contention.Limits
}

// contentionData is the JSON the page's script reads.
type contentionData struct {
	Query  string           `json:"query"`
	Lines  []contentionLine `json:"lines"`
	Points int              `json:"points"`
	// Seeds is the runs at each point; the page's script reads it as runs.
	Seeds int `json:"runs"`
}

func newContentionInput(raw string, lim kit.Limits) (contentionInput, contentionData) {
	spec, q, err := decodeContention(raw, lim)
	in := contentionInput{Limits: contentionLimits(lim)}
	vals, on := q, contention.LineNames()
	if err != nil {
		in.Error = err.Error()
		if q.Has("strategies") {
			on = strings.Split(q.Get("strategies"), ",")
		}
	} else {
		vals = spec.Values()
		in.Query = vals.Encode()
		on = spec.Strategies
	}
	for _, p := range contention.Params() {
		v := p.Default
		if vs, ok := vals[p.Name]; ok && len(vs) > 0 {
			v = vs[0]
		}
		in.Params = append(in.Params, contentionParam{p, v})
	}
	for _, l := range contention.Lines() {
		in.Lines = append(in.Lines, contentionLine{Strategy: l.Strategy, Label: l.Label(), Blog: l.Blog,
			On: slices.Contains(on, l.Strategy)})
	}
	st := contentionData{Query: in.Query, Lines: in.Lines, Points: spec.Points(), Seeds: spec.Seeds}
	return in, st
}

// handleContentionPage renders the study's page for its URL. A bad value
// does not fail the page, as on the playground's: the page says what is
// wrong beside the form and runs nothing.
func handleContentionPage(k *kit.Kit) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, st := newContentionInput(r.URL.RawQuery, k.Limits)
		kit.WritePage(w, r, k.Log, "contention", contentionPage(in, st))
	})
}

// contentionMsg is one line of the stream: "start" (how many points),
// "point" (a point as it ends, with how many are done of how many), then
// "done", or kit.ErrorLine.
type contentionMsg struct {
	Type    string            `json:"type"`
	Point   *contention.Point `json:"point,omitempty"`
	Done    int               `json:"done,omitempty"`
	Total   int               `json:"total,omitempty"`
	Message string            `json:"message,omitempty"`
	// Left is the time left, in seconds, at the study's pace so far,
	// reckoned in its work (contention.Point.Work: a point of many clients
	// costs far more than one of few), not in its points.
	Left float64 `json:"left,omitempty"`
	// Work is the share of the study's work done, 0 to 1.
	Work float64 `json:"work,omitempty"`
	// Conclusion, on the last line, is the study's finding in one
	// sentence (contention.Conclusion).
	Conclusion string `json:"conclusion,omitempty"`
}

// startContention reads the study r's query names and takes what it
// needs before it starts (kit.BeginCosted): the many-run views' slot and
// its memory from the server's budget (spec.Memory, a few hundred KiB at
// most); its limits (contentionLimits) keep its cost within a view's
// budget, so it has no estimate. Otherwise it answers r: 400 naming a bad
// parameter, 503 when the server is busy.
func startContention(w http.ResponseWriter, r *http.Request, k *kit.Kit) (context.Context, contention.Spec, func(), bool) {
	spec, _, err := decodeContention(r.URL.RawQuery, k.Limits)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, spec, nil, false
	}
	share, end, code, errs := k.BeginCosted(r, kit.Cost{Keeps: spec.Memory(k.Limits.ViewCores)})
	if errs != nil {
		kit.WriteErrorText(w, code, errs)
		return nil, spec, nil, false
	}
	return share, spec, end, true
}

// runContention runs spec's study on the cores of ctx's share of the
// many-run views (startContention). It stops when ctx ends: the page
// left, the export's client went away, or the server shuts down.
func runContention(ctx context.Context, spec contention.Spec, point func(contention.Point, int, int)) ([]contention.Point, error) {
	return contention.Run(ctx, spec, contention.Options{Point: point})
}

// handleContentionStream streams a study as NDJSON (kit.Stream). A bad
// query is a 400 naming the parameter; a server without a free slot for
// the view, a 503.
func handleContentionStream(k *kit.Kit) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		share, spec, end, ok := startContention(w, r, k)
		if !ok {
			return
		}
		defer end()
		stream, ctx := k.OpenStream(w, r, share)
		defer stream.Close()
		stream.Send(contentionMsg{Type: "start", Total: spec.Points()})
		// The study's workers hand each point to this goroutine, which
		// writes it: a page slow to read holds up its own stream, never a
		// worker, which holds one of the many-run views' cores. The
		// channel holds every point, so a worker never waits on it.
		msgs := make(chan contentionMsg, spec.Points())
		began, work, worked := time.Now(), spec.Work(), 0.0
		var points []contention.Point
		var err error
		go func() {
			defer close(msgs)
			points, err = runContention(ctx, spec, func(p contention.Point, done, total int) {
				worked += p.Work() // Point's calls are never concurrent
				msgs <- contentionMsg{Type: "point", Point: &p, Done: done, Total: total,
					Left: kit.TimeLeft(began, worked, work), Work: worked / work}
			})
		}()
		for m := range msgs {
			stream.Send(m)
		}
		// err and points were set before msgs was closed.
		stream.End(err, contentionMsg{Type: "done", Conclusion: contention.Conclusion(points)})
	})
}

// handleContentionExport runs a study and writes it as the contention
// command's -format does (csv or json).
func handleContentionExport(k *kit.Kit, format string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		share, spec, end, ok := startContention(w, r, k)
		if !ok {
			return
		}
		defer end()
		points, err := runContention(share, spec, nil)
		if err != nil {
			if !errors.Is(err, context.Canceled) && r.Context().Err() == nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
			}
			return
		}
		var buf bytes.Buffer
		if err := contention.Write(&buf, format, spec, points); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		kit.ExportHeaders(w, format, "backofflab-contention")
		w.Write(buf.Bytes())
	})
}

// contentionInputMode is the keyboard a phone shows for a parameter's box: digits
// for the numbers, text for n's lists and ranges.
func contentionInputMode(name string) string {
	if name == "n" {
		return "text"
	}
	return "numeric"
}

// splitLines splits an error that joins several (errors.Join) into its
// lines, one message each.
func splitLines(s string) []string { return strings.Split(s, "\n") }
