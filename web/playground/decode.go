package playground

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/kit"
)

// state is everything a URL's query holds: the simulation's parameters, the
// playback speed and which lane, if any, is real.
type state struct {
	p     scenario.Params
	speed speed // virtual seconds per wall second, or max
	// real is the letter of the lane that runs for real (a real HTTP server
	// and clients on loopback, see real.go), or "" when every lane is
	// simulated. At most one lane is real.
	real string
}

// realLane returns the index of st's real lane, or -1.
func (st state) realLane() int {
	if st.real == "" {
		return -1
	}
	return strings.IndexByte(scenario.LaneNames, st.real[0])
}

// The page's per-lane parameter <letter>.source, beside the engine's
// vocabulary: sim (the default) or real.
const (
	sourceParam = "source"
	SourceSim   = "sim"
	sourceReal  = "real"
	// sourceHelp is the source control's one-line meaning.
	sourceHelp = "real: a real HTTP server and clients on loopback, in real time (≤ 2000 clients, speed 1×)"
)

// maxRealClients caps the clients of a run with a real lane: each is a
// goroutine and a connection of this process.
const maxRealClients = 2000

// SourceOf reports whether name is a lane's source parameter, and its lane.
func SourceOf(name string) (int, bool) {
	if len(name) != 2+len(sourceParam) || name[1] != '.' || name[2:] != sourceParam {
		return -1, false
	}
	i := strings.IndexByte(scenario.LaneNames, name[0])
	return i, i >= 0
}

// realRules checks what a run with a real lane needs: real time, at most
// maxRealClients clients, an outage the real server can do (pause), and
// the simulator's defaults for what only the simulator implements.
func realRules(st state, lim Limits) []*scenario.ParamError {
	if st.real == "" {
		return nil
	}
	var errs []*scenario.ParamError
	if st.speed.factor != 1 {
		errs = append(errs, realSpeedError(st.speed.text))
	}
	if p := st.p; p.Clients > maxRealClients && p.Clients <= lim.MaxClients {
		errs = append(errs, &scenario.ParamError{Name: "clients", Value: strconv.Itoa(p.Clients),
			Allow: fmt.Sprintf("a whole number from 1 to %d while a lane is real", maxRealClients)})
	}
	if o := st.p.Outage; o != scenario.OutageNone && o != scenario.OutagePause {
		errs = append(errs, &scenario.ParamError{Name: "outage", Value: o,
			Allow: "none or pause while a lane is real (the real server can only pause)"})
	}
	def := scenario.Defaults()
	for _, row := range scenario.Table {
		if !row.SimOnly || row.Lane || !scenario.ReadsParam(&st.p, row.Name) {
			continue
		}
		if v, d := row.Value(&st.p, 0), row.Value(&def, 0); v != d {
			errs = append(errs, &scenario.ParamError{Name: row.Name, Value: v,
				Allow: d + " while a lane is real (the real experiment does not implement another)"})
		}
	}
	// The real lane's own rows that only the simulator implements (its
	// tiers): their defaults, which no strategy changes.
	if i := st.realLane(); i >= 0 && i < len(st.p.Lanes) {
		defLane := scenario.Params{Lanes: []scenario.Lane{scenario.DefaultLane(i)}}
		for _, row := range scenario.Table {
			if !row.SimOnly || !row.Lane || !scenario.ReadsLaneParam(&st.p, i, row.Name) {
				continue
			}
			if v, d := row.Value(&st.p, i), row.Value(&defLane, 0); v != d {
				if d == "" {
					d = "empty"
				}
				errs = append(errs, &scenario.ParamError{Name: st.real + "." + row.Name, Value: v,
					Allow: d + " on the real lane (the real experiment does not implement another)"})
			}
		}
	}
	return errs
}

func realSpeedError(speed string) *scenario.ParamError {
	return &scenario.ParamError{Name: SpeedParam, Value: speed, Allow: "1 while a lane is real"}
}

const speedMax = "max"

