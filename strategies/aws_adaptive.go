package strategies

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// The constants of the AWS SDKs' adaptive retry mode's client rate limiter
// (aws-sdk-go-v2 v1.48.0, aws/retry/adaptive_ratelimit.go,
// newAdaptiveRateLimit; adaptive.go, DefaultRequestCost;
// adaptive_token_bucket.go, minCapacity).
const (
	awsAdaptiveSmooth      = 0.8 // the measured send rate's smoothing
	awsAdaptiveBeta        = 0.7 // CUBIC's multiplicative decrease
	awsAdaptiveScale       = 0.4 // CUBIC's scale constant
	awsAdaptiveMinFillRate = 0.5 // tokens per second, at least
	awsAdaptiveMinCapacity = 1.0 // the bucket holds at least one token
	awsAdaptiveRequestCost = 1.0 // tokens an attempt takes
)

// AWSAdaptiveConfig are the parameters of an AWSAdaptive limiter: none
// but its switch, since the SDK's are constants.
type AWSAdaptiveConfig struct{}

// AWSAdaptive is the client rate limiter of the AWS SDKs' adaptive retry
// mode (aws-sdk-go-v2 v1.48.0, aws/retry/adaptive.go, AdaptiveMode;
// adaptive_ratelimit.go, adaptiveRateLimit; adaptive_token_bucket.go),
// its arithmetic ported line for line on the caller's clock: every attempt
// takes a token from a bucket, which is off until the first throttling
// error; every response updates the send rate measured per half second
// (smoothed 0.8) and the bucket's fill rate by CUBIC: after a throttling
// error min(measured, fill rate)·0.7, after a success
// 0.4·(t − W)³ + the rate at the last throttle, W = ∛(that rate·0.3/0.4),
// t the time since it; never above twice the measured rate, the fill rate
// at least 0.5 tokens a second, the bucket's size the new rate (at least 1).
//
// Two choices make it a limit of this model, both stated in its switch's
// help: an attempt that finds no token fails at once, which is the SDK's
// AdaptiveModeOptions.FailOnNoAttemptTokens (by default the SDK sleeps
// until a token is there, and a Limiter cannot delay an attempt); and an
// error answer is a throttling error (a service that sheds load answers
// 429 or SlowDown), a timeout is not, as the SDK's DefaultThrottles judge.
//
// The SDK takes an attempt's token when the attempt starts: for a first
// attempt that is AllowFirst; for a retry, after its wait (its retry
// middleware sleeps, then GetAttemptToken), which is AllowSend, for a
// Policy that asks its limits when a retry is due. A Policy that does not
// asks AllowRetry, when the attempt before it failed, one wait earlier.
// Its clock's origin, 0, is when the SDK client is made: the start of a
// run.
//
// Its state is a service client's, which every request through it shares:
// it is shared by the Policy's clients, and safe for concurrent use.
type AWSAdaptive struct {
	mu sync.Mutex

	enabled, refilled          bool
	fillRate, calculatedRate   float64
	lastRefilled, lastThrottle time.Duration
	measuredTxRate             float64
	lastTxRateBucket           float64 // seconds, a multiple of 0.5
	requestCount               int64
	lastMaxRate, timeWindow    float64
	tokens, capacity           float64
}

// NewAWSAdaptive returns the limiter with its bucket off and empty.
func NewAWSAdaptive(AWSAdaptiveConfig) *AWSAdaptive { return &AWSAdaptive{} }

// acquire takes an attempt's token at now: AcquireToken. The caller holds
// a.mu.
func (a *AWSAdaptive) acquire(now time.Duration) bool {
	if !a.enabled {
		return true
	}
	a.refill(now)
	if awsAdaptiveRequestCost > a.tokens {
		return false
	}
	a.tokens -= awsAdaptiveRequestCost
	return true
}

// refill adds the tokens the fill rate gave since the last refill:
// tokenBucketRefill. The caller holds a.mu.
func (a *AWSAdaptive) refill(now time.Duration) {
	if !a.refilled {
		a.refilled, a.lastRefilled = true, now
		return
	}
	a.tokens = math.Min(a.tokens+(now-a.lastRefilled).Seconds()*a.fillRate, a.capacity)
	a.lastRefilled = now
}

