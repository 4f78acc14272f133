// Package reqhist is a latency histogram of fixed memory: it counts
// durations in log-linear buckets, in the manner of HdrHistogram, so that
// a run of millions of requests keeps their latencies' quantiles in a few
// kilobytes and records each one without allocating.
//
// The buckets are HdrHistogram's (its description of the layout, in the
// documentation of the Rust port, docs.rs/hdrhistogram, struct Histogram:
// "there is a mantissa and an exponent, and each bucket represents a
// different exponent. The sub-buckets within a bucket represent different
// values for the mantissa", and "the low half of each bucket (except
// bucket 0) is unnecessary, since those values are already covered by the
// sub-buckets of all the preceding buckets"). Here the unit is the
// nanosecond and there are subCount = 128 sub-buckets: bucket 0 holds 0 to
// 127 ns one nanosecond apart; bucket b ≥ 1 holds [64·2^b, 128·2^b) ns in
// 64 sub-buckets 2^b ns wide. A sub-bucket is thus never wider than 1/64 of
// its lowest value, and its midpoint, which stands for every value in it,
// is within 1/128 (0.79 %) of each of them; below 128 ns every value
// stands for itself. The buckets reach 2^47 ns (about 39 hours, past the 1e5 s
// the simulator's longest runs need); longer values are counted apart, and
// stand for the longest value recorded.
package reqhist

import (
	"math"
	"math/bits"
	"time"
)

const (
	subBits  = 7
	subCount = 1 << subBits // sub-buckets of bucket 0, and values it holds exactly
	subHalf  = subCount / 2 // sub-buckets of every other bucket
	// topBits bounds the values the buckets hold: below 2^topBits ns.
	topBits = 47
	buckets = topBits - subBits // buckets past bucket 0
	slots   = subCount + buckets*subHalf
)

// RelativeError is the most by which the value that stands for a recorded
// value (a quantile Quantile returns, the value CountAtMost compares)
// differs from it, relative to it, below Top; below 128 ns they are equal.
const RelativeError = 1.0 / subCount

// Top is the first duration past the buckets: values at or above it are
// counted apart, and stand for the longest value recorded.
const Top = time.Duration(1) << topBits

// Histogram counts durations. Its zero value is an empty histogram ready
// to use; it is a value of fixed size (some 21 KiB), which Record never
// grows. A Histogram is not safe for concurrent use.
type Histogram struct {
	counts   [slots]uint64
	over     uint64 // values at or past Top
	n        uint64
	min, max time.Duration
}

// index returns the sub-bucket of v, a duration from 0 below Top.
func index(v uint64) int {
	if v < subCount {
		return int(v)
	}
	b := bits.Len64(v) - subBits // 1 for [64·2, 128·2)
	return subCount + (b-1)*subHalf + int(v>>uint(b)) - subHalf
}

// span returns the lowest value of sub-bucket i and its width.
func span(i int) (lo, width uint64) {
	if i < subCount {
		return uint64(i), 1
	}
	b := (i-subCount)/subHalf + 1
	sub := uint64((i-subCount)%subHalf + subHalf)
	return sub << uint(b), 1 << uint(b)
}

// Record counts d. A negative d counts as 0.
func (h *Histogram) Record(d time.Duration) {
	d = max(d, 0)
	if h.n == 0 || d < h.min {
		h.min = d
	}
	h.max = max(h.max, d)
	h.n++
	if d >= Top {
		h.over++
		return
	}
	h.counts[index(uint64(d))]++
}

// Count returns how many values were recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Min returns the shortest value recorded, and Max the longest, exactly;
// both are 0 for an empty histogram.
func (h *Histogram) Min() time.Duration { return h.min }

// Max returns the longest value recorded, exactly.
func (h *Histogram) Max() time.Duration { return h.max }

// stand returns the value that stands for sub-bucket i's values: its
// midpoint, within the values recorded.
func (h *Histogram) stand(i int) time.Duration {
	lo, w := span(i)
	mid := time.Duration(lo + w/2)
	if w == 1 {
		mid = time.Duration(lo)
	}
	return min(max(mid, h.min), h.max)
}

// Quantile returns the value at or below which a share q of the values
// lie: the nearest-rank value (the ⌈q·Count⌉-th smallest), within
// RelativeError of it. Quantile(0) is Min and Quantile(1) is Max, exactly;
// q is taken within [0, 1], NaN as 0. An empty histogram's quantiles are
// 0.
func (h *Histogram) Quantile(q float64) time.Duration {
	if h.n == 0 {
		return 0
	}
	if !(q > 0) {
		return h.min
	}
	if q >= 1 {
		return h.max
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	rank = min(max(rank, 1), h.n)
	var seen uint64
	for i := range h.counts {
		if seen += h.counts[i]; seen >= rank {
			return h.stand(i)
		}
	}
	return h.max // the rank is among the values past Top
}

// CountAtMost returns how many values are at most d, within the buckets'
// resolution: it counts a value when the value that stands for it (the
// midpoint of its sub-bucket, as Quantile returns it) is at most d, so
// that every value at most d/(1 + RelativeError) is counted and none above
// d/(1 − RelativeError). Values past Top stand for Max. It is exact when d
// is below Min or at least Max.
func (h *Histogram) CountAtMost(d time.Duration) uint64 {
	switch {
	case h.n == 0 || d < h.min:
		return 0
	case d >= h.max:
		return h.n
	}
	var n uint64
	for i := range h.counts {
		if h.counts[i] == 0 {
			continue
		}
		if h.stand(i) > d {
			break
		}
		n += h.counts[i]
	}
	return n
}

// Merge adds o's values to h, as if h had recorded them too.
func (h *Histogram) Merge(o *Histogram) {
	if o.n == 0 {
		return
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	h.n += o.n
	h.over += o.over
	for i := range h.counts {
		h.counts[i] += o.counts[i]
	}
}

// Reset empties h.
func (h *Histogram) Reset() { *h = Histogram{} }
