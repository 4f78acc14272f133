package mapview

import (
	"context"
	"embed"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/internal/parallel"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/sweep"
	"github.com/backofflab/backofflab/web/kit"
)

// The map's protocol: GET /map/cells?<the map's query> answers a stream of
// JSON values, one a line (NDJSON), which the page reads with fetch:
//
//	{"type":"start","total":N,"points":P,"estimate":seconds}   N cells in P points, about seconds of CPU
//	{"type":"point","x":i,"y":j,"cells":[…],"lanes":[…],"left":seconds}   once per point, as its seeds end
//	{"type":"done","elapsed":seconds}
//	{"type":"error","message":"…"}                         instead of done, when a run failed
//	                                                       or the server shuts down (kit.Stream)
//
// A point is a place of the grid (x, y) with its seeds' cells. A bad query
// is answered 400 before the stream begins, a busy server 503, both with a
// mapErrors body that names each parameter at fault, as is a map whose
// estimated cost is past the budget of a view (Limits.ViewCPU): its
// corners are run first (sweep.EstimateCost), and a point's "left" is the
// time left at the map's pace so far (progress). The work stops when
// the page leaves (its fetch aborted: the request's context), when the
// server shuts down (the stream then ends with an error line saying so, as
// the bands' does), or at the first failed run.

// mapMsg is one line of the stream.
type mapMsg struct {
	Type  string `json:"type"`
	Total int    `json:"total,omitempty"` // cells

	Points   int     `json:"points,omitempty"`
	Estimate float64 `json:"estimate,omitempty"` // seconds of CPU
	Left     float64 `json:"left,omitempty"`     // seconds of wall time
	Elapsed  float64 `json:"elapsed,omitempty"`
	Message  string  `json:"message,omitempty"`
	*mapPoint
}

// mapPoint is one point of the map: the cells of its seeds and, per lane,
// what they add up to.
type mapPoint struct {
	X     int         `json:"x"`
	Y     int         `json:"y"`
	Cells []mapCell   `json:"cells"`
	Lanes []pointLane `json:"lanes"`
	// Diffs compare every lane with every lane at the point, by "a/b":
	// lane b against lane a (sweep.CompareAll).
	Diffs map[string]sweep.Diff `json:"diffs"`
}

// mapCell is one cell, one run: its index in the sweep, its seed, its
// playground query and each lane's summary.
type mapCell struct {
	Index int    `json:"index"`
	Seed  uint64 `json:"seed,string"` // a string: JavaScript's numbers hold 53 bits
	Query string `json:"query"`
	// Outcomes and Summaries are the lanes', in lane order.
	Outcomes  []string           `json:"outcomes"`
	Summaries []scenario.Summary `json:"summaries"`
}

// pointLane is a lane's result at a point, over its seeds.
type pointLane struct {
	// Outcome is the outcome most seeds had; a tie goes to the worse
	// (mapOutcomeRank).
	Outcome string `json:"outcome"`
	// Counts are the seeds of each outcome.
	Counts map[string]int `json:"counts"`
	// Recovery is the median, over the seeds whose service recovered, of
	// the time from the outage's end until it did, in seconds; nil when
	// none did. A lane whose outcome is recovered with a nil Recovery had
	// its server back (concurrency at its healthy level) but not its
	// service (ok/s at 90 % of the baseline) by the run's end: the page
	// shows it apart (mapData.ServerOnly).
	Recovery *float64 `json:"recovery"`
	// Peak is the highest peak concurrency of the seeds; Amplification
	// their mean attempts per request.
	Peak          int     `json:"peak"`
	Amplification float64 `json:"amplification"`
	// Verdict is the run's verdict in words with one seed (its headline),
	// else how many seeds recovered.
	Verdict string `json:"verdict"`
}

// mapOutcomeRank orders the outcomes from the worst, for a tie between
// the seeds of a point.
var mapOutcomeRank = []string{sweep.OutcomeCollapsed, sweep.OutcomeStopped, sweep.OutcomeRecovered, sweep.OutcomeNoOutage}

