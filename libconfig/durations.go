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

// protoDuration matches the JSON form of google.protobuf.Duration: seconds
// with up to nine fractional digits and the suffix "s" ("0.1s", "30s").
var protoDuration = regexp.MustCompile(`^(-?)([0-9]+)(?:\.([0-9]{1,9}))?s$`)

// parseProtoDuration reads a google.protobuf.Duration in its JSON form, the
// form gRPC's service config and Envoy's YAML use. Durations beyond
// time.Duration's ±292 years (the proto allows ±10 000 years) are refused.
func parseProtoDuration(s string) (time.Duration, error) {
	m := protoDuration.FindStringSubmatch(s)
	if m == nil {
		return 0, errDuration
	}
	sec, err := strconv.ParseInt(m[2], 10, 64)
	if err != nil || sec > math.MaxInt64/int64(time.Second)-1 {
		return 0, errDuration
	}
	frac := m[3] + strings.Repeat("0", 9-len(m[3]))
	nanos, _ := strconv.ParseInt(frac, 10, 64)
	d := time.Duration(sec)*time.Second + time.Duration(nanos)
	if m[1] == "-" {
		d = -d
	}
	return d, nil
}

// formatProtoDuration writes d as google.protobuf.Duration's JSON form,
// with as few fractional digits as are exact: "0.025s", "1s".
func formatProtoDuration(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
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
		return 0, errDuration
	}
	return d, nil
}

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
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, errDuration
	}
	var u *unit
	if suffix == "" {
		u = bare
	}
	for k := range units {
		if strings.EqualFold(units[k].suffix, suffix) {
			u = &units[k]
		}
	}
	if u == nil || n > math.MaxInt64/int64(u.d) || n < math.MinInt64/int64(u.d) {
		return 0, errDuration
	}
	return time.Duration(n) * u.d, nil
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
	var d float64
	for i, u := range []time.Duration{24 * time.Hour, time.Hour, time.Minute, time.Second} {
		if m[2+i] == "" {
			continue
		}
		n, err := strconv.ParseInt(m[2+i], 10, 64)
		if err != nil {
			return 0, errDuration
		}
		d += float64(n) * float64(u)
	}
	if m[6] != "" {
		frac, _ := strconv.ParseInt(m[6]+strings.Repeat("0", 9-len(m[6])), 10, 64)
		if strings.HasPrefix(m[5], "-") {
			frac = -frac
		}
		d += float64(frac)
	}
	if m[1] == "-" {
		d = -d
	}
	if math.Abs(d) >= math.MaxInt64 {
		return 0, errDuration
	}
	return time.Duration(d), nil
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
	if days, err := strconv.ParseInt(s, 10, 64); err == nil {
		if days < 0 || days > 10675199 {
			return 0, errDuration
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	m := timeSpan.FindStringSubmatch(s)
	if m == nil {
		return 0, errDuration
	}
	atoi := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	days, h, min, sec := atoi(m[2]), atoi(m[3]), atoi(m[4]), atoi(m[5])
	if h > 23 || min > 59 || sec > 59 || days > 100_000 {
		return 0, errDuration
	}
	d := time.Duration(days)*24*time.Hour + time.Duration(h)*time.Hour + time.Duration(min)*time.Minute + time.Duration(sec)*time.Second
	if m[6] != "" {
		d += time.Duration(atoi(m[6]+strings.Repeat("0", 7-len(m[6])))) * 100
	}
	if m[1] == "-" {
		d = -d
	}
	return d, nil
}

// formatTimeSpan writes d as TimeSpan's constant ("c") format,
// [-][d.]hh:mm:ss[.fffffff], the form .NET writes and reads back.
func formatTimeSpan(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
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
