package libconfig

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// Each library's model maps onto a backofflab lane and back, through the
// library rows of strategies' table (one row, or a reused one, per
// library, with the vocabulary's parameters it reads). The rows compute
// what each library computes; what a row cannot express is said, as a
// Warning on import and as a CannotExpress on export, by the library's own
// file: its Config's toLane method and its row of exporters. This file
// holds what the libraries share.

// CannotExpress is a lane that library Lib cannot express, with every
// reason in plain words.
type CannotExpress struct {
	Lib     string
	Reasons []string
}

// Error names the library and every reason, as one sentence.
func (e *CannotExpress) Error() string {
	return fmt.Sprintf("%s cannot express this lane: %s", e.Lib, strings.Join(e.Reasons, "; "))
}

// Unwrap makes errors.Is(err, ErrUnsupported) true.
func (e *CannotExpress) Unwrap() error { return ErrUnsupported }

// Library constants the mapping uses, each with its source.
const (
	// awsBaseDelay and awsMaxBackoff are aws-sdk-go-v2 v1.48.0's standard
	// mode back-off for a non-throttling error (aws/retry/jitter_backoff.go,
	// backoffDelay2026: U[0,1)·min(50 ms·2^n, 20 s)).
	awsBaseDelay  = 50 * time.Millisecond
	awsMaxBackoff = 20 * time.Second
	// awsRetryCost2026 is v1.48.0's retry cost, which it charges timeouts
	// too (aws/retry/standard.go); before it, 5 and 10.
	awsRetryCost2026 = 14
	// awsThrottlingRetryCost is v1.48.0's cost of a retry after a
	// throttling error (standard.go, DefaultThrottlingRetryCost), which
	// adaptive mode's lane charges error answers.
	awsThrottlingRetryCost = 5
	// envoyDefaultRouteTimeout is RouteAction.timeout when unset.
	envoyDefaultRouteTimeout = 15 * time.Second
	// linkerdDelay stands for a Linkerd retry with no back-off, the least
	// min_delay of the vocabulary. No row models linkerd2-proxy's retry
	// timing yet; import says so in a warning.
	linkerdDelay = time.Millisecond
)

// laneOf is the lane parameters of row with its defaults.
func laneOf(row string) strategies.Params {
	p, ok := strategies.Defaults(row)
	if !ok {
		panic("libconfig: no strategy row " + row)
	}
	return p
}

// ToLane maps a library's configuration onto a lane: the strategy row that
// computes what the library computes and its parameters. Settings the lane
// cannot express are warnings; a configuration that holds several retry
// policies (methodConfigs, routes, profiles, instances) is ErrAmbiguous,
// one with none ErrMissing; a value outside the vocabulary's range is a
// FieldError naming the library's field and the lane's parameter.
func ToLane(c Config) (strategies.Params, []Warning, error) {
	l, w, _, err := toLane(c, "")
	return l, w, err
}

// policiesLane is a library's Config that may hold several retry
// policies, which pick chooses from (as Pick names them; "" when it holds
// one). Each library's mapping is in its own file.
type policiesLane interface {
	toLane(pick string) (strategies.Params, []Warning, map[string]string, error)
}

// policyLane is a library's Config that holds one retry policy.
type policyLane interface {
	toLane() (strategies.Params, []Warning, map[string]string, error)
}

// toLane is ToLane with the map from each lane parameter it set to the
// library's field that set it (nil for a code-configured library).
func toLane(c Config, pick string) (strategies.Params, []Warning, map[string]string, error) {
	var (
		l     strategies.Params
		w     []Warning
		err   error
		field map[string]string
	)
	switch c := c.(type) {
	case policiesLane:
		l, w, field, err = c.toLane(pick)
	case policyLane:
		l, w, field, err = c.toLane()
		if pick != "" {
			return l, nil, nil, &FieldError{Value: pick, Kind: ErrOutOfRange, Allowed: "the configuration holds one retry policy: nothing to pick"}
		}
	default:
		return l, nil, nil, fmt.Errorf("libconfig: no lane mapping for %T", c)
	}
	if err != nil {
		return l, w, field, err
	}
	return l, w, field, checkLane(l, field)
}

// checkLane checks l against the vocabulary's ranges; each error names
// the library's field that set the parameter (field maps a parameter's
// name to it) and the lane's parameter with its range.
func checkLane(l strategies.Params, field map[string]string) error {
	p := scenario.Defaults()
	p.Lanes[0].Params = l
	var errs []error
	for _, pe := range scenario.Errors(p.ValidateLane(0, scenario.ScopeStrategy, scenario.ScopeLimiter)) {
		path := field[pe.Name]
		if path == "" {
			path = "the lane's " + pe.Name
		}
		errs = append(errs, &FieldError{Path: path, Value: pe.Value, Kind: ErrUnsupported,
			Allowed: fmt.Sprintf("backofflab's %s takes %s", pe.Name, pe.Allow)})
	}
	return errors.Join(errs...)
}