// DefaultSpeed is the speed of a URL that names none: the landing view's
// two minutes in 30 s of watching, its outage 5 s in and its verdicts at
// the end (TestDefaultSpeedTellsTheLandingStory). A run with a real lane
// runs at 1 (real time) instead; a URL that names a speed keeps it.
const DefaultSpeed = "4"

// SpeedParam is the page's own parameter, beside the engine's vocabulary.
const SpeedParam = "speed"

// speedRange bounds a numeric speed.
const speedMin, speedTop = 0.1, 1000.0

// speed is a playback speed, read once from its text: its factor, virtual
// seconds per wall second (0 for max), and the text it was written as,
// which the run's link writes back as it was.
type speed struct {
	factor float64
	text   string
}

// speedOf is the speed of a text that parseSpeed reads, and that a
// program wrote: DefaultSpeed, "1", a speed menu's choice.
func speedOf(s string) speed {
	sp, err := parseSpeed(s)
	if err != nil {
		panic("web: " + err.Error()) // a speed of ours: a bug
	}
	return sp
}

// parseSpeed reads a speed: a number within the speeds' range, or max.
func parseSpeed(s string) (speed, error) {
	if s == speedMax {
		return speed{factor: 0, text: s}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= speedMin && f <= speedTop) {
		return speed{}, &scenario.ParamError{Name: SpeedParam, Value: s,
			Allow: fmt.Sprintf("a number from %g to %g, or max", speedMin, speedTop)}
	}
	return speed{factor: f, text: s}, nil
}

// decode reads a whole state from a query, validating every value through
// the parameter table and the server's limits. It is the one place where the
// page's URL, a WebSocket set message and an export request are decoded,
// once kit.ParseQuery has read them.
func decode(q url.Values, lim Limits) (state, []*scenario.ParamError) {
	q = kit.CloneValues(q)
	st := state{speed: speedOf(DefaultSpeed)}
	var errs []*scenario.ParamError
	_, speedGiven := q[SpeedParam]
	if v, ok := q[SpeedParam]; ok {
		if sp, err := parseSpeed(v[len(v)-1]); err != nil {
			errs = append(errs, err.(*scenario.ParamError))
		} else {
			st.speed = sp
		}
		delete(q, SpeedParam)
	}
	// The lanes' kinds, in lane order; a bad one is reported here.
	var kinds [scenario.MaxLanes]string
	highest := -1 // the highest lane letter with a source
	for name, v := range q {
		i, ok := SourceOf(name)
		if !ok {
			continue // e.source: Parse reports it as no such parameter
		}
		raw := v[len(v)-1]
		delete(q, name)
		if raw != SourceSim && raw != sourceReal {
			errs = append(errs, &scenario.ParamError{Name: name, Value: raw, Allow: "one of " + SourceSim + ", " + sourceReal})
			continue
		}
		kinds[i], highest = raw, max(highest, i)
	}
	// Within the server's bounds: every error names the range in force
	// here, and a live change is held to them as the values at t = 0 are.
	p, err := scenario.ParseWithin(q, lim.Bounds())
	if err == nil && highest >= len(p.Lanes) && !q.Has("lanes") {
		// As for any lane parameter, the highest lane letter given sets the
		// number of lanes when lanes is not given.
		q.Set("lanes", strconv.Itoa(highest+1))
		p, err = scenario.ParseWithin(q, lim.Bounds())
	}
	if err != nil {
		return st, append(errs, scenario.Errors(err)...)
	}
	for i, k := range kinds {
		name := scenario.LaneNames[i:i+1] + "." + sourceParam
		switch {
		case k == "":
		case i >= len(p.Lanes):
			errs = append(errs, &scenario.ParamError{Name: name, Value: k,
				Allow: fmt.Sprintf("lanes a to %c only (lanes=%d)", scenario.LaneNames[len(p.Lanes)-1], len(p.Lanes))})
		case k == sourceReal && st.real != "":
			errs = append(errs, &scenario.ParamError{Name: name, Value: k,
				Allow: fmt.Sprintf("sim: at most one lane may be real (lane %s is)", st.real)})
		case k == sourceReal:
			st.real = scenario.LaneNames[i : i+1]
		}
	}
	errs = append(errs, lim.RunBoundErrors(p)...)
	st.p = p
	if st.real != "" && !speedGiven {
		st.speed = speedOf("1") // a real lane runs in real time
	}
	return st, append(errs, realRules(st, lim)...)
}

