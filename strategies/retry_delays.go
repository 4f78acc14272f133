package strategies

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// The size of a lane's delay-by-retry chart, the playground's and the
// delays command's alike, so that both show the same numbers: the first
// DelayRetries retries over DelayDraws requests.
const (
	DelayRetries = 12
	DelayDraws   = 2000
)

// RetryDelay summarizes the distribution of one retry's delay over the
// draws that reached it.
type RetryDelay struct {
	Retry int           // 1 for the first retry: the wait before the second attempt
	Draws int           // the draws that reached this retry, whose waits the quantiles are of
	P5    time.Duration // 5th percentile
	P50   time.Duration // median
	P95   time.Duration // 95th percentile
	Max   time.Duration // the longest wait drawn
}

// GiveUp counts the draws that gave up at the same point for the same
// reason.
type GiveUp struct {
	// After is the retries a draw made before it gave up: 0 when it gave
	// up at its first failure (or its first attempt was refused).
	After int
	// By names what refused the next attempt: "max_attempts", "deadline",
	// a stateful limiter's switch ("aws_quota", "breaker", …), or the
	// strategy's name when the strategy itself stops (none, grpc_retry at
	// gRPC's cap on attempts, …).
	By string
	// Draws is how many draws gave up there.
	Draws int
}

// Delays is what RetryDelays measures of a lane: the wait before each
// retry and where its draws gave up.
type Delays struct {
	// Draws is the number of requests drawn.
	Draws int
	// Retries has one RetryDelay per retry that at least one draw reached,
	// in order.
	Retries []RetryDelay
	// GaveUp lists where the draws that gave up before the last retry
	// sampled did, by After and then By.
	GaveUp []GiveUp
	// Open is how many draws were still retrying after the last retry
	// sampled: they would have gone on.
	Open int
}

// RetryDelays samples the delay before each of the first retries of a
// request that keeps failing, as 001's "delay by attempt number" charts
// draw it: draws independent requests, up to retries retries each or until
// the policy gives up. think is the mean think time that think_scaled
// scales (think times are exponential, as in the model).
//
// Each draw is one request in isolation: it gets a Policy of its own,
// built afresh from p, so that its limiters start as a new client's do
// (a full token bucket, a closed breaker, nothing in flight) and learn of
// this request only. Its every attempt times out the moment it starts,
// and the policy is told so, as the engine tells it of every attempt:
// Begin and AllowFirst, then for each attempt Record of the timeout and
// Retry, and AllowSend when the retry is due. A timeout is the failure an
// outage's pause and an overload give; every limiter counts it as a
// failure, and none as a throttling answer (aws_adaptive's bucket stays
// off, as the SDK's does). So a limiter that one failing request cannot
// exhaust changes no wait, and one that it can (a breaker's few calls,
// gRPC's throttle) shows where it stops the request; what a limiter does
// when a whole lane fails at once is the simulation's to show, not this
// chart's. The attempts take no time, so a deadline counts the waits only.
func RetryDelays(p Params, think time.Duration, retries, draws int, seed uint64) (Delays, error) {
	pol, err := New(p)
	if err != nil {
		return Delays{}, err
	}
	out := Delays{Draws: max(0, draws)}
	rng := rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc909))
	delays := make([][]time.Duration, max(0, retries))
	ends := map[GiveUp]int{}
	// A policy with stateful limits is built afresh for every draw; one
	// without, whose limits keep nothing between requests, serves them all.
	fresh := len(pol.record) > 0 || len(pol.first) > 0 || len(pol.send) > 0
	for d := range draws {
		if fresh && d > 0 {
			pol, _ = New(p) // p was checked above
		}
		var s State
		th := dur(rng.ExpFloat64() * float64(think))
		pol.Begin(&s, 0, th)
		after, by := runDraw(pol, &s, rng, delays, p.Strategy)
		if by == "" {
			out.Open++
			continue
		}
		ends[GiveUp{After: after, By: by}]++
	}
	for r, ds := range delays {
		if len(ds) == 0 {
			break
		}
		slices.Sort(ds)
		out.Retries = append(out.Retries, RetryDelay{
			Retry: r + 1,
			Draws: len(ds),
			P5:    Quantile(ds, 0.05),
			P50:   Quantile(ds, 0.50),
			P95:   Quantile(ds, 0.95),
			Max:   ds[len(ds)-1],
		})
	}
	for g, n := range ends {
		g.Draws = n
		out.GaveUp = append(out.GaveUp, g)
	}
	slices.SortFunc(out.GaveUp, func(a, b GiveUp) int {
		return cmp.Or(cmp.Compare(a.After, b.After), cmp.Compare(a.By, b.By))
	})
	return out, nil
}

// runDraw runs one request that Begin prepared in s, whose every attempt
// times out at its start, for up to len(delays) retries, appending each
// retry's wait to delays. It returns the retries made and what refused the
// next attempt, or "" when the request was still retrying.
func runDraw(pol *Policy, s *State, rng *rand.Rand, delays [][]time.Duration, strategy string) (int, string) {
	if l := pol.allowFirst(s, 0, rng); l != nil {
		return 0, limitName(l)
	}
	for r := range delays {
		now := s.AttemptStart
		pol.Record(s, now, Timeout)
		d, l, ok := pol.retryBy(s, now, rng)
		if !ok {
			if l == nil {
				return r, strategy
			}
			return r, limitName(l)
		}
		if len(pol.send) > 0 {
			if l := pol.allowSend(s, s.AttemptStart, rng); l != nil {
				return r, limitName(l)
			}
		}
		delays[r] = append(delays[r], d)
	}
	return len(delays), ""
}

// limitName names a limit as the vocabulary does: the parameter that sets
// it or the switch that turns it on.
func limitName(l Limiter) string {
	switch l.(type) {
	case *MaxAttemptsLimiter:
		return "max_attempts"
	case *DeadlineLimiter:
		return "deadline"
	}
	for _, r := range limiterTable {
		if r.is(l) {
			return r.name
		}
	}
	return "a limit"
}

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of sorted by the nearest-rank
// method, or 0 for an empty slice.
func Quantile[T ~int64 | ~float64](sorted []T, q float64) T {
	if len(sorted) == 0 {
		return 0
	}
	r := q * float64(len(sorted))
	if f := math.Round(r); math.Abs(r-f) <= 1e-12*r {
		r = f // undo float rounding: 0.07*100 is 7.000000000000001, rank 7 not 8
	}
	i := int(math.Ceil(r)) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}
