package libconfig

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/backofflab/backofflab/strategies"
	"go.yaml.in/yaml/v3"
)

// PollyRetry is Polly v8's RetryStrategyOptions as Microsoft's
// configuration binder reads it from JSON (appsettings.json; Polly
// 8.x, src/Polly.Core/Retry/RetryStrategyOptions.TResult.cs, with its
// [Range] attributes; keys are case-insensitive and every value may be a
// string, as the binder reads text).
type PollyRetry struct {
	// MaxRetryAttempts is MaxRetryAttempts, retries after the first
	// attempt: 1 to int.MaxValue; 3 by default.
	MaxRetryAttempts int
	// Delay is Delay, a TimeSpan ("00:00:02"): 0 to 1 day; 2 s by default.
	// It is the constant delay, the linear step, or the exponential base.
	Delay time.Duration
	// MaxDelay is MaxDelay, the cap on a delay: 0 to 1 day; nil when unset
	// (no cap).
	MaxDelay *time.Duration
	// BackoffType is BackoffType: Constant (the default), Linear or
	// Exponential (DelayBackoffType).
	BackoffType string
	// UseJitter is UseJitter; false by default. With Exponential it draws
	// Polly's decorrelated jitter (V2); with Constant and Linear it adds
	// up to ±25 %.
	UseJitter bool
}

// PollyDefaults are RetryStrategyOptions' defaults.
func PollyDefaults() PollyRetry {
	return PollyRetry{MaxRetryAttempts: 3, Delay: 2 * time.Second, BackoffType: "Constant"}
}

var pollyBackoffTypes = []string{"Constant", "Linear", "Exponential"}

const pollyTimeSpanRule = `a TimeSpan such as "00:00:02" or "00:00:00.2000000", from 00:00:00 to 1.00:00:00`

// ParsePolly reads RetryStrategyOptions as a JSON object (the section of
// appsettings.json that is bound to it). Name and ShouldRetryAfterHeader
// are warnings; the delegates (ShouldHandle, DelayGenerator, OnRetry)
// cannot be written in JSON and are unknown fields.
func ParsePolly(data []byte) (PollyRetry, []Warning, error) {
	top, err := document(data, true)
	if err != nil {
		return PollyDefaults(), nil, err
	}
	r := &reader{}
	p := r.pollyOptions(top, "")
	return p, r.warns, r.err()
}

// pollyOptions reads the RetryStrategyOptions object v at path.
func (r *reader) pollyOptions(v *yaml.Node, path string) PollyRetry {
	p := PollyDefaults()
	oneDay := func(d time.Duration) bool { return d >= 0 && d <= 24*time.Hour }
	r.object(v, path, fields{
		"maxretryattempts": func(v *yaml.Node, f string) {
			if n, ok := r.integer(v, f, 1, math.MaxInt32, "a whole number of retries, 1 to 2147483647", true); ok {
				p.MaxRetryAttempts = int(n)
			}
		},
		"delay": func(v *yaml.Node, f string) {
			if d, ok := r.duration(v, f, parseTimeSpan, oneDay, pollyTimeSpanRule); ok {
				p.Delay = d
			}
		},
		"maxdelay": func(v *yaml.Node, f string) {
			if resolve(v).ShortTag() == "!!null" {
				return
			}
			if d, ok := r.duration(v, f, parseTimeSpan, oneDay, pollyTimeSpanRule); ok {
				p.MaxDelay = &d
			}
		},
		"backofftype": func(v *yaml.Node, f string) {
			if s, ok := r.text(v, f, true); ok {
				i := slices.IndexFunc(pollyBackoffTypes, func(t string) bool { return strings.EqualFold(t, strings.TrimSpace(s)) })
				if j := strings.TrimSpace(s); i < 0 && len(j) == 1 && j[0] >= '0' && j[0] <= '2' {
					i = int(j[0] - '0') // Enum.Parse reads the number too
				}
				if i < 0 {
					r.fail(v, f, ErrOutOfRange, s, "Constant, Linear or Exponential")
					return
				}
				p.BackoffType = pollyBackoffTypes[i]
			}
		},
		"usejitter": func(v *yaml.Node, f string) {
			if b, ok := r.boolean(v, f, true); ok {
				p.UseJitter = b
			}
		},
	}, map[string]string{
		"name":                   "a name for telemetry, not a retry setting",
		"shouldretryafterheader": "backofflab's server sends no Retry-After header",
	}, strings.ToLower)
	return p
}

// pollyWire is the JSON that PollyRetry.Marshal writes.
type pollyWire struct {
	MaxRetryAttempts int    `json:"MaxRetryAttempts"`
	Delay            string `json:"Delay"`
	MaxDelay         string `json:"MaxDelay,omitempty"`
	BackoffType      string `json:"BackoffType"`
	UseJitter        bool   `json:"UseJitter"`
}

// Marshal writes p as the JSON object the configuration binder reads.
func (p PollyRetry) Marshal() ([]byte, error) {
	w := pollyWire{MaxRetryAttempts: p.MaxRetryAttempts, Delay: formatTimeSpan(p.Delay), BackoffType: p.BackoffType, UseJitter: p.UseJitter}
	if p.MaxDelay != nil {
		w.MaxDelay = formatTimeSpan(*p.MaxDelay)
	}
	return marshalJSON(w)
}

func (p PollyRetry) toLane() (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NamePolly)
	l.MaxAttempts, l.MinDelay, l.MaxDelay = p.MaxRetryAttempts+1, p.Delay, strategies.DefaultNoCap
	if p.MaxDelay != nil {
		l.MaxDelay = *p.MaxDelay
	}
	l.BackoffType, l.UseJitter = strings.ToLower(p.BackoffType), p.UseJitter
	return l, nil, map[string]string{"max_attempts": "MaxRetryAttempts", "min_delay": "Delay", "max_delay": "MaxDelay"}, nil
}

func pollyFromLane(l strategies.Params, lib string) (Config, []Warning, error) {
	why := otherRow("Polly", l, strategies.NamePolly)
	if l.MaxAttempts < 2 {
		why = append(why, fmt.Sprintf("MaxRetryAttempts is at least 1 (max_attempts 2); the lane's max_attempts is %d (0: no limit)", l.MaxAttempts))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"min_delay", l.MinDelay}, {"max_delay", l.MaxDelay}} {
		if d.v%100 != 0 || d.v > 24*time.Hour {
			why = append(why, fmt.Sprintf("a TimeSpan is whole 100 ns ticks up to 1 day; the lane's %s is %v", d.name, d.v))
		}
	}
	why = append(why, noDeadline(l, "Polly's retry strategy")...)
	why = append(why, noLimiters(l, "Polly")...)
	i := slices.Index(strategies.PollyBackoffTypes(), l.BackoffType)
	if i < 0 {
		i = 0
	}
	p := PollyRetry{MaxRetryAttempts: l.MaxAttempts - 1, Delay: l.MinDelay, BackoffType: pollyBackoffTypes[i], UseJitter: l.UseJitter}
	if l.MaxDelay != strategies.DefaultNoCap {
		d := l.MaxDelay
		p.MaxDelay = &d
	}
	return p, nil, cannot(lib, why)
}
