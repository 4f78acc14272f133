package scene

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/kit"
)

// Scenario is everything a URL's query holds: the simulation's
// parameters, the playback speed and which lane, if any, is real. Every
// view of a scenario reads its URL into one: the playground plays it, the
// seed bands run it headless (DecodeScenario), and their links back keep
// its speed.
type Scenario struct {
	Params scenario.Params
	Speed  Speed // virtual seconds per wall second, or max
	// Real is the letter of the lane that runs for real (a real HTTP
	// server and clients on loopback, in the playground), or "" when every
	// lane is simulated. At most one lane is real.
	Real string
}

// RealLane returns the index of st's real lane, or -1.
func (st Scenario) RealLane() int {
	if st.Real == "" {
		return -1
	}
	return strings.IndexByte(scenario.LaneNames, st.Real[0])
}

// The page's per-lane parameter <letter>.source, beside the engine's
// vocabulary: sim (the default) or real.
const (
	SourceParam = "source"
	SourceSim   = "sim"
	SourceReal  = "real"
	// SourceHelp is the source control's one-line meaning.
	SourceHelp = "real: a real HTTP server and clients on loopback, in real time (≤ 2000 clients, speed 1×)"
)

// MaxRealClients caps the clients of a run with a real lane: each is a
// goroutine and a connection of this process.
const MaxRealClients = 2000

// SourceOf reports whether name is a lane's source parameter, and its lane.
func SourceOf(name string) (int, bool) {
	if len(name) != 2+len(SourceParam) || name[1] != '.' || name[2:] != SourceParam {
		return -1, false
	}
	i := strings.IndexByte(scenario.LaneNames, name[0])
	return i, i >= 0
}

// realRules checks what a run with a real lane needs: real time, at most
// MaxRealClients clients, an outage the real server can do (pause), and
// the simulator's defaults for what only the simulator implements.
func realRules(st Scenario, lim kit.Limits) []*scenario.ParamError {
	if st.Real == "" {
		return nil
	}
	var errs []*scenario.ParamError
	if st.Speed.Factor != 1 {
		errs = append(errs, RealSpeedError(st.Speed.Text))
	}
	if p := st.Params; p.Clients > MaxRealClients && p.Clients <= lim.MaxClients {
		errs = append(errs, &scenario.ParamError{Name: "clients", Value: strconv.Itoa(p.Clients),
			Allow: fmt.Sprintf("a whole number from 1 to %d while a lane is real", MaxRealClients)})
	}
	if o := st.Params.Outage; o != scenario.OutageNone && o != scenario.OutagePause {
		errs = append(errs, &scenario.ParamError{Name: "outage", Value: o,
			Allow: "none or pause while a lane is real (the real server can only pause)"})
	}
	def := scenario.Defaults()
	for _, row := range scenario.Table {
		if !row.SimOnly || row.Lane || !scenario.ReadsParam(&st.Params, row.Name) {
			continue
		}
		if v, d := row.Value(&st.Params, 0), row.Value(&def, 0); v != d {
			errs = append(errs, &scenario.ParamError{Name: row.Name, Value: v,
				Allow: d + " while a lane is real (the real experiment does not implement another)"})
		}
	}
	// The real lane's own rows that only the simulator implements (its
	// tiers): their defaults, which no strategy changes.
	if i := st.RealLane(); i >= 0 && i < len(st.Params.Lanes) {
		defLane := scenario.Params{Lanes: []scenario.Lane{scenario.DefaultLane(i)}}
		for _, row := range scenario.Table {
			if !row.SimOnly || !row.Lane || !scenario.ReadsLaneParam(&st.Params, i, row.Name) {
				continue
			}
			if v, d := row.Value(&st.Params, i), row.Value(&defLane, 0); v != d {
				if d == "" {
					d = "empty"
				}
				errs = append(errs, &scenario.ParamError{Name: st.Real + "." + row.Name, Value: v,
					Allow: d + " on the real lane (the real experiment does not implement another)"})
			}
		}
	}
	return errs
}

func RealSpeedError(speed string) *scenario.ParamError {
	return &scenario.ParamError{Name: SpeedParam, Value: speed, Allow: "1 while a lane is real"}
}

const SpeedMax = "max"

// DefaultSpeed is the speed of a URL that names none: the landing view's
// two minutes in 30 s of watching, its outage 5 s in and its verdicts at
// the end (TestDefaultSpeedTellsTheLandingStory). A run with a real lane
// runs at 1 (real time) instead; a URL that names a speed keeps it.
const DefaultSpeed = "4"

// SpeedParam is the page's own parameter, beside the engine's vocabulary.
const SpeedParam = "speed"

// speedRange bounds a numeric speed.
const speedMin, speedTop = 0.1, 1000.0

// Speed is a playback speed, read once from its text: its factor,
// virtual seconds per wall second (0 for max), and the text it was written
// as, which the run's link writes back as it was.
type Speed struct {
	Factor float64
	Text   string
}

// SpeedOf is the speed of a text that ParseSpeed reads and that a program
// wrote: DefaultSpeed, "1", a speed menu's choice.
func SpeedOf(s string) Speed {
	sp, err := ParseSpeed(s)
	if err != nil {
		panic("web/scene: " + err.Error()) // a speed of ours: a bug
	}
	return sp
}

