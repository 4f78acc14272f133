package scene

import (
	"encoding/json"
	"fmt"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"

	"github.com/backofflab/backofflab/scenario"
)

// ChartSpec is one row of the chart grid: the same chart for every lane.
// It is the chart's whole spec: the page script reads it (pageData.Charts)
// and draws whatever it says, so that adding a chart is one row of
// ChartSpecs.
type ChartSpec struct {
	ID    string `json:"id"`    // throughput, server, backoff, latency, delay, requests or tiers: data-chart
	Title string `json:"title"` // the chart's title, short enough for a quarter of the page
	Help  string `json:"help"`  // what the chart shows, for its aria-label and tooltip
	// X is what the x axis counts: XTime, the run's seconds, whose series
	// the tick rows fill; xRetry, the retry number, whose series the
	// lane's delays message fills; or xLatency, a request's latency in
	// coarse bins, whose bars the requests message fills.
	X string `json:"x"`
	// Series are the chart's lines, in drawing order.
	Series []chartSeries `json:"series"`
	// Units are the y axes' units, left axis first: unitRate, unitSeconds
	// or "" for a count. There is one axis per unit.
	Units []string `json:"units"`
	// Log: the chart's toolbox offers a log scale for every y axis, where
	// the values span decades (a storm's concurrency against a recovering
	// lane's, a latency from 100 ms to its cap).
	Log bool `json:"log"`
	// Smooth: the series are rates or percentiles per tick, which the page
	// may show averaged over a second (the toolbox's smoothing, on by
	// default): a one-tick spike at the resume, or a p99 of a few
	// successes, would otherwise set the axis and hide the rest.
	Smooth bool `json:"smooth"`
	// Gaps: a missing value means "none in this tick" and must show as a
	// gap, so the series are never resampled.
	Gaps bool `json:"gaps"`
	// OnlyWith names a lane parameter (without its letter) that the chart
	// needs: it shows only for a lane whose value of it is not empty, as
	// the tiers' chart shows for a lane with tiers; "" for every lane.
	// Such a chart is the grid's last row, so that hiding it moves no
	// other chart.
	OnlyWith string `json:"only_with,omitempty"`
	// Empty is what the chart says while it has no value to draw.
	Empty string `json:"empty"`
}

// The x axes of ChartSpec.X.
const (
	XTime    = "time"
	xRetry   = "retry"
	xLatency = "latency"
)

// The units of ChartSpec.Units.
const (
	unitRate    = "/s"
	unitSeconds = "s"
)

// MarshalJSON writes k for the page script, each series with its label in
// plain words: a time chart's from its column (scenario.ColumnLabel), the
// delay chart's from delayLabels.
func (k ChartSpec) MarshalJSON() ([]byte, error) {
	type plain ChartSpec // without this method
	type labelled struct {
		chartSeries
		Label string `json:"label"`
	}
	out := struct {
		plain
		Series     []labelled `json:"series"`
		ShareRatio float64    `json:"share_ratio"`
	}{plain: plain(k), ShareRatio: ShareRatio}
	for _, s := range k.Series {
		l := scenario.ColumnLabel(s.Name)
		switch k.X {
		case xRetry:
			l = delayLabels[s.Name]
		case xLatency:
			l = requestLabels[s.Name]
		}
		out.Series = append(out.Series, labelled{s, l})
	}
	return json.Marshal(out)
}

// delayLabels are the delay chart's series in words, by id.
var delayLabels = map[string]string{"p5": "5th percentile", "band": "5–95 % of delays", "p50": "median delay"}

// requestLabels are the requests chart's bars in words, by id.
var requestLabels = map[string]string{"ended": "every request that ended", "ok": "succeeded"}

// chartSeries is one line of a chart: the Columns name it plots (on a
// time chart; on a retry chart, its id in the bands), its colour, the y
// axis it uses and its role.
type chartSeries struct {
	Name  string `json:"name"`
	Color string `json:"color"`
	Axis  int    `json:"axis"`
	// Role says how the line is drawn beside the others: roleSuccess, the
	// work that reached its goal, is the thick line drawn on top and named
	// first in the legend; roleWaste, work done for nothing (timeouts,
	// errors), is a shaded area; roleTotal, all the work sent, a thin
	// dashed line; "" a plain line.
	Role string `json:"role,omitempty"`
}

