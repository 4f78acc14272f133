package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// Tier is one inner tier of a lane's layered retries: a service between
// the lane's clients (tier 1) and the server that retries on its own. A
// call into it makes up to Attempts attempts at the tier below (the next
// tier, or the server for the bottom one), each abandoned after Timeout,
// waiting between them as Strategy does with the lane's delay parameters
// (min_delay, max_delay, factor, jitter), and asking Limiter, one of the
// lane's limiters by its switch's name, with that limiter's defaults.
type Tier struct {
	Strategy string
	Attempts int
	Timeout  time.Duration
	// Limiter is a limiter switch's name (grpc_throttle, aws_quota,
	// sre_throttle, retry_budget, breaker), turned on to its first value
	// other than off; "" for none.
	Limiter string
}

// MaxTiers bounds the inner tiers of a lane: with the clients, a chain of
// four (client, front end, back end, storage).
const MaxTiers = 3

// MaxTierAttempts bounds an inner tier's attempts per call: three tiers of
// ten already multiply a client's attempt into a thousand at the server.
const MaxTierAttempts = 10

// TierSyntax describes the tiers parameter's syntax, for help and errors.
const TierSyntax = "up to 3 tiers below the client, each strategy:attempts:timeout or strategy:attempts:timeout:limiter, comma-separated (such as fixed:3:1s,fixed:3:500ms:retry_budget); empty for none"

// TierStrategies returns the strategies an inner tier may use: every one
// but think_scaled, whose delays scale a client's think time, which a tier
// has not.
func TierStrategies() []string {
	return slices.DeleteFunc(strategies.Names(), func(s string) bool { return s == strategies.NameThinkScaled })
}

// TierLimiters returns the limiters an inner tier may ask, by the names of
// their switches in Table: its ScopeLimiter enums whose first value is
// off.
func TierLimiters() []string {
	var out []string
	for _, row := range Table {
		if row.Scope == ScopeLimiter && row.Type == TypeEnum && row.Switch == "" &&
			len(row.Choices) > 1 && row.Choices[0] == strategies.LimiterOff {
			out = append(out, row.Name)
		}
	}
	return out
}