// ParseSpeed reads a speed: a number within the speeds' range, or max.
func ParseSpeed(s string) (Speed, error) {
	if s == SpeedMax {
		return Speed{Factor: 0, Text: s}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f >= speedMin && f <= speedTop) {
		return Speed{}, &scenario.ParamError{Name: SpeedParam, Value: s,
			Allow: fmt.Sprintf("a number from %g to %g, or max", speedMin, speedTop)}
	}
	return Speed{Factor: f, Text: s}, nil
}

// Decode reads a whole scenario from a query, validating every value
// through the parameter table and the server's limits. It is the one place
// where a page's URL, a WebSocket set message and an export request are
// decoded, once kit.ParseQuery has read them.
func Decode(q url.Values, lim kit.Limits) (Scenario, []*scenario.ParamError) {
	q = kit.CloneValues(q)
	st := Scenario{Speed: SpeedOf(DefaultSpeed)}
	var errs []*scenario.ParamError
	_, speedGiven := q[SpeedParam]
	if v, ok := q[SpeedParam]; ok {
		if sp, err := ParseSpeed(v[len(v)-1]); err != nil {
			errs = append(errs, err.(*scenario.ParamError))
		} else {
			st.Speed = sp
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
		if raw != SourceSim && raw != SourceReal {
			errs = append(errs, &scenario.ParamError{Name: name, Value: raw, Allow: "one of " + SourceSim + ", " + SourceReal})
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
		name := scenario.LaneNames[i:i+1] + "." + SourceParam
		switch {
		case k == "":
		case i >= len(p.Lanes):
			errs = append(errs, &scenario.ParamError{Name: name, Value: k,
				Allow: fmt.Sprintf("lanes a to %c only (lanes=%d)", scenario.LaneNames[len(p.Lanes)-1], len(p.Lanes))})
		case k == SourceReal && st.Real != "":
			errs = append(errs, &scenario.ParamError{Name: name, Value: k,
				Allow: fmt.Sprintf("sim: at most one lane may be real (lane %s is)", st.Real)})
		case k == SourceReal:
			st.Real = scenario.LaneNames[i : i+1]
		}
	}
	errs = append(errs, lim.RunBoundErrors(p)...)
	st.Params = p
	if st.Real != "" && !speedGiven {
		st.Speed = SpeedOf("1") // a real lane runs in real time
	}
	return st, append(errs, realRules(st, lim)...)
}

// DecodeLenient is Decode for rendering a page from a URL that may hold bad
// values: it drops each bad value (the page shows it with its message) and
// reads the rest, so a typo in one parameter keeps every other one. An
// error between two parameters is reported from the side of the one the
// URL gives (b.min_delay=1h names b.min_delay, whose value is dropped,
// rather than lane b's max_delay, which the URL left at its default).
func DecodeLenient(q url.Values, lim kit.Limits) (Scenario, []*scenario.ParamError) {
	q = kit.CloneValues(q)
	var all []*scenario.ParamError
	for {
		st, errs := Decode(q, lim)
		if len(errs) == 0 {
			return st, all
		}
		// An error of values the URL does not give waits for the next
		// round: dropping another value may clear it.
		var ungiven []*scenario.ParamError
		for _, e := range errs {
			given := false
			for _, side := range Sides(e) {
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
			st, _ := Decode(url.Values{}, lim)
			return st, append(all, ungiven...)
		}
	}
}

// Sides returns e and, for an error between two parameters, the same
// error from its other parameter's side: a page that cannot tell which one
// the user changed shows it under both.
func Sides(e *scenario.ParamError) []*scenario.ParamError {
	if e.Other == nil {
		return []*scenario.ParamError{e}
	}
	return []*scenario.ParamError{e, e.Other}
}

// Query writes st as the canonical query of its URL (st.Values, encoded).
func (st Scenario) Query() string { return scenario.EncodeQuery(st.Values()) }

// Values are the values of st's canonical query before they are encoded:
// what differs from the defaults and the run reads
// (scenario.Params.Canonical), with its live changes, the speed when it is
// not the default one, and the real lane's source (sim is the default). A
// form that carries the scenario as hidden fields writes these.
func (st Scenario) Values() url.Values {
	q := st.Params.Canonical()
	def := DefaultSpeed
	if st.Real != "" {
		def = "1"
	}
	if st.Speed.Text != def {
		q.Set(SpeedParam, st.Speed.Text)
	}
	if st.Real != "" {
		q.Set(st.Real+"."+SourceParam, SourceReal)
	}
	return q
}

// Settings is st without its live changes: the run of the values in
// effect from t = 0.
func (st Scenario) Settings() Scenario {
	st.Params = st.Params.Clone()
	st.Params.Changes = nil
	return st
}

// DecodeScenario is Decode for the headless runs (the playground's
// exports, the seed bands, the phase map's scenario), which simulate only:
// a real lane runs on the playground's page, live. Every error names its
// parameter.
func DecodeScenario(q url.Values, lim kit.Limits) (Scenario, []*scenario.ParamError) {
	st, errs := Decode(q, lim)
	if st.Real != "" {
		errs = append(errs, &scenario.ParamError{Name: st.Real + "." + SourceParam, Value: SourceReal,
			Allow: "sim (real lanes run live only; export from the page)"})
	}
	return st, errs
}
