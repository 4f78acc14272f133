package libconfig

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// The libraries below are configured in code, not in a file: their
// models are the arguments of the few lines that build the policy, and
// Marshal writes those lines. There is nothing to parse back; the lane
// mapping's round trip checks them through the model.

// CenkaltiBackoff is github.com/cenkalti/backoff/v5 (v5.0.3): an
// ExponentialBackOff (exponential.go) and the options of Retry (retry.go)
// that bound it.
type CenkaltiBackoff struct {
	// InitialInterval, RandomizationFactor, Multiplier and MaxInterval
	// are ExponentialBackOff's fields (500 ms, 0.5, 1.5, 60 s by default).
	InitialInterval     time.Duration
	RandomizationFactor float64
	Multiplier          float64
	MaxInterval         time.Duration
	// MaxTries is WithMaxTries, attempts with the first; 0 leaves it out
	// (no limit).
	MaxTries int
	// MaxElapsedTime is WithMaxElapsedTime: 0 for no limit; Retry's
	// default, when the option is left out, is 15 min.
	MaxElapsedTime time.Duration
}

// Marshal writes the Go that builds and runs the back-off.
func (c CenkaltiBackoff) Marshal() ([]byte, error) {
	var b strings.Builder
	b.WriteString("b := backoff.NewExponentialBackOff()\n")
	fmt.Fprintf(&b, "b.InitialInterval = %s\n", goDuration(c.InitialInterval))
	fmt.Fprintf(&b, "b.RandomizationFactor = %s\n", goFloat(c.RandomizationFactor))
	fmt.Fprintf(&b, "b.Multiplier = %s\n", goFloat(c.Multiplier))
	fmt.Fprintf(&b, "b.MaxInterval = %s\n", goDuration(c.MaxInterval))
	opts := []string{"backoff.WithBackOff(b)"}
	if c.MaxTries > 0 {
		opts = append(opts, fmt.Sprintf("backoff.WithMaxTries(%d)", c.MaxTries))
	}
	opts = append(opts, fmt.Sprintf("backoff.WithMaxElapsedTime(%s)", goDuration(c.MaxElapsedTime)))
	fmt.Fprintf(&b, "result, err := backoff.Retry(ctx, operation, %s)\n", strings.Join(opts, ", "))
	return []byte(b.String()), nil
}

// ClientGoBackoff is k8s.io/apimachinery's wait.Backoff (v0.37.2,
// pkg/util/wait/backoff.go) as client-go's retry.OnError runs it.
type ClientGoBackoff struct {
	Duration time.Duration // the first wait
	Factor   float64       // each wait × Factor
	Jitter   float64       // each wait + U[0,1)×Jitter×wait
	Steps    int           // attempts, the first included
	// Cap is the wait past which Steps drops to 0; 0 leaves it out.
	Cap time.Duration
}

// Marshal writes the Go that builds the wait.Backoff and retries with it.
func (c ClientGoBackoff) Marshal() ([]byte, error) {
	var b strings.Builder
	b.WriteString("backoff := wait.Backoff{\n")
	fmt.Fprintf(&b, "\tDuration: %s,\n", goDuration(c.Duration))
	fmt.Fprintf(&b, "\tFactor:   %s,\n", goFloat(c.Factor))
	fmt.Fprintf(&b, "\tJitter:   %s,\n", goFloat(c.Jitter))
	fmt.Fprintf(&b, "\tSteps:    %d,\n", c.Steps)
	if c.Cap > 0 {
		fmt.Fprintf(&b, "\tCap:      %s,\n", goDuration(c.Cap))
	}
	b.WriteString("}\n")
	b.WriteString("err := retry.OnError(backoff, func(error) bool { return true }, operation)\n")
	return []byte(b.String()), nil
}

// Tenacity is Python tenacity's @retry with wait_exponential or
// wait_random_exponential (tenacity/wait.py) and its stops. Its min is
// the lane's, 0, and written so: tenacity raises every wait to min after
// capping it at max (max(min, min(wait, max)); wait_random_exponential
// draws from [min, that]), which no row models.
type Tenacity struct {
	// Random chooses wait_random_exponential over wait_exponential.
	Random bool
	// Multiplier, ExpBase and Max are the wait's arguments, in seconds
	// for Multiplier and Max (1, 2 and no cap by default); Max 0 leaves it
	// out.
	Multiplier time.Duration
	ExpBase    float64
	Max        time.Duration
	// StopAfterAttempt is stop_after_attempt's count; 0 leaves it out.
	StopAfterAttempt int
	// StopAfterDelay is stop_after_delay's seconds; 0 leaves it out.
	StopAfterDelay time.Duration
}

