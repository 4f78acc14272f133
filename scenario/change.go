package scenario

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// A run's live changes: what a person changed while it ran (a slider moved,
// the server stopped or resumed by hand), each at the virtual time the
// simulation took it. They are part of the run: a run with the same
// parameters and the same changes is the same run, tick for tick, so a
// link, a `run` flag or an export that carries them reproduces what was
// shown.

// Change is one live change: at virtual time At, either the parameters of
// Set take their values at once, or (Set empty) the server is stopped
// (Stop) or resumed (Resume) by hand, an outage of the kind the outage
// parameter names (pause when it is none).
type Change struct {
	At  time.Duration
	Set []Assign
	// Outage is ChangeStop or ChangeResume for a change of the server by
	// hand, and empty for a change of parameters.
	Outage string
}

// The words of a change of the server by hand, in ChangesSyntax.
const (
	ChangeStop   = "stop"
	ChangeResume = "resume"
)

// Assign is one parameter's new value in a Change: its vocabulary name
// (with the lane letter for a lane's) and its typed value, as the row's
// field holds it (int, float64, time.Duration, string, bool, uint64,
// []Fault or []Tier).
type Assign struct {
	Name  string
	Value any
}

// MaxChanges bounds a run's live changes: a link stays a link, and a
// replay's cost stays that of a run.
const MaxChanges = 1000

// MaxChangesText bounds the text of a run's changes, in bytes: 1000
// changes of a few values each fit, and the parser reads no more.
const MaxChangesText = 64 << 10

// ChangesSyntax describes the syntax of the changes parameter.
const ChangesSyntax = "live changes, each @time then name=value … (values changed at once) or stop or resume (the server by hand), " +
	"space-separated, times from 0 up to duration that never go back, at most 1000 (such as @48s b.factor=1.1 @60s stop)"

// changesParam is the parameter that holds a run's live changes. It stands
// apart from Table because no control sets it: the run records it, and a
// link, a `run` flag or an export carries it.
var changesParam = Param{Name: "changes", Scope: ScopeRun, SimOnly: true, Type: TypeChanges,
	Help:  "the run's live changes, reproduced at their virtual times: " + ChangesSyntax,
	field: func(p *Params, _ int) any { return &p.Changes }}

// ChangesParam returns the row of the changes parameter, for the programs
// that define their flags from the vocabulary.
func ChangesParam() Param { return changesParam }

// notLive are the parameters that a running simulation cannot take: a
// change of one is a new run from t = 0. The server model (from a latency
// of the concurrency to another shape) and a lane's number of tiers are
// checked by value, in liveError. patience changes nothing of the
// simulation, but it judges every request of the run, so a new one judges
// a new run rather than half of one.
var notLive = []string{"arrival", "seed", "tick", "duration", "patience"}

// LiveError returns why the simulation running old cannot take new on the
// fly, naming the parameter, or nil when it can: same lanes, seed, tick,
// arrival, duration and patience, a server of the same shape, and as many tiers on
// every lane.
func LiveError(old, new *Params) error {
	if len(old.Lanes) != len(new.Lanes) {
		return fmt.Errorf("lanes cannot change on the fly")
	}
	for _, name := range notLive {
		row := Table[indexOf(name)]
		if row.Value(old, 0) != row.Value(new, 0) {
			return fmt.Errorf("%s cannot change on the fly", name)
		}
	}
	if old.ServerModel != new.ServerModel && (ServerModelOf(old).Latency == nil || ServerModelOf(new).Latency == nil) {
		return fmt.Errorf("server_model cannot change on the fly between %s and %s", old.ServerModel, new.ServerModel)
	}
	for i := range old.Lanes {
		if len(old.Lanes[i].Tiers) != len(new.Lanes[i].Tiers) {
			return fmt.Errorf("%s cannot change its number of tiers on the fly", laneName(i, "tiers"))
		}
	}
	return nil
}