// The roles of chartSeries.Role.
const (
	roleSuccess = "success"
	roleWaste   = "waste"
	roleTotal   = "total"
)

// ShareRatio is the largest ratio of two lanes' peaks at which the lanes
// share a linear y axis for the same quantity by default: the lower
// lane's peak then reaches at least a fifth of the plot, so its shape
// still reads, and equal heights mean equal values. Lanes further apart
// each get their own axis, and each chart says so (a log axis is always
// shared: it spans the decades).
const ShareRatio = 5

// ChartSpecs are the rows of the chart grid, top to bottom. Each time
// chart's lines are named by their Columns name so that the legend, the
// CSV header and the JSON keys agree; later lines are drawn on top, so ok
// comes last: it often equals attempts.
var ChartSpecs = []ChartSpec{
	{ID: "throughput", Title: "throughput /s", X: XTime, Units: []string{unitRate}, Log: true, Smooth: true,
		Help:  "attempts that succeeded, failed with an error or timed out, and all attempts sent, per second",
		Empty: "no attempt yet",
		Series: []chartSeries{{"attempts", "#5470c6", 0, roleTotal}, {"timeouts", "#ee6666", 0, roleWaste},
			{"errors", "#fc8452", 0, roleWaste}, {"ok", "#3ba272", 0, roleSuccess}}},
	{ID: "server", Title: "server", X: XTime, Units: []string{"", unitSeconds}, Log: true,
		Help:   "requests inside the server, abandoned ones included (left axis), and the server's latency at that concurrency (right axis)",
		Empty:  "no tick yet",
		Series: []chartSeries{{"concurrency", "#5470c6", 0, ""}, {"server_latency", "#9a60b4", 1, ""}}},
	{ID: "backoff", Title: "waiting to retry", X: XTime, Units: []string{""}, Log: true,
		Help:   "clients waiting to retry, and connections waiting in the accept backlog",
		Empty:  "no tick yet",
		Series: []chartSeries{{"in_backoff", "#e3a21a", 0, ""}, {"backlog", "#73c0de", 0, ""}}},
	{ID: "latency", Title: "success latency", X: XTime, Units: []string{unitSeconds}, Log: true, Smooth: true, Gaps: true,
		Help:   "median and 99th percentile end-to-end latency of the tick's successes, retries included",
		Empty:  "no request has succeeded yet",
		Series: []chartSeries{{"p50", "#5470c6", 0, ""}, {"p99", "#9a60b4", 0, ""}}},
	// p5 is invisible and carries the band (p95 − p5) stacked on it, so
	// that the area spans p5 to p95.
	{ID: "delay", Title: "delay by retry #", X: xRetry, Units: []string{unitSeconds}, Log: true,
		Help:   "the strategy's delay before each retry: median and 5–95 % band over many draws",
		Empty:  "no retries: gives up at once",
		Series: []chartSeries{{"p5", delayColor, 0, ""}, {"band", delayColor, 0, ""}, {"p50", delayColor, 0, ""}}},
	// Every request that ended, by its latency from the first attempt to
	// the final answer, waits included, with its successes drawn over it:
	// what shows of a bar above them failed. The script marks the p50,
	// p99 and p99.9 and the patience.
	{ID: "requests", Title: "requests by latency", X: xLatency, Units: []string{""}, Log: true,
		Help:   "every request that ended, by its latency from the first attempt to the final answer, waits included (bins 1-2-5 a decade); its successes in front, the rest failed; p50, p99 and p99.9 and the patience marked",
		Empty:  "no request has ended yet",
		Series: []chartSeries{{"ended", "#ee6666", 0, ""}, {"ok", "#3ba272", 0, roleSuccess}}},
	// Layered retries: each tier's attempts are the offered load of the
	// tier below it, and they multiply down the chain.
	{ID: "tiers", Title: "offered load by tier /s", X: XTime, Units: []string{unitRate}, Log: true, Smooth: true, OnlyWith: "tiers",
		Empty: "no attempt yet",
		Help:  "attempts per second each tier sends: the clients (tier 1), then each inner tier; the bottom tier's reach the server",
		Series: []chartSeries{{"attempts", "#5470c6", 0, ""}, {"t2_attempts", "#9a60b4", 0, ""}, {"t3_attempts", "#fc8452", 0, ""},
			{"t4_attempts", "#ee6666", 0, ""}}},
}