// newMapPoint adds up a point's cells, in seed order.
func newMapPoint(x, y int, cells []sweep.Cell) *mapPoint {
	pt := &mapPoint{X: x, Y: y}
	for _, c := range cells {
		mc := mapCell{Index: c.Index, Seed: c.Seed, Query: c.Query().Encode()}
		for _, l := range c.Lanes {
			mc.Outcomes = append(mc.Outcomes, l.Outcome)
			mc.Summaries = append(mc.Summaries, l.Summary)
		}
		pt.Cells = append(pt.Cells, mc)
	}
	for i := range cells[0].Lanes {
		pl := pointLane{Counts: map[string]int{}}
		var recs []float64
		for _, c := range cells {
			l := c.Lanes[i]
			pl.Counts[l.Outcome]++
			if r := l.Summary.ServiceRecoveredAfter; r != nil && l.Outcome == sweep.OutcomeRecovered {
				recs = append(recs, *r)
			}
			pl.Peak = max(pl.Peak, l.Summary.PeakConcurrency)
			pl.Amplification += l.Summary.Amplification / float64(len(cells))
		}
		for _, o := range mapOutcomeRank {
			if pl.Outcome == "" || pl.Counts[o] > pl.Counts[pl.Outcome] {
				pl.Outcome = o
			}
		}
		if len(recs) > 0 {
			slices.Sort(recs)
			m := recs[len(recs)/2]
			if len(recs)%2 == 0 {
				m = (recs[len(recs)/2-1] + recs[len(recs)/2]) / 2
			}
			pl.Recovery = &m
		}
		if len(cells) == 1 {
			pl.Verdict = cells[0].Lanes[i].Summary.Verdict(scenario.Finished).Headline
		} else {
			pl.Verdict = mapSeedsVerdict(pl.Counts, len(cells))
		}
		pt.Lanes = append(pt.Lanes, pl)
	}
	rs := make([]sweep.PointLane, len(pt.Lanes))
	for i, pl := range pt.Lanes {
		rs[i] = sweep.PointLane{Outcome: pl.Outcome, Recovery: pl.Recovery}
	}
	pt.Diffs = sweep.CompareAll(rs)
	return pt
}

// mapSeedsVerdict says how a point's seeds ended.
func mapSeedsVerdict(counts map[string]int, seeds int) string {
	var parts []string
	for _, o := range sweep.Outcomes {
		if n := counts[o]; n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+mapOutcomeOf(o).Label)
		}
	}
	return "of " + strconv.Itoa(seeds) + " seeds: " + strings.Join(parts, ", ")
}

// Mount adds the phase map's routes: its page, its cells as they end,
// and its cells as CSV or JSON (a GET runs the map headless, the page
// posts the cells it holds: mapexport.go).
func Mount(mux *http.ServeMux, k *kit.Kit) {
	mux.Handle("GET /map", handleMap(k.Log, k.Limits))
	mux.Handle("GET /map/cells", k.Stream(handleMapCells(k)))
	mux.Handle("GET /map.csv", k.Export(handleMapExport(k, sweep.FormatCSV)))
	mux.Handle("GET /map.json", k.Export(handleMapExport(k, sweep.FormatJSON)))
	mux.Handle("POST /map.csv", k.Stream(handleMapPageExport(k, sweep.FormatCSV)))
	mux.Handle("POST /map.json", k.Stream(handleMapPageExport(k, sweep.FormatJSON)))
	mux.Handle("GET /static/mappage.js", kit.Assets(mapAssets))
}

// mapAssets holds the page's script.
//
//go:embed mappage.js
var mapAssets embed.FS