// readsRow reports whether p's run reads row (on lane i for a lane row):
// its switches turn it on and, for a lane row, the lane's strategy uses it.
func readsRow(p *Params, row Param, i int) bool {
	if !row.Lane {
		return ReadsParam(p, row.Name)
	}
	return ReadsLaneParam(p, i, row.Name) && Uses(p.Lanes[i].Strategy, row.Name)
}

// Diff returns the assignments that take a run of old to new, which
// LiveError accepts: every parameter that new reads whose value differs
// from old's, or that old did not read (a limiter switched on brings its
// values). What neither reads is left out, as is duration, which is where
// the run ends rather than how it runs.
func Diff(old, new *Params) []Assign {
	var out []Assign
	for _, row := range Table {
		if row.Name == "duration" {
			continue
		}
		lanes := []int{0}
		if row.Lane {
			lanes = lanes[:0]
			for i := range new.Lanes {
				lanes = append(lanes, i)
			}
		}
		for _, i := range lanes {
			if !readsRow(new, row, i) {
				continue
			}
			v := row.Value(new, i)
			if readsRow(old, row, i) && row.Value(old, i) == v {
				continue
			}
			name := row.Name
			if row.Lane {
				name = laneName(i, row.Name)
			}
			out = append(out, Assign{Name: name, Value: deref(row.field(new, i))})
		}
	}
	return out
}

// deref returns the value at ptr, a field of Params, as Assign holds it.
func deref(ptr any) any {
	switch v := ptr.(type) {
	case *int:
		return *v
	case *float64:
		return *v
	case *time.Duration:
		return *v
	case *string:
		return *v
	case *bool:
		return *v
	case *uint64:
		return *v
	case *[]Fault:
		return slices.Clone(*v)
	case *[]Tier:
		return slices.Clone(*v)
	}
	panic(fmt.Sprintf("scenario: no value of %T", ptr))
}

// Apply sets a's value in p. a must name a row of Table (and a lane of p
// for a lane row) and hold a value of its field's type, as ParseChanges
// and Diff make it.
func (a Assign) Apply(p *Params) {
	row, lane, _ := Lookup(a.Name)
	switch dst := row.field(p, max(lane, 0)).(type) {
	case *int:
		*dst = a.Value.(int)
	case *float64:
		*dst = a.Value.(float64)
	case *time.Duration:
		*dst = a.Value.(time.Duration)
	case *string:
		*dst = a.Value.(string)
	case *bool:
		*dst = a.Value.(bool)
	case *uint64:
		*dst = a.Value.(uint64)
	case *[]Fault:
		*dst = slices.Clone(a.Value.([]Fault))
	case *[]Tier:
		*dst = slices.Clone(a.Value.([]Tier))
	}
}

// Text returns a's value as its parameter's syntax writes it.
func (a Assign) Text() string {
	v := a.Value
	switch x := v.(type) {
	case int:
		return format(&x)
	case float64:
		return format(&x)
	case time.Duration:
		return format(&x)
	case string:
		return x
	case bool:
		return format(&x)
	case uint64:
		return format(&x)
	case []Fault:
		return format(&x)
	case []Tier:
		return format(&x)
	}
	return fmt.Sprint(v)
}

// Words returns the change in words for a reader, as a verdict mentions it,
// its time to a tenth of a second: "b.factor changed to 1.1 at 48 s",
// "the server stopped by hand at 60.2 s".
func (c Change) Words() string {
	at := strconv.FormatFloat(math.Round(c.At.Seconds()*10)/10, 'f', -1, 64) + " s"
	switch c.Outage {
	case ChangeStop:
		return "the server stopped by hand at " + at
	case ChangeResume:
		return "the server resumed by hand at " + at
	}
	parts := make([]string, len(c.Set))
	for i, a := range c.Set {
		parts[i] = a.Name + " changed to " + a.Text()
	}
	return strings.Join(parts, ", ") + " at " + at
}

