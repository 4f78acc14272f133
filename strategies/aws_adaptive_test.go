package strategies

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// floatNear is the SDK's own test's floatEqual: within 1e-12.
func floatNear(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// TestAWSAdaptiveUpdateVectors replays aws-sdk-go-v2 v1.48.0's own test of
// the rate limiter's Update (aws/retry/adaptive_ratelimit_test.go,
// TestAdaptiveRateLimit_Update, case "base": a client made at time 0, one
// response every 200 ms, throttled at 2 s and 3.2 s) through Record, and
// expects the SDK's measured send rates and fill rates.
func TestAWSAdaptiveUpdateVectors(t *testing.T) {
	steps := []struct {
		ms                 int64
		throttled          bool
		measured, fillRate float64
	}{
		{200, false, 0, 0.5},
		{400, false, 0, 0.5},
		{600, false, 4.8, 0.5},
		{800, false, 4.8, 0.5},
		{1000, false, 4.16, 0.5},
		{1200, false, 4.16, 0.6912},
		{1400, false, 4.16, 1.0976},
		{1600, false, 5.632, 1.6384},
		{1800, false, 5.632, 2.3328},
		{2000, true, 4.3264, 3.02848},
		{2200, false, 4.3264, 3.4866391734702598},
		{2400, false, 4.3264, 3.8218744160402554},
		{2600, false, 5.665280, 4.053385727709987},
		{2800, false, 5.665280, 4.200373108479455},
		{3000, false, 4.333056, 4.282036558348658},
		{3200, true, 4.333056, 2.99742559084406},
		{3400, false, 4.333056, 3.4522263943863463},
	}
	a := NewAWSAdaptive(AWSAdaptiveConfig{})
	var s State
	for _, st := range steps {
		o := Success
		if st.throttled {
			o = Error
		}
		a.Record(&s, time.Duration(st.ms)*time.Millisecond, o)
		_, fill, _, measured := a.Rates()
		if !floatNear(measured, st.measured) || !floatNear(fill, st.fillRate) {
			t.Errorf("%d ms: measured %v fill %v, want the SDK's %v and %v", st.ms, measured, fill, st.measured, st.fillRate)
		}
	}
}

// TestAWSAdaptiveCubicVectors replays the SDK's test of CUBIC
// (TestAdaptiveRateLimit_cubic, case "mixed": the last throttle at 5 s at
// a rate of 10, one step a second).
func TestAWSAdaptiveCubicVectors(t *testing.T) {
	steps := []struct {
		sec       int64
		throttled bool
		rate      float64
	}{
		{5, false, 7}, {6, false, 9.64893600966}, {7, true, 6.754255206761999}, {8, true, 4.727978644733399},
		{9, false, 4.670125557970046}, {10, false, 4.770870456867401}, {11, false, 6.011819748005445},
		{12, false, 10.792973431384178},
	}
	a := NewAWSAdaptive(AWSAdaptiveConfig{})
	a.lastMaxRate, a.lastThrottle = 10, 5*time.Second
	var rate float64
	for _, st := range steps {
		now := time.Duration(st.sec) * time.Second
		a.calculateTimeWindow()
		if st.throttled {
			rate = a.cubicThrottle(rate)
			a.lastThrottle, a.lastMaxRate = now, rate
		} else {
			rate = a.cubicSuccess(now)
		}
		if !floatNear(rate, st.rate) {
			t.Errorf("%d s: rate %v, want the SDK's %v", st.sec, rate, st.rate)
		}
	}
}

// TestAWSAdaptiveTokens: the bucket is off, and every attempt goes, until
// the first throttling error (an error answer, not a timeout); from then
// on an attempt takes a token, and one that finds none is refused, as
// with FailOnNoAttemptTokens; a refused attempt's token comes back.
func TestAWSAdaptiveTokens(t *testing.T) {
	a := NewAWSAdaptive(AWSAdaptiveConfig{})
	rng := newRNG(9500)
	var s State
	for i := range 50 {
		now := time.Duration(i) * 10 * time.Millisecond
		if !a.AllowFirst(&s, now, rng) {
			t.Fatalf("attempt %d refused with the bucket off", i)
		}
		a.Record(&s, now, Timeout)
	}
	if on, _, _, _ := a.Rates(); on {
		t.Fatal("timeouts turned the bucket on; only throttling errors do")
	}
	a.Record(&s, 500*time.Millisecond, Error)
	on, fill, tokens, _ := a.Rates()
	if !on || tokens >= 1 {
		t.Fatalf("after a throttle: on %v tokens %v, want on and less than a token", on, tokens)
	}
	// The bucket, which filled while it was off as the SDK's does, fills
	// on at fill tokens a second: a whole token is there (1 − tokens)/fill
	// after the throttle, not before.
	full := 500*time.Millisecond + time.Duration(math.Ceil((1-tokens)/fill*float64(time.Second)))
	if a.AllowRetry(&s, full-time.Millisecond, rng) {
		t.Errorf("a token %v before the bucket held one (fill %v/s)", time.Millisecond, fill)
	}
	if !a.AllowSend(&s, full, rng) {
		t.Errorf("no token once the bucket held one (fill %v/s)", fill)
	}
	if a.AllowFirst(&s, full, rng) {
		t.Error("a second token from a bucket of one")
	}
	a.Release(&s, full, false)
	if _, _, tokens, _ := a.Rates(); math.Abs(tokens-1) > 1e-6 {
		t.Errorf("tokens %v after a release, want 1", tokens)
	}
}

// TestAWSAdaptiveThroughNew: the switch builds the limiter after the quota
// and before Envoy's limit.
func TestAWSAdaptiveThroughNew(t *testing.T) {
	p := mustDefaults(t, NameFullJitter)
	p.AWSQuota, p.AWSAdaptive, p.EnvoyRetryLimit = LimiterOn, LimiterOn, EnvoyMaxRetries
	var kinds []string
	for _, l := range mustPolicy(t, p).Limiters() {
		kinds = append(kinds, fmt.Sprintf("%T", l))
	}
	want := []string{"*strategies.AWSQuota", "*strategies.AWSAdaptive", "*strategies.EnvoyRetryLimit"}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Errorf("limits %v, want %v", kinds, want)
	}
}
