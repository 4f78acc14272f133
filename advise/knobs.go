package advise

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// searchKnobs are the lane parameters a search varies, in the order that
// decides which to thin first (the last): a library's other knobs
// (deadline, per_try_timeout, its limiter's) are the user's system, not
// its back-off, or a protection (searchProtections).
var searchKnobs = []string{"min_delay", "factor", "jitter", "max_delay", "max_attempts"}

// grid holds, per knob, the round values a search or a map may try,
// within each row's range, in the row's unit (nanoseconds for a
// duration). full is the map's; search those a search starts from before
// it is thinned to maxCandidates. max_attempts 0 is no limit.
var grid = map[string]struct{ full, search []float64 }{
	"min_delay": {
		full:   durs(10*time.Millisecond, 25*time.Millisecond, 50*time.Millisecond, 100*time.Millisecond, 250*time.Millisecond, 500*time.Millisecond, time.Second, 2*time.Second, 5*time.Second),
		search: durs(100*time.Millisecond, 500*time.Millisecond, 2*time.Second),
	},
	"max_delay": {
		full:   durs(250*time.Millisecond, time.Second, 5*time.Second, 10*time.Second, 30*time.Second, time.Minute, 5*time.Minute),
		search: durs(time.Second, 10*time.Second, time.Minute),
	},
	"factor":       {full: []float64{1.1, 1.2, 1.3, 1.5, 2, 3, 4}, search: []float64{1.2, 1.5, 2, 3}},
	"jitter":       {full: []float64{0, 0.1, 0.2, 0.5, 1}, search: []float64{0, 0.2, 0.5}},
	"max_attempts": {full: []float64{2, 3, 4, 5, 8, 0}, search: []float64{2, 3, 5, 0}},
}

func durs(ds ...time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d)
	}
	return out
}

// maxCandidates bounds the settings a search tries: with 5 seeds, about
// 500 runs of about 10 ms of CPU each on the landing system.
const maxCandidates = 100

// knob is one lane parameter a search varies.
type knob struct {
	param string         // the vocabulary's name (min_delay)
	row   scenario.Param // its row of scenario.Table
	field string         // the library's setting, in its own names; "" for backofflab
	tied  *tiedKnob      // a knob set by this one's value, or nil
	vals  []float64      // the values the search tries
	full  []float64      // the values a map may try
	today float64        // the value today
	words func(float64) string
}

// tiedKnob is a knob that a library sets from another's setting: Istio's
// backoff sets both min_delay and max_delay (10 × it), so a search moves
// max_delay with min_delay, by the ratio today.
type tiedKnob struct {
	param string
	ratio float64
}

// knobsOf returns the knobs a search of library varies from today's lane:
// the library's knobs (libconfig's profile) among searchKnobs that its
// strategy row reads, or for OwnLibrary every searchKnob exponential
// reads. Values outside a row's range are left out, and today's value is
// always among them.
func knobsOf(library string, today strategies.Params) []knob {
	fields := map[string]string{}
	var names []string
	if library == OwnLibrary {
		names = searchKnobs
	} else {
		prof, _ := libconfig.LookupProfile(library)
		for _, k := range prof.Knobs {
			if slices.Contains(searchKnobs, k.Param) {
				names = append(names, k.Param)
				fields[k.Param] = k.Field
			}
		}
	}
	slices.SortStableFunc(names, func(a, b string) int { return slices.Index(searchKnobs, a) - slices.Index(searchKnobs, b) })
	ps := scenario.Defaults()
	ps.Lanes = []scenario.Lane{{Params: today}}
	var out []knob
	for _, name := range names {
		if !strategies.Uses(today.Strategy, name) && name != "max_attempts" {
			continue
		}
		row, _, _ := scenario.Lookup(name)
		k := knob{param: name, row: row, field: fields[name], today: valueOf(row, &ps)}
		// Two knobs of one library setting: the second follows the first.
		if f := fields[name]; f != "" && slices.ContainsFunc(out, func(o knob) bool { return o.field == f }) {
			i := slices.IndexFunc(out, func(o knob) bool { return o.field == f })
			out[i].tied = &tiedKnob{param: name, ratio: k.today / out[i].today}
			continue
		}
		in := func(v float64) bool { return v >= row.Min && v <= row.Max }
		k.vals = withToday(slices.DeleteFunc(slices.Clone(grid[name].search), func(v float64) bool { return !in(v) }), k.today)
		k.full = withToday(slices.DeleteFunc(slices.Clone(grid[name].full), func(v float64) bool { return !in(v) }), k.today)
		out = append(out, k)
	}
	thin(out)
	return out
}