// Marshal writes the Python decorator.
func (t Tenacity) Marshal() ([]byte, error) {
	wait := "wait_exponential"
	if t.Random {
		wait = "wait_random_exponential"
	}
	args := []string{"multiplier=" + pySeconds(t.Multiplier), "exp_base=" + pyFloat(t.ExpBase)}
	if t.Max > 0 {
		args = append(args, "max="+pySeconds(t.Max))
	}
	args = append(args, "min=0")
	imports := []string{"retry", wait}
	var stops []string
	if t.StopAfterAttempt > 0 {
		stops = append(stops, fmt.Sprintf("stop_after_attempt(%d)", t.StopAfterAttempt))
		imports = append(imports, "stop_after_attempt")
	}
	if t.StopAfterDelay > 0 {
		stops = append(stops, "stop_after_delay("+pySeconds(t.StopAfterDelay)+")")
		imports = append(imports, "stop_after_delay")
	}
	dec := fmt.Sprintf("wait=%s(%s)", wait, strings.Join(args, ", "))
	if len(stops) > 0 {
		dec += ", stop=" + strings.Join(stops, " | ")
	}
	return []byte(fmt.Sprintf("from tenacity import %s\n\n@retry(%s)\ndef call():\n    ...\n", strings.Join(imports, ", "), dec)), nil
}

// Urllib3Retry is urllib3's Retry (2.x, src/urllib3/util/retry.py).
// Marshal writes what makes urllib3 do what the lane does, each setting
// whose default differs or could: total alone counts retries (connect,
// read, redirect, status and other are None, since each, when set, counts
// its kind on its own: status=3 stops retrying error answers after 4
// attempts where total=6 allows 7); every method is retried
// (allowed_methods=None: by default a read error, a timeout, is retried
// for idempotent methods only); error answers are retried
// (status_forcelist; by default none is); no jitter is added
// (backoff_jitter=0.0, urllib3's default, which get_backoff_time adds as
// U[0,1)·backoff_jitter before the cap).
type Urllib3Retry struct {
	Total         int           // total: retries after the first attempt
	BackoffFactor time.Duration // backoff_factor, in seconds
	BackoffMax    time.Duration // backoff_max, in seconds (120 by default)
}

// Urllib3StatusForcelist are the answers the exported Retry retries: the
// server errors a service answers when it is overloaded or down
// (backofflab's own server answers 503).
var Urllib3StatusForcelist = []int{500, 502, 503, 504}

// Marshal writes the Python that builds the Retry.
func (u Urllib3Retry) Marshal() ([]byte, error) {
	codes := make([]string, len(Urllib3StatusForcelist))
	for i, c := range Urllib3StatusForcelist {
		codes[i] = strconv.Itoa(c)
	}
	return []byte(fmt.Sprintf("from urllib3.util import Retry\n\nretry = Retry(\n"+
		"    total=%d, connect=None, read=None, redirect=None, status=None, other=None,\n"+
		"    allowed_methods=None, status_forcelist=[%s],\n"+
		"    backoff_factor=%s, backoff_max=%s, backoff_jitter=0.0,\n)\n",
		u.Total, strings.Join(codes, ", "), pySeconds(u.BackoffFactor), pySeconds(u.BackoffMax))), nil
}

// PollyCode is PollyRetry as the C# that builds a resilience pipeline with
// it, for code that configures Polly in code rather than from JSON.
type PollyCode struct{ PollyRetry }

// Marshal writes the C#.
func (p PollyCode) Marshal() ([]byte, error) {
	var b strings.Builder
	b.WriteString("var pipeline = new ResiliencePipelineBuilder()\n    .AddRetry(new RetryStrategyOptions\n    {\n")
	fmt.Fprintf(&b, "        MaxRetryAttempts = %d,\n", p.MaxRetryAttempts)
	fmt.Fprintf(&b, "        Delay = %s,\n", csTimeSpan(p.Delay))
	if p.MaxDelay != nil {
		fmt.Fprintf(&b, "        MaxDelay = %s,\n", csTimeSpan(*p.MaxDelay))
	}
	fmt.Fprintf(&b, "        BackoffType = DelayBackoffType.%s,\n", p.BackoffType)
	fmt.Fprintf(&b, "        UseJitter = %t,\n", p.UseJitter)
	b.WriteString("    })\n    .Build();\n")
	return []byte(b.String()), nil
}

// goDuration writes d as a Go expression: "500 * time.Millisecond".
func goDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	for _, u := range []struct {
		name string
		d    time.Duration
	}{{"time.Hour", time.Hour}, {"time.Minute", time.Minute}, {"time.Second", time.Second},
		{"time.Millisecond", time.Millisecond}, {"time.Microsecond", time.Microsecond}} {
		if d != 0 && d%u.d == 0 {
			if d == u.d {
				return u.name
			}
			return fmt.Sprintf("%d * %s", d/u.d, u.name)
		}
	}
	return fmt.Sprintf("%d * time.Nanosecond", d)
}