// Touches reports whether c changes lane i's run: a shared parameter or
// the server by hand changes every lane's.
func (c Change) Touches(i int) bool {
	if c.Outage != "" {
		return true
	}
	for _, a := range c.Set {
		if _, lane, _ := Lookup(a.Name); lane < 0 || lane == i {
			return true
		}
	}
	return false
}

// OfLane returns what of c changes lane i's run: the shared values and
// lane i's, the other lanes' left out.
func (c Change) OfLane(i int) Change {
	out := Change{At: c.At, Outage: c.Outage}
	for _, a := range c.Set {
		if _, lane, _ := Lookup(a.Name); lane < 0 || lane == i {
			out.Set = append(out.Set, a)
		}
	}
	return out
}

// ForLane returns c as a run of lane i alone sees it: OfLane, with lane
// i's values under lane a's letter (a change that is left empty still
// happens, as the lanes share it).
func (c Change) ForLane(i int) Change {
	out := c.OfLane(i)
	out.Set = slices.Clone(out.Set)
	for k, a := range out.Set {
		if row, lane, _ := Lookup(a.Name); lane >= 0 {
			out.Set[k].Name = laneName(0, row.Name)
		}
	}
	return out
}

// ChangesText writes changes in ChangesSyntax, as ParseChanges reads them.
func ChangesText(cs []Change) string {
	var b strings.Builder
	for i, c := range cs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("@" + c.At.String())
		if c.Outage != "" {
			b.WriteString(" " + c.Outage)
		}
		for _, a := range c.Set {
			b.WriteString(" " + a.Name + "=" + a.Text())
		}
	}
	return b.String()
}

// ParseChanges reads changes in ChangesSyntax: each value through its
// parameter's row, so that a bad one is refused as that row refuses it.
// The checks that need the run (times within its duration, lanes that it
// has, a server model or tiers it can change to) are checkChanges'.
func ParseChanges(text string) ([]Change, error) { return parseChanges(text, Bounds{}) }

// parseChanges is ParseChanges with each value within b as well as its
// row's range, as ParseWithin reads a run. The text and the changes are
// bounded (MaxChangesText, MaxChanges) before anything past the bound is
// read; a change sets each parameter once, so at most every parameter of
// four lanes.
func parseChanges(text string, b Bounds) ([]Change, error) {
	if len(text) > MaxChangesText {
		return nil, fmt.Errorf("%d bytes of changes, at most %d", len(text), MaxChangesText)
	}
	var out []Change
	scratch := Defaults()
	scratch.Lanes = make([]Lane, MaxLanes)
	for tok := range strings.FieldsSeq(text) {
		if at, ok := strings.CutPrefix(tok, "@"); ok {
			t, err := parseDuration(at)
			if errors.Is(err, errFiner) {
				return nil, fmt.Errorf("change %d: time %q is not %w", len(out)+1, at, err)
			}
			if err != nil {
				return nil, fmt.Errorf("change %d: time %q is not a duration such as 48s", len(out)+1, at)
			}
			if len(out) == MaxChanges {
				return nil, fmt.Errorf("at most %d changes (change %d is one too many)", MaxChanges, MaxChanges+1)
			}
			out = append(out, Change{At: t})
			continue
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("%q comes before the first change's @time", tok)
		}
		c := &out[len(out)-1]
		n := len(out)
		if tok == ChangeStop || tok == ChangeResume {
			if len(c.Set) > 0 || c.Outage != "" {
				return nil, fmt.Errorf("change %d: %s stands alone in its change (@%v)", n, tok, c.At)
			}
			c.Outage = tok
			continue
		}
		if c.Outage != "" {
			return nil, fmt.Errorf("change %d: %s stands alone in its change (@%v)", n, c.Outage, c.At)
		}
		name, raw, ok := strings.Cut(tok, "=")
		if !ok {
			return nil, fmt.Errorf("change %d: %q is not name=value, stop or resume", n, tok)
		}
		row, lane, known := Lookup(name)
		switch {
		case !known || row.Name == lanesParam.Name || row.Name == changesParam.Name:
			return nil, fmt.Errorf("change %d: unknown parameter %q", n, name)
		case row.Lane && lane < 0:
			return nil, fmt.Errorf("change %d: %s needs a lane letter in front, as in a.%s", n, name, name)
		case slices.Contains(notLive, row.Name):
			return nil, fmt.Errorf("change %d: %s cannot change on the fly (a new value is a new run)", n, name)
		}
		if slices.ContainsFunc(c.Set, func(a Assign) bool { return a.Name == name }) {
			return nil, fmt.Errorf("change %d: %s twice", n, name)
		}
		ptr := row.field(&scratch, max(lane, 0))
		if err := b.row(row).Set(ptr, name, raw); err != nil {
			return nil, fmt.Errorf("change %d: %w", n, err)
		}
		c.Set = append(c.Set, Assign{Name: name, Value: deref(ptr)})
	}
	for i, c := range out {
		if len(c.Set) == 0 && c.Outage == "" {
			return nil, fmt.Errorf("change %d (@%v) changes nothing: name=value, stop or resume", i+1, c.At)
		}
	}
	return out, nil
}

