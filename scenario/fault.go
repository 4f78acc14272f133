package scenario

import (
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
	// Outage kinds (pause, crash, partition) take the server down; they
	// have no magnitude and may not overlap one another.
	Outage bool
	// MMin and MMax bound the magnitude of the other kinds.
	MMin, MMax float64
}

// The fault kinds that are not outages.
const (
	FaultLoadSpike    = "load_spike"
	FaultLatencySpike = "latency_spike"
	FaultCapacityDrop = "capacity_drop"
	FaultErrorBurst   = "error_burst"
)

// FaultKinds are the kinds a fault may be. A new kind is one row here and
// its effect in the simulator.
var FaultKinds = []FaultKind{
	{Name: OutagePause, Outage: true, Help: "the server is frozen (SIGSTOP): connections wait in the backlog"},
	{Name: OutageCrash, Outage: true, Help: "connections are refused and the work inside is lost"},
	{Name: OutagePartition, Outage: true, Help: "requests and answers are lost; the server works on, idle"},
	{Name: FaultLoadSpike, MMin: 1, MMax: 100, Help: "offered load × m: think time ÷ m, or rate × m"},
	{Name: FaultLatencySpike, MMin: 1, MMax: 100, Help: "the server's latency (service time, or the curve's delay) × m"},
	{Name: FaultCapacityDrop, MMin: 0.01, MMax: 1, Help: "capacity × m: workers, or server_limit, × m (linear: slope ÷ m)"},
	{Name: FaultErrorBurst, MMin: 0, MMax: 1, Help: "a fraction m of answers fail fast with an error"},
}

// MaxFaults bounds the faults of one run.
const MaxFaults = 20

// FaultSyntax describes the faults parameter's syntax, for help and errors.
const FaultSyntax = "faults as kind:at:for or kind:at:for:m, comma-separated (such as load_spike:60s:10s:3,error_burst:80s:5s:0.5)"

// FaultList is the text of the faults parameter: the run's faults besides
// the one that outage, outage_at and outage_for schedule, in FaultSyntax.
type FaultList string

// faultKind returns the row of kind name.
func faultKind(name string) (FaultKind, bool) {
	i := slices.IndexFunc(FaultKinds, func(k FaultKind) bool { return k.Name == name })
	if i < 0 {
		return FaultKind{}, false
	}
	return FaultKinds[i], true
}

// Parse returns the faults of l, or an error that says which fault is bad
// and why.
func (l FaultList) Parse() ([]Fault, error) {
	if l == "" {
		return nil, nil
	}
	parts := strings.Split(string(l), ",")
	if len(parts) > MaxFaults {
		return nil, fmt.Errorf("%d faults, at most %d", len(parts), MaxFaults)
	}
	var out []Fault
	for i, part := range parts {
		f, err := parseFault(part)
		if err != nil {
			return nil, fmt.Errorf("fault %d (%q): %v", i+1, part, err)
		}
		out = append(out, f)
	}
	if err := outagesApart(out); err != nil {
		return nil, err
	}
	return out, nil
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
		names := make([]string, len(FaultKinds))
		for i, k := range FaultKinds {
			names[i] = k.Name
		}
		return Fault{}, fmt.Errorf("kind %q is not one of %s", f[0], strings.Join(names, ", "))
	}
	var fault Fault
	fault.Kind = k.Name
	for i, dst := range []*time.Duration{&fault.At, &fault.For} {
		d, err := time.ParseDuration(f[1+i])
		if err != nil || d < 0 || d > maxFaultTime {
			return Fault{}, fmt.Errorf("%s %q is not a duration from 0s to %v", []string{"at", "for"}[i], f[1+i], maxFaultTime)
		}
		*dst = d
	}
	switch {
	case k.Outage && len(f) == 4:
		return Fault{}, fmt.Errorf("%s takes no magnitude", k.Name)
	case !k.Outage && len(f) == 3:
		return Fault{}, fmt.Errorf("%s needs a magnitude m from %s to %s", k.Name, fmtFloat(k.MMin), fmtFloat(k.MMax))
	case !k.Outage:
		m, err := strconv.ParseFloat(f[3], 64)
		if err != nil || !(m >= k.MMin && m <= k.MMax) || math.IsInf(m, 0) {
			return Fault{}, fmt.Errorf("magnitude %q is not a number from %s to %s", f[3], fmtFloat(k.MMin), fmtFloat(k.MMax))
		}
		fault.M = m
	}
	return fault, nil
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

// String writes f as FaultList's syntax reads it.
func (f Fault) String() string {
	s := f.Kind + ":" + f.At.String() + ":" + f.For.String()
	if k, _ := faultKind(f.Kind); !k.Outage {
		s += ":" + fmtFloat(f.M)
	}
	return s
}

// FaultListOf writes fs as a FaultList.
func FaultListOf(fs []Fault) FaultList {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = f.String()
	}
	return FaultList(strings.Join(parts, ","))
}

// AllFaults returns every fault of p's run: the one that outage, outage_at
// and outage_for schedule (when it is not none and lasts), then p.Faults'.
// p must be valid.
func AllFaults(p *Params) []Fault {
	var out []Fault
	if p.Outage != OutageNone && p.OutageFor > 0 {
		out = append(out, Fault{Kind: p.Outage, At: p.OutageAt, For: p.OutageFor})
	}
	more, _ := p.Faults.Parse()
	return append(out, more...)
}

// IsOutage reports whether kind takes the server down (pause, crash,
// partition) rather than changing how it works.
func IsOutage(kind string) bool {
	k, _ := faultKind(kind)
	return k.Outage
}
