package playground

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

const (
	// stepEvery is how often a session advances its simulation in wall time.
	stepEvery = 50 * time.Millisecond
	// maxBurst is the wall time a session at speed max may spend in the
	// engine per step, so that every session gets its share of the cores
	// (the page is answered between slices whatever it is).
	maxBurst = 30 * time.Millisecond
	// maxMessage bounds a message from the page; a longer one is refused.
	// The longest the page sends, a set with every parameter, is ~2 KiB.
	maxMessage = 64 << 10
	// writeTimeout bounds one message's write to a stalled page.
	writeTimeout = 5 * time.Second
	// sliceEvents is the most events the simulation processes before it
	// looks at the page's messages again: a few milliseconds of work at
	// any parameters, so a page is answered, and a closed page's session
	// ends, at once.
	sliceEvents = simengine.SliceEvents
)

// session is one page's live simulation. Three goroutines serve it: the
// simulation (run), which alone touches the engine; the reader, which hands
// the page's messages to run; and the writer, which sends what run leaves
// in the outbox. A slow page only makes the outbox coalesce.
type session struct {
	conn *websocket.Conn
	log  *slog.Logger
	lim  Limits
	in   chan inMsg
	// initial are the errors to show as the session starts: the URL's bad
	// values, and a real lane refused for want of a slot.
	initial []errorMsg
	// slots counts the server's sessions with a real lane.
	slots *realSlots
	// stopped is closed when run returns: the reader stops handing it messages.
	stopped chan struct{}
	// mem is the run's memory budget, drawn from the server's pool; the
	// session gives it all back when it ends.
	mem *budget.Account

	// Owned by run.
	eng *simengine.Engine
	sc  scene.Scenario
	// presets are the presets whose runs the rules name (pageRules.Preset).
	presets []presetKey
	playing bool
	lastSum []scenario.Summary
	// lastPhase is the run's phase when the page got its verdicts: they
	// change with it (an outage starts, the run ends) as with the summary.
	lastPhase scenario.Phase
	// lastTaken is how many live changes the verdicts mention.
	lastTaken int
	// target is the virtual time the engine is to reach, slice by slice;
	// burstEnd is the wall time until which a run at speed max may work
	// before it waits for the next step.
	target   time.Duration
	burstEnd time.Time
	rows     [][]float64 // the current slice's rows
	// lastRowT is the t of the last row queued for the page since the
	// last hello, -1 before the first: a state message says it, so that a
	// page (or a test) that sees a pause knows when the rows queued before
	// it have all arrived.
	lastRowT float64
	// sentOutages and sentOpen are what the page knows of the outage
	// windows: how many (counted from the run's start) and whether the
	// last one was still open, so that a state message carries only the
	// windows that changed.
	sentOutages int
	sentOpen    bool
	// holdsSlot: the session counts in slots (its scenario has a real lane).
	holdsSlot bool
	// lanes are the current run's lane sources, one per lane (see
	// laneSource): where each lane's values come from.
	lanes []laneSource
	// marks finds the moments that decide the run's outcome, for the
	// page's annotations (marks.go).
	marks *marker
	// taken is how many of the run's live changes the page has been told
	// of: a replay's changes, taken by the engine at their times, move
	// the page's controls (params) as they come.
	taken int

	out outbox
}

