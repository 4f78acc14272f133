package playground

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// marks.go finds the moments of a run that decide its outcome, lane by
// lane, from the rows the page gets and the outage's edges, so that the
// page annotates its charts where the story turns: when a lane's retries
// land, when the backlog floods in at the resume, when its service and its
// server came back. It also gives the levels a verdict is judged against
// (the server's healthy concurrency, 90 % of a lane's baseline) and, for
// a worker queue, its workers' rate. Nothing here is a fixed time: every
// moment comes from the run's own data.

// The kinds of mark, each annotated on one chart of its lane.
const (
	markRetries = "retries" // half the attempts that failed since the outage began have been retried
	markFlood   = "flood"   // the backlog enters the server at the resume
	markService = "service" // the service is back (Summary.ServiceRecoveredAfter)
	markServer  = "server"  // the server is back (Summary.ServerRecoveredAfter)
	markChange  = "change"  // a live change (a value, or the server by hand) the run took
)

// everyChart is the chart of a mark that every time chart of its lane
// shows: a live change changes the whole run from its time on.
const everyChart = "*"

// maxChangeMarks is how many of the latest live changes the marks show: a
// run holds up to scenario.MaxChanges, and every marks message carries
// them all.
const maxChangeMarks = 100

// markCharts is the chart that shows each kind of mark.
var markCharts = map[string]string{
	markRetries: "backoff",
	markFlood:   "server",
	markService: "throughput",
	markServer:  "server",
}

// minFailed is how many failed attempts a lane counts since the outage
// began before its retries can be said to land: a handful of timeouts of
// attempts sent just before the outage would otherwise decide it.
const minFailed = 10

// mark is one moment of a lane's run.
type mark struct {
	T     float64 `json:"t"` // virtual seconds
	Lane  int     `json:"lane"`
	Kind  string  `json:"kind"`
	Chart string  `json:"chart"` // the chart that shows it
	Label string  `json:"label"` // a few words, on the chart
	Text  string  `json:"text"`  // a sentence, for the panel
}

// level is a horizontal line on a lane's chart.
type level struct {
	Lane  int     `json:"lane"`
	Chart string  `json:"chart"`
	Axis  int     `json:"axis"`
	Value float64 `json:"value"`
	Label string  `json:"label"`
}

// marksMsg carries every mark and level of the run so far; each replaces
// the previous one.
type marksMsg struct {
	Type   string  `json:"type"` // "marks"
	Marks  []mark  `json:"marks"`
	Levels []level `json:"levels"`
}

// marker finds the marks of one run as its rows come. It keeps the marks of
// the latest outage only, so that a page that stops the server a thousand
// times does not grow them.
type marker struct {
	tick                    float64 // seconds a row spans
	nc                      int     // values per lane in a row
	retries, timeouts, errs int     // column indices
	backlog                 int
	down                    bool    // the server is down
	outage                  bool    // an outage has begun
	start, end              float64 // of the latest outage; end is NaN while it lasts
	lanes                   []laneMarks
	marks                   []mark
	changes                 []mark // the live changes', kept apart from the outage's marks
	levels                  []level
	changed                 bool      // since the last take
	healthy                 int       // the server's healthy concurrency
	capacity                float64   // a worker queue's rate, else NaN
	baseline                []float64 // each lane's, once an outage has fixed it
}

// laneMarks is what a marker keeps of one lane.
type laneMarks struct {
	failed, retried float64 // attempts since the outage began
	landed          bool    // its retries mark is set
	backlog         float64 // at the latest row
}

func columnIndex(name string) int { return slices.Index(scenario.Columns, name) }

// newMarker returns the marker of a run of p.
func newMarker(p *scenario.Params) *marker {
	m := &marker{tick: p.Tick.Seconds(), nc: len(scenario.Columns),
		retries: columnIndex("retries"), timeouts: columnIndex("timeouts"), errs: columnIndex("errors"),
		backlog: columnIndex("backlog"), end: math.NaN(), lanes: make([]laneMarks, len(p.Lanes)),
		baseline: make([]float64, len(p.Lanes))}
	m.setParams(p)
	return m
}