// delayColor is the delay chart's one colour: its band and median.
const delayColor = "#5470c6"

// DelaySeries are the delay chart's legend names, its series' ids being
// ChartSpecs' p5, band and p50: the band's name says what it spans.
var DelaySeries = []string{"p5", "p5–p95", "p50"}

// OutageColor shades the outage windows (markArea on each time chart's
// first series); the script fills in the windows.
const OutageColor = "rgba(238,102,102,0.13)"

// EffectColor shades the windows of the faults that change how the server
// works (a load or latency spike, a capacity drop, an error burst) without
// taking it down.
const EffectColor = "rgba(250,200,88,0.18)"

// ChartOption returns the ECharts option of the chart id, without
// data, for a run of duration seconds. The page script adds the data, the
// toolbox's buttons (exports with a caption, log scale, shared axes,
// smoothing and help: they need functions), the axes' formatters and
// maxima, the tooltips, the annotations and the colours of the page's
// theme.
func ChartOption(id string, duration float64) (json.RawMessage, error) {
	var k ChartSpec
	for _, c := range ChartSpecs {
		if c.ID == id {
			k = c
		}
	}
	if k.ID == "" || len(k.Units) == 0 {
		return nil, fmt.Errorf("web: no chart %q", id)
	}
	common := []charts.GlobalOpts{
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: k.Title, Left: "4", Top: "2",
			TitleStyle: &opts.TextStyle{FontSize: 12, Color: "#333"}}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		// The legend sits at the bottom, below the x labels, so that it never
		// covers the title, the toolbox or the lines, however narrow the
		// chart. It wraps onto more lines rather than paging: a reader must
		// not have to page to find which line is success. The page script
		// makes room for its lines.
		charts.WithLegendOpts(legend(k)),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "4", Top: "0", Feature: &opts.ToolBoxFeature{}}),
		charts.WithGridOpts(opts.Grid{Left: "6", Right: "18", Top: "30", Bottom: "26", ContainLabel: opts.Bool(true)}),
	}
	if k.X == xLatency {
		bar := charts.NewBar()
		bar.SetGlobalOptions(common...)
		requestsChart(bar, k)
		bar.Validate()
		return json.RawMessage(bar.JSONNotEscaped()), nil
	}
	line := charts.NewLine()
	line.SetGlobalOptions(common...)
	if k.X == xRetry {
		delayChart(line, k)
	} else {
		timeChart(line, k, duration)
	}
	line.Validate() // without it the axes come out empty (LIBRARIES.md)
	return json.RawMessage(line.JSONNotEscaped()), nil
}

func timeChart(line *charts.Line, k ChartSpec, duration float64) {
	line.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Min: 0, Max: duration,
			AxisLabel: &opts.AxisLabel{Formatter: "{value}s", HideOverlap: opts.Bool(true)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0, AxisLabel: &opts.AxisLabel{Formatter: unitLabel(k.Units[0])}}),
	)
	// The other axes go on the right, without grid lines of their own.
	for _, u := range k.Units[1:] {
		line.ExtendYAxis(opts.YAxis{Type: "value", Position: "right",
			AxisLabel: &opts.AxisLabel{Formatter: unitLabel(u)}, SplitLine: &opts.SplitLine{Show: opts.Bool(false)}})
	}
	for i, s := range k.Series {
		o := []charts.SeriesOpts{
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), YAxisIndex: s.Axis}),
			charts.WithSeriesAnimation(false),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: s.Color}),
			charts.WithSeriesOpts(func(ss *charts.SingleSeries) { ss.Id = s.Name }),
		}
		o = append(o, seriesLook(s)...)
		if i == 0 {
			o = append(o, charts.WithMarkAreaStyleOpts(opts.MarkAreaStyle{
				ItemStyle: &opts.ItemStyle{Color: OutageColor},
				Label:     &opts.Label{Show: opts.Bool(true), Position: "insideTop", FontSize: 10}, // its colour is the theme's (--chart-fault-label)
			}))
		}
		line.AddSeries(s.Name, []opts.LineData{}, o...)
	}
}

