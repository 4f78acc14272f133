// Package bandsview is the seed bands' view (/bands): one scenario of
// the playground's run with many seeds, per lane each chart's median and
// 5–95 % band across them and how many collapsed, computed by package
// bands as "backofflab bands" computes them. Its page is a templ page
// (bands.templ) whose script (bands.js, embedded here and served as
// /static/bands.js) streams the band from /bands/run.
package bandsview

import (
	"context"
	"embed"
	"errors"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/backofflab/backofflab/bands"
	"github.com/backofflab/backofflab/internal/parallel"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// The seed bands view: GET /bands?<the playground's query>&seeds=K shows
// the page (bands.templ), whose script (bands.js) reads GET
// /bands/run with the same query, a stream of NDJSON lines:
//
//	{"type":"progress","done":n,"total":K}   after each seed's run
//	{"type":"error","message":"…"}           the band could not be finished: the last line
//	{"type":"result","csv_bytes":M,…}        the band is done, with its captions; after this line comes the band
//	                                         as "backofflab bands -format json" writes it, one
//	                                         line, then as "-format csv" writes it, M bytes, to
//	                                         the end (bands.Result's writers, streamed, so that
//	                                         the server keeps no copy of either)
//
// A bad query is answered 400 with one line per bad value, each naming its
// parameter; a busy server 503. The work stops when the page leaves (the
// request's context) or the server shuts down.

// Mount adds the seed bands' routes: the page, its run's stream and its
// script.
func Mount(mux *http.ServeMux, k *kit.Kit) {
	mux.Handle("GET /bands", handleBandsPage(k.Log, k.Limits))
	mux.Handle("GET /bands/run", k.Stream(handleBandsRun(k)))
	mux.Handle("GET /static/bands.js", kit.Assets(bandsAssets))
}

// bandsAssets holds the page's script.
//
//go:embed bands.js
var bandsAssets embed.FS

// decodeBands reads a bands URL: the scenario as an export reads it (no
// real lane: each seed is simulated headless), and seeds, 1 to
// bands.MaxSeeds, bands.DefaultSeeds when absent, whose lane-ticks kept,
// (seeds + 3) × lanes × ticks (bands.Cells), must fit lim.MaxBandCells.
func decodeBands(q url.Values, lim kit.Limits) (scene.Scenario, int, []*scenario.ParamError) {
	q = kit.CloneValues(q)
	seeds := bands.DefaultSeeds
	var errs []*scenario.ParamError
	if v, ok := q[bands.SeedsParam]; ok {
		n, err := bands.ParseSeeds(v[len(v)-1])
		var pe *scenario.ParamError
		switch {
		case err == nil:
			seeds = n
		case errors.As(err, &pe):
			errs = append(errs, pe)
		default: // not the row's error: named under the row all the same
			errs = append(errs, &scenario.ParamError{Name: bands.SeedsParam, Value: v[len(v)-1], Allow: err.Error()})
		}
		delete(q, bands.SeedsParam)
	}
	st, serrs := scene.DecodeScenario(q, lim)
	errs = append(errs, serrs...)
	if len(errs) == 0 {
		var tl *bands.TooLargeError
		if err := bands.Check(st.Params, seeds, lim.MaxBandCells); errors.As(err, &tl) {
			errs = append(errs, tl.ParamError())
		}
	}
	return st, seeds, errs
}

// bandsPageInput is what the bands page shows.
type bandsPageInput struct {
	Query      string // the view's canonical query, for its share link
	Playground string // the playground's URL of the same scenario
	Seeds      int
	MaxSeeds   int
	SeedsHelp  string
	Hidden     [][2]string // the scenario's query, as the seeds form's hidden fields
	Errors     []string
	Lanes      []bandsLane
	Specs      []scene.ChartSpec // the chart rows: the playground's time charts
	Data       bandsData
}

// bandsLane is one lane's column of the page.
type bandsLane struct {
	Letter   string
	Strategy string // in words, with its name
	Hides    map[string]bool
}

// bandsData is what the page script starts from (the JSON block
// "bands-data").
type bandsData struct {
	Run      string            `json:"run"` // the stream's URL, "" when the query is bad
	Query    string            `json:"query"`
	Seeds    int               `json:"seeds"`
	Seed     uint64            `json:"seed"`
	Duration float64           `json:"duration"`
	Lanes    []string          `json:"lanes"`
	Columns  []string          `json:"columns"`
	Charts   []scene.ChartSpec `json:"charts"`
	Quantile []string          `json:"quantiles"`
	Method   string            `json:"method"`
}

// bandsSpecs are the chart rows of the bands page: the playground's time
// charts, drawn as a median line and a 5–95 % band per series.
var bandsSpecs = func() []scene.ChartSpec {
	var out []scene.ChartSpec
	for _, k := range scene.ChartSpecs {
		if k.X == scene.XTime {
			out = append(out, k)
		}
	}
	return out
}()

// newBandsPage builds the page's input from a decoded query.
func newBandsPage(st scene.Scenario, seeds int, errs []*scenario.ParamError) bandsPageInput {
	p := st.Params
	if len(p.Lanes) == 0 {
		p = scenario.Defaults()
		st = scene.Scenario{Params: p, Speed: scene.SpeedOf(scene.DefaultSpeed)}
	}
	query := kit.BandsQuery(st.Query(), seeds)
	in := bandsPageInput{Query: query, Playground: "/?" + st.Query(), Seeds: seeds, MaxSeeds: bands.MaxSeeds,
		SeedsHelp: bands.SeedsHelp, Specs: bandsSpecs,
		Data: bandsData{Query: query, Seeds: seeds, Seed: p.Seed, Duration: p.Duration.Seconds(),
			Columns: scenario.Columns, Charts: bandsSpecs, Quantile: bands.QuantileNames[:], Method: bands.QuantileMethod}}
	sq := st.Values()
	for _, k := range slices.Sorted(maps.Keys(sq)) {
		in.Hidden = append(in.Hidden, [2]string{k, sq.Get(k)})
	}
	for _, e := range errs {
		in.Errors = append(in.Errors, e.Error())
	}
	if len(errs) == 0 {
		in.Data.Run = "/bands/run?" + query
	}
	for i, l := range p.Lanes {
		L := scenario.LaneNames[i : i+1]
		bl := bandsLane{Letter: L, Strategy: strategies.Label(l.Strategy) + " (" + l.Strategy + ")", Hides: map[string]bool{}}
		for _, k := range bandsSpecs {
			if k.OnlyWith != "" {
				row, _, _ := scenario.Lookup(k.OnlyWith)
				bl.Hides[k.ID] = row.Value(&p, i) == ""
			}
		}
		in.Lanes = append(in.Lanes, bl)
		in.Data.Lanes = append(in.Data.Lanes, L)
	}
	return in
}

// handleBandsPage renders the bands page. A bad query shows its messages
// and runs nothing, as the playground does: the page itself is fine.
func handleBandsPage(log *slog.Logger, lim kit.Limits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, qerrs := kit.ParseQuery(r.URL.RawQuery)
		st, seeds, errs := decodeBands(q, lim)
		in := newBandsPage(st, seeds, kit.WithQueryErrors(qerrs, errs))
		kit.WritePage(w, r, log, "bands", bandsPage(in))
	})
}

