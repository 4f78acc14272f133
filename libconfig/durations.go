package libconfig

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// errDuration is a duration that its format does not read.
var errDuration = errors.New("not a duration")

// rangeError is a duration written in its format's syntax but longer than
// time.Duration's ±292 years, the longest a lane holds: Max is that bound
// in the same syntax (and unit, where the format has units), for the
// error to name.
type rangeError struct{ Max string }

func (e rangeError) Error() string { return "a duration longer than " + e.Max }

// maxDuration is the longest duration there is.
const maxDuration = time.Duration(math.MaxInt64)

// addDuration is a + b, or false when the sum overflows.
func addDuration(a, b time.Duration) (time.Duration, bool) {
	s := a + b
	return s, (s > a) == (b > 0)
}

// mulDuration is n × u for a unit u > 0, or false when it overflows.
func mulDuration(n int64, u time.Duration) (time.Duration, bool) {
	if n > math.MaxInt64/int64(u) || n < math.MinInt64/int64(u) {
		return 0, false
	}
	return time.Duration(n) * u, true
}

// protoDuration matches the JSON form of google.protobuf.Duration: seconds
// with up to nine fractional digits and the suffix "s" ("0.1s", "30s").
var protoDuration = regexp.MustCompile(`^(-?)([0-9]+)(?:\.([0-9]{1,9}))?s$`)

// parseProtoDuration reads a google.protobuf.Duration in its JSON form, the
// form gRPC's service config and Envoy's YAML use. Durations beyond
// time.Duration's ±292 years (the proto allows ±10 000 years) are a
// rangeError.
func parseProtoDuration(s string) (time.Duration, error) {
	m := protoDuration.FindStringSubmatch(s)
	if m == nil {
		return 0, errDuration
	}
	frac := m[3] + strings.Repeat("0", 9-len(m[3]))
	nanos, _ := strconv.ParseInt(frac, 10, 64)
	sec, err := strconv.ParseInt(m[2], 10, 64)
	d, ok := mulDuration(sec, time.Second)
	if ok {
		d, ok = addDuration(d, time.Duration(nanos))
	}
	if err != nil || !ok {
		return 0, rangeError{formatProtoDuration(maxDuration)}
	}
	return withSign(m[1], d), nil
}

// formatProtoDuration writes d as google.protobuf.Duration's JSON form,
// with as few fractional digits as are exact: "0.025s", "1s".
func formatProtoDuration(d time.Duration) string {
	sign, d := splitSign(d)
	sec, nanos := int64(d/time.Second), int64(d%time.Second)
	if nanos == 0 {
		return fmt.Sprintf("%s%ds", sign, sec)
	}
	frac := strings.TrimRight(fmt.Sprintf("%09d", nanos), "0")
	return fmt.Sprintf("%s%d.%ss", sign, sec, frac)
}

// parseGoDuration reads Go's duration syntax ("1h", "1m30s", "250ms"), which
// Istio documents as "1h/1m/1s/1ms" and Linkerd's ServiceProfile ttl uses.
func parseGoDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		if goDurationSyntax.MatchString(s) {
			return 0, rangeError{formatGoDuration(maxDuration)}
		}
		return 0, errDuration
	}
	return d, nil
}

// goDurationSyntax matches Go's duration syntax, so that a duration that
// time.ParseDuration refuses in it is one too long, not malformed.
var goDurationSyntax = regexp.MustCompile(`^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+$`)

// formatGoDuration writes d in Go's syntax.
func formatGoDuration(d time.Duration) string { return d.String() }

// unit is a duration unit of the simple formats (Spring's, Linkerd's).
type unit struct {
	suffix string
	d      time.Duration
}

// largestUnit writes d as a whole number of the largest unit of units
// (ordered largest first) that divides it.
func largestUnit(d time.Duration, units []unit) string {
	for _, u := range units {
		if d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(d), 10) + "ns"
}

// simpleDuration reads a whole number followed by one of units; bare is the
// unit of a number without a suffix, or nil where a suffix is required.
func simpleDuration(s string, units []unit, bare *unit) (time.Duration, error) {
	s = strings.TrimSpace(s)
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	num, suffix := s[:i], s[i:]
	var u *unit
	if suffix == "" {
		u = bare
	}
	for k := range units {
		if strings.EqualFold(units[k].suffix, suffix) {
			u = &units[k]
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if u == nil || err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, errDuration
	}
	d, ok := mulDuration(n, u.d)
	if err != nil || !ok {
		return 0, rangeError{strconv.FormatInt(math.MaxInt64/int64(u.d), 10) + u.suffix}
	}
	return d, nil
}

// springUnits are the units of Spring Boot's simple duration format
// (DurationStyle.SIMPLE: a whole number and ns, us, ms, s, m, h or d;
// milliseconds when the unit is left out), largest first.
var springUnits = []unit{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second},
	{"ms", time.Millisecond}, {"us", time.Microsecond}, {"ns", time.Nanosecond}}

// isoDuration matches the ISO-8601 form java.time.Duration.parse reads:
// PnDTnHnMn.nS, each part optional and signed.
var isoDuration = regexp.MustCompile(`(?i)^([-+]?)P(?:([-+]?[0-9]+)D)?(?:T(?:([-+]?[0-9]+)H)?(?:([-+]?[0-9]+)M)?(?:([-+]?[0-9]+)(?:[.,]([0-9]{0,9}))?S)?)?$`)