// setParams takes a live change of the run's parameters: the server's
// healthy level and a worker queue's rate may move.
func (m *marker) setParams(p *scenario.Params) {
	m.healthy, m.capacity = scenario.HealthyOf(p), math.NaN()
	if p.ServerModel == scenario.QueueModel && p.ServiceTime > 0 {
		m.capacity = float64(p.Workers) / p.ServiceTime.Seconds()
	}
	m.levelsOf()
}

// edge tells m that the server went down (at start) or came back (at end),
// before the first row that follows.
func (m *marker) edge(down bool, at float64) {
	if down == m.down {
		return
	}
	m.down = down
	if down {
		m.outage, m.start, m.end = true, at, math.NaN()
		m.marks = m.marks[:0]
		for i := range m.lanes {
			m.lanes[i] = laneMarks{backlog: m.lanes[i].backlog}
		}
		m.changed = true
		return
	}
	m.end = at
	for i, l := range m.lanes {
		if l.backlog > 0 {
			m.add(mark{T: at, Lane: i, Kind: markFlood,
				Label: fmt.Sprintf("resume: %s flood in", count(l.backlog)),
				Text: fmt.Sprintf("At the resume (%s) the %s connections waiting in the accept backlog entered the server at once.",
					atTime(at), count(l.backlog))})
		}
	}
}

// observe takes a row of eng's run as the engine emits it (see TickRow):
// an outage that began or ended since the previous row is an edge first.
// The engine emits a tick before a transition at the same time, so the
// last row of a pause still shows the backlog that the resume lets in.
func (m *marker) observe(r []float64, eng *simengine.Engine) {
	if d := eng.Down(); d != m.down {
		m.edge(d, outageEdge(eng, d))
	}
	m.row(r)
}

// outageEdge returns when eng's latest outage began (down) or ended.
func outageEdge(eng *simengine.Engine, down bool) float64 {
	ws, kinds := eng.Outages(), eng.OutageKinds()
	for i := len(ws) - 1; i >= 0; i-- {
		switch {
		case !scenario.IsOutage(kinds[i]):
		case down:
			return ws[i][0].Seconds()
		case ws[i][1] >= 0:
			return ws[i][1].Seconds()
		}
	}
	return eng.Now().Seconds()
}

// row takes one row of the run: t, then each lane's Columns.
func (m *marker) row(r []float64) {
	t := r[0]
	for i := range m.lanes {
		if 1+(i+1)*m.nc > len(r) {
			break
		}
		v := r[1+i*m.nc : 1+(i+1)*m.nc]
		l := &m.lanes[i]
		if b := v[m.backlog]; !math.IsNaN(b) {
			l.backlog = b
		}
		if !m.outage || l.landed {
			continue
		}
		f, rt := v[m.timeouts]+v[m.errs], v[m.retries]
		if math.IsNaN(f) || math.IsNaN(rt) {
			continue
		}
		l.failed += f * m.tick
		l.retried += rt * m.tick
		if l.failed >= minFailed && l.retried >= l.failed/2 {
			l.landed = true
			m.add(mark{T: t, Lane: i, Kind: markRetries, Label: "retries land: " + m.since(t),
				Text: fmt.Sprintf("Its retries landed %s: by then it had retried half of the %s attempts that failed since the outage began.",
					m.since(t), count(l.failed))})
		}
	}
}

// since says when t falls, counted from the latest outage's edges.
func (m *marker) since(t float64) string {
	if math.IsNaN(m.end) || t <= m.end {
		return fmt.Sprintf("%.1f s into the outage", t-m.start)
	}
	return fmt.Sprintf("%.1f s after the resume", t-m.end)
}

