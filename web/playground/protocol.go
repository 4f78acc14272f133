package playground

import (
	"encoding/json"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web/scene"
)

// The WebSocket protocol: JSON text messages, each with a "type".
//
// Page to server:
//
//	{"type":"set","query":"clients=1000&a.strategy=fixed&…"}  the whole scenario, as the page's URL query
//	                                                            ("" for every default; a set without it is an error);
//	                                                            b.source=real makes lane b real (web/playground/real.go)
//	{"type":"outage","on":true}                                 stop (true) or resume (false) the server now
//	{"type":"speed","speed":"10"}                               virtual seconds per wall second, or "max"
//	{"type":"play"} {"type":"pause"} {"type":"reset"}           the playback ("resume", play's old name, still plays)
//
// A restart (reset, a set the running simulation cannot take on the fly, or
// any set once the run reached its end) runs the new run from t = 0 and
// plays it, whether the old one was paused or finished.
//
// Server to page:
//
//	hello    after connecting and after every restart: the run's canonical query, lanes and columns;
//	         the page clears its charts. Each lane says its source: sim, or real (with its server's
//	         address while it runs): a real HTTP server and clients on loopback whose measurements
//	         replace the lane's simulated values in the ticks (web/playground/real.go)
//	tick     one or more ticks: each a flat array [t, lane a's Columns…, lane b's Columns…]
//	summary  every lane's Summary, and its verdict in words and tone, whenever one changes or
//	         the run's phase does (an outage starts or ends, the run ends)
//	state    virtual time, the last tick row's time, playing or not, speed, server down or not, done, and the outage
//	         windows that changed since the previous state (outages_from: the first one's index)
//	delays   the delay-by-retry quantiles of one lane's strategy, after hello and every set
//	requests every lane's requests that ended, binned by latency, with their percentiles, the
//	         patience and the share that succeeded within it (requests.go): with the summaries,
//	         when requests ended, at most every 250 ms while the run plays
//	params   the canonical query after a set or outage that applied, or a replayed live change
//	         (the page puts it in its URL): the run's values at t = 0 and its live changes
//	         (changes=@48s b.factor=1.1 @60s stop), beside settings, the values in effect; and
//	         boxes: what each number box of the run shows, as in hello
//	marks    the moments that decide each lane's outcome so far (its retries landing, the
//	         backlog flooding in at the resume, its service and its server back) and the
//	         levels its verdict is judged by, for the charts' annotations (marks.go); each
//	         replaces the previous one
//
// hello and params carry explain too: the "What you are seeing" panel of
// the run (explain.go), in words with the run's numbers; and captions, what
// an exported chart of each lane shows (scenario.LaneCaption).
//
// hello and params carry boxes, each number box's text (seconds for a
// duration) and slider position, computed as the page renders them
// (boxesOf): the page neither parses nor writes Go durations nor maps values
// to slider positions. Moving a slider shows the text of the page's slider
// table (pageData.Scales) at once; typing in a box moves its slider when
// the params answer comes.
//
// hello and params carry rules too (rules.go): which controls the run does
// not read, so that the page hides them; the preset whose run it is, at any
// speed; the links to the run's phase map, seed bands and advice. The
// server computes them once; the page draws them and decides none.
//	error    a bad value or request: the parameter's name (empty when none) and the message
//	rules    after the errors of a refused set: the rules of the values the page's controls
//	         hold (their hidden controls), with the preset and links of the run in effect
//
// The page's CSV and JSON exports do not go over the socket: the page posts
// its rows to /export.csv or /export.json (web/playground/pageexport.go), and the
// session keeps no history for them.
//
// Nothing the page sends can stop a session except closing the socket: a bad
// message (not JSON, a field of the wrong JSON type, which the error names,
// or longer than 64 KiB) is answered with an error and the simulation goes
// on.
//
// A real lane runs in real time: while one is in the scenario, speed is 1, and
// a change of what it is made of (clients, think, timeout, server, its
// strategy, seed), of which lane is real, a reset or a pause stops its
// server and clients; play after a pause restarts the run from 0.

// messageAliases are the old names of message types, which a page loaded
// before they changed still sends: resume was play's name.
var messageAliases = map[string]string{"resume": "play"}

// inMsg is any message from the page.
type inMsg struct {
	Type  string `json:"type"`
	Query string `json:"query"`
	On    bool   `json:"on,omitempty"`
	Speed string `json:"speed,omitempty"`
}

// helloMsg starts (or restarts) a run on the page.
type helloMsg struct {
	Type string `json:"type"` // "hello"
	// Query is the run's canonical query, its live changes included:
	// opening it replays the run shown. Settings is the values in effect,
	// without the changes: the run of these settings from t = 0, which
	// the controls show.
	Query    string     `json:"query"`
	Settings string     `json:"settings"`
	Duration float64    `json:"duration"` // seconds
	Tick     float64    `json:"tick"`     // seconds
	Lanes    []laneInfo `json:"lanes"`
	Columns  []string   `json:"columns"`
	// MaxOutages is how many outage windows the run remembers: the page
	// keeps as many.
	MaxOutages int                  `json:"max_outages"`
	Boxes      map[string]scene.Box `json:"boxes"` // every number box of the run
	// FaultKinds says of each fault kind whether it takes the server down
	// and the colour that shades its windows; Plan is the run's scheduled
	// faults, so that the page shades a window as soon as it begins.
	FaultKinds []faultKindInfo `json:"fault_kinds"`
	Plan       []planWindow    `json:"plan"`
	Explain    explainView     `json:"explain"`
	// Captions say what an exported chart of each lane shows
	// (scenario.LaneCaption): the page puts them under its images.
	Captions []string `json:"captions"`
	// Heads are the lanes' headings (scenario.LaneHeads): each lane's
	// strategy in words and what else sets it apart from the others.
	Heads []string `json:"heads"`
	// Picture is what the live picture of each lane's system needs.
	Picture pictureView `json:"picture"`
	// Rules are what the page shows that follows from the run: the
	// controls it hides, its preset, its links (rules.go).
	Rules pageRules `json:"rules"`
}

