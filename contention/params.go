package contention

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/backofflab/backofflab/scenario"
)

// The study's parameters as rows of the scenario's table type: the
// contention command's flags, the /contention page's URL and its controls
// all read them. seeds is scenario.ViewTable's, and seed the scenario's
// own row, at the study's default. The defaults are the simulator's
// driver (run): N in steps of 10 from 10 to 190 (clients = i * 10 for i
// in xrange(1, 20)), with 100 runs at each point (for t in xrange(0,
// 100)), each on its own seed.
var (
	nRow = ownRow(scenario.Param{Name: "n", Type: scenario.TypeText, Default: "10:190:10",
		Help: "the numbers of clients: a list of N, each a number or from:to:step, such as 10:190:10 or 50,100,190"})
	seedsRow      = scenario.MustViewParam(scenario.SeedsParam, scenario.ViewContention)
	strategiesRow = ownRow(scenario.Param{Name: "strategies", Type: scenario.TypeText,
		Default: strings.Join(LineNames(), ","),
		Help:    "the strategies compared, a list of some of " + strings.Join(LineNames(), ", ")})
	seedRow = func() scenario.Param {
		p := scenario.MustLookup("seed")
		p.Default = "1"
		return p
	}()
	table = []scenario.Param{nRow, seedsRow, strategiesRow, seedRow}
)

// ownRow returns p as a row of the study's own: of scenario.ScopeView,
// read by the contention study alone, at its Default.
func ownRow(p scenario.Param) scenario.Param {
	p.Scope = scenario.ScopeView
	p.Views = map[scenario.View]scenario.ViewRange{scenario.ViewContention: {Default: p.Default}}
	return p
}

// Params returns the study's parameters, in the order its page shows them.
// Each row's Default is the study's.
func Params() []scenario.Param { return slices.Clone(table) }

// Spec is one study: what Run runs.
type Spec struct {
	Ns         []int    // n, in increasing order
	Seeds      int      // seeds: the runs at each point, each on its own random stream
	Strategies []string // strategies, names of Lines
	Seed       uint64   // seed
}

// DefaultSpec is the blog's study, the table's defaults.
func DefaultSpec() Spec {
	s, err := Parse(nil, Limits{})
	if err != nil {
		panic("contention: the defaults do not parse: " + err.Error())
	}
	return s
}

// Values returns s in the URL's syntax, every parameter set: Parse gives s
// back from it.
func (s Spec) Values() url.Values {
	return url.Values{
		nRow.Name:          {formatNs(s.Ns)},
		seedsRow.Name:      {strconv.Itoa(s.Seeds)},
		strategiesRow.Name: {strings.Join(s.Strategies, ",")},
		seedRow.Name:       {strconv.FormatUint(s.Seed, 10)},
	}
}

