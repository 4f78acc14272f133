package scenario

import (
	"time"

	"github.com/backofflab/backofflab/internal/reqhist"
)

// Summary is a lane's verdict on the run so far.
type Summary struct {
	// BaselineOK is the mean ok/s over the ticks before the first outage
	// or other fault (over the whole run when there is none).
	BaselineOK float64 `json:"baseline_ok"`
	// ServerRecoveredAfter is the time in seconds from the end of the last
	// outage or other fault (Fault) until concurrency stayed at or under the server's healthy
	// level (HealthyOf: server_limit for 001's curve, workers for the
	// queue) for 5 s;
	// nil while that has not happened.
	ServerRecoveredAfter *float64 `json:"server_recovered_after"`
	// ServiceRecoveredAfter is the time in seconds from the end of the last
	// outage or other fault until the ok rate over 5 s came back to 90 % of BaselineOK;
	// nil while that has not happened.
	ServiceRecoveredAfter *float64 `json:"service_recovered_after"`
	// Collapsed reports that an outage or other fault has ended and
	// neither recovery has happened since, or that the lane stopped
	// (Stopped).
	Collapsed bool `json:"collapsed"`
	// Recovering reports, of a lane that Collapsed, that it was on its
	// way back at the end: over the last recovery window its clients sent
	// at most easing of the attempts they sent in the window before it,
	// and the server held at most easing of the requests it held then.
	// Both must fall: backoff alone makes attempts fall while the server
	// stays overloaded. The windows' figures (attempts a second, the mean
	// of the ticks' highest concurrency), for the verdict's words, are set
	// for a lane that is Recovering.
	Recovering      bool    `json:"recovering,omitempty"`
	EarlierAttempts float64 `json:"earlier_attempts,omitempty"`
	RecentAttempts  float64 `json:"recent_attempts,omitempty"`
	EarlierLoad     float64 `json:"earlier_load,omitempty"`
	RecentLoad      float64 `json:"recent_load,omitempty"`
	// Fault is the kind of fault other than an outage (a FaultKinds name:
	// load_spike, …) whose end the recoveries are measured from, when the
	// last fault to end was one; empty when it was an outage, or none has
	// ended. A load spike is no outage, but a lane may collapse under it.
	Fault string `json:"fault,omitempty"`
	// Stopped, when not empty, says why and where the lane stopped before
	// the run's end: its queue of requests outgrew the memory budget.
	Stopped string `json:"stopped,omitempty"`
	// PeakConcurrency is the highest concurrency the server reached.
	PeakConcurrency int `json:"peak_concurrency"`
	// Attempts counts every attempt sent, Requests every request begun.
	Attempts int64 `json:"attempts"`
	Requests int64 `json:"requests"`
	// Amplification is Attempts / Requests.
	Amplification float64 `json:"amplification"`
	// TierAttempts counts, for a lane with layered retries (Lane.Tiers),
	// the attempts each inner tier sent, tier 2 first; it is empty for a
	// lane whose clients call the server.
	TierAttempts []int64 `json:"tier_attempts,omitempty"`
	// BottomAmplification is, for a lane with layered retries, the
	// attempts the bottom tier sent to the server per request begun: the
	// attempts of every tier multiplied. It is 0 without tiers, where
	// Amplification is the server's.
	BottomAmplification float64 `json:"bottom_amplification,omitempty"`
	// Every request is exactly one of Succeeded, GaveUp and Open.
	Succeeded int64 `json:"succeeded"`
	GaveUp    int64 `json:"gave_up"`
	Open      int64 `json:"open"`
	// PeakAttemptRate is the most attempts per second that the server
	// was sent in any tick, to set against its capacity: the clients'
	// attempts, or with layered retries the bottom tier's (the caller's
	// to set, as SetTiers).
	PeakAttemptRate float64 `json:"peak_attempt_rate"`

	// What users saw, request by request: a request's latency runs from
	// its first attempt to its final answer (success, given up by its
	// policy, refused by a limiter or a breaker, or abandoned when its
	// client was removed), backoff waits included. The figures are of the
	// requests that ended; those still open at the end are left out of
	// them and counted in Open. A lane whose requests the engine did not
	// count one by one (a real lane) has none of them. The histograms
	// they come from are not kept here, as a phase map keeps thousands of
	// summaries: simengine's Engine.Requests and RunRequests return them,
	// for a caller that merges several runs' or asks other quantiles.

	// RequestP50, RequestP99 and RequestP999 are the median, 99th and
	// 99.9th percentiles of the latency of every request that ended, in
	// seconds, within reqhist.RelativeError; 0 when none ended. They belong
	// to no tick: a request begun during an outage counts once, whenever
	// it ends.
	RequestP50  float64 `json:"request_p50"`
	RequestP99  float64 `json:"request_p99"`
	RequestP999 float64 `json:"request_p999"`
	// Patience is the run's patience (Params.Patience) in seconds, which
	// judged OpenPastPatience and SucceededWithin.
	Patience float64 `json:"patience"`
	// OpenPastPatience counts the requests of Open that began more than
	// the run's patience (Params.Patience) before the end (of the ticks so
	// far, for a run still going): their users have given up on them.
	OpenPastPatience int64 `json:"open_past_patience"`
	// SucceededWithin is the share of requests that succeeded within
	// the run's patience: the successes whose latency is at most
	// Patience (within reqhist.RelativeError), over the requests that ended and those of
	// OpenPastPatience. It is 1 when there are no such requests: none
	// failed.
	SucceededWithin float64 `json:"succeeded_within"`
}