// decodeExport is decode for the headless exports, which simulate only: a
// real lane runs on the page, live.
func decodeExport(q url.Values, lim Limits) (state, []*scenario.ParamError) {
	st, errs := decode(q, lim)
	if st.real != "" {
		errs = append(errs, &scenario.ParamError{Name: st.real + "." + sourceParam, Value: sourceReal,
			Allow: "sim (real lanes run live only; export from the page)"})
	}
	return st, errs
}

// decodeLenient is decode for rendering a page from a URL that may hold bad
// values: it drops each bad value (the page shows it with its message) and
// reads the rest, so a typo in one parameter keeps every other one. An
// error between two parameters is reported from the side of the one the
// URL gives (b.min_delay=1h names b.min_delay, whose value is dropped,
// rather than lane b's max_delay, which the URL left at its default).
func decodeLenient(q url.Values, lim Limits) (state, []*scenario.ParamError) {
	q = kit.CloneValues(q)
	var all []*scenario.ParamError
	for {
		st, errs := decode(q, lim)
		if len(errs) == 0 {
			return st, all
		}
		// An error of values the URL does not give waits for the next
		// round: dropping another value may clear it.
		var ungiven []*scenario.ParamError
		for _, e := range errs {
			given := false
			for _, side := range sides(e) {
				if _, ok := q[side.Name]; ok {
					all = append(all, side)
					delete(q, side.Name)
					given = true
				}
			}
			if !given {
				ungiven = append(ungiven, e)
			}
		}
		if len(ungiven) == len(errs) { // nothing left to drop: the defaults
			st, _ := decode(url.Values{}, lim)
			return st, append(all, ungiven...)
		}
	}
}

// sides returns e and, for an error between two parameters, the same
// error from its other parameter's side: a page that cannot tell which one
// the user changed shows it under both.
func sides(e *scenario.ParamError) []*scenario.ParamError {
	if e.Other == nil {
		return []*scenario.ParamError{e}
	}
	return []*scenario.ParamError{e, e.Other}
}

// encode writes st as the canonical query of its URL: what differs from
// the defaults and the run reads (scenario.Params.Canonical), with its live
// changes, the speed when it is not the default one, and the real lane's
// source (sim is the default).
func (st state) encode() string {
	q := st.p.Canonical()
	def := DefaultSpeed
	if st.real != "" {
		def = "1"
	}
	if st.speed.text != def {
		q.Set(SpeedParam, st.speed.text)
	}
	if st.real != "" {
		q.Set(st.real+"."+sourceParam, sourceReal)
	}
	return scenario.EncodeQuery(q)
}

// settings is st without its live changes: the run of the values in
// effect from t = 0.
func (st state) settings() state {
	st.p = st.p.Clone()
	st.p.Changes = nil
	return st
}

// Scenario is a URL's scenario as the views that run it headless read it
// (the seed bands): its parameters, and the speed the playground played
// it at, which its link back keeps.
type Scenario struct {
	Params scenario.Params
	Speed  string
}

// Query is the scenario's canonical query, the playground's own.
// A link writes a speed's text only, as the URL wrote it.
func (s Scenario) Query() string { return state{p: s.Params, speed: speed{text: s.Speed}}.encode() }

// DecodeScenario reads a URL's scenario as the playground's headless
// export reads it (decodeExport): every lane simulated, within lim. Every
// error names its parameter.
func DecodeScenario(q url.Values, lim Limits) (Scenario, []*scenario.ParamError) {
	st, errs := decodeExport(q, lim)
	return Scenario{Params: st.p, Speed: st.speed.text}, errs
}