// withToday returns vals with today among them, in ascending order (no
// limit, a max_attempts of 0, last).
func withToday(vals []float64, today float64) []float64 {
	if !slices.Contains(vals, today) {
		vals = append(vals, today)
	}
	slices.SortFunc(vals, func(a, b float64) int {
		switch {
		case a == b:
			return 0
		case a == 0: // max_attempts 0 is no limit: the most
			return 1
		case b == 0:
			return -1
		case a < b:
			return -1
		}
		return 1
	})
	return vals
}

// thin removes values from the knobs' lists until their product is at
// most maxCandidates: each time, from the list with the most values (the
// later knob on a tie), the middle value that is not today's.
func thin(ks []knob) {
	for {
		n := 1
		for _, k := range ks {
			n *= len(k.vals)
		}
		if n <= maxCandidates {
			return
		}
		best := -1
		for i, k := range ks {
			if len(k.vals) > 2 && (best < 0 || len(k.vals) >= len(ks[best].vals)) {
				best = i
			}
		}
		if best < 0 {
			return
		}
		k := &ks[best]
		mid := len(k.vals) / 2
		if k.vals[mid] == k.today {
			mid--
			if mid == 0 { // keep the ends: the grid's extent
				mid = 2
			}
		}
		k.vals = slices.Delete(k.vals, mid, mid+1)
	}
}

// valueOf returns the value of the lane row in lane a of p, in the row's
// unit.
func valueOf(row scenario.Param, p *scenario.Params) float64 {
	switch v := row.Field(p, 0).(type) {
	case *int:
		return float64(*v)
	case *float64:
		return *v
	case *time.Duration:
		return float64(*v)
	}
	panic("advise: knob " + row.Name + " is not numeric")
}

// setValue sets the lane row in lane a of p to v, in the row's unit.
func setValue(row scenario.Param, p *scenario.Params, v float64) {
	switch f := row.Field(p, 0).(type) {
	case *int:
		*f = int(math.Round(v))
	case *float64:
		*f = v
	case *time.Duration:
		*f = time.Duration(v)
	default:
		panic("advise: knob " + row.Name + " is not numeric")
	}
}

// setKnob sets knob k, and the knob tied to it, to v in lane a of p.
func setKnob(k knob, p *scenario.Params, v float64) {
	setValue(k.row, p, v)
	if k.tied != nil {
		row, _, _ := scenario.Lookup(k.tied.param)
		setValue(row, p, v*k.tied.ratio)
	}
}

// valueText writes the value v of row as the vocabulary writes it.
func valueText(row scenario.Param, v float64) string {
	p := scenario.Defaults()
	p.Lanes = p.Lanes[:1]
	setValue(row, &p, v)
	return row.Value(&p, 0)
}

// knobWords says knob k at value v for a reader, by its vocabulary name:
// a library's own setting may count otherwise (Envoy's num_retries is
// max_attempts − 1), and the snippet says it in the library's names.
func knobWords(k knob, v float64) string {
	val := valueText(k.row, v)
	switch {
	case k.row.Name == "max_attempts" && v == 0:
		val = "no limit"
	case k.row.Name == "max_delay" && v == float64(strategies.DefaultNoCap):
		val = "no cap" // a library whose cap is off: its snippet leaves it out
	}
	return fmt.Sprintf("%s %s", k.param, val)
}
