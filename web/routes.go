package web

import (
	"net/http"

	"github.com/backofflab/backofflab/static"
	"github.com/backofflab/backofflab/web/adviseview"
	"github.com/backofflab/backofflab/web/bandsview"
	"github.com/backofflab/backofflab/web/configview"
	"github.com/backofflab/backofflab/web/contentionview"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/mapview"
	"github.com/backofflab/backofflab/web/playground"
)

// view is one of the server's views: a package whose Mount adds its
// routes (its page, its stream, its exports, its own scripts) to the mux
// with the kit they share.
type view struct {
	page  string // the path of its page, which answers 200 with no query; "" for a view that answers another's page
	mount func(*http.ServeMux, *kit.Kit)
}

// views are the views the server mounts: one line each.
var views = []view{
	{"/", playground.Mount},
	{"/map", mapview.Mount},
	{"/bands", bandsview.Mount},
	{"/contention", contentionview.Mount},
	{"/advise", adviseview.Mount},
	// The library import and export answer the playground's page, in its
	// rule for the number boxes.
	{"", configview.Mount(playground.LaneBoxes)},
}

// addRoutes is the server's whole URL space: every view's, the shared
// assets and /healthz.
func addRoutes(mux *http.ServeMux, k *kit.Kit) {
	for _, v := range views {
		v.mount(mux, k)
	}
	mux.Handle("GET /static/", kit.Assets(static.FS))
	mux.Handle("GET /healthz", handleHealthz())
}
