package web

import (
	"encoding/json"
	"fmt"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// chartKind is one row of the chart grid: the same chart for every lane.
type chartKind struct {
	Kind  string // throughput, server, backoff, latency or delay: data-chart
	Title string // the chart's title, short enough for a quarter of the page
	Help  string // what the chart shows, for its aria-label and tooltip
}

// chartKinds are the rows of the chart grid, top to bottom.
var chartKinds = []chartKind{
	{"throughput", "throughput /s", "attempts that succeeded, failed with an error or timed out, and all attempts sent, per second"},
	{"server", "server", "requests inside the server (left axis) and the server's latency at that concurrency (right axis, seconds)"},
	{"backoff", "waiting to retry", "clients waiting to retry, and connections waiting in the accept backlog"},
	{"latency", "success latency", "median and 99th percentile end-to-end latency of the tick's successes, retries included (seconds)"},
	{"delay", "delay by retry #", "the strategy's delay before each retry: median and 5–95 % band over many draws (seconds)"},
}

// chartSeries is one line of a time chart: the Columns name it plots, its colour
// and the y axis it uses.
type chartSeries struct {
	name  string
	color string
	axis  int
}

// timeSeries are the lines of each time chart, each named by its Columns
// name so that the legend, the CSV header and the JSON keys agree. The page
// script fills them from the tick rows in this order; later lines are drawn
// on top, so ok comes last: it often equals attempts.
var timeSeries = map[string][]chartSeries{
	"throughput": {{"attempts", "#5470c6", 0}, {"timeouts", "#ee6666", 0}, {"errors", "#fc8452", 0}, {"ok", "#3ba272", 0}},
	"server":     {{"concurrency", "#5470c6", 0}, {"server_latency", "#9a60b4", 1}},
	"backoff":    {{"in_backoff", "#e3a21a", 0}, {"backlog", "#73c0de", 0}},
	"latency":    {{"p50", "#5470c6", 0}, {"p99", "#9a60b4", 0}},
}

// delaySeries are the delay chart's series: p5 is invisible and carries the
// band (p95 − p5) stacked on it, so the area spans p5 to p95.
var delaySeries = []string{"p5", "p5–p95", "p50"}

// outageColor shades the outage windows (markArea on each time chart's
// first series); the script fills in the windows.
const outageColor = "rgba(238,102,102,0.13)"

// chartOption returns the ECharts option of one kind of chart, without
// data, for a run of duration seconds. The page script adds the data as
// plain [x, y] arrays, the toolbox's SVG and log-scale buttons (which need
// functions) and the shared y-axis maximum of each row.
func chartOption(kind string, duration float64) (json.RawMessage, error) {
	var k chartKind
	for _, c := range chartKinds {
		if c.Kind == kind {
			k = c
		}
	}
	if k.Kind == "" {
		return nil, fmt.Errorf("web: no chart kind %q", kind)
	}
	line := charts.NewLine()
	line.SetGlobalOptions(
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: k.Title, Left: "4", Top: "2",
			TitleStyle: &opts.TextStyle{FontSize: 12, Color: "#333"}}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		// The legend sits at the bottom, below the x labels, so that it never
		// covers the title, the toolbox or the lines, however narrow the chart.
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0", Left: "center",
			ItemWidth: 14, ItemHeight: 8, TextStyle: &opts.TextStyle{FontSize: 11}}),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "4", Top: "0",
			Feature: &opts.ToolBoxFeature{SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{
				Show: opts.Bool(true), Type: "png", Name: "backofflab-" + kind, Title: "PNG"}}}),
		charts.WithGridOpts(opts.Grid{Left: "6", Right: "18", Top: "30", Bottom: "26", ContainLabel: opts.Bool(true)}),
	)
	if kind == "delay" {
		delayChart(line)
	} else {
		timeChart(line, kind, duration)
	}
	line.Validate() // without it the axes come out empty (LIBRARIES.md)
	return json.RawMessage(line.JSONNotEscaped()), nil
}

func timeChart(line *charts.Line, kind string, duration float64) {
	label := map[string]string{"throughput": "{value}/s", "latency": "{value}s"}[kind]
	line.SetGlobalOptions(
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Min: 0, Max: duration,
			AxisLabel: &opts.AxisLabel{Formatter: "{value}s", HideOverlap: opts.Bool(true)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0, AxisLabel: &opts.AxisLabel{Formatter: labelOr(label)}}),
	)
	if kind == "server" {
		line.ExtendYAxis(opts.YAxis{Type: "value", Position: "right",
			AxisLabel: &opts.AxisLabel{Formatter: "{value}s"}, SplitLine: &opts.SplitLine{Show: opts.Bool(false)}})
	}
	for i, s := range timeSeries[kind] {
		o := []charts.SeriesOpts{
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), YAxisIndex: s.axis}),
			charts.WithSeriesAnimation(false),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: s.color}),
			charts.WithSeriesOpts(func(ss *charts.SingleSeries) { ss.Id = s.name }),
		}
		if i == 0 {
			o = append(o, charts.WithMarkAreaStyleOpts(opts.MarkAreaStyle{
				ItemStyle: &opts.ItemStyle{Color: outageColor},
				Label:     &opts.Label{Show: opts.Bool(true), Position: "insideTop", Color: "#b03a3a", FontSize: 10},
			}))
		}
		line.AddSeries(s.name, []opts.LineData{}, o...)
	}
}

func labelOr(s string) types.FuncStr {
	if s == "" {
		return "{value}"
	}
	return types.FuncStr(s)
}

func delayChart(line *charts.Line) {
	line.SetGlobalOptions(
		// p5 only carries the band: keep it out of the legend.
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Bottom: "0", Left: "center",
			ItemWidth: 14, ItemHeight: 8, TextStyle: &opts.TextStyle{FontSize: 11}, Data: delaySeries[1:]}),
		// A category axis of retry numbers: ECharts stacks the band on the
		// y values only when the x axis is a category axis (with two value
		// axes it stacks x, by index).
		charts.WithXAxisOpts(opts.XAxis{Type: "category", BoundaryGap: opts.Bool(false),
			AxisLabel: &opts.AxisLabel{Formatter: "#{value}"}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", AxisLabel: &opts.AxisLabel{Formatter: "{value}s"}}),
	)
	const color = "#5470c6"
	common := []charts.SeriesOpts{charts.WithSeriesAnimation(false)}
	line.AddSeries(delaySeries[0], []opts.LineData{}, append(common,
		charts.WithSeriesOpts(func(ss *charts.SingleSeries) { ss.Id = "p5" }),
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Stack: "band"}),
		charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0)}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: color}))...)
	line.AddSeries(delaySeries[1], []opts.LineData{}, append(common,
		charts.WithSeriesOpts(func(ss *charts.SingleSeries) { ss.Id = "band" }),
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Stack: "band"}),
		charts.WithLineStyleOpts(opts.LineStyle{Opacity: opts.Float(0)}),
		charts.WithAreaStyleOpts(opts.AreaStyle{Color: color, Opacity: opts.Float(0.2)}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: color}))...)
	line.AddSeries(delaySeries[2], []opts.LineData{}, append(common,
		charts.WithSeriesOpts(func(ss *charts.SingleSeries) { ss.Id = "p50" }),
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 4}),
		charts.WithLineStyleOpts(opts.LineStyle{Width: 2}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: color}))...)
}
