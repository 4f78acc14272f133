package scenario

import (
	"math"
	"time"
)

// Curve is 001's latency curve: Base while the concurrency
// is at most Limit, then Base×Factor^((C−Limit)/K), never more than Max.
// The simulated server and realexp's real one both answer by it.
type Curve struct {
	Base   time.Duration // server_delay (001's -baseDelay)
	Limit  int           // server_limit (001's -limit)
	Factor float64       // server_factor (001's -factor)
	K      float64       // server_k (001's hard-coded 15)
	Max    time.Duration // max_server_delay: the cap 001's server lacked
}

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