// parseSpringDuration reads a duration as Spring Boot binds a
// java.time.Duration property (DurationStyle.detect): the simple format
// ("500ms", "10s", or "500", milliseconds) or ISO-8601 ("PT0.5S").
func parseSpringDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	m := isoDuration.FindStringSubmatch(s)
	if m == nil {
		return simpleDuration(s, springUnits, &springUnits[4])
	}
	if m[2] == "" && m[3] == "" && m[4] == "" && m[5] == "" || strings.HasSuffix(strings.ToUpper(s), "T") {
		return 0, errDuration // "P", "PT" and "P1DT" name no amount, as Java refuses them
	}
	tooLong := rangeError{"PT2562047H47M16.854775807S"} // maxDuration, as Java writes it
	var d time.Duration
	for i, u := range []time.Duration{24 * time.Hour, time.Hour, time.Minute, time.Second} {
		if m[2+i] == "" {
			continue
		}
		n, err := strconv.ParseInt(m[2+i], 10, 64)
		part, ok := mulDuration(n, u)
		if ok {
			d, ok = addDuration(d, part)
		}
		if err != nil || !ok {
			return 0, tooLong
		}
	}
	if m[6] != "" {
		frac, _ := strconv.ParseInt(m[6]+strings.Repeat("0", 9-len(m[6])), 10, 64)
		if strings.HasPrefix(m[5], "-") {
			frac = -frac
		}
		var ok bool
		if d, ok = addDuration(d, time.Duration(frac)); !ok {
			return 0, tooLong
		}
	}
	if m[1] == "-" {
		if d == math.MinInt64 {
			return 0, tooLong
		}
		d = -d
	}
	return d, nil
}

// formatSpringDuration writes d in Spring's simple format with the largest
// exact unit: "500ms", "10s", "2m".
func formatSpringDuration(d time.Duration) string { return largestUnit(d, springUnits) }

// linkerdUnits are the units Linkerd's policy controller reads in a
// duration annotation: a whole number with ms, s, m, h or d (a unit is
// required).
var linkerdUnits = []unit{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}, {"ms", time.Millisecond}}

// parseLinkerdDuration reads a Linkerd annotation's duration ("300ms", "5s").
func parseLinkerdDuration(s string) (time.Duration, error) {
	if strings.HasPrefix(strings.TrimSpace(s), "-") || strings.HasPrefix(strings.TrimSpace(s), "+") {
		return 0, errDuration
	}
	return simpleDuration(s, linkerdUnits, nil)
}

// formatLinkerdDuration writes d as a Linkerd annotation's duration.
func formatLinkerdDuration(d time.Duration) string { return largestUnit(d, linkerdUnits) }

// timeSpan matches .NET's TimeSpan.Parse forms that Microsoft's
// configuration binder reads: [-][d.]hh:mm[:ss[.fffffff]], or a whole
// number of days.
var timeSpan = regexp.MustCompile(`^(-?)(?:([0-9]+)\.)?([0-9]{1,2}):([0-9]{1,2})(?::([0-9]{1,2})(?:\.([0-9]{1,7}))?)?$`)

// parseTimeSpan reads a .NET TimeSpan as the configuration binder does
// (TimeSpan.Parse with the invariant culture): hours 0–23, minutes and
// seconds 0–59, up to seven fractional digits (100 ns ticks).
func parseTimeSpan(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	tooLong := rangeError{formatTimeSpan(maxDuration / 100 * 100)} // in whole ticks
	if days, err := strconv.ParseInt(s, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) && isDigits(s) {
		if days < 0 {
			return 0, errDuration
		}
		d, ok := mulDuration(days, 24*time.Hour)
		if err != nil || !ok {
			return 0, tooLong
		}
		return d, nil
	}
	m := timeSpan.FindStringSubmatch(s)
	if m == nil {
		return 0, errDuration
	}
	atoi := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	h, min, sec := atoi(m[3]), atoi(m[4]), atoi(m[5])
	if h > 23 || min > 59 || sec > 59 {
		return 0, errDuration
	}
	days, err := strconv.ParseInt(m[2], 10, 64)
	if m[2] == "" {
		days, err = 0, nil
	}
	d, ok := mulDuration(days, 24*time.Hour)
	if ok {
		d, ok = addDuration(d, time.Duration(h)*time.Hour+time.Duration(min)*time.Minute+time.Duration(sec)*time.Second)
	}
	if ok && m[6] != "" {
		d, ok = addDuration(d, time.Duration(atoi(m[6]+strings.Repeat("0", 7-len(m[6]))))*100)
	}
	if err != nil || !ok {
		return 0, tooLong
	}
	return withSign(m[1], d), nil
}

// formatTimeSpan writes d as TimeSpan's constant ("c") format,
// [-][d.]hh:mm:ss[.fffffff], the form .NET writes and reads back.
func formatTimeSpan(d time.Duration) string {
	sign, d := splitSign(d)
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	h, m, s := d/time.Hour, d%time.Hour/time.Minute, d%time.Minute/time.Second
	ticks := d % time.Second / 100
	out := sign
	if days > 0 {
		out += fmt.Sprintf("%d.", days)
	}
	out += fmt.Sprintf("%02d:%02d:%02d", h, m, s)
	if ticks > 0 {
		out += fmt.Sprintf(".%07d", ticks)
	}
	return out
}

// splitSign returns d's sign as a duration's text writes it ("-" or "")
// and its magnitude.
func splitSign(d time.Duration) (string, time.Duration) {
	if d < 0 {
		return "-", -d
	}
	return "", d
}

// withSign returns d, negated when sign, as a duration's text wrote it, is
// "-".
func withSign(sign string, d time.Duration) time.Duration {
	if sign == "-" {
		return -d
	}
	return d
}