// newSession returns the session of sc's run, whose memory mem bounds. It
// fails with mem's *budget.ExceededError when the run's initial state
// does not fit.
func newSession(conn *websocket.Conn, log *slog.Logger, lim Limits, slots *realSlots, mem *budget.Account, sc scene.Scenario, bad []*scenario.ParamError) (*session, error) {
	// The URL's live changes are the engine's to take at their times; the
	// session's state is the values in effect.
	eng, err := simengine.NewWithBudget(sc.Params, mem)
	if err != nil {
		return nil, err
	}
	// A page's lanes advance in parallel where its slices have the work
	// to pay for it: a page played fast on a server with a core to spare
	// shows its run sooner.
	eng.SetParallel(true)
	s := &session{conn: conn, log: log, lim: lim, slots: slots, mem: mem, in: make(chan inMsg, 16), stopped: make(chan struct{}), eng: eng, sc: sc.Settings(), playing: true}
	for _, e := range bad {
		s.initial = append(s.initial, errorMsg{Type: "error", Param: e.Name, Message: e.Error()})
	}
	if sc.Real != "" {
		if slots.acquire() {
			s.holdsSlot = true
		} else { // the same run, with the lane simulated
			s.initial = append(s.initial, errorMsg{Type: "error", Param: sc.Real + "." + scene.SourceParam,
				Message: busyReal + "; lane " + sc.Real + " runs simulated instead"})
			s.sc.Real = ""
		}
	}
	s.out.wake = make(chan struct{}, 1)
	return s, nil
}

// live returns the lane that runs in real time now, else nil: while one
// does, virtual time is its wall clock.
func (s *session) live() laneSource {
	for _, l := range s.lanes {
		if l.live() {
			return l
		}
	}
	return nil
}

// stopLanes stops whatever the lanes run outside the engine.
func (s *session) stopLanes() {
	for _, l := range s.lanes {
		l.stop()
	}
}

// releaseSlot gives back the session's real-lane slot, if it holds one.
func (s *session) releaseSlot() {
	if s.holdsSlot {
		s.holdsSlot = false
		s.slots.release()
	}
}

// simulate makes sc's lane i simulated, after its own source failed to
// start: a real lane gives its slot back.
func (s *session) simulate(i int) {
	if i == s.sc.RealLane() {
		s.sc.Real = ""
		s.releaseSlot()
	}
}

// syncDown tells the lanes whether the engine's outage lasts.
func (s *session) syncDown() {
	for _, l := range s.lanes {
		l.setDown(s.eng.Down())
	}
}

// serve runs the session until ctx ends, the page goes away or a write to
// it fails, then closes the socket: with going-away when ctx ended (the
// server shuts down). It returns the write error, if any.
func (s *session) serve(ctx context.Context) error {
	// The reader gets no deadline of its own: a Read whose context ends
	// kills the connection without a close frame. Closing the socket ends it.
	ended := make(chan struct{})
	go func() { defer close(ended); s.read() }()
	wctx, stopWriter := context.WithCancel(ctx)
	werr := make(chan error, 1)
	go func() { werr <- s.write(wctx); stopWriter() }()
	s.hello()
	for _, e := range s.initial {
		s.out.send(e, false)
	}
	s.run(wctx, ended)
	close(s.stopped)
	s.stopLanes()
	s.releaseSlot()
	stopWriter()
	err := <-werr
	if ctx.Err() != nil {
		s.conn.Close(websocket.StatusGoingAway, "server shutting down")
	} else {
		s.conn.Close(websocket.StatusNormalClosure, "")
	}
	<-ended
	return err
}

// read hands the page's messages to run. A message that is too long or
// not JSON is answered with an error; only a closed socket ends the session.
// The library's own read limit is off because it fails the connection: a
// message's first maxMessage bytes are read, and the rest discarded as it
// arrives, so a long message costs no memory and ends nothing.
func (s *session) read() {
	s.conn.SetReadLimit(-1)
	buf := make([]byte, maxMessage+1)
	for {
		typ, r, err := s.conn.Reader(context.Background())
		if err != nil {
			return
		}
		n, err := io.ReadFull(r, buf)
		if err == nil { // longer than maxMessage
			rest, err := io.Copy(io.Discard, r)
			if err != nil {
				return
			}
			s.fail("", fmt.Sprintf("message too long: %d bytes, at most %d", int64(n)+rest, maxMessage))
			continue
		}
		if err != io.ErrUnexpectedEOF && err != io.EOF {
			return
		}
		m, msg := parseInMsg(typ, buf[:n])
		if msg != nil {
			s.out.send(*msg, false)
			continue
		}
		select {
		case s.in <- m:
		case <-s.stopped:
			return
		}
	}
}