// checkChanges checks p's changes against p's run: their times from 0 up
// to its duration, never going back; lanes it has; values their rows
// accept, within b; and every state they lead to one that Validate accepts and the
// running simulation can take (LiveError). Its error says which change and
// why.
func checkChanges(p *Params, b Bounds) error {
	if len(p.Changes) > MaxChanges {
		return fmt.Errorf("%d changes, at most %d", len(p.Changes), MaxChanges)
	}
	cur := p.Clone()
	cur.Changes = nil
	var prev time.Duration
	for k, c := range p.Changes {
		n := k + 1
		switch {
		case c.At < 0 || c.At >= p.Duration:
			return fmt.Errorf("change %d: time %v out of range (from 0 to below duration, %v)", n, c.At, p.Duration)
		case c.At < prev:
			return fmt.Errorf("change %d: time %v before the previous change's (%v): times must not go back", n, c.At, prev)
		case c.Outage != "" && (len(c.Set) > 0 || c.Outage != ChangeStop && c.Outage != ChangeResume):
			return fmt.Errorf("change %d: the server by hand is stop or resume, alone", n)
		}
		prev = c.At
		next := cur.Clone()
		for _, a := range c.Set {
			row, lane, ok := Lookup(a.Name)
			switch {
			case !ok || row.Name == lanesParam.Name || row.Name == changesParam.Name || row.Lane && lane < 0:
				return fmt.Errorf("change %d: unknown parameter %q", n, a.Name)
			case lane >= len(p.Lanes):
				return fmt.Errorf("change %d: %s: lanes a to %c only (lanes=%d)", n, a.Name, LaneNames[len(p.Lanes)-1], len(p.Lanes))
			case slices.Contains(notLive, row.Name):
				return fmt.Errorf("change %d: %s cannot change on the fly (a new value is a new run)", n, a.Name)
			}
			ptr := row.field(&next, max(lane, 0))
			if !sameType(ptr, a.Value) {
				return fmt.Errorf("change %d: %s: a value of type %T", n, a.Name, a.Value)
			}
			a.Apply(&next)
			if err := b.row(row).Check(ptr, a.Name); err != nil {
				return fmt.Errorf("change %d: %w", n, err)
			}
		}
		if err := LiveError(&cur, &next); err != nil {
			return fmt.Errorf("change %d: %w", n, err)
		}
		if err := next.ValidateChanged(); err != nil {
			return fmt.Errorf("change %d leads to bad values: %w", n, err)
		}
		cur = next
	}
	return nil
}

// sameType reports whether v is the value ptr points to's type.
func sameType(ptr, v any) bool {
	switch ptr.(type) {
	case *int:
		_, ok := v.(int)
		return ok
	case *float64:
		_, ok := v.(float64)
		return ok
	case *time.Duration:
		_, ok := v.(time.Duration)
		return ok
	case *string:
		_, ok := v.(string)
		return ok
	case *bool:
		_, ok := v.(bool)
		return ok
	case *uint64:
		_, ok := v.(uint64)
		return ok
	case *[]Fault:
		_, ok := v.([]Fault)
		return ok
	case *[]Tier:
		_, ok := v.([]Tier)
		return ok
	}
	return false
}

