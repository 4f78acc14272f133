package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/backofflab/backofflab/internal/present"
	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// delaysColumns are the columns of "backofflab delays -format csv", in
// seconds but retry.
var delaysColumns = []string{"retry", "p5", "p50", "p95", "max"}

// runDelays is "backofflab delays": a lane's wait before each retry, as the
// playground's delay chart draws it (strategies.RetryDelays at the chart's
// size, strategies.DelayRetries retries over strategies.DelayDraws
// requests), and where the lane gives up. The lane is given by run's flags
// (-lane picks which), or by a library's configuration (-lib NAME FILE),
// read as "backofflab config import" reads it.
func runDelays(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs, q := scenarioFlagSet("delays", stderr)
	letter := fs.String("lane", "a", "the lane whose delays to show")
	lib := fs.String("lib", "", "read the lane from FILE, a configuration of this library: "+strings.Join(libconfig.Names(), ", "))
	pick := fs.String("pick", "", "with -lib, where FILE holds several retry policies, the one to read (as config import's -pick)")
	format := fs.String("format", "text", "output: text (each retry's wait and where the lane gives up) or csv (retry,p5,p50,p95,max in seconds)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: backofflab delays [-lane a] [-format text|csv] [run's flags]\n"+
			"       backofflab delays -lib NAME [-pick NAME] [-lane a] [-format text|csv] [run's flags] FILE\n\n"+
			"The wait before each of a lane's first %d retries, over %d requests that keep\n"+
			"failing, each alone (its every attempt times out at once, its limiters' state its\n"+
			"own): per retry its 5th, 50th and 95th percentiles and its longest, as the\n"+
			"playground's delay chart draws them; retry 1 is the wait before the second\n"+
			"attempt. Then where the lane gives up: max_attempts, deadline, a limiter or the\n"+
			"strategy itself. The lane is the one run's flags describe (-a.strategy, …), or\n"+
			"with -lib the one a library's configuration makes, as \"backofflab config import\"\n"+
			"reads it; -seed and -think apply to both.\n\n",
			strategies.DelayRetries, strategies.DelayDraws)
		fs.PrintDefaults()
	}
	if err := parseFlagsArgs(fs, args); err != nil {
		return err
	}
	i, err := laneIndex(*letter)
	if err != nil {
		return err
	}
	if *format != "text" && *format != "csv" {
		return usageError{&scenario.ParamError{Name: "format", Value: *format, Allow: "one of text, csv"}}
	}
	if *lib == "" {
		if fs.NArg() > 0 {
			return usageError{fmt.Errorf("delays: unexpected argument %q (a FILE goes with -lib NAME)", fs.Arg(0))}
		}
	} else if err := importSettings(q, *lib, *letter, *pick, fs.Args(), stderr); err != nil {
		return err
	}
	p, err := parseLane("delays", q, *letter, i, " (-lanes)")
	if err != nil {
		return err
	}
	l := p.Lanes[i].Params
	d, err := strategies.RetryDelays(l, p.Think, strategies.DelayRetries, strategies.DelayDraws, p.Seed)
	if err != nil {
		return usageError{err}
	}
	if *format == "csv" {
		return writeDelaysCSV(stdout, d)
	}
	return writeDelaysText(stdout, p, i, d)
}

// importSettings sets lane letter of q from the configuration of library
// name in the one FILE of args, as config import reads it; a flag of that
// lane is an error, since the file sets the lane.
func importSettings(q url.Values, name, letter, pick string, args []string, stderr io.Writer) error {
	lib, ok := libconfig.Lookup(name)
	if !ok {
		return usageError{fmt.Errorf("delays: -lib %q: one of %s", name, strings.Join(libconfig.Names(), ", "))}
	}
	if len(args) != 1 {
		return usageError{fmt.Errorf("delays: -lib %s: one FILE, the configuration (- for standard input), got %d arguments", name, len(args))}
	}
	for k := range q {
		if strings.HasPrefix(k, letter+".") {
			return usageError{fmt.Errorf("delays: -lib %s sets lane %s from %s: drop -%s", name, letter, args[0], k)}
		}
	}
	l, err := importLane("delays", lib, args[0], pick, stderr)
	if err != nil {
		return err
	}
	maps.Copy(q, libconfig.Query(l, letter))
	return nil
}

// seconds writes a duration in seconds, exactly: its nanoseconds as a
// decimal fraction, with no trailing zeros.
func seconds(d time.Duration) string {
	whole, frac := int64(d/time.Second), int64(d%time.Second)
	if frac == 0 {
		return strconv.FormatInt(whole, 10)
	}
	return strconv.FormatInt(whole, 10) + "." + strings.TrimRight(fmt.Sprintf("%09d", frac), "0")
}

// writeDelaysCSV writes one row per retry: retry,p5,p50,p95,max.
func writeDelaysCSV(w io.Writer, d strategies.Delays) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(delaysColumns); err != nil {
		return err
	}
	for _, r := range d.Retries {
		if err := cw.Write([]string{strconv.Itoa(r.Retry), seconds(r.P5), seconds(r.P50),
			seconds(r.P95), seconds(r.Max)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeDelaysText writes lane i's flags, a table of its retries' waits and
// where its draws gave up.
func writeDelaysText(w io.Writer, p scenario.Params, i int, d strategies.Delays) error {
	letter := scenario.LaneNames[i : i+1]
	lq := libconfig.Query(p.Lanes[i].Params, letter)
	var b strings.Builder
	fmt.Fprintf(&b, "lane %s: %s\n", letter, strings.Join(flagsOf(lq), " "))
	fmt.Fprintf(&b, "The wait before each retry of %d requests that keep failing, each alone (every attempt\n"+
		"times out at once; its limiters' state its own), think %s, seed %d:\n\n",
		d.Draws, present.Duration(p.Think.Seconds(), 3), p.Seed)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "retry\tdraws\tp5\tp50\tp95\tmax\t")
	for _, r := range d.Retries {
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t\n", r.Retry, r.Draws, present.Duration(r.P5.Seconds(), 3),
			present.Duration(r.P50.Seconds(), 3), present.Duration(r.P95.Seconds(), 3), present.Duration(r.Max.Seconds(), 3))
	}
	if len(d.Retries) == 0 {
		fmt.Fprintln(tw, "(none)\t\t\t\t\t\t")
	}
	tw.Flush()
	b.WriteString("\n")
	for _, g := range d.GaveUp {
		where := fmt.Sprintf("after retry %d (attempt %d failed)", g.After, g.After+1)
		if g.After == 0 {
			where = "at the first failure, without retrying"
		}
		fmt.Fprintf(&b, "Gives up %s: %s, in %d of %d draws.\n", where, stopText(p, i, g.By), g.Draws, d.Draws)
	}
	if d.Open > 0 {
		fmt.Fprintf(&b, "Still retrying after retry %d (the most shown): %d of %d draws.\n", strategies.DelayRetries, d.Open, d.Draws)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// stopText says what stopped a draw, with its value in lane i: the
// parameter or the limiter's switch, or the strategy that stops itself.
func stopText(p scenario.Params, i int, by string) string {
	if by == p.Lanes[i].Params.Strategy {
		return "the strategy " + by + " stops retrying"
	}
	if row, _, ok := scenario.Lookup(by); ok {
		return by + " " + row.Value(&p, i)
	}
	return by
}
