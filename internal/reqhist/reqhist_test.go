package reqhist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// nearestRank returns the ⌈q·n⌉-th smallest of sorted, as Quantile
// defines its quantile.
func nearestRank(sorted []time.Duration, q float64) time.Duration {
	k := int(math.Ceil(q * float64(len(sorted))))
	return sorted[min(max(k, 1), len(sorted))-1]
}

// within reports whether got stands for want within RelativeError.
func within(got, want time.Duration) bool {
	return math.Abs(float64(got-want)) <= RelativeError*float64(want)
}

// record returns a histogram of vs.
func record(t testing.TB, vs []time.Duration) *Histogram {
	t.Helper()
	h := new(Histogram)
	for _, v := range vs {
		h.Record(v)
	}
	return h
}

// TestQuantileAgainstSort: on random samples of several shapes, every
// quantile is within RelativeError of the exact nearest-rank one of the
// sorted samples, and CountAtMost counts exactly the samples at most
// d/(1+RelativeError) and none above d/(1−RelativeError).
func TestQuantileAgainstSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := []struct {
		name string
		draw func() time.Duration
	}{
		{"uniform 0..1s", func() time.Duration { return time.Duration(rng.Int64N(int64(time.Second))) }},
		{"exponential mean 100ms", func() time.Duration { return time.Duration(rng.ExpFloat64() * float64(100*time.Millisecond)) }},
		// Log-uniform from 1 µs to 1e5 s: every bucket of the range.
		{"log-uniform 1µs..1e5s", func() time.Duration {
			return time.Duration(math.Exp(math.Log(1e3) + rng.Float64()*(math.Log(1e14)-math.Log(1e3))))
		}},
		{"few levels", func() time.Duration {
			return []time.Duration{time.Millisecond, 2200 * time.Millisecond, 4300 * time.Millisecond}[rng.IntN(3)]
		}},
		{"nanoseconds", func() time.Duration { return time.Duration(rng.IntN(300)) }},
	}
	qs := []float64{0, 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.97, 0.99, 0.999, 0.9999, 1}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			vs := make([]time.Duration, 20_000)
			for i := range vs {
				vs[i] = sh.draw()
			}
			h := record(t, vs)
			slices.Sort(vs)
			if h.Count() != uint64(len(vs)) {
				t.Fatalf("Count = %d, want %d", h.Count(), len(vs))
			}
			if h.Min() != vs[0] || h.Max() != vs[len(vs)-1] {
				t.Errorf("Min, Max = %v, %v, want %v, %v", h.Min(), h.Max(), vs[0], vs[len(vs)-1])
			}
			for _, q := range qs {
				if got, want := h.Quantile(q), nearestRank(vs, q); !within(got, want) {
					t.Errorf("Quantile(%v) = %v, want %v within %.2f %%", q, got, want, 100*RelativeError)
				}
			}
			for k := 0; k < 200; k++ {
				d := vs[rng.IntN(len(vs))] + time.Duration(rng.Int64N(1000)) - 500
				lo, _ := slices.BinarySearch(vs, time.Duration(float64(d)/(1+RelativeError))+1)
				hi, _ := slices.BinarySearch(vs, time.Duration(float64(d)/(1-RelativeError))+1)
				if got := h.CountAtMost(d); got < uint64(lo) || got > uint64(hi) {
					t.Fatalf("CountAtMost(%v) = %d, want from %d (values ≤ d/(1+e)) to %d (values ≤ d/(1−e))", d, got, lo, hi)
				}
			}
		})
	}
}