// parseInMsg reads one message from the page, or returns the error to
// answer it with: the field whose JSON type is wrong is named.
func parseInMsg(typ websocket.MessageType, data []byte) (inMsg, *errorMsg) {
	var m inMsg
	if typ != websocket.MessageText {
		return m, &errorMsg{Type: "error", Message: "not a text message: send JSON text"}
	}
	err := json.Unmarshal(data, &m)
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field == "":
		// The message itself is of the wrong type: an array, a string…
		return m, &errorMsg{Type: "error", Message: "a message must be a JSON object, not " + jsonKind(te.Value)}
	case errors.As(err, &te):
		want, ok := map[reflect.Kind]string{reflect.Bool: "a JSON boolean (true or false)", reflect.String: "a JSON string"}[te.Type.Kind()]
		if !ok {
			want = "of another JSON type"
		}
		return m, &errorMsg{Type: "error", Param: te.Field,
			Message: fmt.Sprintf("the field %q must be %s, not %s", te.Field, want, jsonKind(te.Value))}
	case err != nil:
		return m, &errorMsg{Type: "error", Message: "not a JSON message: " + err.Error()}
	}
	if m.Type == "set" {
		// A set carries the whole scenario: without its query it would be
		// read as every default, and reset the run the page is showing.
		// An empty query is the defaults, given on purpose.
		var given struct {
			Query *string `json:"query"`
		}
		if json.Unmarshal(data, &given); given.Query == nil {
			return m, &errorMsg{Type: "error", Param: "query",
				Message: `a set message carries the whole scenario in its "query" field, as the page's URL query ("" for every default); this one has none, and nothing changed`}
		}
	}
	return m, nil
}

// jsonKind names the JSON value encoding/json's UnmarshalTypeError.Value
// describes ("array", "number 3", "bool"…) with its article.
func jsonKind(v string) string {
	kind, _, _ := strings.Cut(v, " ")
	switch kind {
	case "array", "object":
		return "an " + kind
	case "bool":
		return "a boolean"
	case "":
		return "another JSON value"
	}
	return "a " + kind
}

// write sends the outbox to the page until ctx ends.
func (s *session) write(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.out.wake:
		}
		for _, m := range s.out.take() {
			// Not ctx: a write whose context ends kills the connection
			// without a close frame, and serve still has one to send.
			wctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			err := s.conn.Write(wctx, websocket.MessageText, m)
			cancel()
			if err != nil {
				return err
			}
		}
	}
}

// run is the simulation's goroutine: it advances virtual time with the wall
// clock at the session's speed, in slices of at most sliceEvents events,
// and applies the page's messages between slices. While a lane runs in real
// time it also wakes when that lane says (a real lane: at each tick's end
// and at the scheduled outage's transitions), so that it is measured, and
// follows the outage, on time.
func (s *session) run(ctx context.Context, readerGone <-chan struct{}) {
	step := time.NewTicker(stepEvery)
	defer step.Stop()
	wake := time.NewTimer(time.Hour)
	wake.Stop()
	defer wake.Stop()
	last := time.Now()
	s.target = s.eng.Now()
	for {
		// While the engine has work, a slice is always ready; a message
		// or a step that is ready too gets its turn (select picks among
		// ready cases at random), so the page is answered between slices.
		var work <-chan struct{}
		var realWake <-chan time.Time
		if s.busy() {
			work = ready
		} else if l := s.live(); l != nil && s.playing {
			wake.Reset(l.nextWake(time.Now(), &s.sc.Params))
			realWake = wake.C
		}
		select {
		case <-ctx.Done():
			return
		case <-readerGone:
			return
		case m := <-s.in:
			s.handle(m)
		case <-work:
			s.slice()
		case <-realWake:
			s.aim(0)
		case now := <-step.C:
			s.aim(now.Sub(last))
			last = now
		}
	}
}