// Query is lane l as the vocabulary writes it for the lane with the given
// letter (a, b, …): its strategy and every lane parameter whose value
// differs from the strategy's default, which scenario.Parse reads back as
// l. The values are the table's own formatting of l's typed values.
func Query(l strategies.Params, letter string) url.Values {
	p, def := scenario.Defaults(), scenario.Defaults()
	p.Lanes[0].Params = l
	def.Lanes[0].Params = laneOf(l.Strategy)
	q := url.Values{}
	for _, param := range scenario.Table {
		if !param.Lane {
			continue
		}
		v := param.Value(&p, 0)
		if param.Name == "strategy" || v != param.Value(&def, 0) {
			q.Set(letter+"."+param.Name, v)
		}
	}
	return q
}

// noLimiters lists, for a lane about to be written as library lib's
// configuration, every limiter the lane turns on that the library has no
// setting for; allowed are the limiters it has.
func noLimiters(l strategies.Params, lib string, allowed ...string) []string {
	var out []string
	for _, name := range strategies.LimitersOn(l) {
		if !slices.Contains(allowed, name) {
			out = append(out, fmt.Sprintf("%s has no setting for the lane's %s limiter", lib, name))
		}
	}
	return out
}

// otherRow is the reason a lane of a strategy other than rows cannot be
// written as library lib's configuration; nothing for a lane of one of
// rows.
func otherRow(lib string, l strategies.Params, rows ...string) []string {
	if slices.Contains(rows, l.Strategy) {
		return nil
	}
	return []string{fmt.Sprintf("%s's back-off is the row %s; the lane's strategy is %s", lib, strings.Join(rows, " or "), l.Strategy)}
}

// noCount is the reason a lane with no max_attempts cannot be written as a
// library whose field, a count of attempts, must be set; nothing when the
// lane has one.
func noCount(l strategies.Params, field string) []string {
	if l.MaxAttempts >= 1 {
		return nil
	}
	return []string{field + " is a count; the lane has no max_attempts"}
}

// noDeadline is the reason a lane with a deadline cannot be written as
// library lib's configuration, which has none; nothing when the lane has
// none.
func noDeadline(l strategies.Params, lib string) []string {
	if l.Deadline == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s has no deadline for a request's retries; the lane's deadline is %v", lib, l.Deadline)}
}

// decimalShift returns x × 10^n computed on x's shortest decimal form, so
// that a ratio of 0.07 is a percentage of exactly 7.
func decimalShift(x float64, n int) float64 {
	mant, exp, _ := strings.Cut(strconv.FormatFloat(x, 'e', -1, 64), "e")
	e, _ := strconv.Atoi(exp)
	y, _ := strconv.ParseFloat(mant+"e"+strconv.Itoa(e+n), 64)
	return y
}

// Exporter is one library a lane can be written as: the text libraries'
// configurations and the code-configured libraries' lines of code.
type Exporter struct {
	// Name is the library's name on the command line (-lib).
	Name string
	// Title is the library's name in words ("Envoy", "tenacity (Python
	// code)"), as Title gives it.
	Title string
	// Export writes lane l as the library's model, with the warnings of
	// what it had to choose (the retry conditions), or a *CannotExpress.
	Export func(l strategies.Params) (Config, []Warning, error)
}

// Exporters lists every library a lane can be written as.
func Exporters() []Exporter { return slices.Clone(exporters) }

// LookupExporter returns the exporter named name.
func LookupExporter(name string) (Exporter, bool) {
	i := slices.IndexFunc(exporters, func(e Exporter) bool { return e.Name == name })
	if i < 0 {
		return Exporter{}, false
	}
	return exporters[i], true
}

// exporters has one row per library a lane can be written as; its function
// is in the library's own file.
var exporters = []Exporter{
	{"grpc", "gRPC", grpcFromLane}, {"envoy", "Envoy", envoyFromLane}, {"istio", "Istio", istioFromLane},
	{"linkerd", "Linkerd", linkerdFromLane}, {"aws", "AWS SDKs", awsFromLane}, {"resilience4j", "resilience4j", r4jFromLane},
	{"polly", "Polly", func(l strategies.Params) (Config, []Warning, error) { return pollyFromLane(l, "polly") }},
	{"polly-csharp", "Polly (C# code)", func(l strategies.Params) (Config, []Warning, error) {
		p, w, err := pollyFromLane(l, "polly-csharp")
		if err != nil {
			return nil, w, err
		}
		return PollyCode{p.(PollyRetry)}, w, nil
	}},
	{"cenkalti", "cenkalti/backoff (Go code)", cenkaltiFromLane}, {"client-go", "client-go's wait.Backoff (Go code)", clientGoFromLane},
	{"tenacity", "tenacity (Python code)", tenacityFromLane}, {"urllib3", "urllib3's Retry (Python code)", urllib3FromLane},
}

// cannot returns a *CannotExpress when reasons holds any.
func cannot(lib string, reasons []string) error {
	if len(reasons) == 0 {
		return nil
	}
	return &CannotExpress{Lib: lib, Reasons: reasons}
}

var everyFailure = "the lane retries every failure; the conditions written are the usual transient ones: add your service's"
