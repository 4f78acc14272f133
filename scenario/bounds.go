package scenario

import (
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"time"
)

// Bounds are a program's own caps on rows of Table, tighter than the
// table's ranges: a server that allows fewer clients or a shorter run than
// the vocabulary does. A run read within them (ParseWithin) is held to
// them in its values at t = 0 and in every value a live change sets, and
// every error names the range in force, not the table's. The zero Bounds
// are the table's own ranges.
type Bounds struct {
	// Max holds each capped row's largest value by row name, in the row's
	// units (nanoseconds for a duration). A cap above the row's own Max
	// changes nothing.
	Max map[string]float64
	// Where says whose caps they are, after the range in an error, such
	// as "on this server".
	Where string
}

// Row returns p, a row of Table, with its range within b: the range its
// Set, Check and errors then take, for a program that reads a value of p
// its own way (a map's axis).
func (b Bounds) Row(p Param) Param { return b.row(p) }

// row returns p with its range within b: the range an error then names.
func (b Bounds) row(p Param) Param {
	if m, ok := b.Max[p.Name]; ok && m < p.Max {
		p.Max = m
		p.where = b.Where
	}
	return p
}

// set parses raw into ptr as row's Set does, within b: a run's changes
// are read with their values held to b too.
func (b Bounds) set(row Param, ptr any, name, raw string) error {
	if dst, ok := ptr.(*[]Change); ok {
		cs, err := parseChanges(raw, b)
		if err != nil {
			return &ParamError{Name: name, Value: raw, Allow: err.Error() + "; " + ChangesSyntax}
		}
		*dst = cs
		return nil
	}
	return b.row(row).Set(ptr, name, raw)
}

// Errors checks the values of p that b caps, at t = 0 and in each of p's
// live changes, naming each value at fault and the range in force: for a
// program that set p's values itself (a map's cell, an advice's run)
// rather than through ParseWithin. A change's error is the changes
// parameter's, naming the change.
func (b Bounds) Errors(p *Params) []*ParamError {
	var errs []*ParamError
	for _, row := range Table {
		if _, ok := b.Max[row.Name]; !ok {
			continue
		}
		lanes := 1
		if row.Lane {
			lanes = len(p.Lanes)
		}
		for i := range lanes {
			name := row.Name
			if row.Lane {
				name = laneName(i, row.Name)
			}
			if err := b.row(row).Check(row.field(p, i), name); err != nil {
				errs = append(errs, err.(*ParamError))
			}
		}
	}
	for k, c := range p.Changes {
		for _, a := range c.Set {
			row, lane, ok := Lookup(a.Name)
			if _, capped := b.Max[row.Name]; !ok || !capped || !sameType(row.field(p, max(lane, 0)), a.Value) {
				continue
			}
			scratch := Params{Lanes: make([]Lane, max(lane+1, 1))}
			ptr := row.field(&scratch, max(lane, 0))
			a.Apply(&scratch)
			if err := b.row(row).Check(ptr, a.Name); err != nil {
				errs = append(errs, changesError(p, fmt.Errorf("change %d: %w", k+1, err)))
			}
		}
	}
	return errs
}

// ParseWithin is Parse within b: every value, at t = 0 or set by a live
// change, within b's caps as well as its row's range, and every error
// naming the range in force.
func ParseWithin(q url.Values, b Bounds) (Params, error) { return parse(q, b) }

// allowedWhere is p.Allowed with whose caps they are, when they are a
// program's own (Bounds.Where).
func (p Param) allowedWhere() string {
	if p.where == "" {
		return p.Allowed()
	}
	return p.Allowed() + " " + p.where
}

// Resolution is the finest virtual time the engine keeps: a duration
// finer than it would be rounded, and is refused instead.
const Resolution = time.Nanosecond

// errFiner is parseDuration's error for a duration finer than Resolution.
var errFiner = fmt.Errorf("a whole number of nanoseconds (the engine's resolution is %v)", Resolution)

// parseDuration reads a Go duration as time.ParseDuration does, but
// refuses one finer than the engine's resolution (errFiner):
// ParseDuration drops the digits past the nanosecond in silence, so that
// @0.0000000001s would be @0s. Every duration of the vocabulary's syntaxes
// is read by it.
func parseDuration(s string) (time.Duration, error) {
	t, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if finerThanNanoseconds(s) {
		return 0, errFiner
	}
	return t, nil
}

// finerThanNanoseconds reports whether s, a duration time.ParseDuration
// reads, has a number whose value in its unit is not a whole number of
// nanoseconds (0.5ns, 1.0000000001s), which ParseDuration truncates, each
// number on its own as ParseDuration does.
func finerThanNanoseconds(s string) bool {
	s = strings.TrimLeft(s, "+-")
	isNum := func(c byte) bool { return c >= '0' && c <= '9' || c == '.' }
	for s != "" {
		i := 0
		for i < len(s) && isNum(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isNum(s[j]) {
			j++
		}
		num, unit := s[:i], s[i:j]
		s = s[j:]
		if !strings.Contains(num, ".") {
			continue
		}
		v, ok := new(big.Rat).SetString(num)
		if !ok || !v.Mul(v, new(big.Rat).SetInt64(int64(unitNanos[unit]))).IsInt() {
			return true
		}
	}
	return false
}

// unitNanos is each unit time.ParseDuration reads, in nanoseconds.
var unitNanos = map[string]time.Duration{"ns": time.Nanosecond, "us": time.Microsecond, "µs": time.Microsecond, "μs": time.Microsecond,
	"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour}