// ParseTiers reads text, a lane's tiers parameter in TierSyntax: its
// inner tiers, top (the one the clients call) first. A bad list is an
// error that says which tier (numbered from 2, the client being tier 1),
// which field and value are bad, and what the field allows.
func ParseTiers(text string) ([]Tier, error) {
	if text == "" {
		return nil, nil
	}
	parts := strings.Split(text, ",")
	if len(parts) > MaxTiers {
		return nil, tooManyTiers(len(parts))
	}
	out := make([]Tier, 0, len(parts))
	for i, part := range parts {
		t, err := parseTier(part)
		if err != nil {
			return nil, badTier(i, part, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// checkTiers reports what ParseTiers would of ts written as text: too many
// tiers, or a bad field. It reads the typed values, with no text between.
func checkTiers(ts []Tier) error {
	if len(ts) > MaxTiers {
		return tooManyTiers(len(ts))
	}
	for i, t := range ts {
		if err := t.check(); err != nil {
			return badTier(i, t.String(), err)
		}
	}
	return nil
}

func tooManyTiers(n int) error {
	return fmt.Errorf("%d tiers, at most %d below the client", n, MaxTiers)
}

// badTier wraps err, the error of inner tier i (from 0) written text; the
// tier's number counts the client as tier 1.
func badTier(i int, text string, err error) error {
	return fmt.Errorf("tier %d (%q): %v", i+2, text, err)
}

func parseTier(s string) (Tier, error) {
	f := strings.Split(s, ":")
	if len(f) < 3 || len(f) > 4 {
		return Tier{}, fmt.Errorf("want strategy:attempts:timeout or strategy:attempts:timeout:limiter")
	}
	var t Tier
	if !tierStrategyOK(f[0]) {
		return Tier{}, tierStrategyError(f[0])
	}
	t.Strategy = f[0]
	n, err := strconv.Atoi(f[1])
	if err != nil || !tierAttemptsOK(n) {
		return Tier{}, tierAttemptsError(f[1])
	}
	t.Attempts = n
	d, err := parseDuration(f[2])
	if errors.Is(err, errFiner) {
		return Tier{}, fmt.Errorf("timeout %q is not %w", f[2], err)
	}
	if err != nil || !tierTimeoutOK(d) {
		return Tier{}, tierTimeoutError(f[2])
	}
	t.Timeout = d
	if len(f) == 4 {
		if !tierLimiterOK(f[3]) {
			return Tier{}, tierLimiterError(f[3])
		}
		t.Limiter = f[3]
	}
	return t, nil
}

// check reports, as parseTier would of t's text, a field of t out of its
// range.
func (t Tier) check() error {
	switch {
	case !tierStrategyOK(t.Strategy):
		return tierStrategyError(t.Strategy)
	case !tierAttemptsOK(t.Attempts):
		return tierAttemptsError(strconv.Itoa(t.Attempts))
	case !tierTimeoutOK(t.Timeout):
		return tierTimeoutError(t.Timeout.String())
	case t.Limiter != "" && !tierLimiterOK(t.Limiter):
		return tierLimiterError(t.Limiter)
	}
	return nil
}

func tierStrategyOK(name string) bool { return slices.Contains(TierStrategies(), name) }

func tierStrategyError(name string) error {
	return fmt.Errorf("strategy %q is not one of %s", name, strings.Join(TierStrategies(), ", "))
}

func tierAttemptsOK(n int) bool { return n >= 1 && n <= MaxTierAttempts }

func tierAttemptsError(text string) error {
	return fmt.Errorf("attempts %q is not a whole number from 1 to %d", text, MaxTierAttempts)
}

// tierTimeouts returns the range of a tier's timeout: the clients'
// timeout's.
func tierTimeouts() (lo, hi time.Duration) {
	row := Table[indexOf("timeout")]
	return time.Duration(row.Min), time.Duration(row.Max)
}

func tierTimeoutOK(d time.Duration) bool {
	lo, hi := tierTimeouts()
	return d >= lo && d <= hi
}

func tierTimeoutError(text string) error {
	lo, hi := tierTimeouts()
	return fmt.Errorf("timeout %q is not a duration from %v to %v", text, lo, hi)
}

func tierLimiterOK(name string) bool { return slices.Contains(TierLimiters(), name) }

func tierLimiterError(name string) error {
	return fmt.Errorf("limiter %q is not one of %s", name, strings.Join(TierLimiters(), ", "))
}

// String writes t as ParseTiers reads it.
func (t Tier) String() string {
	s := t.Strategy + ":" + strconv.Itoa(t.Attempts) + ":" + t.Timeout.String()
	if t.Limiter != "" {
		s += ":" + t.Limiter
	}
	return s
}

// TiersText writes ts as a lane's tiers parameter, which ParseTiers reads
// back.
func TiersText(ts []Tier) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ",")
}

// Params returns the strategy parameters of a tier of a lane whose own are
// lane: the tier's strategy with the lane's delays (min_delay, max_delay,
// factor, jitter, min_connect_timeout, per_try_timeout, backoff_type,
// use_jitter), the tier's attempts as
// max_attempts, no deadline, and every limiter off but the tier's, on with
// its defaults. t must be valid.
func (t Tier) Params(lane strategies.Params) strategies.Params {
	p, _ := strategies.Defaults(t.Strategy)
	p.MinDelay, p.MaxDelay, p.Factor, p.Jitter = lane.MinDelay, lane.MaxDelay, lane.Factor, lane.Jitter
	p.MinConnectTimeout, p.PerTryTimeout = lane.MinConnectTimeout, lane.PerTryTimeout
	p.BackoffType, p.UseJitter = lane.BackoffType, lane.UseJitter
	p.MaxAttempts, p.Deadline = t.Attempts, 0
	if t.Limiter != "" {
		// Turn the switch on through its row, so that a new limiter needs
		// no case here.
		row := Table[indexOf(t.Limiter)]
		ps := Params{Lanes: []Lane{{Params: p}}}
		*row.field(&ps, 0).(*string) = row.Choices[1]
		p = ps.Lanes[0].Params
	}
	return p
}
