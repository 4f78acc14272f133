package strategies

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// RetryDelay summarizes the distribution of one retry's delay over many draws.
type RetryDelay struct {
	Retry int           // 1 for the first retry
	P5    time.Duration // 5th percentile
	P50   time.Duration // median
	P95   time.Duration // 95th percentile
}

// Bands samples the delay before each of the first retries of a request that
// keeps failing, as 001's "delay by attempt number" charts draw it: draws
// independent requests, each failing every attempt the moment it starts, up to
// retries retries or until the policy gives up. think is the mean think time
// that think_scaled scales (think times are exponential, as in the model).
// The result has one RetryDelay per retry that at least one draw reached.
func RetryDelays(p Params, think time.Duration, retries, draws int, seed uint64) ([]RetryDelay, error) {
	pol, err := New(p)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x6a09e667f3bcc909))
	delays := make([][]time.Duration, retries)
	for range draws {
		var s State
		th := dur(rng.ExpFloat64() * float64(think))
		pol.Begin(&s, 0, th)
		for r := range retries {
			now := s.AttemptStart
			d, ok := pol.Retry(&s, now, rng)
			if !ok {
				break
			}
			delays[r] = append(delays[r], d)
		}
	}
	var out []RetryDelay
	for r, ds := range delays {
		if len(ds) == 0 {
			break
		}
		slices.Sort(ds)
		out = append(out, RetryDelay{
			Retry: r + 1,
			P5:    Quantile(ds, 0.05),
			P50:   Quantile(ds, 0.50),
			P95:   Quantile(ds, 0.95),
		})
	}
	return out, nil
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
