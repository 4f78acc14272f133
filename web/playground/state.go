package playground

import (
	"net/url"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/scene"
)

// state is a URL's scenario (scene.Scenario) as the page and its session
// keep it: its parameters p, its playback speed and its real lane's
// letter, "" when every lane is simulated.
type state struct {
	p     scenario.Params
	speed scene.Speed
	real  string
}

// stateOf is the playground's state of a scenario.
func stateOf(s scene.Scenario) state { return state{p: s.Params, speed: s.Speed, real: s.Real} }

// scenario is st as web/scene reads and writes it.
func (st state) scenario() scene.Scenario {
	return scene.Scenario{Params: st.p, Speed: st.speed, Real: st.real}
}

// realLane returns the index of st's real lane, or -1.
func (st state) realLane() int { return st.scenario().RealLane() }

// encode writes st as the canonical query of its URL (scene.Scenario.Query).
func (st state) encode() string { return st.scenario().Query() }

// settings is st without its live changes: the run of the values in
// effect from t = 0.
func (st state) settings() state { return stateOf(st.scenario().Settings()) }

// decode reads a whole state from a query (scene.Decode): the page's URL,
// a set message, a posted page's export.
func decode(q url.Values, lim Limits) (state, []*scenario.ParamError) {
	s, errs := scene.Decode(q, lim)
	return stateOf(s), errs
}

// decodeLenient is scene.DecodeLenient: a page's URL, its bad values
// dropped.
func decodeLenient(q url.Values, lim Limits) (state, []*scenario.ParamError) {
	s, errs := scene.DecodeLenient(q, lim)
	return stateOf(s), errs
}

// decodeExport is scene.DecodeScenario: a headless export, every lane
// simulated.
func decodeExport(q url.Values, lim Limits) (state, []*scenario.ParamError) {
	s, errs := scene.DecodeScenario(q, lim)
	return stateOf(s), errs
}
