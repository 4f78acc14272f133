// Package present writes numbers and durations as the pages say them to a
// reader: 100 ms, 20 s, 15 min, 1 h 15 min; 1230; 4 500/s. It is the one
// place their rules live in Go. The server writes every sentence a page
// shows with it (the explanation, the marks, the captions, the lane
// differences), so that the pages' scripts hold no second copy of a
// sentence's rule.
//
// The browser still writes what only it knows when it is drawn (an axis
// tick ECharts chose, the value under the pointer): static/common.js does
// that with the same rules, and testdata/formats.json is the one table of
// cases that this package's tests and the web package's browser test check
// both against.
package present

import (
	"math"
	"strconv"
	"strings"
)

// Sig writes v with at most n significant digits (n from 1 to 17), in
// plain decimal without exponent or trailing zeros: Sig(1234.5, 3) is
// "1230", Sig(0.000123456, 2) is "0.00012".
func Sig(v float64, n int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	n = min(max(n, 1), 17)
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', n, 64), 64)
	if err != nil { // FormatFloat's output always parses back
		return strconv.FormatFloat(v, 'g', n, 64)
	}
	if r == 0 {
		return "0" // not "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// Thousands writes v rounded to a whole number, its digits grouped by
// three with thin spaces (U+2009): 43 170.
func Thousands(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	if s == "0" {
		return "0"
	}
	var b strings.Builder
	b.WriteString(sign)
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteRune('\u2009')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Rate writes a rate (per second, without its unit) as a reader reads
// it: whole and grouped by thousands from 100 up, 3 significant digits
// under.
func Rate(v float64) string {
	if v >= 100 {
		return Thousands(v)
	}
	return Sig(v, 3)
}

// Duration writes sec seconds as a reader says them, with n significant
// digits: 100 ms under a second, 20 s under ten minutes, 2.5 min under an
// hour, then whole hours and minutes (1 h, 1 h 15 min). Zero is "0 s"; a
// negative duration is its magnitude with a minus sign; NaN is "–".
func Duration(sec float64, n int) string {
	switch a := math.Abs(sec); {
	case math.IsNaN(sec) || math.IsInf(sec, 0):
		return "–"
	case a == 0:
		return "0 s"
	case sec < 0:
		return "-" + Duration(-sec, n)
	case a < 1:
		return Sig(sec*1000, n) + " ms"
	case a < 600:
		return Sig(sec, n) + " s"
	case a < 3600:
		return Sig(sec/60, n) + " min"
	}
	// Whole minutes first, so that 1 h 59.9 min is 2 h, not 1 h 60 min.
	m := math.Round(sec / 60)
	h := math.Floor(m / 60)
	m -= h * 60
	if m == 0 {
		return strconv.FormatFloat(h, 'f', 0, 64) + " h"
	}
	return strconv.FormatFloat(h, 'f', 0, 64) + " h " + strconv.FormatFloat(m, 'f', 0, 64) + " min"
}