// seedsMsg is one line of the stream: a progress line carries Done
// and Total, a result the CSV's length, an error Message.
type seedsMsg struct {
	Type     string `json:"type"`
	Done     *int   `json:"done,omitempty"`
	Total    int    `json:"total,omitempty"`
	CSVBytes int64  `json:"csv_bytes,omitempty"`
	// Left is the time left, in seconds, at the band's pace so far;
	// absent before the first seed ends, and at the end.
	Left    float64 `json:"left,omitempty"`
	Message string  `json:"message,omitempty"`
	// The result's words, for the page to show as they are: each chart's
	// caption by "chart.lane" (Captions, and Averaged for the charts that
	// smooth, with their 1 s averages), each lane's collapsed seeds and
	// what its users saw of its requests across the seeds
	// (bands.Result.Caption, Collapsed, Requests).
	Captions  map[string]string `json:"captions,omitempty"`
	Averaged  map[string]string `json:"averaged,omitempty"`
	Collapsed []string          `json:"collapsed,omitempty"`
	Requests  []string          `json:"requests,omitempty"`
}

func progressMsg(done, total int, left float64) seedsMsg {
	return seedsMsg{Type: "progress", Done: &done, Total: total, Left: left}
}

// measureSeed is the core time of one seed of p, measured by its first
// seed's run for up to kit.PilotCPU (simengine.MeasureCost), under ctx's
// share of the many-run views' cores.
func measureSeed(ctx context.Context, p scenario.Params, k *kit.Kit) (cost time.Duration, whole bool, err error) {
	var c simengine.Cost
	err = parallel.Do(ctx, 1, 1, func(ctx context.Context, _ int) error {
		mem, err := k.NewAccount()
		if err != nil {
			return err
		}
		defer mem.Close()
		c, err = simengine.MeasureCost(ctx, p, mem, kit.PilotCPU)
		return err
	})
	return c.Time, c.Whole, err
}

