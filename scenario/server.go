package scenario

import (
	"math"
	"slices"
	"sync"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// Latency is how long a server takes to answer as a function of the
// requests inside it (its concurrency c). Delay must not decrease as c
// grows, since the simulated and the real server both answer the oldest
// request first, and must saturate rather than overflow for any c ≥ 0:
// Delay(math.MaxInt) is the highest delay there is.
type Latency interface {
	// Delay returns the latency at concurrency c.
	Delay(c int) time.Duration
	// Flat returns the concurrency up to which Delay(c) equals Delay(0),
	// so that the simulator keeps no table below it.
	Flat() int
}

// ServerModel is one way a server answers its load: a row of ServerModels.
type ServerModel struct {
	Name  string // the value of server_model
	About string // its formula in one line
	// Uses lists the server parameters the model reads besides backlog
	// and cancel_on_timeout, which every model reads.
	Uses []string
	// Latency returns the model's latency for p's parameters, for a model
	// whose latency is a function of its concurrency; nil for a model of
	// another shape (a worker queue), which the simulator and the real
	// server each implement on their own.
	Latency func(p *Params) Latency
	// Healthy returns the concurrency up to which the server answers at
	// its best: the verdict counts the server as recovered once the
	// concurrency stays at or under it.
	Healthy func(p *Params) int
}

// ServerModels are the server models, the first the default. A new model
// whose latency is a function of the concurrency is one row here: the
// simulator, the real server, the flags, the URL and the page all read it.
var ServerModels = []ServerModel{
	{Name: "curve",
		About:   "the 2014 experiment's: server_delay up to server_limit requests inside, then ×server_factor per server_k more, up to max_server_delay",
		Uses:    []string{"server_limit", "server_delay", "server_factor", "server_k", "max_server_delay"},
		Latency: func(p *Params) Latency { return CurveOf(p) },
		Healthy: func(p *Params) int { return p.ServerLimit }},
	{Name: "linear",
		About: "server_delay plus server_slope per request inside, up to max_server_delay",
		Uses:  []string{"server_delay", "server_slope", "max_server_delay"},
		Latency: func(p *Params) Latency {
			return Linear{Base: p.ServerDelay, Slope: p.ServerSlope, Max: p.MaxServerDelay}
		},
		// Healthy while the latency is at most twice server_delay.
		Healthy: func(p *Params) int { return Linear{Base: p.ServerDelay, Slope: p.ServerSlope}.Doubled() }},
	{Name: QueueModel,
		About: "workers serve one request each for service_time (service_dist); the others wait in the backlog, taken queue_order",
		Uses:  []string{"workers", "service_time", "service_dist", "queue_order", "queue_timeout", "queue_control", "codel_target", "codel_interval"},
		// Healthy while no request waits for a worker.
		Healthy: func(p *Params) int { return p.Workers }},
}

// QueueModel is the name of the worker-queue server model: workers serve
// requests one at a time, and the requests that find every worker busy
// wait in the accept backlog.
const QueueModel = "queue"

// The values of service_dist and queue_order.
const (
	ServiceExp   = "exp"   // exponential service times (an M/M/c server)
	ServiceFixed = "fixed" // every request takes service_time
	QueueFIFO    = "fifo"  // the oldest waiting request is served first
	QueueLIFO    = "lifo"  // the newest first, as adaptive LIFO does under load
)

// The values of queue_control: the queue management of Facebook's "Fail at
// Scale" (2015), controlled delay with adaptive LIFO, or none.
const (
	QueueControlOff   = "off"
	QueueControlCoDel = "codel"
)

// Linear is a latency that grows by Slope per request inside: Base + Slope×C,
// never more than Max. Each request inside costs the others the same,
// unlike 001's curve, whose cost per request grows with the crowd.
type Linear struct {
	Base  time.Duration // server_delay
	Slope time.Duration // server_slope
	Max   time.Duration // max_server_delay
}

var _ Latency = Linear{}

// Delay returns Base + Slope×c, saturating at Max whatever c is.
func (l Linear) Delay(c int) time.Duration {
	d := float64(l.Base) + float64(l.Slope)*float64(c)
	if !(d < float64(l.Max)) {
		return l.Max
	}
	return time.Duration(d)
}

// Doubled returns the concurrency at which the latency, uncapped, reaches
// twice Base: Base/Slope, or the highest int when Slope is 0.
func (l Linear) Doubled() int {
	if l.Slope == 0 {
		return math.MaxInt
	}
	return int(min(float64(l.Base)/float64(l.Slope), math.MaxInt32))
}

// Flat returns 0, or the highest int when Slope is 0.
func (l Linear) Flat() int {
	if l.Slope == 0 {
		return math.MaxInt
	}
	return 0
}

// ServerModelOf returns the row of p's server_model; an unknown name is
// the first row, since Validate refuses one.
func ServerModelOf(p *Params) ServerModel {
	i := slices.IndexFunc(ServerModels, func(m ServerModel) bool { return m.Name == p.ServerModel })
	return ServerModels[max(i, 0)]
}

// LatencyOf returns the latency of p's server, or nil when its model is not
// a latency of the concurrency (see ServerModel.Latency).
func LatencyOf(p *Params) Latency {
	if m := ServerModelOf(p); m.Latency != nil {
		return m.Latency(p)
	}
	return nil
}

// HealthyOf returns the concurrency up to which p's server answers at its
// best (see ServerModel.Healthy).
func HealthyOf(p *Params) int { return ServerModelOf(p).Healthy(p) }

// ServerUses reports whether a server of model reads the parameter param
// (see Reads).
func ServerUses(model, param string) bool { return Reads("server_model", model, param) }

// switchRow is an enum parameter whose value decides which other
// parameters are read, with the parameters that each of its values owns.
type switchRow struct {
	param string
	owns  func(choice string) ([]string, bool) // false: no such choice
}

// switches are the switch parameters, in the order of the table.
var switches = []switchRow{
	{"arrival", func(c string) ([]string, bool) {
		owns, ok := map[string][]string{ArrivalClosed: {"clients", "think"}, ArrivalOpen: {"rate"}}[c]
		return owns, ok
	}},
	{"server_model", func(c string) ([]string, bool) {
		i := slices.IndexFunc(ServerModels, func(m ServerModel) bool { return m.Name == c })
		if i < 0 {
			return nil, false
		}
		return ServerModels[i].Uses, true
	}},
}

// limiterSwitches are the switches of the table's Switch column (each
// limiter's, a lane parameter, and queue_control): each value but off owns
// the rows that name it.
func limiterSwitches() []switchRow {
	var out []switchRow
	owned := map[string][]string{}
	for _, row := range Table {
		if row.Switch == "" {
			continue
		}
		if _, seen := owned[row.Switch]; !seen {
			sw := row.Switch
			out = append(out, switchRow{param: sw, owns: func(c string) ([]string, bool) {
				p, _, _ := Lookup(sw)
				if !slices.Contains(p.Choices, c) {
					return nil, false
				}
				if c == strategies.LimiterOff {
					return nil, true
				}
				return owned[sw], true
			}})
		}
		owned[row.Switch] = append(owned[row.Switch], row.Name)
	}
	return out
}

// allSwitches are the shared switches, then the limiters' lane switches.
var allSwitches = sync.OnceValue(func() []switchRow { return append(slices.Clone(switches), limiterSwitches()...) })

// Switches returns the names of the parameters whose value decides which
// other parameters are read: arrival and server_model, shared by the
// lanes, then each limiter's switch, a lane parameter.
func Switches() []string {
	var names []string
	for _, sw := range allSwitches() {
		names = append(names, sw.param)
	}
	return names
}

// Reads reports whether a run whose switch parameter sw (see Switches) has
// the value choice reads the parameter param: the parameters that choice
// owns, and every parameter that no value of sw owns. It is false for a
// parameter another value owns and for an unknown choice.
func Reads(sw, choice, param string) bool {
	all := allSwitches()
	i := slices.IndexFunc(all, func(s switchRow) bool { return s.param == sw })
	if i < 0 {
		return true
	}
	owns, ok := all[i].owns(choice)
	if !ok {
		return false
	}
	if slices.Contains(owns, param) {
		return true
	}
	p, _, known := Lookup(sw)
	if !known {
		return true
	}
	for _, c := range p.Choices {
		if o, _ := all[i].owns(c); slices.Contains(o, param) {
			return false
		}
	}
	return true
}

// ReadsParam reports whether p's run reads the shared parameter param, by
// the values of p's shared switches.
func ReadsParam(p *Params, param string) bool { return ReadsLaneParam(p, 0, param) }

// ReadsLaneParam reports whether p's run reads the parameter param, for
// lane i if it is a lane parameter, by the values of p's switches (the
// lane's own for a lane switch).
func ReadsLaneParam(p *Params, i int, param string) bool {
	for _, sw := range allSwitches() {
		row, _, _ := Lookup(sw.param)
		if !Reads(sw.param, row.Value(p, i), param) {
			return false
		}
	}
	return true
}

// serverModelNames are the values server_model accepts.
func serverModelNames() []string {
	names := make([]string, len(ServerModels))
	for i, m := range ServerModels {
		names[i] = m.Name
	}
	return names
}

// Curve is 001's latency curve: Base while the concurrency
// is at most Limit, then Base×Factor^((C−Limit)/K), never more than Max.
type Curve struct {
	Base   time.Duration // server_delay (001's -baseDelay)
	Limit  int           // server_limit (001's -limit)
	Factor float64       // server_factor (001's -factor)
	K      float64       // server_k (001's hard-coded 15)
	Max    time.Duration // max_server_delay: the cap 001's server lacked
}

var _ Latency = Curve{}

// CurveOf returns the latency curve of p's server.
func CurveOf(p *Params) Curve {
	return Curve{Base: p.ServerDelay, Limit: p.ServerLimit, Factor: p.ServerFactor,
		K: p.ServerK, Max: p.MaxServerDelay}
}

// Delay returns the latency at concurrency c. It saturates at Max instead
// of overflowing, whatever c is.
func (cv Curve) Delay(c int) time.Duration {
	if c <= cv.Limit || cv.Factor == 1 {
		return min(cv.Base, cv.Max)
	}
	d := float64(cv.Base) * math.Pow(cv.Factor, float64(c-cv.Limit)/cv.K)
	if !(d < float64(cv.Max)) { // also +Inf and NaN
		return cv.Max
	}
	return time.Duration(d)
}

// Flat returns Limit, or the highest int when Factor is 1.
func (cv Curve) Flat() int {
	if cv.Factor == 1 {
		return math.MaxInt
	}
	return cv.Limit
}
