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

// backoffKnobs are the back-off's lane parameters a search varies, in
// the order that decides which to thin first (the last): a library's
// other knobs (deadline, per_try_timeout) are the user's system, not its
// back-off, or a protection (protectionsFor).
var backoffKnobs = []string{"min_delay", "factor", "jitter", "max_delay", "max_attempts"}

// limiterKnobs are the limiters' lane parameters a search varies beside
// the back-off's where the library's configuration sets them (its
// profile's knobs), each limiter's switch first: a search tries the
// switch's values the library can express and, under each, the
// parameters it reads. These are the knobs practitioners ask how to size
// (gRPC's maxTokens and tokenRatio, Envoy's retry budget, resilience4j's
// breaker). AWS's retry quota is not among them: the shared config that
// its exporter writes cannot set it (the SDKs set it in code only).
var limiterKnobs = []string{
	"grpc_throttle", "grpc_max_tokens", "grpc_token_ratio",
	"envoy_retry_limit", "envoy_max_retries", "envoy_budget_percent", "envoy_min_retry_concurrency",
	"retry_budget", "budget_percent", "budget_min_per_sec",
	"breaker", "breaker_threshold", "breaker_open_for",
}

// choiceReads names, for a switch whose values turn on different
// parameters, the parameters each value reads. The vocabulary counts every
// parameter of a limiter as read by every value of its switch but off
// (scenario.Reads), while Envoy's max_retries reads envoy_max_retries
// alone and its retry budget the budget's two
// (strategies.EnvoyRetryLimitConfig): a search that varied the others
// would run one setting under many names.
var choiceReads = map[string]map[string][]string{
	"envoy_retry_limit": {
		strategies.EnvoyMaxRetries: {"envoy_max_retries"},
		strategies.EnvoyBudget:     {"envoy_budget_percent", "envoy_min_retry_concurrency"},
	},
}

// ownLimiterKnobs are the limiter's knobs a search of OwnLibrary varies:
// backofflab's retry budget, its share and its floor.
var ownLimiterKnobs = []string{"retry_budget", "budget_percent", "budget_min_per_sec"}

// grid holds, per knob, the round values a search or a map may try,
// within each row's range, in the row's unit (nanoseconds for a
// duration). full is the map's; search those a search starts from before
// it is thinned to maxCandidates. max_attempts 0 is no limit. A switch
// (an enum) has no row here: its values are its choices.
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

	// A failed attempt takes a token and a success gives tokenRatio
	// back; retries stop while the bucket is at most half full.
	"grpc_max_tokens":  {full: []float64{1, 2, 5, 10, 20, 50, 100, 1000}, search: []float64{2, 10, 100}},
	"grpc_token_ratio": {full: []float64{0.01, 0.05, 0.1, 0.2, 0.5, 1}, search: []float64{0.01, 0.1, 1}},

	"envoy_max_retries":           {full: []float64{1, 2, 3, 5, 10, 20, 100}, search: []float64{1, 3, 10}},
	"envoy_budget_percent":        {full: []float64{1, 5, 10, 20, 50, 100}, search: []float64{5, 20, 50}},
	"envoy_min_retry_concurrency": {full: []float64{0, 1, 3, 5, 10, 20}, search: []float64{1, 3, 10}},

	"budget_percent":     {full: []float64{1, 5, 10, 20, 50, 100}, search: []float64{5, 20, 50}},
	"budget_min_per_sec": {full: []float64{0, 1, 5, 10, 50, 100}, search: []float64{1, 10, 100}},

	"breaker_threshold": {full: []float64{10, 20, 30, 50, 70, 90}, search: []float64{20, 50, 80}},
	"breaker_open_for":  {full: durs(time.Second, 2*time.Second, 5*time.Second, 10*time.Second, 30*time.Second, time.Minute, 5*time.Minute), search: durs(2*time.Second, 10*time.Second, time.Minute)},
}

func durs(ds ...time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d)
	}
	return out
}

// maxCandidates bounds the settings a search tries: with 5 seeds, about
// 2000 runs of about 10 ms of CPU each on the landing system (about 9 s
// on two busy cores). maxBackoff bounds the back-off's settings among
// them (500 runs), as before the limiters were searched: a library
// without a limiter to size tries no more, and one with a limiter tries
// its back-off with the limiter off and on at a few sizes.
const (
	maxCandidates = 400
	maxBackoff    = 100
)