// TestEdges: an empty histogram, one value, values past both ends, and
// quantiles outside [0, 1].
func TestEdges(t *testing.T) {
	var empty Histogram
	if empty.Count() != 0 || empty.Quantile(0.5) != 0 || empty.CountAtMost(time.Hour) != 0 || empty.Max() != 0 {
		t.Errorf("empty: Count %d, Quantile(0.5) %v, CountAtMost %d, Max %v; want zeros",
			empty.Count(), empty.Quantile(0.5), empty.CountAtMost(time.Hour), empty.Max())
	}
	tests := []struct {
		name   string
		vs     []time.Duration
		q      float64
		want   time.Duration
		atMost time.Duration
		count  uint64
	}{
		// One value is every quantile, exactly: Min and Max bound the
		// midpoint of its bucket.
		{"one value", []time.Duration{1234567 * time.Microsecond}, 0.5, 1234567 * time.Microsecond, 1234567 * time.Microsecond, 1},
		{"one value, below it", []time.Duration{time.Second}, 0.99, time.Second, time.Second - 1, 0},
		{"zero", []time.Duration{0, 0, 0}, 0.5, 0, 0, 3},
		{"negative counts as 0", []time.Duration{-time.Second, time.Second}, 0.5, 0, 0, 1},
		{"below a microsecond, exact", []time.Duration{3, 5, 7, 100}, 0.5, 5, 6, 2},
		// Values past Top stand for Max.
		{"past the top", []time.Duration{time.Second, Top, 100 * Top}, 0.9, 100 * Top, 2 * Top, 1},
		{"past the top, all of them", []time.Duration{time.Second, Top, 100 * Top}, 1, 100 * Top, 100 * Top, 3},
		{"q below 0", []time.Duration{time.Second, time.Minute}, -1, time.Second, 1010 * time.Millisecond, 1},
		{"q above 1", []time.Duration{time.Second, time.Minute}, 2, time.Minute, 59 * time.Second, 1},
		{"q NaN", []time.Duration{time.Second, time.Minute}, math.NaN(), time.Second, time.Hour, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := record(t, tt.vs)
			if got := h.Quantile(tt.q); got != tt.want {
				t.Errorf("Quantile(%v) = %v, want %v", tt.q, got, tt.want)
			}
			if got := h.CountAtMost(tt.atMost); got != tt.count {
				t.Errorf("CountAtMost(%v) = %d, want %d", tt.atMost, got, tt.count)
			}
		})
	}
}

// TestBuckets: the sub-buckets tile the range from 0 to Top without a gap
// or an overlap, each at most 1/64 as wide as its lowest value from 128 ns.
func TestBuckets(t *testing.T) {
	var next uint64
	for i := range slots {
		lo, w := span(i)
		if lo != next {
			t.Fatalf("sub-bucket %d starts at %d, want %d", i, lo, next)
		}
		if index(lo) != i || index(lo+w-1) != i {
			t.Fatalf("sub-bucket %d [%d, %d): index of its ends %d, %d", i, lo, lo+w, index(lo), index(lo+w-1))
		}
		if lo >= subCount && float64(w) > float64(lo)/subHalf {
			t.Fatalf("sub-bucket %d [%d, %d) is wider than 1/64 of %d", i, lo, lo+w, lo)
		}
		next = lo + w
	}
	if next != uint64(Top) {
		t.Fatalf("the sub-buckets end at %d, want Top %d", next, uint64(Top))
	}
	if Top < 100_000*time.Second {
		t.Errorf("Top %v is below 1e5 s", Top)
	}
}

// TestMerge: merging two histograms is recording both's values in one.
func TestMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var a, b []time.Duration
	for range 5000 {
		a = append(a, time.Duration(rng.ExpFloat64()*float64(time.Second)))
		b = append(b, time.Duration(rng.ExpFloat64()*float64(time.Minute)))
	}
	b = append(b, 2*Top)
	tests := []struct {
		name string
		x, y []time.Duration
	}{
		{"both", a, b},
		{"into empty", nil, b},
		{"empty into", a, nil},
		{"lower min", b, a},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := record(t, tt.x)
			h.Merge(record(t, tt.y))
			want := record(t, append(slices.Clone(tt.x), tt.y...))
			if *h != *want {
				t.Errorf("Merge: count %d min %v max %v, want count %d min %v max %v (or the buckets differ)",
					h.Count(), h.Min(), h.Max(), want.Count(), want.Min(), want.Max())
			}
		})
	}
}

// TestRecordAllocatesNothing: Record never allocates.
func TestRecordAllocatesNothing(t *testing.T) {
	h := new(Histogram)
	d := time.Duration(1)
	if n := testing.AllocsPerRun(1000, func() { h.Record(d); d = d*3 + 7 }); n != 0 {
		t.Errorf("Record allocates %v times a call", n)
	}
}

// BenchmarkRecord measures Record over a spread of latencies, and
// Quantile's scan of the buckets.
func BenchmarkRecord(b *testing.B) {
	vs := make([]time.Duration, 1024)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range vs {
		vs[i] = time.Duration(rng.ExpFloat64() * float64(time.Second))
	}
	h := new(Histogram)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		h.Record(vs[i&1023])
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/record")
}

// BenchmarkQuantile measures one Quantile of a full histogram: a scan of
// its buckets.
func BenchmarkQuantile(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	h := new(Histogram)
	for range 100_000 {
		h.Record(time.Duration(rng.ExpFloat64() * float64(time.Second)))
	}
	b.ReportAllocs()
	for b.Loop() {
		h.Quantile(0.99)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/quantile")
}
