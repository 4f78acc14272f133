package bands

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/backofflab/backofflab/scenario"
)

// CSVHeader is the header row of a band's CSV: t, lane, then for each of
// scenario.Columns its quantiles side by side (ok_p5, ok_p50, ok_p95,
// errors_p5, …), so that a spreadsheet charts a column's band from three
// adjacent columns of one row per tick and lane.
func CSVHeader() string {
	var b strings.Builder
	b.WriteString("t,lane")
	for _, c := range scenario.Columns {
		for _, q := range QuantileNames {
			b.WriteString("," + c + "_" + q)
		}
	}
	b.WriteString("\n")
	return b.String()
}

// appendNum writes v in the shortest form that reads back as the same
// float32, and null for NaN (no value).
func appendNum(b []byte, v float32, null string) []byte {
	if math.IsNaN(float64(v)) {
		return append(b, null...)
	}
	return strconv.AppendFloat(b, float64(v), 'f', -1, 32)
}

// WriteCSV writes r as CSV: CSVHeader, then one row per tick per lane,
// lanes in order within a tick. A quantile with no value is left empty.
func (r *Result) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(CSVHeader())
	var row []byte
	for i, t := range r.T {
		for _, ln := range r.Lanes {
			row = strconv.AppendFloat(row[:0], t, 'f', -1, 64)
			row = append(row, ',')
			row = append(row, ln.Name...)
			for _, b := range ln.Columns {
				for k := range b.Q {
					row = append(row, ',')
					row = appendNum(row, b.Q[k][i], "")
				}
			}
			row = append(row, '\n')
			bw.Write(row)
		}
	}
	return bw.Flush()
}

// QuantileMethod says in words how the bands' quantiles are taken, for
// the JSON and the page.
const QuantileMethod = "nearest rank over the seeds with a value at that tick: the q-quantile of n sorted values is the ⌈q·n⌉-th"

// WriteJSON writes r as one JSON object: the scenario's parameters (its
// seed the first), the number of seeds, the quantile method, the ticks'
// times, and per lane its name, strategy, collapsed count, each seed's
// outcome and, keyed by column, its quantiles over time (null where no
// seed has a value).
func (r *Result) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriter(w)
	head, err := json.Marshal(struct {
		Params    map[string]any `json:"params"`
		Seeds     int            `json:"seeds"`
		Quantiles [3]string      `json:"quantiles"`
		Method    string         `json:"method"`
	}{r.Params.Map(), r.Seeds, QuantileNames, QuantileMethod})
	if err != nil {
		return err
	}
	bw.Write(head[:len(head)-1])
	buf := []byte(`,"t":[`)
	for i, t := range r.T {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = strconv.AppendFloat(buf, t, 'f', -1, 64)
	}
	bw.Write(append(buf, "],\"lanes\":["...))
	for l, ln := range r.Lanes {
		if l > 0 {
			bw.WriteByte(',')
		}
		outcomes := make([]outcomeJSON, len(ln.Outcomes))
		for s, o := range ln.Outcomes {
			outcomes[s] = outcomeJSON{o, o.Summary.Verdict(scenario.Finished).Brief}
		}
		lh, err := json.Marshal(struct {
			Name      string        `json:"name"`
			Strategy  string        `json:"strategy"`
			Collapsed int           `json:"collapsed"`
			Outcomes  []outcomeJSON `json:"outcomes"`
		}{ln.Name, ln.Strategy, ln.Collapsed, outcomes})
		if err != nil {
			return err
		}
		bw.Write(lh[:len(lh)-1])
		bw.WriteString(`,"bands":{`)
		for c, b := range ln.Columns {
			if c > 0 {
				bw.WriteByte(',')
			}
			buf = strconv.AppendQuote(buf[:0], b.Name)
			buf = append(buf, ":{"...)
			for k := range b.Q {
				if k > 0 {
					buf = append(buf, ',')
				}
				buf = strconv.AppendQuote(buf, QuantileNames[k])
				buf = append(buf, ":["...)
				for i, v := range b.Q[k] {
					if i > 0 {
						buf = append(buf, ',')
					}
					buf = appendNum(buf, v, "null")
				}
				buf = append(buf, ']')
			}
			bw.Write(append(buf, '}'))
		}
		bw.WriteString("}}")
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

// outcomeJSON is an Outcome with its verdict in a few words.
type outcomeJSON struct {
	Outcome
	Verdict string `json:"verdict"`
}
