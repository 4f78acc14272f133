package scenario

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// Params are every input of a simulation, under the names of backofflab's
// vocabulary. The table in Table gives each one's range and meaning.
type Params struct {
	Clients        int           // clients
	Think          time.Duration // think: mean of the exponential pause between requests
	Timeout        time.Duration // timeout: per attempt
	Arrival        string        // arrival: closed or open
	Rate           float64       // rate: open arrivals per second
	ServerModel    string        // server_model: a row of ServerModels
	ServerLimit    int           // server_limit
	ServerDelay    time.Duration // server_delay
	ServerFactor   float64       // server_factor
	ServerK        float64       // server_k
	ServerSlope    time.Duration // server_slope
	MaxServerDelay time.Duration // max_server_delay
	Workers        int           // workers
	ServiceTime    time.Duration // service_time
	ServiceDist    string        // service_dist: exp or fixed
	QueueOrder     string        // queue_order: fifo or lifo
	QueueTimeout   time.Duration // queue_timeout: 0 for none
	QueueControl   string        // queue_control: off or codel
	CoDelTarget    time.Duration // codel_target
	CoDelInterval  time.Duration // codel_interval
	ShedAbove      int           // shed_above: 0 for no load shedding
	Backlog        int           // backlog
	Outage         string        // outage: none, pause, crash or partition
	OutageAt       time.Duration // outage_at
	OutageFor      time.Duration // outage_for
	Faults         []Fault       // faults: more faults, besides the outage
	Duration       time.Duration // duration
	Tick           time.Duration // tick
	Seed           uint64        // seed
	Patience       time.Duration // patience: judges the requests (Summary.SucceededWithin), changes nothing of the run
	Lanes          []Lane        // lanes, a to d
	// Changes are the run's live changes (changes), in time order: a run
	// of p starts with the values above and takes each at its time.
	Changes []Change
}

// Lane holds one lane's own parameters: its retry strategy, whether the
// server learns that a client gave up on an attempt, and the tiers, if
// any, between its clients and the server.
type Lane struct {
	strategies.Params
	CancelOnTimeout bool   // cancel_on_timeout
	Tiers           []Tier // tiers: the inner tiers of layered retries, top first; none by default
}

// The arrival kinds.
const (
	// ArrivalClosed is 001's closed loop: clients clients, each thinking
	// then making one request at a time, so a slow server slows the load.
	ArrivalClosed = "closed"
	// ArrivalOpen is an open loop: requests arrive at rate whatever the
	// server does, each retried by its own retrier until it ends.
	ArrivalOpen = "open"
)

// The outage kinds.
const (
	OutageNone      = "none"
	OutagePause     = "pause"
	OutageCrash     = "crash"
	OutagePartition = "partition"
)

// MaxLanes is how many lanes a run may have.
const MaxLanes = 4

// LaneNames are the letters that name the lanes in the vocabulary.
const LaneNames = "abcd"

// laneStrategies are the strategies of lanes whose strategy is not given:
// lane a retries every 100 ms and storms, lane b backs off as 001's text
// describes (exponential, 100 ms ×2, jitter 0.1) and recovers; a third lane
// adds AWS's full jitter, a fourth 001's program as published.
var laneStrategies = [MaxLanes]string{
	strategies.NameFixed, strategies.NameExponential,
	strategies.NameFullJitter, strategies.NameThinkScaled,
}

// Defaults returns the landing view: 001's clients and outage (1000 clients
// thinking 10 s on average with a 2 s timeout, a 15 s pause at 20 s, 120 s
// in all) against a worker queue of 30 workers serving 100 ms on average
// (300 requests/s for a load of about 99), lane a retrying every 100 ms
// (fixed) and lane b backing off as 001's text describes (exponential).
// 001's server, the curve, keeps its defaults (100 ms / 30 / 1.05 / 15):
// server_model=curve and b.strategy=think_scaled give 001's experiment as
// published.
func Defaults() Params {
	return Params{
		Clients:        1000,
		Think:          10 * time.Second,
		Timeout:        2 * time.Second,
		Arrival:        ArrivalClosed,
		Rate:           100,
		ServerModel:    QueueModel,
		ServerLimit:    30,
		ServerDelay:    100 * time.Millisecond,
		ServerFactor:   1.05,
		ServerK:        15,
		ServerSlope:    time.Millisecond,
		MaxServerDelay: time.Hour,
		Workers:        30,
		ServiceTime:    100 * time.Millisecond,
		ServiceDist:    ServiceExp,
		QueueOrder:     QueueFIFO,
		QueueControl:   QueueControlOff,
		CoDelTarget:    5 * time.Millisecond,
		CoDelInterval:  100 * time.Millisecond,
		Backlog:        4096,
		Outage:         OutagePause,
		OutageAt:       20 * time.Second,
		OutageFor:      15 * time.Second,
		Duration:       120 * time.Second,
		Tick:           100 * time.Millisecond,
		Seed:           1,
		Patience:       30 * time.Second,
		Lanes:          []Lane{DefaultLane(0), DefaultLane(1)},
	}
}

// DefaultLane returns the defaults of lane i (0 for a): its default strategy
// with that strategy's default parameters.
func DefaultLane(i int) Lane {
	p, _ := strategies.Defaults(laneStrategies[i])
	return Lane{Params: p}
}

// Clone returns a copy of p that shares no memory with it.
func (p Params) Clone() Params {
	p.Faults = slices.Clone(p.Faults)
	p.Changes = slices.Clone(p.Changes)
	p.Lanes = slices.Clone(p.Lanes)
	for i := range p.Lanes {
		p.Lanes[i].Tiers = slices.Clone(p.Lanes[i].Tiers)
	}
	return p
}

// Map returns every parameter of p under its vocabulary name, numbers as
// numbers and durations as Go duration strings.
func (p Params) Map() map[string]any {
	m := map[string]any{lanesParam.Name: len(p.Lanes)}
	for name, vals := range p.Encode() {
		param, _, _ := Lookup(name)
		v := vals[0]
		switch param.Type {
		case TypeInt, TypeFloat, TypeSeed:
			m[name] = json.Number(v)
		case TypeBool:
			m[name], _ = strconv.ParseBool(v)
		default:
			m[name] = v
		}
	}
	return m
}