// startMap takes what a map needs before its first cell
// (kit.BeginCosted): a slot of the many-run views and an estimate of its
// cost within the budget of one. It returns the context the map runs
// under, its estimate and the end of its slot, or the HTTP status and
// errors of a map that cannot start.
func startMap(r *http.Request, spec sweep.Spec, k *kit.Kit) (context.Context, sweep.Estimate, func(), int, []kit.FieldError) {
	var est sweep.Estimate
	ctx, end, code, errs := k.BeginCosted(r, kit.Cost{
		Estimate: func(ctx context.Context) (time.Duration, bool, error) {
			var err error
			est, err = sweep.EstimateCost(ctx, spec, kit.PilotCPU, k.NewAccount)
			return est.Total(), est.Whole, err
		},
		What: "this map", Smaller: "make it smaller: fewer steps or seeds, fewer clients, a shorter run", Param: "cells",
	})
	return ctx, est, end, code, errs
}

// handleMapCells runs the map its query names and streams its points as
// they end (startMap, kit.Stream), each cell's run with a run's memory
// from the server's pool; it stops when its request's context ends or the
// server shuts down, which its last line says.
func handleMapCells(k *kit.Kit) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		spec, errs := decodeMapQuery(r.URL.RawQuery, k.Limits)
		if len(errs) > 0 {
			kit.WriteErrors(w, http.StatusBadRequest, kit.FieldErrors(errs))
			return
		}
		start := time.Now()
		share, est, end, code, merrs := startMap(r, spec, k)
		if merrs != nil {
			kit.WriteErrors(w, code, merrs)
			return
		}
		defer end()
		stream, ctx := k.OpenStream(w, r, share)
		defer stream.Close()
		stream.Send(mapMsg{Type: "start", Total: spec.Cells(), Points: spec.Cells() / spec.Seeds, Estimate: est.Total().Seconds()})
		began, done := time.Now(), time.Duration(0)
		err := runMap(ctx, spec, k, func(pt *mapPoint) {
			for _, c := range pt.Cells {
				done += est.Cell(c.Index)
			}
			if ctx.Err() == nil {
				stream.Send(mapMsg{Type: "point", mapPoint: pt, Left: kit.TimeLeft(began, float64(done), float64(est.Total()))})
			}
		})
		stream.End(err, mapMsg{Type: "done", Elapsed: time.Since(start).Seconds()})
	})
}

// runCells runs every cell of spec on the cores of ctx's share of the
// many-run views (parallel.Do under kit.Kit.Begin's context), each with
// a run's memory from k's pool, and calls emit with each cell as it
// ends: one call at a time, on the calling goroutine, so that a slow emit
// (a slow page) never holds a core. It returns when every run has
// returned: at the end, at the first failed run, or soon after ctx ends.
func runCells(ctx context.Context, spec sweep.Spec, k *kit.Kit, emit func(sweep.Cell)) error {
	done := make(chan sweep.Cell, spec.Cells()) // never full: a worker never waits on emit
	errc := make(chan error, 1)
	go func() {
		defer close(done)
		errc <- parallel.Do(ctx, 0, spec.Cells(), func(ctx context.Context, i int) error {
			mem, err := k.NewAccount()
			if err != nil {
				return err
			}
			defer mem.Close()
			c, err := sweep.RunCell(ctx, spec, i, mem)
			if err != nil {
				return err
			}
			done <- c
			return nil
		})
	}()
	for c := range done {
		emit(c)
	}
	return <-errc
}

// runMap is runCells whose emit takes each point once all its seeds have
// ended (a point's seeds are consecutive cells: sweep.Spec.Cell).
func runMap(ctx context.Context, spec sweep.Spec, k *kit.Kit, emit func(*mapPoint)) error {
	pending := map[int][]sweep.Cell{}
	return runCells(ctx, spec, k, func(c sweep.Cell) {
		p := c.Index / spec.Seeds
		cells := append(pending[p], c)
		if len(cells) < spec.Seeds {
			pending[p] = cells
			return
		}
		delete(pending, p)
		slices.SortFunc(cells, func(a, b sweep.Cell) int { return a.Index - b.Index })
		emit(newMapPoint(c.X, c.Y, cells))
	})
}
