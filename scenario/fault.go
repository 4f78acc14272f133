package scenario

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Fault is one scheduled fault of a run: Kind, from At for For, with
// magnitude M for the kinds that have one.
type Fault struct {
	Kind string
	At   time.Duration
	For  time.Duration
	M    float64
}

// FaultKind is one row of FaultKinds: a fault's name, what it does, and
// the range of its magnitude (none for an outage kind).
type FaultKind struct {
	Name string
	Help string
	// Label is the kind in words, as a verdict names a fault of it
	// ("recovered 13 s after the load spike").
	Label string
	// Outage kinds (pause, crash, partition) take the server down; they
	// have no magnitude and may not overlap one another.
	Outage bool
	// Wave kinds (herd) act once, at their start: they change nothing
	// while their window lasts but release a wave of requests over it,
	// and a window of 0s, the wave at once, still takes place.
	Wave bool
	// MMin and MMax bound the magnitude of the other kinds.
	MMin, MMax float64
}

// The fault kinds that are not outages.
const (
	FaultLoadSpike    = "load_spike"
	FaultLatencySpike = "latency_spike"
	FaultCapacityDrop = "capacity_drop"
	FaultErrorBurst   = "error_burst"
	FaultHerd         = "herd"
)

// FaultKinds are the kinds a fault may be. A new kind is one row here and
// its effect in the simulator.
var FaultKinds = []FaultKind{
	{Name: OutagePause, Outage: true, Label: "pause", Help: "the server is frozen (SIGSTOP): connections wait in the backlog"},
	{Name: OutageCrash, Outage: true, Label: "crash", Help: "connections are refused and the work inside is lost"},
	{Name: OutagePartition, Outage: true, Label: "partition", Help: "requests and answers are lost; the server works on, idle"},
	{Name: FaultLoadSpike, Label: "load spike", MMin: 1, MMax: 100, Help: "offered load × m: think time ÷ m, or rate × m"},
	{Name: FaultLatencySpike, Label: "latency spike", MMin: 1, MMax: 100, Help: "the server's latency (service time, or the curve's delay) × m"},
	{Name: FaultCapacityDrop, Label: "capacity drop", MMin: 0.01, MMax: 1, Help: "capacity × m: workers, or server_limit, × m (linear: slope ÷ m)"},
	{Name: FaultErrorBurst, Label: "error burst", MMin: 0, MMax: 1, Help: "a fraction m of answers fail fast with an error"},
	{Name: FaultHerd, Label: "herd", Wave: true, MMin: 0, MMax: 1,
		Help: "every client sends at once (a cache expiry, a fleet's deploy): each thinking client, with probability m, sends its next request at a time spread evenly over the window (0s: at its start); in an open loop, a share m of the arrivals the window would bring come at its start (the window must last)"},
}

// faultKindNames returns the names of FaultKinds, in their order.
func faultKindNames() []string {
	names := make([]string, len(FaultKinds))
	for i, k := range FaultKinds {
		names[i] = k.Name
	}
	return names
}

// MaxFaults bounds the faults of one run.
const MaxFaults = 20

// FaultSyntax describes the faults parameter's syntax, for help and errors.
const FaultSyntax = "faults as kind:at:for or kind:at:for:m, comma-separated (such as load_spike:60s:10s:3,error_burst:80s:5s:0.5)"

// faultKind returns the row of kind name.
func faultKind(name string) (FaultKind, bool) {
	i := slices.IndexFunc(FaultKinds, func(k FaultKind) bool { return k.Name == name })
	if i < 0 {
		return FaultKind{}, false
	}
	return FaultKinds[i], true
}

