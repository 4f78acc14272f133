package web

import (
	"context"
	"log/slog"
	"net/http"

	"backofflab/sweep"
)

// addRoutes is the playground's whole URL space.
func addRoutes(mux *http.ServeMux, ctx context.Context, log *slog.Logger, lim Limits, live *sessions, presets *presets) {
	mux.Handle("GET /{$}", handlePlayground(log, lim, presets))
	mux.Handle("GET /ws", live.inflight.track(ctx, handleSocket(ctx, log, lim, live)))
	mux.Handle("GET /export.csv", sameSiteOnly(live.inflight.track(ctx, endWithServer(ctx, handleExport(lim, live, "csv")))))
	mux.Handle("GET /export.json", sameSiteOnly(live.inflight.track(ctx, endWithServer(ctx, handleExport(lim, live, "json")))))
	// The same paths, posted the page's rows, export what the page shows (pageexport.go).
	mux.Handle("POST /export.csv", sameSiteOnly(live.inflight.track(ctx, handlePageExport(lim, live, "csv"))))
	mux.Handle("POST /export.json", sameSiteOnly(live.inflight.track(ctx, handlePageExport(lim, live, "json"))))
	// The phase map (mappage.go): its page, and its cells as they end.
	mux.Handle("GET /map", handleMap(log, lim))
	mux.Handle("GET /map/cells", sameSiteOnly(live.inflight.track(ctx, handleMapCells(ctx, lim, live))))
	// Its cells as CSV or JSON: a GET runs the map headless, the page posts the cells it holds (mapexport.go).
	mux.Handle("GET /map.csv", sameSiteOnly(live.inflight.track(ctx, endWithServer(ctx, handleMapExport(lim, live, sweep.FormatCSV)))))
	mux.Handle("GET /map.json", sameSiteOnly(live.inflight.track(ctx, endWithServer(ctx, handleMapExport(lim, live, sweep.FormatJSON)))))
	mux.Handle("POST /map.csv", sameSiteOnly(live.inflight.track(ctx, handleMapPageExport(lim, live, sweep.FormatCSV))))
	mux.Handle("POST /map.json", sameSiteOnly(live.inflight.track(ctx, handleMapPageExport(lim, live, sweep.FormatJSON))))
	// The seed bands (bands.go): the page, and its run's stream.
	mux.Handle("GET /bands", handleBandsPage(log, lim))
	mux.Handle("GET /bands/run", sameSiteOnly(live.inflight.track(ctx, handleBandsRun(ctx, lim, live))))
	// The contention study (contention.go): its page, its stream, its exports.
	mux.Handle("GET /contention", handleContentionPage(log, lim))
	mux.Handle("GET /contention/stream", sameSiteOnly(live.inflight.track(ctx, handleContentionStream(ctx, log, lim, live))))
	mux.Handle("GET /contention.csv", sameSiteOnly(live.inflight.track(ctx, endWithServer(ctx, handleContentionExport(lim, live, "csv")))))
	mux.Handle("GET /contention.json", sameSiteOnly(live.inflight.track(ctx, endWithServer(ctx, handleContentionExport(lim, live, "json")))))
	mux.Handle("GET /static/", handleStatic())
	mux.Handle("GET /healthz", handleHealthz())
}
