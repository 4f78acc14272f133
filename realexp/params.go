package realexp

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// vocab returns the vocabulary's parameter param; an unknown name is a bug.
func vocab(param string) scenario.Param {
	p, _, ok := scenario.Lookup(param)
	if !ok {
		panic("realexp: no parameter " + param)
	}
	return p
}

// Report intervals: from 10 ms to 1 h.
const minReport, maxReport = 10 * time.Millisecond, time.Hour

func checkReport(name string, v time.Duration, zeroOK bool) error {
	if v >= minReport && v <= maxReport || zeroOK && v == 0 {
		return nil
	}
	return &scenario.ParamError{Name: name, Value: v.String(),
		Allow: fmt.Sprintf("a duration from %v to %v", minReport, maxReport)}
}

// ParseSeconds parses raw as a Go duration ("10s") or, as 001's -lambda
// took it, a plain number of seconds ("10", "0.5"), checking it against the
// range of the vocabulary's parameter param.
func ParseSeconds(name, param, raw string, dst *time.Duration) error {
	if f, err := strconv.ParseFloat(raw, 64); err == nil {
		p := vocab(param)
		ns := f * float64(time.Second)
		if !(ns >= p.Min && ns <= p.Max) || math.IsInf(f, 0) {
			return &scenario.ParamError{Name: name, Value: raw, Allow: p.Allowed() + ", or as many seconds"}
		}
		*dst = time.Duration(ns)
		return nil
	}
	if err := vocab(param).Set(dst, name, raw); err != nil {
		err.(*scenario.ParamError).Allow += ", or as many seconds"
		return err
	}
	return nil
}