// ParseFaults reads text, the faults parameter's value in FaultSyntax:
// the run's faults besides the one that outage, outage_at and outage_for
// schedule. A bad list is an error that says which fault is bad and why.
func ParseFaults(text string) ([]Fault, error) {
	if text == "" {
		return nil, nil
	}
	parts := strings.Split(text, ",")
	if len(parts) > MaxFaults {
		return nil, tooManyFaults(len(parts))
	}
	var out []Fault
	for i, part := range parts {
		f, err := parseFault(part)
		if err != nil {
			return nil, badFault(i, part, err)
		}
		out = append(out, f)
	}
	if err := outagesApart(out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkFaults reports what ParseFaults would of fs written as text: too
// many faults, a bad field, or outages that overlap. It reads the typed
// values, with no text between.
func checkFaults(fs []Fault) error {
	if len(fs) > MaxFaults {
		return tooManyFaults(len(fs))
	}
	for i, f := range fs {
		if err := f.check(); err != nil {
			return badFault(i, f.String(), err)
		}
	}
	return outagesApart(fs)
}

func tooManyFaults(n int) error { return fmt.Errorf("%d faults, at most %d", n, MaxFaults) }

// badFault wraps err, the error of fault i (from 0) written text.
func badFault(i int, text string, err error) error {
	return fmt.Errorf("fault %d (%q): %v", i+1, text, err)
}

// maxFaultTime bounds a fault's start and length, as outage_at and
// outage_for are.
const maxFaultTime = 24 * time.Hour

func parseFault(s string) (Fault, error) {
	f := strings.Split(s, ":")
	if len(f) < 3 || len(f) > 4 {
		return Fault{}, fmt.Errorf("want kind:at:for or kind:at:for:m")
	}
	k, ok := faultKind(f[0])
	if !ok {
		return Fault{}, faultKindError(f[0])
	}
	var fault Fault
	fault.Kind = k.Name
	for i, dst := range []*time.Duration{&fault.At, &fault.For} {
		d, err := parseDuration(f[1+i])
		if errors.Is(err, errFiner) {
			return Fault{}, fmt.Errorf("%s %q is not %w", []string{"at", "for"}[i], f[1+i], err)
		}
		if err != nil || !faultTimeOK(d) {
			return Fault{}, faultTimeError(i, f[1+i])
		}
		*dst = d
	}
	switch {
	case k.Outage && len(f) == 4:
		return Fault{}, noMagnitude(k)
	case !k.Outage && len(f) == 3:
		return Fault{}, fmt.Errorf("%s needs a magnitude m from %s to %s", k.Name, fmtFloat(k.MMin), fmtFloat(k.MMax))
	case !k.Outage:
		m, err := strconv.ParseFloat(f[3], 64)
		if err != nil || !magnitudeOK(k, m) {
			return Fault{}, magnitudeError(k, f[3])
		}
		fault.M = m
	}
	return fault, nil
}

// check reports, as parseFault would of f's text, a field of f out of its
// range: an unknown kind, a start or length outside 0s to maxFaultTime, a
// magnitude outside its kind's range, or one for an outage kind.
func (f Fault) check() error {
	k, ok := faultKind(f.Kind)
	if !ok {
		return faultKindError(f.Kind)
	}
	for i, d := range []time.Duration{f.At, f.For} {
		if !faultTimeOK(d) {
			return faultTimeError(i, d.String())
		}
	}
	switch {
	case k.Outage && f.M != 0:
		return noMagnitude(k)
	case !k.Outage && !magnitudeOK(k, f.M):
		return magnitudeError(k, fmtFloat(f.M))
	}
	return nil
}

func faultKindError(name string) error {
	names := make([]string, len(FaultKinds))
	for i, k := range FaultKinds {
		names[i] = k.Name
	}
	return fmt.Errorf("kind %q is not one of %s", name, strings.Join(names, ", "))
}

func faultTimeOK(d time.Duration) bool { return d >= 0 && d <= maxFaultTime }

// faultTimeError says that text, a fault's start (i 0) or length (i 1),
// is out of range.
func faultTimeError(i int, text string) error {
	return fmt.Errorf("%s %q is not a duration from 0s to %v", []string{"at", "for"}[i], text, maxFaultTime)
}

func noMagnitude(k FaultKind) error { return fmt.Errorf("%s takes no magnitude", k.Name) }

// magnitudeOK reports whether m is in k's range; it is false for NaN.
func magnitudeOK(k FaultKind, m float64) bool {
	return m >= k.MMin && m <= k.MMax && !math.IsInf(m, 0)
}

func magnitudeError(k FaultKind, text string) error {
	return fmt.Errorf("magnitude %q is not a number from %s to %s", text, fmtFloat(k.MMin), fmtFloat(k.MMax))
}

// outagesApart reports outage faults whose windows overlap: the server can
// be down one way at a time.
func outagesApart(fs []Fault) error {
	var downs []Fault
	for _, f := range fs {
		if k, _ := faultKind(f.Kind); k.Outage && f.For > 0 {
			downs = append(downs, f)
		}
	}
	slices.SortFunc(downs, func(a, b Fault) int { return int(a.At - b.At) })
	for i := 1; i < len(downs); i++ {
		if a, b := downs[i-1], downs[i]; b.At < a.At+a.For {
			return fmt.Errorf("%s at %v overlaps %s at %v: outages may not overlap", b.Kind, b.At, a.Kind, a.At)
		}
	}
	return nil
}

// String writes f as ParseFaults reads it.
func (f Fault) String() string {
	s := f.Kind + ":" + f.At.String() + ":" + f.For.String()
	if k, _ := faultKind(f.Kind); !k.Outage {
		s += ":" + fmtFloat(f.M)
	}
	return s
}

// FaultsText writes fs as the faults parameter's text, which ParseFaults
// reads back.
func FaultsText(fs []Fault) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return strings.Join(parts, ",")
}

// AllFaults returns every fault of p's run: the one that outage, outage_at
// and outage_for schedule (when it is not none and lasts), then p.Faults'.
// It only reads p: the slice it returns is new, and shares no memory with
// p.Faults.
func AllFaults(p *Params) []Fault {
	out := make([]Fault, 0, 1+len(p.Faults))
	if p.Outage != OutageNone && p.OutageFor > 0 {
		out = append(out, Fault{Kind: p.Outage, At: p.OutageAt, For: p.OutageFor})
	}
	return append(out, p.Faults...)
}

// FaultWords names, for a verdict, the fault of kind whose end a lane's
// recoveries are measured from: "the outage" for every outage kind (and
// for "", a Summary's Fault after an outage), "the load spike" for a load
// spike (FaultKind.Label).
func FaultWords(kind string) string {
	if k, ok := faultKind(kind); ok && !k.Outage {
		return "the " + k.Label
	}
	return "the outage"
}

// Disruption names, for the words that say how p's run is judged, what
// disrupts it: "the outage" when it schedules one (of any outage kind),
// else its first other fault's words ("the load spike"), else "an outage
// or other fault", which the page can still start by hand.
func Disruption(p *Params) string {
	all := AllFaults(p)
	if slices.ContainsFunc(all, func(f Fault) bool { return IsOutage(f.Kind) }) {
		return "the outage"
	}
	if len(all) > 0 {
		return FaultWords(all[0].Kind)
	}
	return "an outage or other fault"
}

// IsWave reports whether kind releases a wave of requests at its start
// (herd) rather than changing the server or the load while it lasts.
func IsWave(kind string) bool {
	k, _ := faultKind(kind)
	return k.Wave
}

// herdsOpen reports a herd of fs that does nothing in an open loop: its
// wave is the arrivals of its window, none when the window lasts 0s.
func herdsOpen(fs []Fault) error {
	for i, f := range fs {
		if f.Kind == FaultHerd && f.For == 0 {
			return badFault(i, f.String(), fmt.Errorf("for %v is not a duration from 1ns to %v: in an open loop a herd's wave is the arrivals of its window", f.For, maxFaultTime))
		}
	}
	return nil
}

// IsOutage reports whether kind takes the server down (pause, crash,
// partition) rather than changing how it works.
func IsOutage(kind string) bool {
	k, _ := faultKind(kind)
	return k.Outage
}
