// Package playground is the playground's view (/): the page, its live
// simulations over WebSocket (a lane of which may run the real experiment
// instead: a real HTTP server and clients on loopback, see real.go), the
// headless exports, the exports of what a page shows, and its scripts
// (play-*.js and app.js, embedded here and served under /static/).
package playground

import (
	"embed"
	"io/fs"
	"net/http"
	"sync/atomic"

	"github.com/backofflab/backofflab/web/kit"
)

// Limits are the server's caps (kit.Limits), which the playground reads
// for its controls' ranges and its runs' bounds.
type Limits = kit.Limits

// assets holds the playground's scripts, served under /static/.
//
//go:embed *.js
var assets embed.FS

// Mount adds the playground's routes: its page, its live sessions, its
// exports (of a URL's run, and of what a page posts) and its scripts.
func Mount(mux *http.ServeMux, k *kit.Kit) {
	mount(mux, k, &sessions{max: int64(k.Limits.MaxSessions), real: &realSlots{max: max(k.Limits.MaxRealSessions, 0)}, Kit: k})
}

// mount is Mount with the sessions' counts given: a test's, with a real
// lane's budget of its own.
func mount(mux *http.ServeMux, k *kit.Kit, live *sessions) {
	presets := newPresets(k.Limits)
	live.presets = presets
	mux.Handle("GET /{$}", handlePlayground(k.Log, k.Limits, presets))
	mux.Handle("GET /ws", k.Track(handleSocket(k.Live(), k.Log, k.Limits, live)))
	mux.Handle("GET /export.csv", k.Export(handleExport(k.Limits, live, "csv")))
	mux.Handle("GET /export.json", k.Export(handleExport(k.Limits, live, "json")))
	// The same paths, posted the page's rows, export what the page shows (pageexport.go).
	mux.Handle("POST /export.csv", k.Stream(handlePageExport(k.Limits, live, "csv")))
	mux.Handle("POST /export.json", k.Stream(handlePageExport(k.Limits, live, "json")))
	// A lane's library: a configuration pasted in, the lane written out (library.go).
	mux.Handle("POST /config/import", kit.SameSiteOnly(k.Track(handleImport(k.Limits))))
	mux.Handle("GET /config/export/{lane}", k.Track(handleExportLane(k.Limits)))
	scripts := kit.Assets(assets)
	names, err := fs.Glob(assets, "*.js")
	if err != nil {
		panic(err) // a bad pattern: a programming error, caught by every test
	}
	for _, name := range names {
		mux.Handle("GET /static/"+name, scripts)
	}
}

// sessions counts the live WebSocket sessions against their cap and those
// with a real lane against theirs; its Kit holds what every view shares:
// the memory pool every run draws on, the exports' slots, the requests in
// flight.
type sessions struct {
	n, max int64
	real   *realSlots
	// presets are the presets a session's rules name the current one of.
	presets *presets
	*kit.Kit
}

func (s *sessions) acquire() bool {
	if atomic.AddInt64(&s.n, 1) > s.max {
		atomic.AddInt64(&s.n, -1)
		return false
	}
	return true
}

func (s *sessions) release() { atomic.AddInt64(&s.n, -1) }