// ready is always ready to receive from.
var ready = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// busy reports whether the engine has work to do now: it is behind its
// target, and at speed max, within the step's burst and not ahead of the
// page by more than maxRows/2 rows (at max speed there is no real time to
// keep, so rather than coalesce a fast page's rows it waits for the writer
// to drain them).
func (s *session) busy() bool {
	end := s.sc.Params.Duration
	if !s.playing || s.eng.Now() >= end {
		return false
	}
	if s.sc.Speed.Factor == 0 && s.live() == nil {
		return time.Now().Before(s.burstEnd) && s.out.pending() < maxRows/2
	}
	return s.eng.Now() < s.target
}

// aim sets the virtual time to reach after wall time elapsed at the
// session's speed, or at speed max, opens a burst of maxBurst. While a lane
// runs in real time, virtual time is that lane's, and the lane is measured
// up to it.
func (s *session) aim(elapsed time.Duration) {
	if !s.playing {
		return
	}
	end := s.sc.Params.Duration
	switch l := s.live(); {
	case l != nil:
		now := time.Now()
		if to := min(end, l.virtual(now)); to > s.target {
			for i, l := range s.lanes {
				if note := l.measure(now, to); note != "" {
					s.fail(scenario.LaneNames[i:i+1]+"."+scene.SourceParam, note)
				}
			}
			s.target = to
		}
	case s.sc.Speed.Factor == 0:
		s.burstEnd = time.Now().Add(maxBurst)
		s.target = end
	default:
		// The engine may lag behind at heavy parameters: it goes on from
		// where it is, never more than a step's worth behind.
		s.target = min(end, max(s.target, s.eng.Now()+time.Duration(float64(elapsed)*s.sc.Speed.Factor)))
	}
	if s.busy() {
		s.slice()
	}
}

// slice advances the engine toward the target by one bounded slice and
// sends the page what it did: rows, summaries, and the state when the
// scheduled outage started or ended or the run reached its end.
func (s *session) slice() {
	end := s.sc.Params.Duration
	down, outages := s.eng.Down(), s.eng.OutageCount()
	s.eng.Step(min(s.target, end), sliceEvents, s.emit)
	s.flush()
	s.follow()
	s.syncDown()
	s.summarize()
	s.sendMarks()
	if s.eng.Now() >= end {
		s.playing = false
		s.stopLanes()
	}
	if s.eng.Now() >= end || s.eng.Down() != down || s.eng.OutageCount() != outages {
		s.state()
	}
}

// advance catches the engine up with the target now, before a change that
// must apply at the current time (an outage or a pause while a lane runs in
// real time).
func (s *session) advance() {
	s.aim(0)
	for s.playing && s.eng.Now() < min(s.target, s.sc.Params.Duration) {
		s.slice()
	}
}

// flush sends the page the rows the engine emitted since the last flush.
func (s *session) flush() {
	if len(s.rows) > 0 {
		s.lastRowT = s.rows[len(s.rows)-1][0]
	}
	s.out.push(s.rows)
	s.rows = s.rows[:0]
}

// follow tells the page of the live changes the engine took since it was
// last told: the replay of a link's changes moves the controls as the run
// that was shown moved them, and its charts mark them.
func (s *session) follow() {
	n := s.eng.Taken()
	if n == s.taken {
		return
	}
	applied := s.eng.Applied()
	for _, c := range applied[s.taken:] {
		for _, a := range c.Set {
			a.Apply(&s.sc.Params)
		}
	}
	s.taken = n
	s.marks.setParams(&s.sc.Params)
	s.marks.setChanges(applied)
	s.out.send(s.params(), false)
	s.delays()
}

// honest is the canonical query of the run as it is shown: its values at
// t = 0 and its live changes, each at its virtual time, with the duration
// and speed in effect. Opening it replays the run tick for tick.
func (s *session) honest() string { return s.shown().Query() }

// shown is the state of the run as it is shown, whose canonical query is
// honest.
func (s *session) shown() scene.Scenario {
	sc := s.sc
	sc.Params = s.eng.Record()
	sc.Params.Duration = s.sc.Params.Duration
	return sc
}