// changesError is checkChanges' error as the changes parameter's.
func changesError(p *Params, err error) *ParamError {
	return &ParamError{Name: changesParam.Name, Value: ChangesText(p.Changes), Allow: err.Error() + "; " + ChangesSyntax}
}

// Canonical writes the parameters of p that a link needs, as Parse reads
// them back into a run that is the same tick for tick: every parameter the
// run reads whose value differs from its default (a lane's from its
// strategy's), the number of lanes when it is not 2, and the changes. A
// switched-off limiter's parameters, another server model's, a formula
// parameter the lane's strategy does not read are left out, whatever their
// values: the run does not read them.
func (p Params) Canonical() url.Values {
	q := url.Values{}
	def := Defaults()
	for _, row := range Table {
		if row.Lane {
			continue
		}
		if v := row.Value(&p, 0); v != row.Value(&def, 0) && readsRow(&p, row, 0) {
			q.Set(row.Name, v)
		}
	}
	for i, l := range p.Lanes {
		dl := DefaultLane(i)
		if l.Strategy != dl.Strategy {
			q.Set(laneName(i, "strategy"), l.Strategy)
			dl = laneOf(l.Strategy)
		}
		dp := Params{Lanes: []Lane{dl}}
		for _, row := range Table {
			if !row.Lane || row.Name == "strategy" {
				continue
			}
			if v := row.Value(&p, i); v != row.Value(&dp, 0) && readsRow(&p, row, i) {
				q.Set(laneName(i, row.Name), v)
			}
		}
	}
	if len(p.Changes) > 0 {
		q.Set(changesParam.Name, ChangesText(p.Changes))
	}
	// Parse takes the number of lanes from the highest lane letter given,
	// else 2: lanes is written when that is not the run's.
	lanes, highest := len(def.Lanes), -1
	for name := range q {
		if _, lane, _ := Lookup(name); lane > highest {
			highest = lane
		}
	}
	if highest >= 0 {
		lanes = highest + 1
	}
	if lanes != len(p.Lanes) {
		q.Set(lanesParam.Name, strconv.Itoa(len(p.Lanes)))
	}
	return q
}

// EncodeQuery writes q as a URL's query, keys sorted, as url.Values.Encode
// does but for the characters that a query may hold as they are and that
// the vocabulary's syntaxes use (, @ / =): a link stays readable. A space
// is a plus sign. A colon stays escaped: an HTML template takes a relative
// link with a colon before its first slash for one with a scheme.
func EncodeQuery(q url.Values) string {
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(queryEscape(k))
			b.WriteByte('=')
			b.WriteString(queryEscape(v))
		}
	}
	return b.String()
}

// queryEscape escapes s for a query's key or value, leaving , @ / = as
// they are.
var queryEscape = func() func(string) string {
	keep := strings.NewReplacer("%2C", ",", "%40", "@", "%2F", "/", "%3D", "=")
	return func(s string) string { return keep.Replace(url.QueryEscape(s)) }
}()

// laneOf returns the defaults of a lane whose strategy is given, as Parse
// fills them.
func laneOf(strategy string) Lane {
	p, _ := strategies.Defaults(strategy)
	return Lane{Params: p}
}

// LaneChangeWords returns in words the changes of cs that touched lane i's
// run, for its verdict: "b.factor changed to 1.1 at 48s; the server
// stopped by hand at 1m0s", or "" when none did.
func LaneChangeWords(cs []Change, i int) string {
	var out []string
	for _, c := range cs {
		if c.Touches(i) {
			out = append(out, c.OfLane(i).Words())
		}
	}
	return strings.Join(out, "; ")
}
