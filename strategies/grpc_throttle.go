package strategies

import (
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// The defaults of gRPC's retry throttling: the retryThrottling example of
// gRFC A6 ("gRPC Retry Design", its section on throttling retry attempts),
// maxTokens 10 and tokenRatio 0.1. gRPC itself has no default: it
// throttles only when a service config sets both.
const (
	DefaultGRPCMaxTokens  = 10.0
	DefaultGRPCTokenRatio = 0.1
)

// GRPCThrottleConfig are the parameters of a GRPCThrottle.
type GRPCThrottleConfig struct {
	// MaxTokens is the bucket's size and its tokens at the start
	// (grpc_max_tokens). gRFC A6 allows (0, 1000].
	MaxTokens float64
	// TokenRatio is what a success adds (grpc_token_ratio), to three
	// decimals: the rest are dropped, as gRPC drops them.
	TokenRatio float64
}

// GRPCThrottle is gRPC's retry throttling (gRFC A6): a bucket of tokens
// that starts full, at MaxTokens; every failed attempt takes one token
// (never below 0), every success adds TokenRatio (never above MaxTokens),
// and a failed attempt is not retried while the tokens are at most
// MaxTokens/2. First attempts are never throttled, so the successes among
// them refill the bucket: once failures drained it, a lane retries about
// as often as TokenRatio per success lets it.
//
// It counts in thousandths of a token, as gRPC's C core does (its
// milli-tokens), so that ten successes of 0.1 make exactly one token; and
// it keeps TokenRatio's first three decimals, dropping the rest, as gRPC's
// C core reads retryThrottling.tokenRatio ("We support up to 3 decimal
// digits": RetryGlobalConfig::JsonPostLoad, src/core/client_channel/
// retry_service_config.cc, which keeps the first three digits after the
// point and ignores the others): 0.5466 adds 0.546, not 0.547. Every error and timeout
// counts as a failure: gRPC counts the status codes a service config
// calls retryable, and every failure here is one a strategy retries.
//
// Its state is the bucket of one gRPC channel, which every call of a
// process shares: it is shared by the Policy's clients, and safe for
// concurrent use.
type GRPCThrottle struct {
	cfg        GRPCThrottleConfig
	max, ratio int64 // in thousandths of a token
	mu         sync.Mutex
	tokens     int64 // in thousandths of a token
}

// NewGRPCThrottle returns a full bucket of c's size.
func NewGRPCThrottle(c GRPCThrottleConfig) *GRPCThrottle {
	t := &GRPCThrottle{cfg: c, max: milli(c.MaxTokens), ratio: milliTrunc(c.TokenRatio)}
	t.tokens = t.max
	return t
}

// milli returns x in thousandths, rounded.
func milli(x float64) int64 { return int64(math.Round(x * 1000)) }

// milliTrunc returns the thousandths of x, a positive number, that x's
// shortest decimal (the one strconv.FormatFloat(x, 'f', -1, 64) writes,
// which is what was typed) holds once truncated to three decimals:
// 0.5466 gives 546, and 0.29 gives 290 although 0.29 × 1000 is
// 289.99999999999997 in float64. It counts exactly: float64(k)/1000 is
// the float64 nearest to the decimal k/1000, and rounding to the nearest
// keeps order, so x is at least float64(k)/1000 exactly when its decimal
// is at least k/1000.
func milliTrunc(x float64) int64 {
	k := math.Floor(x * 1000)
	switch {
	case (k+1)/1000 <= x:
		k++
	case k/1000 > x:
		k--
	}
	return int64(k)
}

// AllowRetry implements Limiter: it allows a retry while the bucket holds
// more than half its size.
func (t *GRPCThrottle) AllowRetry(*State, time.Duration, *rand.Rand) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return 2*t.tokens > t.max
}

// Record implements Limiter: a success adds TokenRatio, a failure takes one
// token.
func (t *GRPCThrottle) Record(_ *State, _ time.Duration, o Outcome) {
	t.mu.Lock()
	if o == Success {
		t.tokens = min(t.max, t.tokens+t.ratio)
	} else {
		t.tokens = max(0, t.tokens-1000)
	}
	t.mu.Unlock()
}

// Tokens returns the tokens in the bucket.
func (t *GRPCThrottle) Tokens() float64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return float64(t.tokens) / 1000
}

// Config implements SharedLimiter.
func (t *GRPCThrottle) Config() any { return t.cfg }

var _ SharedLimiter = (*GRPCThrottle)(nil)