// update learns from an attempt's response at now: Update. The caller
// holds a.mu.
func (a *AWSAdaptive) update(throttled bool, now time.Duration) {
	a.updateMeasuredRate(now)
	if throttled {
		rate := a.measuredTxRate
		if a.enabled {
			rate = math.Min(a.measuredTxRate, a.fillRate)
		}
		a.lastMaxRate = rate
		a.calculateTimeWindow()
		a.lastThrottle = now
		a.calculatedRate = a.cubicThrottle(rate)
		a.enabled = true
	} else {
		a.calculateTimeWindow()
		a.calculatedRate = a.cubicSuccess(now)
	}
	newRate := math.Min(a.calculatedRate, 2*a.measuredTxRate)
	a.refill(now)
	a.fillRate = math.Max(newRate, awsAdaptiveMinFillRate)
	a.capacity = math.Max(newRate, awsAdaptiveMinCapacity)
	a.tokens = math.Min(a.tokens, a.capacity)
}

// cubicSuccess is CUBIC's rate at now after a success.
func (a *AWSAdaptive) cubicSuccess(now time.Duration) float64 {
	dt := (now - a.lastThrottle).Seconds()
	return awsAdaptiveScale*math.Pow(dt-a.timeWindow, 3) + a.lastMaxRate
}

// cubicThrottle is CUBIC's rate after a throttle at rate.
func (a *AWSAdaptive) cubicThrottle(rate float64) float64 { return rate * awsAdaptiveBeta }

// calculateTimeWindow is CUBIC's W, the time from a throttle back to its
// rate.
func (a *AWSAdaptive) calculateTimeWindow() {
	a.timeWindow = math.Pow(a.lastMaxRate*(1-awsAdaptiveBeta)/awsAdaptiveScale, 1./3.)
}

// updateMeasuredRate counts a response in the current half second, and
// on the first response of a later one smooths the rate of the last.
func (a *AWSAdaptive) updateMeasuredRate(now time.Duration) {
	bucket := math.Floor(now.Seconds()*2) / 2
	a.requestCount++
	if bucket > a.lastTxRateBucket {
		rate := float64(a.requestCount) / (bucket - a.lastTxRateBucket)
		a.measuredTxRate = rate*awsAdaptiveSmooth + a.measuredTxRate*(1-awsAdaptiveSmooth)
		a.requestCount, a.lastTxRateBucket = 0, bucket
	}
}

// AllowFirst implements FirstLimiter: the first attempt takes a token.
func (a *AWSAdaptive) AllowFirst(_ *State, now time.Duration, _ *rand.Rand) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.acquire(now)
}

// AllowRetry implements Limiter: the retry takes its token now, for a
// Policy that does not ask AllowSend when the retry is due.
func (a *AWSAdaptive) AllowRetry(_ *State, now time.Duration, _ *rand.Rand) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.acquire(now)
}

// AllowSend takes the retry's token when the retry is due, as the SDK
// takes it once the retry's wait is over.
func (a *AWSAdaptive) AllowSend(_ *State, now time.Duration, _ *rand.Rand) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.acquire(now)
}

// Release implements ReserveLimiter: an attempt refused after it took its
// token gives the token back.
func (a *AWSAdaptive) Release(_ *State, _ time.Duration, _ bool) {
	a.mu.Lock()
	if a.enabled {
		a.tokens = math.Min(a.tokens+awsAdaptiveRequestCost, a.capacity)
	}
	a.mu.Unlock()
}

// Record implements Limiter: every response updates the rates; an error
// answer is a throttling error.
func (a *AWSAdaptive) Record(_ *State, now time.Duration, o Outcome) {
	a.mu.Lock()
	a.update(o == Error, now)
	a.mu.Unlock()
}

// Rates returns whether the bucket is on, its fill rate in tokens a
// second, its tokens and the measured send rate at the last update.
func (a *AWSAdaptive) Rates() (enabled bool, fillRate, tokens, measured float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.enabled, a.fillRate, a.tokens, a.measuredTxRate
}

// Config implements SharedLimiter.
func (a *AWSAdaptive) Config() any { return AWSAdaptiveConfig{} }

var (
	_ SharedLimiter  = (*AWSAdaptive)(nil)
	_ FirstLimiter   = (*AWSAdaptive)(nil)
	_ ReserveLimiter = (*AWSAdaptive)(nil)
)
