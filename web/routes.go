package web

import (
	"context"
	"log/slog"
	"net/http"
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
	mux.Handle("GET /map/cells", sameSiteOnly(live.inflight.track(ctx, endWithServer(ctx, handleMapCells(lim, live)))))
	mux.Handle("GET /static/", handleStatic())
	mux.Handle("GET /healthz", handleHealthz())
}
