package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"backofflab/simengine"
)

// Limits are the caps that protect the machine from one page's run.
type Limits struct {
	MaxSessions int           // simultaneous WebSocket sessions
	MaxClients  int           // clients per run
	MaxDuration time.Duration // virtual time per run
}

// DefaultLimits suit a 2-core machine serving a few hundred pages.
var DefaultLimits = Limits{MaxSessions: 256, MaxClients: 20_000, MaxDuration: time.Hour}

// state is everything a URL's query holds: the simulation's parameters and
// the playback speed.
type state struct {
	p     simengine.Params
	speed string // a number of virtual seconds per wall second, or "max"
}

const speedMax = "max"

// speedParam is the page's own parameter, beside the engine's vocabulary.
const speedParam = "speed"

// speedRange bounds a numeric speed.
const speedMin, speedTop = 0.1, 1000.0

// parseSpeed returns the factor of a speed, 0 for max.
func parseSpeed(s string) (float64, error) {
	if s == speedMax {
		return 0, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= speedMin && f <= speedTop) {
		return 0, &simengine.ParamError{Name: speedParam, Value: s,
			Allow: fmt.Sprintf("a number from %g to %g, or max", speedMin, speedTop)}
	}
	return f, nil
}

// decode reads a whole state from a query, validating every value through
// the parameter table and the server's limits. It is the one place where the
// page's URL, a WebSocket set message and an export request are read.
func decode(q url.Values, lim Limits) (state, []*simengine.ParamError) {
	q = cloneValues(q)
	st := state{speed: "1"}
	var errs []*simengine.ParamError
	if v, ok := q[speedParam]; ok {
		raw := v[len(v)-1]
		if _, err := parseSpeed(raw); err != nil {
			errs = append(errs, err.(*simengine.ParamError))
		} else {
			st.speed = raw
		}
		delete(q, speedParam)
	}
	p, err := simengine.Parse(q)
	if err != nil {
		return st, append(errs, simengine.Errors(err)...)
	}
	if p.Clients > lim.MaxClients {
		errs = append(errs, &simengine.ParamError{Name: "clients", Value: strconv.Itoa(p.Clients),
			Allow: fmt.Sprintf("a whole number from 1 to %d on this server", lim.MaxClients)})
	}
	if p.Duration > lim.MaxDuration {
		errs = append(errs, &simengine.ParamError{Name: "duration", Value: p.Duration.String(),
			Allow: fmt.Sprintf("a duration from 1s to %v on this server", lim.MaxDuration)})
	}
	st.p = p
	return st, errs
}

// decodeLenient is decode for rendering a page from a URL that may hold bad
// values: it drops each bad value (the page shows it with its message) and
// reads the rest, so a typo in one parameter keeps every other one.
func decodeLenient(q url.Values, lim Limits) (state, []*simengine.ParamError) {
	q = cloneValues(q)
	var all []*simengine.ParamError
	for {
		st, errs := decode(q, lim)
		if len(errs) == 0 {
			return st, all
		}
		all = append(all, errs...)
		dropped := false
		for _, e := range errs {
			if _, ok := q[e.Name]; ok {
				delete(q, e.Name)
				dropped = true
			}
		}
		if !dropped { // a cross-field error: fall back to the defaults
			st, _ := decode(url.Values{}, lim)
			return st, all
		}
	}
}

// encode writes st as the canonical query of its URL.
func (st state) encode() string {
	q := st.p.Encode()
	q.Set(speedParam, st.speed)
	return q.Encode()
}

func cloneValues(q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// errorText joins errors for a plain-text response.
func errorText(errs []*simengine.ParamError) string {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}
