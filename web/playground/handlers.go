package playground

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/coder/websocket"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// handlePlayground renders the page for the scenario its URL holds. Bad values
// do not fail the page: each is shown beside its control.
func handlePlayground(log *slog.Logger, lim Limits, presets *presets) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, qerrs := kit.ParseQuery(r.URL.RawQuery)
		sc, errs := scene.DecodeLenient(raw, lim)
		in := pageInput{Scenario: sc, Query: sc.Query(), Raw: raw, Errors: kit.WithQueryErrors(qerrs, errs),
			Presets: presets.list(), Limits: lim, Libraries: libraryViews(presets.library(), lim)}
		kit.WritePage(w, r, log, "playground", playground(in))
	})
}

// handleSocket runs one live session per WebSocket. Accept keeps its
// same-origin check: another site's page cannot drive this server.
func handleSocket(ctx context.Context, log *slog.Logger, lim Limits, live *sessions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			log.Info("websocket refused", "err", err)
			return
		}
		defer conn.CloseNow()
		if !live.acquire() {
			wctx, cancel := context.WithTimeout(ctx, writeTimeout)
			defer cancel()
			conn.Write(wctx, websocket.MessageText, mustJSON(errorMsg{Type: "error",
				Message: "server busy: too many live sessions, try again in a minute"}))
			conn.Close(websocket.StatusTryAgainLater, "server busy")
			return
		}
		defer live.release()
		busy := func(msg string) {
			wctx, cancel := context.WithTimeout(ctx, writeTimeout)
			defer cancel()
			conn.Write(wctx, websocket.MessageText, mustJSON(errorMsg{Type: "error", Message: msg}))
			conn.Close(websocket.StatusTryAgainLater, "server busy")
		}
		mem, err := live.NewAccount()
		if err != nil {
			busy(err.Error())
			return
		}
		defer mem.Close()
		q, qerrs := kit.ParseQuery(r.URL.RawQuery)
		sc, errs := scene.DecodeLenient(q, lim)
		s, err := newSession(conn, log, lim, live.real, mem, sc, kit.WithQueryErrors(qerrs, errs))
		if err != nil { // scene.DecodeLenient validated sc: only memory can refuse it
			busy(kit.BusyMessage(err))
			return
		}
		s.presets = live.presets.keys()
		start := time.Now()
		if err := s.serve(ctx); err != nil {
			log.Info("session ended", "err", err, "after", time.Since(start))
		}
	})
}

// handleExport runs the URL's scenario headless and writes it as format does
// on the command line (backofflab run -format csv|json), as the run goes.
// At most lim.MaxExports run at once, each within a run's memory budget;
// one whose client leaves stops within a slice of events.
func handleExport(lim Limits, live *sessions, format string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sc, release, ok := startExport(w, r, lim, live, scene.DecodeScenario)
		if !ok {
			return
		}
		defer release()
		mem, err := live.NewAccount()
		if err != nil {
			w.Header().Set("Retry-After", "60")
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		defer mem.Close()
		// The run's initial state must fit before the 200 goes out.
		if _, err := simengine.NewWithBudget(sc.Params, mem); err != nil {
			w.Header().Set("Retry-After", "60")
			http.Error(w, kit.BusyMessage(err), http.StatusServiceUnavailable)
			return
		}
		mem.Close()
		write := simengine.WriteCSV
		if format == "json" {
			write = simengine.WriteJSON
		}
		kit.ExportHeaders(w, format, "backofflab")
		if err := write(r.Context(), w, sc.Params, mem); err != nil && !errors.Is(err, context.Canceled) {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
}

// startExport decodes r's query with dec and takes one of the server's
// export slots (kit.TakeExport), which the caller gives back with
// release. On a bad query or no free slot it answers the request and
// returns false.
func startExport(w http.ResponseWriter, r *http.Request, lim Limits, live *sessions,
	dec func(url.Values, Limits) (scene.Scenario, []*scenario.ParamError)) (sc scene.Scenario, release func(), ok bool) {
	q, errs := kit.ParseQuery(r.URL.RawQuery)
	if len(errs) == 0 {
		sc, errs = dec(q, lim)
	}
	if len(errs) > 0 {
		http.Error(w, kit.ErrorText(errs), http.StatusBadRequest)
		return scene.Scenario{}, nil, false
	}
	release, ok = live.TakeExport(w)
	return sc, release, ok
}