// rules are the rules of the run as it is shown, its controls showing
// the values in effect.
func (s *session) rules() pageRules {
	sc := s.shown()
	return rulesOf(s.sc.Params, sc, sc.Query(), s.presets)
}

// changeNow makes c, a change of the values or of the server by hand, at
// the engine's current time, records it and sends the page the rows
// before it. It reports whether the change was made; an error (the run
// over, too many changes) is sent to the page.
func (s *session) changeNow(c scenario.Change) bool {
	_, err := s.eng.Change(c, s.sc.Params.Duration, s.emit)
	s.flush()
	if err != nil {
		s.fail(scenario.ChangesParam().Name, err.Error())
		return false
	}
	s.taken = s.eng.Taken()
	s.marks.setChanges(s.eng.Applied())
	return true
}

// emit adds the engine's tick to the slice's rows, and shows it to the
// marker.
func (s *session) emit(t scenario.Tick) {
	row := TickRow(t, s.lanes, s.eng)
	s.rows = append(s.rows, row)
	s.marks.observe(row, s.eng)
}

// sendMarks sends the marks when they changed.
func (s *session) sendMarks() {
	if m := s.marks.take(); m != nil {
		s.out.send(m, false)
	}
}

// TickRow flattens a tick for the page: t, then each lane's Columns as its
// source gives them (the engine's own for a lane without one).
func TickRow(t scenario.Tick, lanes []laneSource, eng *simengine.Engine) []float64 {
	row := make([]float64, 0, 1+len(t.Lanes)*len(scenario.Columns))
	row = append(row, t.T)
	for i, lt := range t.Lanes {
		if i < len(lanes) {
			lt = lanes[i].tick(lt, eng)
		}
		v := lt.Values()
		row = append(row, v[:]...)
	}
	return row
}

// summarize sends the summaries when one changed.
func (s *session) summarize() {
	sum := s.eng.Summaries()
	for i, l := range s.lanes {
		if i < len(sum) {
			sum[i] = l.summary(sum[i], s.eng)
		}
	}
	ph := phaseOf(s.eng, s.sc.Params)
	s.marks.summaries(sum, ph)
	if summariesEqual(sum, s.lastSum) && ph == s.lastPhase && s.eng.Taken() == s.lastTaken {
		return
	}
	s.lastSum, s.lastPhase, s.lastTaken = sum, ph, s.eng.Taken()
	m := summaryMsg{Type: "summary", Lanes: sum}
	applied := s.eng.Applied()
	for i, l := range sum {
		v := l.Headline(ph)
		// A lane judged on a run that changed says so, with the values.
		if w := scenario.LaneChangeWords(applied, i); w != "" {
			v.Headline += " (" + w + ")"
		}
		m.Verdicts = append(m.Verdicts, v)
	}
	s.out.send(m, false)
}

func summariesEqual(a, b []scenario.Summary) bool {
	return slices.EqualFunc(a, b, func(x, y scenario.Summary) bool {
		return x.BaselineOK == y.BaselineOK && ptrEq(x.ServerRecoveredAfter, y.ServerRecoveredAfter) &&
			ptrEq(x.ServiceRecoveredAfter, y.ServiceRecoveredAfter) && x.Collapsed == y.Collapsed &&
			x.PeakConcurrency == y.PeakConcurrency && x.Stopped == y.Stopped && x.LayeredFigure() == y.LayeredFigure()
	})
}