// legend is chart k's legend: its success first, then the rest in
// drawing order; on the delay chart, without p5, which only carries the
// band.
func legend(k ChartSpec) opts.Legend {
	var names []string
	if k.X == xRetry {
		names = DelaySeries[1:]
	} else {
		for _, s := range k.Series {
			if s.Role == roleSuccess {
				names = append(names, s.Name)
			}
		}
		for _, s := range k.Series {
			if s.Role != roleSuccess {
				names = append(names, s.Name)
			}
		}
	}
	return opts.Legend{Show: opts.Bool(true), Bottom: "0", Left: "center", Data: names,
		ItemWidth: 14, ItemHeight: 8, TextStyle: &opts.TextStyle{FontSize: 11}}
}

// seriesLook is how a time chart's line of role draws: success thick,
// waste as a shaded area under a thin line, the total thin and dashed, so
// that a storm's attempts and timeouts, however high, read as waste and
// the success line is the one the eye finds first.
func seriesLook(s chartSeries) []charts.SeriesOpts {
	switch s.Role {
	case roleSuccess:
		return []charts.SeriesOpts{charts.WithLineStyleOpts(opts.LineStyle{Width: 3})}
	case roleWaste:
		return []charts.SeriesOpts{charts.WithLineStyleOpts(opts.LineStyle{Width: 1}),
			charts.WithAreaStyleOpts(opts.AreaStyle{Opacity: opts.Float(0.22)})}
	case roleTotal:
		return []charts.SeriesOpts{charts.WithLineStyleOpts(opts.LineStyle{Width: 1.2, Type: "dashed"})}
	}
	return []charts.SeriesOpts{charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5})}
}

// unitLabel is an axis label's formatter for unit.
func unitLabel(unit string) types.FuncStr { return types.FuncStr("{value}" + unit) }

// requestsChart is the requests chart: bars of every request that ended
// with those that succeeded in front of them (barGap -100 %: the same
// place), so that what shows of the whole above the successes failed. Its
// x axis is a value axis over the bins' positions, bin k from k to k+1,
// which the script labels with the bins' edges: a value axis, unlike a
// category axis, takes the marks of the percentiles and the patience
// between two edges.
func requestsChart(bar *charts.Bar, k ChartSpec) {
	bar.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Min: 0, AxisLabel: &opts.AxisLabel{HideOverlap: opts.Bool(true)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0, AxisLabel: &opts.AxisLabel{Formatter: unitLabel(k.Units[0])}}),
	)
	for _, s := range k.Series {
		bar.AddSeries(s.Name, []opts.BarData{},
			charts.WithSeriesAnimation(false),
			charts.WithBarChartOpts(opts.BarChart{BarGap: "-100%", BarCategoryGap: "15%"}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: s.Color}),
			charts.WithSeriesOpts(func(ss *charts.SingleSeries) { ss.Id = s.Name }))
	}
}

func delayChart(line *charts.Line, k ChartSpec) {
	line.SetGlobalOptions(
		// A category axis of retry numbers: ECharts stacks the band on the
		// y values only when the x axis is a category axis (with two value
		// axes it stacks x, by index).
		charts.WithXAxisOpts(opts.XAxis{Type: "category", BoundaryGap: opts.Bool(false),
			AxisLabel: &opts.AxisLabel{Formatter: "#{value}"}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", AxisLabel: &opts.AxisLabel{Formatter: unitLabel(k.Units[0])}}),
	)
	color := delayColor
	common := []charts.SeriesOpts{charts.WithSeriesAnimation(false)}
	line.AddSeries(DelaySeries[0], []opts.LineData{}, append(common,
		charts.WithSeriesOpts(func(ss *charts.SingleSeries) { ss.Id = k.Series[0].Name }),
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Stack: "band"}),
		charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0)}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: color}))...)
	line.AddSeries(DelaySeries[1], []opts.LineData{}, append(common,
		charts.WithSeriesOpts(func(ss *charts.SingleSeries) { ss.Id = k.Series[1].Name }),
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Stack: "band"}),
		charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0)}),
		charts.WithAreaStyleOpts(opts.AreaStyle{Color: color, Opacity: opts.Float(0.2)}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: color}))...)
	line.AddSeries(DelaySeries[2], []opts.LineData{}, append(common,
		charts.WithSeriesOpts(func(ss *charts.SingleSeries) { ss.Id = k.Series[2].Name }),
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 4}),
		charts.WithLineStyleOpts(opts.LineStyle{Width: 2}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: color}))...)
}