// formatNs writes ns in n's syntax: from:to:step when they are three or
// more evenly spaced, else a list.
func formatNs(ns []int) string {
	even := len(ns) >= 3
	for i := 2; even && i < len(ns); i++ {
		even = ns[i]-ns[i-1] == ns[1]-ns[0]
	}
	if even {
		return fmt.Sprintf("%d:%d:%d", ns[0], ns[len(ns)-1], ns[1]-ns[0])
	}
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// Points is how many points s has: an N and a strategy each.
func (s Spec) Points() int { return len(s.Ns) * len(s.Strategies) }

// Limits cap what a study may ask for; a zero field puts no cap.
type Limits struct {
	MaxClients int   // the largest N
	MaxSeeds   int   // seeds at each point
	MaxPoints  int   // Ns × strategies
	MaxWork    int64 // Spec.Work, the study's estimated cost
}

// CLILimits are the contention command's: larger than a server's, since
// the command runs on the user's own cores, yet bounded, so that a typo
// is refused at once instead of running for days or allocating more
// memory than the machine has. N up to 10 000 (the simulator's largest
// is 190); up to 10 000 seeds a point, seedsRow's largest (a mean's
// standard error is then 1 % of the runs' spread); up to 500 points, so that Run's up-front record
// of every run (three float64s) stays under 500 × 10 000 × 24 bytes,
// 120 MB; and a Work of at most 5 × 10^10, about an hour of one core
// when every point is no backoff, the dearest strategy (a run of N
// clients costs it about 65 ns × N² on this project's machines: 2.2 ms at
// N = 190, 65 ms at N = 1000), and less for the others. The simulator's
// study (the defaults) is a Work of 1.2 × 10^8.
var CLILimits = Limits{MaxClients: 10_000, MaxSeeds: int(seedsRow.Max), MaxPoints: 500, MaxWork: 50_000_000_000}

// Work estimates what s costs to run: the sum over its points of seeds ×
// N². A run's writes, and so its messages, grow as N² for the strategies
// that collide most (with no backoff and every message the same delay,
// N clients make N(N+1)/2 writes), so Work is proportional to the CPU
// time of the dearest study of the same shape. It is a float64 so that
// the product of unchecked values cannot overflow.
func (s Spec) Work() float64 {
	var perRun float64
	for _, n := range s.Ns {
		perRun += float64(n) * float64(n)
	}
	return perRun * float64(len(s.Strategies)) * float64(s.Seeds)
}

// Parse reads a study from v, the table's names with their values, each
// unset one at its default, within b; an old name of scenario.Aliases (runs
// for seeds) is read as its new one. Its error joins a
// *scenario.ParamError for every bad value, an unknown name included,
// each naming the parameter as v gives it.
func Parse(v url.Values, b Limits) (Spec, error) {
	v, given, err := scenario.Unalias(v, scenario.ViewContention)
	if err != nil {
		return Spec{}, err
	}
	var errs []error
	bad := func(name, value, allowed string) {
		if old, ok := given[name]; ok {
			name = old
		}
		errs = append(errs, &scenario.ParamError{Name: name, Value: value, Allow: allowed})
	}
	get := func(name string) string {
		if vs, ok := v[name]; ok {
			if len(vs) != 1 {
				bad(name, strings.Join(vs, ","), "give it once")
			}
			return vs[0]
		}
		i := slices.IndexFunc(table, func(p scenario.Param) bool { return p.Name == name })
		return table[i].Default
	}
	for _, name := range slices.Sorted(maps.Keys(v)) {
		if !slices.ContainsFunc(table, func(p scenario.Param) bool { return p.Name == name }) {
			bad(name, strings.Join(v[name], ","), "not a parameter of the study; its parameters are n, seeds (once runs), strategies and seed")
		}
	}
	var s Spec
	maxN := b.MaxClients
	if maxN == 0 {
		maxN = 100_000
	}
	if raw := get(nRow.Name); raw != "" {
		ns, err := parseNs(raw, maxN)
		if err != nil {
			bad(nRow.Name, raw, err.Error())
		}
		s.Ns = ns
	} else if _, set := v[nRow.Name]; set {
		bad(nRow.Name, raw, "give at least one N")
	}
	seeds := seedsRow
	if seeds.Max = float64(b.MaxSeeds); b.MaxSeeds == 0 {
		seeds.Max = 1_000_000
	}
	if raw := get(seeds.Name); raw != "" || v.Has(seeds.Name) {
		if err := seeds.Set(&s.Seeds, seeds.Name, raw); err != nil {
			bad(seeds.Name, raw, seeds.Allowed())
		}
	}
	if raw := get(strategiesRow.Name); raw != "" || v.Has(strategiesRow.Name) {
		var err error
		if s.Strategies, err = parseStrategies(raw); err != nil {
			bad(strategiesRow.Name, raw, err.Error())
		}
	}
	if raw := get(seedRow.Name); raw != "" || v.Has(seedRow.Name) {
		if err := seedRow.Set(&s.Seed, seedRow.Name, raw); err != nil {
			bad(seedRow.Name, raw, seedRow.Allowed())
		}
	}
	if len(errs) == 0 {
		if name, allowed := overLimits(s, b); name != "" {
			bad(name, get(name), allowed)
		}
	}
	if len(errs) > 0 {
		return Spec{}, errors.Join(errs...)
	}
	return s, nil
}

// parseStrategies reads raw, the strategies parameter's value: a list of
// the study's lines, each once.
func parseStrategies(raw string) ([]string, error) {
	var out []string
	for name := range strings.SplitSeq(raw, ",") {
		name = strings.TrimSpace(name)
		if _, err := LineOf(name); err != nil {
			return out, err
		}
		if slices.Contains(out, name) {
			return out, errors.New(name + " is listed twice")
		}
		out = append(out, name)
	}
	return out, nil
}

// overLimits says which parameter of s, seeds or n, takes it past b's
// points or cost, and what that parameter allows; "" when s is within
// them.
func overLimits(s Spec, b Limits) (name, allowed string) {
	if b.MaxPoints > 0 && s.Points() > b.MaxPoints {
		return nRow.Name, fmt.Sprintf("%d Ns × %d strategies is %d points, and a study may have at most %d: give fewer Ns or strategies",
			len(s.Ns), len(s.Strategies), s.Points(), b.MaxPoints)
	}
	if b.MaxWork > 0 && s.Work() > float64(b.MaxWork) {
		one := s
		one.Seeds = 1
		if most := int64(float64(b.MaxWork) / one.Work()); most >= 1 {
			return seedsRow.Name, fmt.Sprintf("a whole number from 1 to %d with these Ns and strategies: the study's estimated cost, seeds × the sum of N² over its points, would be %.3g, and a study may cost at most %.3g",
				most, s.Work(), float64(b.MaxWork))
		}
		return nRow.Name, fmt.Sprintf("Ns whose N² sum to at most %.3g over the %d strategies: one run at each point would cost %.3g (seeds × the sum of N² over the points), and a study may cost at most %.3g",
			float64(b.MaxWork), len(s.Strategies), one.Work(), float64(b.MaxWork))
	}
	return "", ""
}

// parseNs reads n's syntax: a comma-separated list of N or from:to:step,
// each N from 1 to maxN, none twice. It returns them in increasing order.
func parseNs(raw string, maxN int) ([]int, error) {
	allowed := fmt.Errorf("a list of N, each a number or from:to:step, every N a whole number from 1 to %d and none twice", maxN)
	num := func(s string) (int, bool) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		return n, err == nil && n >= 1 && n <= maxN
	}
	var ns []int
	for item := range strings.SplitSeq(raw, ",") {
		parts := strings.Split(item, ":")
		switch len(parts) {
		case 1:
			n, ok := num(parts[0])
			if !ok {
				return nil, allowed
			}
			ns = append(ns, n)
		case 3:
			from, ok1 := num(parts[0])
			to, ok2 := num(parts[1])
			step, ok3 := num(parts[2])
			if !ok1 || !ok2 || !ok3 || to < from {
				return nil, fmt.Errorf("from:to:step with 1 ≤ from ≤ to ≤ %d and a step of at least 1", maxN)
			}
			for n := from; n <= to; n += step {
				ns = append(ns, n)
			}
		default:
			return nil, allowed
		}
	}
	slices.Sort(ns)
	if len(ns) != len(slices.Compact(slices.Clone(ns))) {
		return nil, allowed
	}
	return ns, nil
}