func ptrEq(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// handle applies one message from the page.
func (s *session) handle(m inMsg) {
	if t, ok := messageAliases[m.Type]; ok {
		m.Type = t
	}
	switch m.Type {
	case "set":
		s.set(m.Query)
	case "outage":
		s.outage(m.On)
	case "speed":
		s.setSpeed(m.Speed)
	case "pause":
		if s.live() != nil { // real time cannot pause: the lane stops
			s.advance()
			s.stopLanes()
		}
		s.playing = false
		s.state()
	case "play":
		// A run that is over, or one of whose lanes cannot play on, starts again.
		if s.eng.Now() >= s.sc.Params.Duration || s.stale() {
			s.eng.Reset()
			s.playing = true
			s.hello()
		}
		s.playing = true
		s.state()
	case "reset":
		// Reset starts the run again and plays it, paused or finished: a
		// page reset to a blank, stopped chart looks broken.
		s.eng.Reset()
		s.playing = true
		s.hello()
	default:
		s.fail("", "unknown message type "+strconv.Quote(m.Type)+": want set, outage, speed, play, pause or reset")
	}
}

// set applies a set message's query: the whole scenario, as the page's
// controls hold it. A refused one is answered with its errors, each under
// the control it names, and the rules of what the controls hold.
func (s *session) set(query string) {
	q, errs := kit.ParseQuery(query)
	var sc scene.Scenario
	if len(errs) == 0 {
		sc, errs = scene.Decode(q, s.lim)
	}
	if len(errs) > 0 {
		for _, e := range errs {
			for _, side := range scene.Sides(e) { // under the control the user changed
				s.fail(side.Name, side.Error())
			}
		}
		held, _ := scene.DecodeLenient(q, s.lim) // its errors are the ones just sent
		r := s.rules()
		r.Hidden = hiddenControls(held.Params)
		s.out.send(rulesMsg{Type: "rules", Rules: r}, false)
		return
	}
	if sc.Real != "" && !s.holdsSlot {
		if !s.slots.acquire() {
			s.fail(sc.Real+"."+scene.SourceParam, busyReal)
			return
		}
		s.holdsSlot = true
	}
	restart, ok := s.changeTo(sc)
	if !ok {
		return
	}
	s.sc = sc.Settings()
	if sc.Real == "" {
		s.releaseSlot()
	}
	if restart {
		if err := s.eng.Restart(sc.Params); err != nil { // decode checked it: never
			s.fail("", err.Error())
			return
		}
		s.playing = true
		s.hello()
		return
	}
	// A replay's changes the new duration no longer reaches are not
	// part of the run any more.
	s.eng.DropChangesFrom(s.sc.Params.Duration)
	s.taken = s.eng.Taken()
	s.out.send(s.params(), false)
	s.marks.setParams(&s.sc.Params)
	s.marks.setChanges(s.eng.Applied())
	s.sendMarks()
	s.summarize()
	s.delays()
	s.syncDown()
	s.state()
}

// changeTo makes sc's values the running simulation's, as a live change,
// or reports that the run must restart with them: a run that reached its
// end shows nothing of a change at its end, and runs again from 0 with
// the new values, as does a change the running simulation cannot take on
// the fly, one that ends the run before now, and a query with live
// changes of its own (a run to replay). It reports false when the change
// failed, which it has told the page.
func (s *session) changeTo(sc scene.Scenario) (restart, ok bool) {
	cur := s.eng.Params()
	now := s.eng.Now()
	if s.restarts(sc) || now >= s.sc.Params.Duration || sc.Params.Duration <= now ||
		len(sc.Params.Changes) > 0 || scenario.LiveError(&cur, &sc.Params) != nil {
		return true, true
	}
	diff := scenario.Diff(&cur, &sc.Params)
	if len(diff) == 0 {
		return false, true
	}
	_, err := s.eng.Change(scenario.Change{Set: diff}, sc.Params.Duration, s.emit)
	s.flush()
	switch {
	case errors.Is(err, simengine.ErrRunOver):
		return true, true
	case err != nil:
		s.fail(scenario.ChangesParam().Name, err.Error())
		s.out.send(s.params(), false) // the controls go back to the values in effect
		return false, false
	}
	return false, true
}

// outage starts (on) or ends the server's outage by hand, now.
func (s *session) outage(on bool) {
	if s.live() != nil { // catch up: the outage starts now in both
		s.advance()
	}
	c := scenario.Change{Outage: scenario.ChangeResume}
	if on {
		c.Outage = scenario.ChangeStop
	}
	if !s.changeNow(c) {
		return
	}
	s.out.send(s.params(), false) // the run's link holds the change
	s.sendMarks()
	s.syncDown()
	s.state()
}

// setSpeed plays the run at the speed text names, which a run with a real
// lane keeps at 1.
func (s *session) setSpeed(text string) {
	sp, err := scene.ParseSpeed(text)
	if err == nil && s.sc.Real != "" && sp.Factor != 1 {
		err = scene.RealSpeedError(text)
	}
	if err != nil {
		s.fail(scene.SpeedParam, err.Error())
		s.state() // the page's menu goes back to the speed in effect
		return
	}
	s.sc.Speed = sp
	s.out.send(s.params(), false)
	s.state()
}

func (s *session) fail(param, msg string) {
	s.out.send(errorMsg{Type: "error", Param: param, Message: msg}, false)
}

// restarts reports whether sc cannot apply to the current run on the fly,
// lane by lane: a lane changes source, or its source cannot follow the change
// (a real lane's server and clients cannot). The run then restarts from 0.
func (s *session) restarts(sc scene.Scenario) bool {
	for i := range sc.Params.Lanes {
		if i >= len(s.lanes) || laneSourceName(sc, i) != s.lanes[i].source() || s.lanes[i].restarts(s.sc.Params, sc.Params) {
			return true
		}
	}
	return false
}

// stale reports whether a lane cannot resume where it stopped.
func (s *session) stale() bool {
	for _, l := range s.lanes {
		if l.stale() {
			return true
		}
	}
	return false
}

// hello tells the page that a run starts: everything it shows is reset. The
// engine is at the run's start; the previous run's lanes stop, and the new
// ones start now (if the run plays).
func (s *session) hello() {
	s.stopLanes()
	s.lastRowT = -1 // the hello drops the rows queued before it
	s.lanes = s.lanes[:0]
	var failed []errorMsg
	for i := range s.sc.Params.Lanes {
		l := newLaneSource(s.sc, i, s)
		if s.playing {
			if err := l.start(s.sc.Params, s.eng.Now()); err != nil {
				failed = append(failed, errorMsg{Type: "error", Param: scenario.LaneNames[i:i+1] + "." + scene.SourceParam, Message: err.Error()})
				l = simLane{}
				s.simulate(i)
			}
		}
		s.lanes = append(s.lanes, l)
	}
	p := s.sc.Params
	h := helloMsg{Type: "hello", Query: s.honest(), Settings: s.sc.Settings().Query(), Duration: p.Duration.Seconds(),
		Tick: p.Tick.Seconds(), Columns: scenario.Columns, MaxOutages: simengine.MaxOutages,
		Boxes: boxesOf(s.sc, s.lim), FaultKinds: faultKinds(), Plan: planOf(&p), Explain: explainOf(&p),
		Captions: scenario.LaneCaptions(&p), Heads: scenario.LaneHeads(&p), Picture: pictureOf(&p), Rules: s.rules()}
	for i, l := range p.Lanes {
		h.Lanes = append(h.Lanes, laneInfo{Name: scenario.LaneNames[i : i+1], Strategy: l.Strategy,
			Source: s.lanes[i].source(), Addr: s.lanes[i].addr()})
	}
	s.out.lanes = len(p.Lanes)
	s.lastSum = nil
	s.taken = s.eng.Taken()
	s.target = s.eng.Now()
	s.sentOutages, s.sentOpen = 0, false
	s.out.send(h, true)
	for _, e := range failed {
		s.out.send(e, false)
	}
	s.marks = newMarker(&p)
	s.sendMarks()
	s.delays()
	s.state()
}

// params is the params message of the run in effect.
func (s *session) params() paramsMsg {
	return paramsMsg{Type: "params", Query: s.honest(), Settings: s.sc.Settings().Query(), Boxes: boxesOf(s.sc, s.lim), Plan: planOf(&s.sc.Params),
		Explain: explainOf(&s.sc.Params), Captions: scenario.LaneCaptions(&s.sc.Params), Heads: scenario.LaneHeads(&s.sc.Params), Picture: pictureOf(&s.sc.Params),
		Rules: s.rules()}
}

// faultKinds describes the fault kinds for the page.
func faultKinds() []faultKindInfo {
	out := make([]faultKindInfo, len(scenario.FaultKinds))
	for i, k := range scenario.FaultKinds {
		c := scene.EffectColor
		if k.Outage {
			c = scene.OutageColor
		}
		out[i] = faultKindInfo{Name: k.Name, Outage: k.Outage, Color: c, Help: k.Help}
	}
	return out
}

// planOf returns p's scheduled fault windows.
func planOf(p *scenario.Params) []planWindow {
	out := []planWindow{}
	for _, f := range scenario.AllFaults(p) {
		// A herd's window of 0s still takes place: its wave comes at once.
		if f.For > 0 || scenario.IsWave(f.Kind) {
			out = append(out, planWindow{At: f.At.Seconds(), End: (f.At + f.For).Seconds(), Kind: f.Kind})
		}
	}
	return out
}

// state tells the page where the run stands.
func (s *session) state() {
	m := stateMsg{Type: "state", T: s.eng.Now().Seconds(), LastRowT: s.lastRowT, Playing: s.playing,
		Done: s.eng.Now() >= s.sc.Params.Duration, Speed: s.sc.Speed.Text, Down: s.eng.Down(),
		Outages: [][3]any{}}
	// Only the windows the page has not seen as they are now: the last one
	// it saw open, and every one since.
	dropped, outages, kinds := s.eng.OutagesDropped(), s.eng.Outages(), s.eng.OutageKinds()
	from := s.sentOutages
	if s.sentOpen {
		from--
	}
	from = max(from, dropped)
	m.OutagesFrom = from
	s.sentOutages = dropped + len(outages)
	s.sentOpen = len(outages) > 0 && outages[len(outages)-1][1] < 0
	for _, l := range s.lanes {
		if n := l.note(); n != "" {
			m.Note = n
		}
	}
	for i := from - dropped; i < len(outages); i++ {
		o, end := outages[i], -1.0
		if o[1] >= 0 {
			end = o[1].Seconds()
		}
		m.Outages = append(m.Outages, [3]any{o[0].Seconds(), end, kinds[i]})
	}
	s.out.send(m, false)
	// The verdicts say whether the server is down and the run over: a
	// change by hand (Stop server) reaches them now, not at the next tick.
	// Before the run's first summary there is nothing to say yet.
	if s.lastSum != nil {
		s.summarize()
	}
}

// delays sends every lane's delay-by-retry quantiles.
func (s *session) delays() {
	for i, l := range s.sc.Params.Lanes {
		s.out.send(laneDelays(i, l, s.sc.Params), false)
	}
}

// laneDelays is lane i's delays message: strategies.RetryDelays at the
// chart's size, what "backofflab delays" prints for the same lane.
func laneDelays(i int, l scenario.Lane, p scenario.Params) delaysMsg {
	m := delaysMsg{Type: "delays", Lane: i, Retry: []int{}, Draws: []int{},
		P5: []float64{}, P50: []float64{}, P95: []float64{}, Max: []float64{}}
	delays, err := strategies.RetryDelays(l.Params, p.Think, strategies.DelayRetries, strategies.DelayDraws, p.Seed)
	if err != nil {
		return m
	}
	for _, b := range delays.Retries {
		m.Retry = append(m.Retry, b.Retry)
		m.Draws = append(m.Draws, b.Draws)
		m.P5 = append(m.P5, b.P5.Seconds())
		m.P50 = append(m.P50, b.P50.Seconds())
		m.P95 = append(m.P95, b.P95.Seconds())
		m.Max = append(m.Max, b.Max.Seconds())
	}
	return m
}
