package mapview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/sweep"
	"github.com/backofflab/backofflab/web/kit"
)

// The map's exports, written by sweep.NewWriter, the formatter of
// `backofflab map -format csv|json`, so that a map's CSV from the page,
// from its URL and from the command line are the same bytes:
//
//   - GET /map.csv?<map> and /map.json?<map> run the map headless, as the
//     page does (one of the many-run views' slots, their cores, each cell's
//     memory from the server's pool), and write its cells as they end;
//   - POST to the same paths, with the page's cells in the body, writes
//     those: a map the page has run is not run again.

// handleMapExport runs the map its query names and writes its cells in
// format (sweep.FormatCSV or sweep.FormatJSON). A map cut short (its
// client gone, a run failed) ends its response without the end of its
// body, so that it cannot pass for a whole one.
func handleMapExport(k *kit.Kit, format string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		spec, ok := exportSpec(w, r, k.Limits)
		if !ok {
			return
		}
		share, _, end, code, merrs := startMap(r, spec, k)
		if merrs != nil {
			kit.WriteErrorText(w, code, merrs)
			return
		}
		defer end()
		kit.ExportHeaders(w, format, "backofflab-map")
		cw := &kit.CountingWriter{W: w}
		sw, err := sweep.NewWriter(cw, format, spec, sweep.Shard{})
		if err != nil { // a format of ours: a bug
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		ctx, cancel := context.WithCancel(share)
		defer cancel()
		var werr error
		err = runCells(ctx, spec, k, func(c sweep.Cell) {
			if werr == nil {
				if werr = sw.Add(c); werr != nil {
					cancel() // the client is gone
				}
			}
		})
		if err == nil && werr == nil {
			err = sw.Close()
		}
		if err == nil && werr == nil {
			return
		}
		if r.Context().Err() != nil {
			return // the client left, or the server shuts down (kit.Kit.Export)
		}
		if cw.N == 0 {
			w.Header().Del("Content-Disposition")
			http.Error(w, "the map stopped: "+kit.BusyMessage(errors.Join(err, werr)), http.StatusServiceUnavailable)
			return
		}
		panic(http.ErrAbortHandler) // a cut CSV must not look whole
	})
}

// exportSpec reads the map r's query names, for either export, or
// answers 400 with what is wrong with it.
func exportSpec(w http.ResponseWriter, r *http.Request, lim kit.Limits) (sweep.Spec, bool) {
	spec, errs := decodeMapQuery(r.URL.RawQuery, lim)
	if len(errs) > 0 {
		http.Error(w, kit.ErrorText(errs), http.StatusBadRequest)
		return spec, false
	}
	return spec, true
}

// postedCell is one cell the page posts: its index and each lane's
// summary, as GET /map/cells sent them (mapCell).
type postedCell struct {
	Index     int                `json:"index"`
	Summaries []scenario.Summary `json:"summaries"`
}

// maxMapCellBytes bounds one posted cell: four lanes' summaries, with
// the figures of their requests one by one, every field at its longest
// (TestPostedCellFits), are some 6 KiB of JSON.
const maxMapCellBytes = 8 << 10

// handleMapPageExport writes the cells the page posts for the map its
// query names: a JSON array of postedCell, every cell of the map once. The
// cells' keys (values, seeds) are the map's own; each lane's strategy is
// its cell's scenario's and its outcome its summary's (sweep.OutcomeOf),
// as sweep.Run makes them.
func handleMapPageExport(k *kit.Kit, format string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		spec, ok := exportSpec(w, r, k.Limits)
		if !ok {
			return
		}
		release, ok := k.TakeExport(w)
		if !ok {
			return
		}
		defer release()
		body := http.MaxBytesReader(w, r.Body, int64(spec.Cells())*maxMapCellBytes+1024)
		cells, err := readPostedCells(json.NewDecoder(body), spec)
		if err != nil {
			http.Error(w, "export: "+err.Error(), http.StatusBadRequest)
			return
		}
		kit.ExportHeaders(w, format, "backofflab-map")
		sw, err := sweep.NewWriter(w, format, spec, sweep.Shard{})
		if err == nil {
			for _, c := range cells {
				if err = sw.Add(c); err != nil {
					break
				}
			}
		}
		if err == nil {
			err = sw.Close()
		}
		_ = err // every cell is there (readPostedCells): an error here is the page gone
	})
}

// readPostedCells reads every cell of spec, in any order, each once.
func readPostedCells(dec *json.Decoder, spec sweep.Spec) ([]sweep.Cell, error) {
	p, err := spec.Cell(0).Params()
	if err != nil {
		return nil, err
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, errors.New("the body is not a JSON array of cells")
	}
	cells := make([]sweep.Cell, spec.Cells())
	seen := make([]bool, spec.Cells())
	for n := 0; dec.More(); n++ {
		var pc postedCell
		if err := dec.Decode(&pc); err != nil {
			return nil, fmt.Errorf("cell %d of the body does not parse: %w", n+1, err)
		}
		if pc.Index < 0 || pc.Index >= spec.Cells() {
			return nil, fmt.Errorf("cell index %d: the map has cells 0 to %d", pc.Index, spec.Cells()-1)
		}
		if seen[pc.Index] {
			return nil, fmt.Errorf("cell %d is in the body twice", pc.Index)
		}
		if len(pc.Summaries) != len(p.Lanes) {
			return nil, fmt.Errorf("cell %d has %d summaries, the map %d lanes", pc.Index, len(pc.Summaries), len(p.Lanes))
		}
		seen[pc.Index] = true
		c := sweep.Cell{CellKey: spec.Cell(pc.Index)}
		for i, s := range pc.Summaries {
			c.Lanes = append(c.Lanes, sweep.LaneResult{Lane: scenario.LaneNames[i : i+1], Strategy: p.Lanes[i].Strategy,
				Outcome: sweep.OutcomeOf(s), Summary: s})
		}
		cells[pc.Index] = c
	}
	if i := slices.Index(seen, false); i >= 0 {
		return nil, fmt.Errorf("cell %d is missing: the page posts a map's cells once it is done", i)
	}
	return cells, nil
}
