// Package kit is what every view of the server shares: the page's shell
// (Page), the query's reading (ParseQuery), the server's limits (Limits),
// and for the views of many runs (the phase map, the seed bands, the
// contention study, the advice) their slot and share of the cores (Kit.Begin), their
// estimate's check (TooDear), their memory (Kit.NewAccount, Kit.Keep),
// all three taken before the first run by Kit.BeginCosted, their NDJSON
// stream that always ends with a last line (Kit.OpenStream), their
// workers' progress handed to it (Forward), their exports
// (Kit.TakeExport, ExportHeaders) and the routes' guards (Kit.Stream,
// Kit.Export). A view is a package that mounts its routes
// with a Kit; the server (package web) makes one Kit and mounts them all.
package kit

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/parallel"
	"github.com/backofflab/backofflab/internal/present"
	"github.com/backofflab/backofflab/internal/reqcheck"
)

// Kit is the server's shared state that a view draws on: its limits, its
// memory pool, its export and many-run slots, and the requests in flight
// that its shutdown waits for.
type Kit struct {
	// Log receives one line per failure.
	Log *slog.Logger
	// Limits are the server's, every zero field filled (WithDefaults).
	Limits Limits

	live     context.Context
	pool     *budget.Pool
	exports  chan struct{} // one token per running export
	slots    *viewSlots    // the many-run views' slots and cores
	inflight *inflight
}

// New returns the kit of a server whose live context is live (its end is
// the server's shutdown), which logs to log (nil discards), under lim (a
// zero field takes DefaultLimits') and draws memory from pool (nil: a new
// pool of lim.MaxMemory).
func New(live context.Context, log *slog.Logger, lim Limits, pool *budget.Pool) *Kit {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	lim = lim.WithDefaults()
	if pool == nil {
		pool = budget.NewPool(lim.MaxMemory)
	}
	return &Kit{Log: log, Limits: lim, live: live, pool: pool, exports: make(chan struct{}, lim.MaxExports),
		slots: newViewSlots(lim.MaxViews, lim.ViewCores, lim.ViewCPU), inflight: &inflight{}}
}

// Live is the server's live context: it ends when the server shuts down.
func (k *Kit) Live() context.Context { return k.live }

// NewAccount returns a run's memory budget, or a "server busy" error when the
// pool has too little left to start one: an eighth of a run's budget.
func (k *Kit) NewAccount() (*budget.Account, error) {
	if free := k.pool.Free(); free < k.Limits.RunMemory/8 {
		return nil, fmt.Errorf("server busy: its memory budget is taken (%s of %s in use by other pages and exports); try again in a minute",
			budget.Bytes(k.pool.Used()), budget.Bytes(k.pool.Max()))
	}
	return budget.NewAccount(k.pool, k.Limits.RunMemory), nil
}

// Begin takes a many-run view's slot, or says why it cannot: the caller
// runs the view's work under the returned context, its share of the
// views' cores, and calls end when the work is over.
func (k *Kit) Begin(ctx context.Context) (share context.Context, end func(), err error) {
	return k.slots.begin(ctx)
}

// Running returns how many simulations of the many-run views are in
// progress on the server: the cores of their pool that are held.
func (k *Kit) Running() int64 { return int64(k.slots.pool.Held()) }

// Wait returns when every request Track counts has ended, or with an
// error when ctx ends first.
func (k *Kit) Wait(ctx context.Context) error { return k.inflight.wait(ctx) }

// InFlight returns how many requests Track counts now.
func (k *Kit) InFlight() int { return k.inflight.count() }

// Track counts h's requests until they end, for Wait, and refuses new
// ones once the server shuts down: a live session's or a stream's route.
func (k *Kit) Track(h http.Handler) http.Handler { return k.inflight.track(k.live, h) }

// Stream guards the route of a stream or of an export that a page posts:
// same site only (SameSiteOnly), counted until it ends (Track).
func (k *Kit) Stream(h http.Handler) http.Handler { return SameSiteOnly(k.Track(h)) }

// Export guards the route of an export that a GET runs: as Stream, and
// cut when the server shuts down (endWithServer).
func (k *Kit) Export(h http.Handler) http.Handler {
	return SameSiteOnly(k.Track(endWithServer(k.live, h)))
}

// TakeExport takes one of the server's export slots (Limits.MaxExports),
// which release gives back: a page's export and a headless one share the
// cap. With no free slot it answers w 503 and returns false.
func (k *Kit) TakeExport(w http.ResponseWriter) (release func(), ok bool) {
	select {
	case k.exports <- struct{}{}:
		return func() { <-k.exports }, true
	default:
		w.Header().Set("Retry-After", "10")
		http.Error(w, fmt.Sprintf("server busy: %d exports are running, as many as run at once; try again when one ends", cap(k.exports)),
			http.StatusServiceUnavailable)
		return nil, false
	}
}

// BusyMessage says why a run could not start, or stopped, for want of
// memory or of core time.
func BusyMessage(err error) string {
	var ex *budget.ExceededError
	if errors.As(err, &ex) {
		return "server busy: this run does not fit in " + ex.Error() + "; try fewer clients or lanes, or again in a minute"
	}
	var over *parallel.BudgetError
	if errors.As(err, &over) {
		return fmt.Sprintf("stopped: this view has held the server's cores for %s, as long as one map, band or study may (its runs took more than estimated); make it smaller: fewer steps or seeds, fewer clients, a shorter run", Say(over.Used))
	}
	return err.Error()
}

// SameSiteOnly refuses requests made by another site's page, with 403 and
// the reason. It guards the exports: any page could otherwise make its
// visitors' browsers run hour-long simulations here, an <img> or a link
// at a time.
func SameSiteOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if why := reqcheck.CrossSite(r); why != "" {
			http.Error(w, "backofflab: refused: "+why+".\n"+
				"Export from the playground's own page, or open the export's URL directly.\n", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// Say writes a duration as a reader says it: 100 ms, 20 s, 2.5 min, 1 h 15 min (internal/present's rule).
func Say(d time.Duration) string { return present.Duration(d.Seconds(), 3) }