// recoveryWindow is how long a recovery must hold.
const recoveryWindow = 5 * time.Second

// serviceLevel is the share of the baseline ok rate that counts as recovered.
const serviceLevel = 0.9

// easing is the share of the attempts of the window before it that a lane
// which has not recovered sends, at most, in its last recovery window, to be
// said to be still recovering: a fall of a tenth is beyond the noise of a
// storm's steady rate (some hundreds of attempts a window), and its load is
// on its way down.
const easing = 0.9

// Detector watches one lane's ticks for the verdicts of Summary. Every lane
// of an Engine has one; a lane measured outside the engine (the playground's
// real HTTP lane) feeds its own ticks to one, so that both are judged by
// the same rules. Feed it in time order: the outages' transitions and the
// ticks as they happen, a transition before the ticks that end after it.
type Detector struct {
	tickLen time.Duration
	window  int // ticks in a recovery window
	limit   int

	baseOK    int64
	baseTicks int
	outages   bool // an outage or other fault has started: the baseline is fixed
	down      bool // an outage is in effect
	faults    int  // faults other than outages in effect
	inFault   string
	ended     bool // an outage or other fault has ended, and none is in effect
	endAt     time.Duration
	endFault  string // the kind of the fault that ended at endAt, "" for an outage

	serverFrom time.Duration // start of the current run of ticks under the limit
	server     *float64
	oks        []int64 // ok counts of the last window ticks since endAt
	okSum      int64
	seen       int // ticks since endAt
	service    *float64
	peak       int
	peakSent   int64 // the most attempts sent in a tick

	// The attempts and the highest concurrency of the ticks of the last
	// two windows since endAt, for the trend of a lane not recovered.
	trend  []trendTick
	trendN int // ticks counted in trend since endAt
}

// trendTick is one tick's figures for a trend.
type trendTick struct {
	sent int64
	load int
}

// NewDetector returns the detector of a lane of p's run: its ticks last
// p.Tick, and its server recovers at or under HealthyOf(p).
func NewDetector(p Params) *Detector {
	d := newDetector(&p)
	return &d
}

func newDetector(p *Params) Detector {
	w := int((recoveryWindow + p.Tick - 1) / p.Tick)
	return Detector{tickLen: p.Tick, window: w, limit: HealthyOf(p), oks: make([]int64, w), trend: make([]trendTick, 2*w)}
}

// SetLimit sets the concurrency at or under which the server counts as
// recovered, from the next tick on (a live change of the server: see
// HealthyOf).
func (d *Detector) SetLimit(limit int) { d.limit = limit }

func (d *Detector) baseline() float64 {
	if d.baseTicks == 0 {
		return 0
	}
	return float64(d.baseOK) / (float64(d.baseTicks) * d.tickLen.Seconds())
}

// OutageStarted records that an outage starts: the baseline is fixed, and
// the recoveries of an earlier outage are forgotten.
func (d *Detector) OutageStarted() {
	d.outages, d.down = true, true
	d.server, d.service = nil, nil
}

// OutageEnded records that the outage ended at virtual time t. While
// other faults are still in effect, the recoveries are measured from the
// end of the last of them.
func (d *Detector) OutageEnded(t time.Duration) {
	d.down = false
	if d.faults > 0 {
		return
	}
	d.endFault = ""
	d.settled(t)
}

// Faults records that, from virtual time t, n faults other than outages
// (load spikes, latency spikes, capacity drops, error bursts) are in
// effect, kind the latest of them (any when n is 0). The first to start
// fixes the baseline as an outage does and forgets the recoveries of an
// earlier fault; when the last ends, outside an outage, the recoveries are
// measured from t, as from an outage's end: a lane that does not recover
// from a load spike has collapsed under it.
func (d *Detector) Faults(n int, kind string, t time.Duration) {
	was := d.faults
	d.faults = n
	switch {
	case n > 0 && was == 0:
		d.outages, d.ended = true, false
		d.server, d.service = nil, nil
		d.inFault = kind
	case n > 0 && kind != "":
		d.inFault = kind
	case was > 0 && !d.down:
		d.endFault = d.inFault
		d.settled(t)
	}
}

// settled starts the recovery windows at t, when the last outage or other
// fault in effect ended.
func (d *Detector) settled(t time.Duration) {
	d.ended, d.endAt = true, t
	// Recovery windows start at tick boundaries.
	d.serverFrom = (t + d.tickLen - 1) / d.tickLen * d.tickLen
	d.seen, d.okSum = 0, 0
	clear(d.oks)
	d.trendN = 0
	clear(d.trend)
}