// goFloat writes x as a Go float literal.
func goFloat(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// pyFloat writes x as a Python number.
func pyFloat(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// pySeconds writes d as Python seconds.
func pySeconds(d time.Duration) string { return pyFloat(d.Seconds()) }

// csTimeSpan writes d as a C# TimeSpan expression.
func csTimeSpan(d time.Duration) string {
	switch {
	case d%time.Second == 0:
		return fmt.Sprintf("TimeSpan.FromSeconds(%d)", d/time.Second)
	case d%time.Millisecond == 0:
		return fmt.Sprintf("TimeSpan.FromMilliseconds(%d)", d/time.Millisecond)
	}
	return fmt.Sprintf("TimeSpan.FromTicks(%d)", d/100)
}

// toLane maps cenkalti/backoff's ExponentialBackOff onto a lane.
func (c CenkaltiBackoff) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameCenkalti)
	l.MinDelay, l.MaxDelay, l.Factor, l.Jitter = c.InitialInterval, c.MaxInterval, c.Multiplier, c.RandomizationFactor
	l.MaxAttempts, l.Deadline = c.MaxTries, c.MaxElapsedTime
	return l, nil, nil, nil
}

func cenkaltiFromLane(l strategies.Params) (Config, []Warning, error) {
	why := otherRow("cenkalti/backoff", l, strategies.NameCenkalti)
	why = append(why, noLimiters(l, "cenkalti/backoff")...)
	return CenkaltiBackoff{InitialInterval: l.MinDelay, RandomizationFactor: l.Jitter, Multiplier: l.Factor, MaxInterval: l.MaxDelay,
		MaxTries: l.MaxAttempts, MaxElapsedTime: l.Deadline}, nil, cannot("cenkalti", why)
}

// toLane maps client-go's wait.Backoff onto a lane.
func (c ClientGoBackoff) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameClientGo)
	l.MinDelay, l.Factor, l.Jitter, l.MaxAttempts = c.Duration, c.Factor, c.Jitter, c.Steps
	if c.Cap > 0 {
		l.MaxDelay = c.Cap
	}
	return l, nil, nil, nil
}

func clientGoFromLane(l strategies.Params) (Config, []Warning, error) {
	why := otherRow("client-go", l, strategies.NameClientGo)
	why = append(why, noCount(l, "Steps")...)
	why = append(why, noDeadline(l, "client-go's wait.Backoff")...)
	why = append(why, noLimiters(l, "client-go")...)
	c := ClientGoBackoff{Duration: l.MinDelay, Factor: l.Factor, Jitter: l.Jitter, Steps: l.MaxAttempts}
	if l.MaxDelay != strategies.DefaultNoCap {
		c.Cap = l.MaxDelay
	}
	return c, nil, cannot("client-go", why)
}

// toLane maps tenacity's wait and stop onto a lane.
func (c Tenacity) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameTenacityExponential)
	if c.Random {
		l = laneOf(strategies.NameTenacityRandomExponential)
	}
	l.MinDelay, l.Factor, l.MaxAttempts, l.Deadline = c.Multiplier, c.ExpBase, c.StopAfterAttempt, c.StopAfterDelay
	if c.Max > 0 {
		l.MaxDelay = c.Max
	}
	return l, nil, nil, nil
}

func tenacityFromLane(l strategies.Params) (Config, []Warning, error) {
	why := otherRow("tenacity", l, strategies.NameTenacityExponential, strategies.NameTenacityRandomExponential)
	why = append(why, noLimiters(l, "tenacity")...)
	t := Tenacity{Random: l.Strategy == strategies.NameTenacityRandomExponential, Multiplier: l.MinDelay, ExpBase: l.Factor,
		StopAfterAttempt: l.MaxAttempts, StopAfterDelay: l.Deadline}
	if l.MaxDelay != strategies.DefaultNoCap {
		t.Max = l.MaxDelay
	}
	w := []Warning{{"min", "0, the lane's: tenacity raises every wait to min after the cap (max(min, min(wait, max))), which the lane's row does not; leave it 0"}}
	return t, w, cannot("tenacity", why)
}

// toLane maps urllib3's Retry onto a lane.
func (c Urllib3Retry) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameUrllib3)
	l.MinDelay, l.MaxDelay, l.MaxAttempts = c.BackoffFactor, c.BackoffMax, c.Total+1
	return l, nil, nil, nil
}

func urllib3FromLane(l strategies.Params) (Config, []Warning, error) {
	why := otherRow("urllib3", l, strategies.NameUrllib3)
	why = append(why, noCount(l, "total")...)
	why = append(why, noDeadline(l, "urllib3's Retry")...)
	why = append(why, noLimiters(l, "urllib3")...)
	w := []Warning{
		{"status_forcelist", "the lane retries every error answer; urllib3 retries an answer only if its status is listed: the ones written are the usual server errors: add your service's"},
		{"connect, read, redirect, status, other", "None: the lane counts every failure against max_attempts alone, as total does; urllib3 counts each of these kinds on its own when one is set (status=3 with total=6 stops retrying error answers after 4 attempts, where total allows 7)"},
		{"allowed_methods", "None: the lane retries every request; urllib3's default retries a read error, a timeout, only for idempotent methods"},
		{"backoff_jitter", "0.0, the lane's: urllib3 adds U[0,1)×backoff_jitter seconds to each wait before the cap, which the lane's row does not draw"},
	}
	return Urllib3Retry{Total: max(l.MaxAttempts-1, 0), BackoffFactor: l.MinDelay, BackoffMax: l.MaxDelay}, w, cannot("urllib3", why)
}