// summaries takes the lanes' latest summaries: their recoveries become
// marks, and their baselines the service level's lines.
func (m *marker) summaries(sums []scenario.Summary, ph scenario.Phase) {
	for i, s := range sums {
		if i >= len(m.lanes) {
			break
		}
		if ph.AnyOutage && s.BaselineOK != m.baseline[i] {
			m.baseline[i] = s.BaselineOK
			m.levelsOf()
		}
		if math.IsNaN(m.end) {
			continue
		}
		if s.ServiceRecoveredAfter != nil {
			m.add(mark{T: m.end + *s.ServiceRecoveredAfter, Lane: i, Kind: markService, Label: "service back",
				Text: fmt.Sprintf("Its service was back %.1f s after the resume: ok/s at %.0f %% of its baseline over the %g s from then on.",
					*s.ServiceRecoveredAfter, scenario.ServiceLevel*100, scenario.RecoveryWindow.Seconds())})
		}
		if s.ServerRecoveredAfter != nil {
			m.add(mark{T: m.end + *s.ServerRecoveredAfter, Lane: i, Kind: markServer, Label: "server back",
				Text: fmt.Sprintf("Its server was back %.1f s after the resume: at most %d requests inside over the %g s from then on.",
					*s.ServerRecoveredAfter, m.healthy, scenario.RecoveryWindow.Seconds())})
		}
	}
}

// add sets mk, unless its lane has a mark of its kind already.
func (m *marker) add(mk mark) {
	if slices.ContainsFunc(m.marks, func(o mark) bool { return o.Lane == mk.Lane && o.Kind == mk.Kind }) {
		return
	}
	mk.Chart = markCharts[mk.Kind]
	m.marks = append(m.marks, mk)
	m.changed = true
}

// levelsOf sets the levels: the server's healthy concurrency, a worker
// queue's rate, and each lane's service level once its baseline is fixed.
func (m *marker) levelsOf() {
	m.levels = m.levels[:0]
	for i := range m.lanes {
		m.levels = append(m.levels, level{Lane: i, Chart: "server", Axis: 0, Value: float64(m.healthy),
			Label: fmt.Sprintf("healthy: ≤ %d inside", m.healthy)})
		if !math.IsNaN(m.capacity) {
			m.levels = append(m.levels, level{Lane: i, Chart: "throughput", Axis: 0, Value: m.capacity,
				Label: fmt.Sprintf("workers serve %s/s", fmtRate(m.capacity))})
		}
		if b := m.baseline[i]; b > 0 {
			m.levels = append(m.levels, level{Lane: i, Chart: "throughput", Axis: 0, Value: scenario.ServiceLevel * b,
				Label: fmt.Sprintf("%.0f %% of baseline", scenario.ServiceLevel*100)})
		}
	}
	m.changed = true
}

// take returns the marks message when something changed since the last
// take, else nil.
func (m *marker) take() *marksMsg {
	if !m.changed {
		return nil
	}
	m.changed = false
	// Never null in JSON: the page reads them as lists.
	msg := &marksMsg{Type: "marks", Marks: append(append([]mark{}, m.marks...), m.changes...), Levels: append([]level{}, m.levels...)}
	slices.SortStableFunc(msg.Marks, func(a, b mark) int { return cmpFloat(a.T, b.T) })
	return msg
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// count writes a count of things, whole, with a thin space between
// thousands: 3 774.
func count(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}

// atTime writes a virtual time.
func atTime(t float64) string { return fmt.Sprintf("t = %s s", trimNum(t)) }

// setChanges takes the run's live changes so far (the latest
// maxChangeMarks of them): each is a mark on every chart of each lane it
// changed, at its virtual time, in the lane's words.
func (m *marker) setChanges(cs []scenario.Change) {
	cs = cs[max(0, len(cs)-maxChangeMarks):]
	m.changes = m.changes[:0]
	for _, c := range cs {
		for i := range m.lanes {
			if !c.Touches(i) {
				continue
			}
			own := c.OfLane(i)
			label := own.Outage + " by hand"
			if own.Outage == "" {
				label = strings.TrimPrefix(scenario.ChangesText([]scenario.Change{own}), "@"+own.At.String()+" ")
			}
			m.changes = append(m.changes, mark{T: own.At.Seconds(), Lane: i, Kind: markChange, Chart: everyChart,
				Label: label, Text: "Changed live: " + own.Words() + "; the rest of the run is judged with it."})
		}
	}
	m.changed = true
}