// knob is one lane parameter a search varies.
type knob struct {
	param string         // the vocabulary's name (min_delay)
	row   scenario.Param // its row of scenario.Table
	field string         // the library's setting, in its own names; "" for backofflab
	tied  *tiedKnob      // a knob set by this one's value, or nil
	vals  []float64      // the values the search tries
	full  []float64      // the values a map may try
	today float64        // the value today
	// choices are, for a limiter's switch (an enum), its values: the
	// knob's values are indexes into them.
	choices []string
	// sw is, for a limiter's parameter, the index of its switch among
	// the search's knobs, and readUnder says under which of the switch's
	// choices its run reads the parameter; sw is -1 for a knob always
	// read.
	sw        int
	readUnder []bool
}

// reads reports whether a setting of ks at vals reads knob i: whether
// its limiter, if it has one, is on in a way that reads it.
func reads(ks []knob, vals []float64, i int) bool {
	k := ks[i]
	return k.sw < 0 || k.readUnder[int(vals[k.sw])]
}

// tiedKnob is a knob that a library sets from another's setting: Istio's
// backoff sets both min_delay and max_delay (10 × it), so a search moves
// max_delay with min_delay, by the ratio today.
type tiedKnob struct {
	param string
	ratio float64
}

// knobsOf returns the knobs a search of library varies from today's lane:
// the library's knobs (libconfig's profile) among backoffKnobs that its
// strategy row reads and among limiterKnobs, each limiter's switch with
// its parameters; for OwnLibrary every backoffKnob exponential reads and
// ownLimiterKnobs. Values outside a row's range are left out, and today's
// value is always among them; the search thins them (search.thin).
func knobsOf(library string, today strategies.Params) []knob {
	order := slices.Concat(backoffKnobs, limiterKnobs)
	fields := map[string]string{}
	var names []string
	if library == OwnLibrary {
		names = slices.Concat(backoffKnobs, ownLimiterKnobs)
	} else {
		prof, _ := libconfig.LookupProfile(library)
		for _, k := range prof.Knobs {
			if !slices.Contains(order, k.Param) {
				continue
			}
			names = append(names, k.Param)
			fields[k.Param] = k.Field
			// A limiter's parameter brings its switch: setting it in
			// the library's configuration turns the limiter on.
			if row, _, _ := scenario.Lookup(k.Param); row.Switch != "" && !slices.Contains(names, row.Switch) {
				names = append(names, row.Switch)
			}
		}
	}
	slices.SortStableFunc(names, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
	ps := scenario.Defaults()
	ps.Lanes = []scenario.Lane{{Params: today}}
	var out []knob
	for _, name := range names {
		if !strategies.Uses(today.Strategy, name) && name != "max_attempts" && !slices.Contains(limiterKnobs, name) {
			continue
		}
		row, _, _ := scenario.Lookup(name)
		k := knob{param: name, row: row, field: fields[name]}
		if row.Type == scenario.TypeEnum {
			k.choices = row.Choices
		}
		k.today = valueOf(k, &ps)
		// Two knobs of one library setting: the second follows the first.
		if f := fields[name]; f != "" && slices.ContainsFunc(out, func(o knob) bool { return o.field == f }) {
			i := slices.IndexFunc(out, func(o knob) bool { return o.field == f })
			out[i].tied = &tiedKnob{param: name, ratio: k.today / out[i].today}
			continue
		}
		if k.choices != nil {
			for i := range k.choices {
				k.vals = append(k.vals, float64(i))
			}
			k.full = k.vals
			out = append(out, k)
			continue
		}
		in := func(v float64) bool { return v >= row.Min && v <= row.Max }
		k.vals = k.withValue(slices.DeleteFunc(slices.Clone(grid[name].search), func(v float64) bool { return !in(v) }), k.today)
		k.full = k.withValue(slices.DeleteFunc(slices.Clone(grid[name].full), func(v float64) bool { return !in(v) }), k.today)
		out = append(out, k)
	}
	for i := range out {
		k := &out[i]
		k.sw = slices.IndexFunc(out, func(o knob) bool { return k.row.Switch != "" && o.param == k.row.Switch })
		if k.sw >= 0 {
			for _, c := range out[k.sw].choices {
				reads := scenario.Reads(k.row.Switch, c, k.param)
				if only, ok := choiceReads[k.row.Switch][c]; ok {
					reads = reads && slices.Contains(only, k.param)
				}
				k.readUnder = append(k.readUnder, reads)
			}
		}
	}
	return out
}

// withValue returns vals, values of k, with v among them, in ascending
// order (max_attempts 0, no limit, last).
func (k knob) withValue(vals []float64, v float64) []float64 {
	if !slices.Contains(vals, v) {
		vals = append(vals, v)
	}
	zeroMost := k.param == "max_attempts"
	slices.SortFunc(vals, func(a, b float64) int {
		switch {
		case a == b:
			return 0
		case zeroMost && a == 0: // max_attempts 0 is no limit: the most
			return 1
		case zeroMost && b == 0:
			return -1
		case a < b:
			return -1
		}
		return 1
	})
	return vals
}

// thin removes values from the search's knobs' lists until the
// back-off's make at most maxBackoff settings and the grid at most
// maxCandidates. Each time it takes, from the longest list of those it
// thins (the later knob on a tie), the middle value that is not today's:
// first the back-off's lists, to maxBackoff, as their product; then,
// until the grid (the settings the library can express) is small enough,
// the back-off's again, whose neighbourhood the map refines afterwards,
// and only then the limiters' parameters, whose sizes (small, today's,
// large) are what a user asks the search to choose; then, once every
// list is down to two, the later knob's value that is not today's. A
// switch keeps its values.
func (s *search) thin() {
	ks := s.knobs
	backoff := func(k knob) bool { return k.choices == nil && k.row.Switch == "" }
	limiter := func(k knob) bool { return k.choices == nil && k.row.Switch != "" }
	backoffSettings := func() int {
		n := 1
		for _, k := range ks {
			if backoff(k) {
				n *= len(k.vals)
			}
		}
		return n
	}
	for backoffSettings() > maxBackoff && thinLongest(ks, backoff) {
	}
	for len(s.grid()) > maxCandidates && (thinLongest(ks, backoff) || thinLongest(ks, limiter)) {
	}
	for len(s.grid()) > maxCandidates {
		last := -1
		for i, k := range ks {
			if k.choices == nil && len(k.vals) > 1 {
				last = i
			}
		}
		if last < 0 {
			return
		}
		k := &ks[last]
		drop := slices.IndexFunc(k.vals, func(v float64) bool { return v != k.today })
		k.vals = slices.Delete(k.vals, drop, drop+1)
	}
}

// thinLongest removes one value from the longest list of more than two
// among the knobs of ks that of accepts (the later knob on a tie): its
// middle value that is not today's. It reports whether there was one.
func thinLongest(ks []knob, of func(knob) bool) bool {
	best := -1
	for i, k := range ks {
		if of(k) && len(k.vals) > 2 && (best < 0 || len(k.vals) >= len(ks[best].vals)) {
			best = i
		}
	}
	if best < 0 {
		return false
	}
	k := &ks[best]
	drop := len(k.vals) / 2
	if k.vals[drop] == k.today {
		drop--
		if drop == 0 { // keep the ends: the grid's extent
			drop = 2
		}
	}
	k.vals = slices.Delete(k.vals, drop, drop+1)
	return true
}

// valueOf returns the value of knob k in lane a of p, in its row's unit
// (for a switch, the index of its choice).
func valueOf(k knob, p *scenario.Params) float64 {
	row := k.row
	switch v := row.Field(p, 0).(type) {
	case *string:
		c := *v
		if c == "" { // a Params built by hand: off
			c = strategies.LimiterOff
		}
		if i := slices.Index(k.choices, c); i >= 0 {
			return float64(i)
		}
	case *int:
		return float64(*v)
	case *float64:
		return *v
	case *time.Duration:
		return float64(*v)
	}
	panic("advise: knob " + row.Name + " is not numeric")
}

// setValue sets the lane row in lane a of p to v, in the row's unit (for
// a switch, the index of its choice).
func setValue(row scenario.Param, p *scenario.Params, v float64) {
	switch f := row.Field(p, 0).(type) {
	case *string:
		*f = row.Choices[int(v)]
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
