package scenario

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// Tick is one step of the time series: every lane's rates over the tick and
// levels at its end.
type Tick struct {
	T     float64    // virtual seconds at the tick's end
	Lanes []LaneTick // one per lane, a first
}

// LaneTick is one lane's share of a Tick. Rates are per second over the
// tick; times are in seconds.
type LaneTick struct {
	T             float64 // t: virtual seconds at the tick's end
	OK            float64 // ok: attempts that succeeded
	Errors        float64 // errors: attempts that failed fast with an error
	Timeouts      float64 // timeouts: attempts the client abandoned
	Attempts      float64 // attempts: attempts sent, first tries and retries
	Retries       float64 // retries: attempts that were retries
	GaveUp        float64 // gave_up: requests given up
	Concurrency   int     // concurrency: requests inside the server
	ServerLatency float64 // server_latency: the server's delay at that concurrency
	Backlog       int     // backlog: connections waiting in the accept backlog
	InBackoff     int     // in_backoff: clients waiting to retry
	P50           float64 // p50: median end-to-end latency of the tick's successes; NaN if none
	P99           float64 // p99: their 99th percentile; NaN if none
	Alive         int     // alive: requests begun and not ended, in flight or waiting to retry
	// Thinking counts the clients between requests: with Alive's, every
	// client of a closed loop (an open loop's requests have no client
	// between them, so it is 0 there).
	Thinking int // thinking: clients thinking between requests
	// Queued counts the requests inside the server that wait for a worker
	// (a model with workers; 0 for a latency curve's, which serves every
	// request inside at once): Concurrency less Queued are in service.
	Queued int // queued: requests inside the server waiting for a worker
	// The attempts each inner tier of layered retries sends (tier 2 is
	// the one the clients call; see Lane.Tiers): the offered load of the
	// tier below it, the server's for the bottom one. 0 for a tier the
	// lane has not.
	T2Attempts float64 // t2_attempts
	T3Attempts float64 // t3_attempts
	T4Attempts float64 // t4_attempts
	// Halted marks a tick of a lane that stopped (Summary.Stopped): every
	// value is NaN, the levels included.
	Halted bool
}

// SetLatencies sets lt's P50 and P99 from the end-to-end latencies of the
// tick's successes, sorting lat in place; both are NaN when it is empty.
func (lt *LaneTick) SetLatencies(lat []time.Duration) {
	lt.P50, lt.P99 = math.NaN(), math.NaN()
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	lt.P50 = strategies.Quantile(lat, 0.50).Seconds()
	lt.P99 = strategies.Quantile(lat, 0.99).Seconds()
}

// column is one of a LaneTick's values: its name and its label, the value
// in plain words, which the page shows beside the name.
type column struct{ name, label string }

// columnTable lists a LaneTick's values in the order AppendCSV and
// AppendJSON write them, after t (and lane, in CSV).
var columnTable = []column{
	{"ok", "succeeded"},
	{"errors", "failed with an error"},
	{"timeouts", "timed out"},
	{"attempts", "attempts sent"},
	{"retries", "retries sent"},
	{"gave_up", "requests given up"},
	{"concurrency", "requests inside the server"},
	{"server_latency", "server latency"},
	{"backlog", "waiting in the accept backlog"},
	{"in_backoff", "clients waiting to retry"},
	{"p50", "median latency"},
	{"p99", "99th percentile latency"},
	{"alive", "requests under way"},
	{"thinking", "clients thinking"},
	{"queued", "waiting for a worker"},
	{"t2_attempts", "tier 2's attempts"},
	{"t3_attempts", "tier 3's attempts"},
	{"t4_attempts", "tier 4's attempts"},
}

// Columns are the names of a LaneTick's values, in the order AppendCSV and
// AppendJSON write them, after t (and lane, in CSV).
var Columns = columnNames()

func columnNames() []string {
	names := make([]string, len(columnTable))
	for i, c := range columnTable {
		names[i] = c.name
	}
	return names
}

// Values returns lt's values in the order of Columns.
func (lt *LaneTick) Values() [18]float64 {
	if lt.Halted {
		var v [18]float64
		for i := range v {
			v[i] = math.NaN()
		}
		return v
	}
	return [18]float64{lt.OK, lt.Errors, lt.Timeouts, lt.Attempts, lt.Retries, lt.GaveUp,
		float64(lt.Concurrency), lt.ServerLatency, float64(lt.Backlog), float64(lt.InBackoff), lt.P50, lt.P99,
		float64(lt.Alive), float64(lt.Thinking), float64(lt.Queued), lt.T2Attempts, lt.T3Attempts, lt.T4Attempts}
}

// LaneTickOf returns the LaneTick at t whose Values are v, of Columns'
// length: Values' inverse. A level is NaN only in a halted lane's tick,
// which has no value at all.
func LaneTickOf(t float64, v []float64) LaneTick {
	if math.IsNaN(v[6]) {
		return LaneTick{T: t, Halted: true}
	}
	return LaneTick{T: t, OK: v[0], Errors: v[1], Timeouts: v[2], Attempts: v[3], Retries: v[4],
		GaveUp: v[5], Concurrency: int(v[6]), ServerLatency: v[7], Backlog: int(v[8]), InBackoff: int(v[9]),
		P50: v[10], P99: v[11], Alive: int(v[12]), Thinking: int(v[13]), Queued: int(v[14]),
		T2Attempts: v[15], T3Attempts: v[16], T4Attempts: v[17]}
}

// appendNum writes v in the shortest form that reads back exactly; NaN
// (no value) is written as null.
func appendNum(b []byte, v float64, null string) []byte {
	if math.IsNaN(v) {
		return append(b, null...)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// AppendNumber appends v as the JSON of ticks writes it: the shortest form
// that reads back exactly, and null for NaN (no value).
func AppendNumber(b []byte, v float64) []byte { return appendNum(b, v, "null") }

// AppendCSV appends lt as one CSV row: t, the lane's name, then Columns. A
// percentile with no value is left empty.
func (lt *LaneTick) AppendCSV(b []byte, lane string) []byte {
	b = appendNum(b, lt.T, "")
	b = append(b, ',')
	b = append(b, lane...)
	for _, v := range lt.Values() {
		b = append(b, ',')
		b = appendNum(b, v, "")
	}
	return append(b, '\n')
}

// AppendJSON appends lt as a JSON object keyed by "t" and Columns; a
// percentile with no value is null.
func (lt *LaneTick) AppendJSON(b []byte) []byte {
	b = append(b, `{"t":`...)
	b = appendNum(b, lt.T, "null")
	for i, v := range lt.Values() {
		b = append(b, `,"`...)
		b = append(b, Columns[i]...)
		b = append(b, `":`...)
		b = appendNum(b, v, "null")
	}
	return append(b, '}')
}

// MarshalJSON implements json.Marshaler with AppendJSON.
func (lt LaneTick) MarshalJSON() ([]byte, error) { return lt.AppendJSON(nil), nil }
