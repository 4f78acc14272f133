package contention

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/backofflab/backofflab/scenario"
)

// Formats are the writers' names: the contention command's -format and
// the page's exports.
var Formats = []string{"text", "csv", "json"}

// Write writes a study's points in format (one of Formats).
func Write(w io.Writer, format string, spec Spec, points []Point) error {
	switch format {
	case "text":
		return WriteText(w, spec, points)
	case "csv":
		return WriteCSV(w, points)
	case "json":
		return WriteJSON(w, spec, points)
	}
	return &scenario.ParamError{Name: "format", Value: format, Allow: "one of " + strings.Join(Formats, ", ")}
}

// WriteText writes one table per N: each strategy's calls and completion
// time, the mean over the runs with its standard deviation; then the
// study's conclusion, the sentence the page shows.
func WriteText(w io.Writer, spec Spec, points []Point) error {
	width := 0
	for _, p := range points {
		l, _ := LineOf(p.Strategy)
		width = max(width, len(l.Label()))
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "contention study: %d runs at each point, seed %d; calls are writes, time is when the last client is done (mean ± sd)\n",
		spec.Seeds, spec.Seed)
	n := -1
	for _, p := range points {
		if p.Clients != n {
			n = p.Clients
			fmt.Fprintf(bw, "\n%-*s %9s %7s %10s %8s\n", width+2, fmt.Sprintf("N = %d", n), "calls", "sd", "time (ms)", "sd")
		}
		l, _ := LineOf(p.Strategy)
		fmt.Fprintf(bw, "  %-*s %9.1f %7.1f %10.1f %8.1f\n", width, l.Label(), p.Calls.Mean, p.Calls.SD, 1000*p.Time.Mean, 1000*p.Time.SD)
	}
	if c := Conclusion(points); c != "" {
		fmt.Fprintf(bw, "\n%s\n", c)
	}
	return bw.Flush()
}

// csvHeader names WriteCSV's columns; times are in seconds.
var csvHeader = []string{"strategy", "clients", "runs",
	"calls_mean", "calls_sd", "calls_min", "calls_max",
	"time_mean", "time_sd", "time_min", "time_max",
	"max_attempts_mean", "max_attempts_max"}

// WriteCSV writes one row per point, under csvHeader.
func WriteCSV(w io.Writer, points []Point) error {
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, p := range points {
		cw.Write([]string{p.Strategy, strconv.Itoa(p.Clients), strconv.Itoa(p.Runs),
			f(p.Calls.Mean), f(p.Calls.SD), f(p.Calls.Min), f(p.Calls.Max),
			f(p.Time.Mean), f(p.Time.SD), f(p.Time.Min), f(p.Time.Max),
			f(p.MaxAttempts.Mean), f(p.MaxAttempts.Max)})
	}
	cw.Flush()
	return cw.Error()
}

// Document is WriteJSON's output: the study's parameters, in the URL's
// syntax, and its points.
type Document struct {
	Params map[string]string `json:"params"`
	Points []Point           `json:"points"`
}

// WriteJSON writes the study as a Document.
func WriteJSON(w io.Writer, spec Spec, points []Point) error {
	d := Document{Params: map[string]string{}, Points: points}
	for k, v := range spec.Values() {
		d.Params[k] = v[0]
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}
