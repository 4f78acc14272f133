package web

import (
	"net/http"

	"backofflab/static"
	"backofflab/web/contentionview"
	"backofflab/web/kit"
)

// view is one of the server's views besides the playground: a package
// (or, until it has moved into one, a file of web) whose mount adds its
// routes (its page, its stream, its exports, its own script) to the mux
// with the kit they share.
type view struct {
	page  string // the path of its page, which answers 200 with no query
	mount func(*http.ServeMux, *kit.Kit)
}

// views are the views the server mounts: one line each.
var views = []view{
	{"/map", mountMap},
	{"/bands", mountBands},
	{"/contention", contentionview.Mount},
}

// addRoutes is the playground's whole URL space.
func addRoutes(mux *http.ServeMux, k *kit.Kit, live *sessions, presets *presets) {
	mux.Handle("GET /{$}", handlePlayground(k.Log, k.Limits, presets))
	mux.Handle("GET /ws", k.Track(handleSocket(k.Live(), k.Log, k.Limits, live)))
	mux.Handle("GET /export.csv", k.Export(handleExport(k.Limits, live, "csv")))
	mux.Handle("GET /export.json", k.Export(handleExport(k.Limits, live, "json")))
	// The same paths, posted the page's rows, export what the page shows (pageexport.go).
	mux.Handle("POST /export.csv", k.Stream(handlePageExport(k.Limits, live, "csv")))
	mux.Handle("POST /export.json", k.Stream(handlePageExport(k.Limits, live, "json")))
	for _, v := range views {
		v.mount(mux, k)
	}
	mux.Handle("GET /static/", kit.Assets(static.FS))
	mux.Handle("GET /healthz", handleHealthz())
}
