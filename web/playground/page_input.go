package playground

import (
	"net/url"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/scene"
)

// playgroundScripts are the playground's modules under /static/: one file
// per concern, each importing what it uses. app.js, which starts the page,
// imports all the others; the page names them all so that the browser
// fetches them at once rather than as it finds each import.
var playgroundScripts = []string{"play-state.js", "play-controls.js", "play-socket.js", "play-charts.js",
	"play-draw.js", "play-explain.js", "play-exports.js", "play-picture.js", "play-library.js", "app.js"}

// pageInput is what the playground page shows. handlePlayground fills it
// from the request's URL; the page's components (page.templ) render it.
type pageInput struct {
	// Scenario is what the page starts with: the URL's valid values over
	// the defaults.
	Scenario scene.Scenario
	// Query is Scenario's canonical URL query, for the address bar and the socket.
	Query string
	// Raw holds the URL's values as given, so that a bad one stays visible
	// in its control beside its message.
	Raw url.Values
	// Errors are the URL's bad values, each naming its parameter.
	Errors []*scenario.ParamError
	// Presets are the named shortcuts, each a full URL query.
	Presets []Preset
	// Limits are the server's caps, for the controls' ranges.
	Limits Limits
	// Libraries are the libraries each lane's "Your library" section
	// offers, with their measured presets; nil shows them without presets.
	Libraries []libraryView
}

// Preset is a named shortcut to a full URL query. Its Description ends
// with what the engine measured for it, not what its sources promise, and
// its Outcomes say the same in a few words, lane by lane, for its chip.
type Preset struct {
	Name        string // the identifier, as in ?preset=name
	Title       string
	Query       string
	Description string
	Outcomes    []PresetOutcome
	// key is its run's runKey: the preset is the current one of a run
	// of the same key, played at any speed.
	key string
}

// PresetOutcome is what the engine measured for one lane of a preset's
// finished run.
type PresetOutcome struct {
	Lane     string // the lane's letter
	Strategy string
	Brief    string // the verdict's outcome in a few words (scenario.Verdict.Brief)
	Tone     string // the verdict's tone: scenario.ToneGood, ToneBad, or ""
}