// startBands takes what a band needs before its first seed
// (kit.BeginCosted): a slot of the many-run views, an estimate of its
// cost within the budget of one (its first seed's, measureSeed, times
// its seeds) and the memory it keeps, its seeds' values and its
// quantiles until the last byte of it is written (bands.Bytes). It
// returns the context the band runs under and the end of its slot, or
// the HTTP status and errors of a band that cannot start.
func startBands(r *http.Request, p scenario.Params, seeds int, k *kit.Kit) (context.Context, func(), int, []kit.FieldError) {
	return k.BeginCosted(r, kit.Cost{
		Estimate: func(ctx context.Context) (time.Duration, bool, error) {
			one, whole, err := measureSeed(ctx, p, k)
			return one * time.Duration(seeds), whole, err
		},
		What: "this band", Smaller: "make it smaller: fewer seeds, fewer clients or lanes, a shorter run", Param: bands.SeedsParam,
		Keeps: bands.Bytes(p, seeds),
	})
}

// handleBandsRun runs the query's seeds in the view's slot (startBands),
// each seed's simulation on one of its cores with a run's memory budget,
// and streams the progress and the result (kit.Stream). It ends when the
// page leaves or the server shuts down, stopping every seed's run within
// a slice of events.
func handleBandsRun(k *kit.Kit) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, errs := kit.ParseQuery(r.URL.RawQuery)
		var st scene.Scenario
		seeds := 0
		if len(errs) == 0 {
			st, seeds, errs = decodeBands(q, k.Limits)
		}
		if len(errs) > 0 {
			http.Error(w, kit.ErrorText(errs), http.StatusBadRequest)
			return
		}
		share, end, code, ferrs := startBands(r, st.Params, seeds, k)
		if ferrs != nil {
			kit.WriteErrorText(w, code, ferrs)
			return
		}
		defer end()
		stream, ctx := k.OpenStream(w, r, share)
		defer stream.Close()
		if !stream.Send(progressMsg(0, seeds, 0)) {
			return
		}
		res, err := runBands(ctx, stream, st.Params, seeds, k)
		var result seedsMsg
		if err == nil {
			result = resultMsg(res)
		}
		if !stream.End(err, result) || err != nil {
			return
		}
		// A page that leaves, or a server that shuts down, cuts the writing.
		out := stream.Body()
		if res.WriteJSON(out) == nil {
			res.WriteCSV(out)
		}
	})
}

// runBands runs p's seeds on the cores of ctx's share of the many-run
// views, each seed's run with a run's memory from k's pool, and sends a
// progress line as seeds end (kit.Forward).
func runBands(ctx context.Context, stream *kit.Stream, p scenario.Params, seeds int, k *kit.Kit) (res *bands.Result, err error) {
	began := time.Now()
	kit.Forward(func(report func(int)) {
		res, err = bands.Run(ctx, p, seeds, bands.Options{Parallel: k.Limits.ViewCores,
			Memory: k.NewAccount, MaxCells: k.Limits.MaxBandCells, Progress: report})
	}, func(n int) {
		stream.Send(progressMsg(n, seeds, kit.TimeLeft(began, float64(n), float64(seeds))))
	}, nil)
	return res, err
}

// resultMsg is the stream's line of a finished band: its CSV's length
// and its words.
func resultMsg(res *bands.Result) seedsMsg {
	var size byteCount
	res.WriteCSV(&size)
	m := seedsMsg{Type: "result", CSVBytes: int64(size), Captions: map[string]string{}, Averaged: map[string]string{}}
	for i, l := range res.Lanes {
		m.Collapsed = append(m.Collapsed, res.Collapsed(i))
		m.Requests = append(m.Requests, res.Requests(i))
		for _, k := range bandsSpecs {
			m.Captions[k.ID+"."+l.Name] = res.Caption(i, k.Title, false)
			if k.Smooth {
				m.Averaged[k.ID+"."+l.Name] = res.Caption(i, k.Title, true)
			}
		}
	}
	return m
}

// byteCount counts what is written to it.
type byteCount int64

func (n *byteCount) Write(b []byte) (int, error) {
	*n += byteCount(len(b))
	return len(b), nil
}