// faultKindInfo is one fault kind for the page.
type faultKindInfo struct {
	Name   string `json:"name"`
	Outage bool   `json:"outage"`
	Color  string `json:"color"`
	Help   string `json:"help"`
}

// planWindow is a scheduled fault's window, in seconds.
type planWindow struct {
	At   float64 `json:"at"`
	End  float64 `json:"end"`
	Kind string  `json:"kind"`
}

type laneInfo struct {
	Name     string `json:"name"`
	Strategy string `json:"strategy"`
	Source   string `json:"source"`         // sim, or real: a real HTTP server and clients (real.go)
	Addr     string `json:"addr,omitempty"` // a running real lane's server, host:port on loopback
}

// tickMsg carries ticks in order; each row is t then every lane's Columns.
// A null stands for a percentile with no value.
type tickMsg struct {
	Type  string      `json:"type"` // "tick"
	Ticks [][]float64 `json:"-"`
}

// MarshalJSON writes the rows with the engine's number format, nulls for NaN.
func (m tickMsg) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 64+len(m.Ticks)*200)
	b = append(b, `{"type":"tick","ticks":[`...)
	for i, row := range m.Ticks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for j, v := range row {
			if j > 0 {
				b = append(b, ',')
			}
			b = scenario.AppendNumber(b, v)
		}
		b = append(b, ']')
	}
	return append(b, "]}"...), nil
}

type summaryMsg struct {
	Type  string             `json:"type"` // "summary"
	Lanes []scenario.Summary `json:"lanes"`
	// Verdicts put each lane's summary in words for the page, in the
	// run's phase: the page shows their headlines as they are.
	Verdicts []scenario.Verdict `json:"verdicts"`
}

// stateMsg tells the page where the run stands.
type stateMsg struct {
	Type string  `json:"type"` // "state"
	T    float64 `json:"t"`    // virtual seconds
	// LastRowT is the t of the last tick row queued before this message
	// (-1 when the run has sent none): rows follow their state message, so
	// a page that saw the run pause has every row once its last has it.
	LastRowT float64 `json:"last_row_t"`
	Playing  bool    `json:"playing"`
	Done     bool    `json:"done"` // the run reached its duration
	Speed    string  `json:"speed"`
	Down     bool    `json:"down"`
	// Outages are the fault windows that changed since the previous
	// state message, [start, end, kind], times in seconds, end -1 while
	// it lasts; OutagesFrom is the first one's index counted from the
	// run's start. The page keeps the latest hello.max_outages windows.
	Outages     [][3]any `json:"outages"`
	OutagesFrom int      `json:"outages_from"`
	// Note says how a real lane behaves now (running, or stopped until Play
	// restarts the run); empty when no lane is real.
	Note string `json:"note,omitempty"`
}

// delaysMsg is a lane's delay before each retry, as strategies.RetryDelays
// measures it: per retry, the draws that reached it and their waits' 5th,
// 50th and 95th percentiles and maximum.
type delaysMsg struct {
	Type  string    `json:"type"` // "delays"
	Lane  int       `json:"lane"`
	Retry []int     `json:"retry"`
	Draws []int     `json:"draws"`
	P5    []float64 `json:"p5"` // seconds
	P50   []float64 `json:"p50"`
	P95   []float64 `json:"p95"`
	Max   []float64 `json:"max"`
}

type paramsMsg struct {
	Type string `json:"type"` // "params"
	// Query and Settings are as in hello.
	Query    string               `json:"query"`
	Settings string               `json:"settings"`
	Boxes    map[string]scene.Box `json:"boxes"` // every number box of the run
	Plan     []planWindow         `json:"plan"`  // the scheduled faults, as in hello
	// Explain is the run's panel, as in hello: a server model or a
	// number it quotes may have changed.
	Explain explainView `json:"explain"`
	// Captions are the lanes' captions, and Heads their headings, as in
	// hello.
	Captions []string `json:"captions"`
	Heads    []string `json:"heads"`
	// Picture is the picture's view of the run, as in hello.
	Picture pictureView `json:"picture"`
	// Rules are the run's rules, as in hello.
	Rules pageRules `json:"rules"`
}

// rulesMsg follows the errors of a refused set: the rules of the values
// the page's controls hold (which controls hide) with the preset and
// links of the run in effect, which the set did not change.
type rulesMsg struct {
	Type  string    `json:"type"` // "rules"
	Rules pageRules `json:"rules"`
}

type errorMsg struct {
	Type    string `json:"type"`  // "error"
	Param   string `json:"param"` // the parameter's vocabulary name, or ""
	Message string `json:"message"`
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("web: " + err.Error())
	}
	return b
}