// Tick takes the tick that ends at virtual time t: ok successes during it,
// sent the attempts the lane's clients sent during it (for the trend of a
// lane not recovered, Summary.Recovering), and maxC the highest
// concurrency the server reached during it.
func (d *Detector) Tick(t time.Duration, ok, sent int64, maxC int) {
	d.peak = max(d.peak, maxC)
	d.peakSent = max(d.peakSent, sent)
	if !d.outages {
		d.baseOK += ok
		d.baseTicks++
	}
	if d.down || d.faults > 0 || !d.ended || t-d.tickLen < d.endAt {
		return
	}
	d.trend[d.trendN%len(d.trend)] = trendTick{sent: sent, load: maxC}
	d.trendN++
	if d.server == nil {
		if maxC > d.limit {
			d.serverFrom = t
		} else if t-d.serverFrom >= recoveryWindow {
			d.server = seconds(d.serverFrom - d.endAt)
		}
	}
	i := d.seen % d.window
	d.okSum += ok - d.oks[i]
	d.oks[i] = ok
	d.seen++
	if d.service == nil && d.seen >= d.window {
		need := serviceLevel * d.baseline() * float64(d.window) * d.tickLen.Seconds()
		if d.baseline() > 0 && float64(d.okSum) >= need {
			d.service = seconds(t - time.Duration(d.window)*d.tickLen - d.endAt)
		}
	}
}

// easing sets whether s's attempts and load fell by enough over its last
// two windows to say the lane is still recovering, once two windows have
// passed since the outage, and then those windows' figures.
func (d *Detector) easing(s *Summary) {
	if !s.Collapsed || d.trendN < len(d.trend) {
		return
	}
	var recent, earlier trendTick
	for k := 1; k <= len(d.trend); k++ {
		at := &earlier
		if k <= d.window {
			at = &recent
		}
		tt := d.trend[(d.trendN-k)%len(d.trend)]
		at.sent += tt.sent
		at.load += tt.load
	}
	s.Recovering = earlier.sent > 0 && earlier.load > 0 &&
		float64(recent.sent) <= easing*float64(earlier.sent) && float64(recent.load) <= easing*float64(earlier.load)
	if !s.Recovering {
		return
	}
	w := float64(d.window)
	secs := w * d.tickLen.Seconds()
	s.RecentAttempts, s.EarlierAttempts = float64(recent.sent)/secs, float64(earlier.sent)/secs
	s.RecentLoad, s.EarlierLoad = float64(recent.load)/w, float64(earlier.load)/w
}

func seconds(t time.Duration) *float64 {
	s := t.Seconds()
	return &s
}

// Summary returns the verdict on the ticks so far, with the lane's totals
// since the start: requests begun, attempts sent, requests that succeeded
// and requests given up (the rest are open). Its tiers' figures are the
// caller's to add (SetTiers).
func (d *Detector) Summary(requests, attempts, succeeded, gaveUp int64) Summary {
	s := Summary{
		BaselineOK:            d.baseline(),
		ServerRecoveredAfter:  d.server,
		ServiceRecoveredAfter: d.service,
		Collapsed:             d.ended && !d.down && d.faults == 0 && d.server == nil && d.service == nil,
		PeakConcurrency:       d.peak,
		Attempts:              attempts,
		Requests:              requests,
		Succeeded:             succeeded,
		GaveUp:                gaveUp,
		Open:                  requests - succeeded - gaveUp,
		PeakAttemptRate:       float64(d.peakSent) / d.tickLen.Seconds(),
	}
	if d.ended {
		s.Fault = d.endFault
	}
	if s.Requests > 0 {
		s.Amplification = float64(s.Attempts) / float64(s.Requests)
	}
	d.easing(&s)
	return s
}

// SetTiers adds to s the attempts each inner tier of its lane sent, tier 2
// first (none for a lane without tiers), and the bottom tier's attempts
// per request that they give.
func (s *Summary) SetTiers(attempts []int64) {
	if len(attempts) == 0 {
		s.TierAttempts, s.BottomAmplification = nil, 0
		return
	}
	s.TierAttempts = attempts
	if s.Requests > 0 {
		s.BottomAmplification = float64(attempts[len(attempts)-1]) / float64(s.Requests)
	}
}

// SetRequests adds to s the figures of its lane's requests one by one:
// all holds the latency of every request that ended and ok that of the
// successes, openPast is how many of the requests still open began more
// than patience before now (the run's end). s's Open must be what is left
// of Requests once all's are counted.
func (s *Summary) SetRequests(all, ok *reqhist.Histogram, openPast int64, patience time.Duration) {
	s.RequestP50 = all.Quantile(0.5).Seconds()
	s.RequestP99 = all.Quantile(0.99).Seconds()
	s.RequestP999 = all.Quantile(0.999).Seconds()
	s.Patience, s.OpenPastPatience = patience.Seconds(), openPast
	s.SucceededWithin = 1
	if judged := all.Count() + uint64(openPast); judged > 0 {
		s.SucceededWithin = float64(ok.CountAtMost(patience)) / float64(judged)
	}
}
