package strategies

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

type edgeCase struct {
	name string
	mod  func(p *Params)
}

var edgeCases = []edgeCase{
	{"defaults", func(*Params) {}},
	{"base_eq_cap", func(p *Params) { p.MinDelay, p.MaxDelay = time.Second, time.Second }},
	{"factor1_jitter0", func(p *Params) { p.Factor, p.Jitter = 1, 0 }},
	{"jitter0", func(p *Params) { p.Jitter = 0 }},
	{"all_zero", func(p *Params) { *p = Params{Strategy: p.Strategy} }},
	{"min_delay_1h", func(p *Params) { p.MinDelay = time.Hour }},
	{"min_delay_1h_cap_1h_factor10", func(p *Params) {
		p.MinDelay, p.MaxDelay, p.Factor, p.Jitter = time.Hour, time.Hour, 10, 0
	}},
	{"cap_below_base", func(p *Params) { p.MinDelay, p.MaxDelay = time.Minute, time.Second }},
	{"cap_1day", func(p *Params) { p.MaxDelay = 24 * time.Hour }},
}

// capBound is the largest delay the formula allows for p, or -1 when there is
// none to check (fixed waits min_delay; jitter may push past the cap).
func capBound(p Params) time.Duration {
	switch p.Strategy {
	case NameFixed:
		return p.MinDelay
	case NameFullJitter, NameEqualJitter, NameTruncated, NameDecorrelated:
		return p.MaxDelay
	case NameExponential:
		if p.Jitter == 0 {
			return max(p.MaxDelay, p.MinDelay) // the first retry waits base
		}
	case NameThinkScaled:
		if p.Jitter == 0 {
			return p.MaxDelay
		}
	case NameEnvoy:
		return max(p.MaxDelay, p.MinDelay) // Envoy's config requires base <= max
	case NameAWSLegacy, NameResilience4j, NamePolly, NameTenacityExponential, NameTenacityRandomExponential, NameUrllib3:
		return p.MaxDelay
	}
	return -1
}

// stopsOnItsOwn reports whether strategy name may give up with no limit
// set: gRPC's retry policy after 5 attempts, client-go's backoff once its
// duration would pass its cap.
func stopsOnItsOwn(name string) bool { return name == NameGRPCRetry || name == NameClientGo }

// forEachEdge runs test for every strategy with each of edgeCases, as a
// subtest, with the strategy's policy, capBound's bound on its delays and
// a generator seeded with seed plus the edge case's index.
func forEachEdge(t *testing.T, seed uint64, test func(t *testing.T, name string, pol *Policy, bound time.Duration, rng *rand.Rand)) {
	t.Helper()
	for _, name := range Names() {
		for ei, e := range edgeCases {
			t.Run(name+"/"+e.name, func(t *testing.T) {
				p := mustDefaults(t, name)
				e.mod(&p)
				p.MaxAttempts, p.Deadline = 0, 0
				test(t, name, mustPolicy(t, p), capBound(p), newRNG(seed+uint64(ei)))
			})
		}
	}
}

func TestEdgeValuesPolicyChains(t *testing.T) {
	forEachEdge(t, 900, func(t *testing.T, name string, pol *Policy, bound time.Duration, rng *rand.Rand) {
		var s State
		pol.Begin(&s, 0, 10*time.Second)
		for r := range 200 {
			d, ok := pol.Retry(&s, s.AttemptStart, rng)
			if !ok {
				if name != NameNone && !stopsOnItsOwn(name) {
					t.Fatalf("retry %d: gave up with no limit", r+1)
				}
				return
			}
			if d < 0 || (bound >= 0 && d > bound) {
				t.Fatalf("retry %d: delay %v, want in [0, %v]", r+1, d, bound)
			}
			if s.AttemptStart < 0 {
				t.Fatalf("retry %d: AttemptStart overflowed to %v", r+1, s.AttemptStart)
			}
		}
		if name == NameNone {
			t.Fatal("none retried")
		}
	})
}

func TestEdgeValuesLargeRetryCounts(t *testing.T) {
	prevs := []time.Duration{0, 1, time.Second, time.Hour, 100 * 365 * 24 * time.Hour}
	forEachEdge(t, 950, func(t *testing.T, name string, pol *Policy, bound time.Duration, rng *rand.Rand) {
		for _, n := range []int{30, 61, 62, 63, 64, 100, 1000} {
			for _, prev := range prevs {
				for range 20 {
					s := State{Retries: int32(n), Prev: prev, RequestStart: time.Second, AttemptStart: 2 * time.Second, Until: 3 * time.Second}
					d := pol.Strategy.Next(&s, 2500*time.Millisecond, rng)
					if name == NameNone {
						if d != Stop {
							t.Fatalf("none: %v, want Stop", d)
						}
						continue
					}
					if d == Stop && stopsOnItsOwn(name) {
						continue
					}
					if d < 0 || (bound >= 0 && d > bound) {
						t.Fatalf("Retries %d Prev %v: delay %v, want in [0, %v]", n, prev, d, bound)
					}
				}
			}
		}
	})
}

func TestHugeRetryCountsHitTheCap(t *testing.T) {
	// base 1 h: base·2^n overflows int64 from n = 22 on; the ceiling must
	// stay min(cap, base·2^n) for every n.
	base, capD := time.Hour, 24*time.Hour
	rng := newRNG(990)
	for _, n := range []int{0, 1, 4, 5, 21, 22, 40, 61, 62, 63, 64, 1000} {
		t.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {
			top := ceiling(base, capD, n)
			s := State{Retries: int32(n)}
			for range 200 {
				if d := (FullJitter{base, capD}).Next(&s, 0, rng); d < 0 || d >= top {
					t.Fatalf("full_jitter %v, want in [0, %v)", d, top)
				}
				if d := (EqualJitter{base, capD}).Next(&s, 0, rng); d < top/2 || d >= top {
					t.Fatalf("equal_jitter %v, want in [%v, %v)", d, top/2, top)
				}
				d := (Truncated{base, capD}).Next(&s, 0, rng)
				if raw := float64(base) * math.Ldexp(1, n); (raw >= float64(capD) && d != capD) || d > capD || d < 0 {
					t.Fatalf("truncated %v, cap %v", d, capD)
				}
			}
		})
	}
}

func TestBandsEdgeValues(t *testing.T) {
	for _, name := range Names() {
		for _, e := range edgeCases {
			p := mustDefaults(t, name)
			e.mod(&p)
			bs := mustRetryDelays(t, p, 10*time.Second, 40, 50, 1)
			for _, b := range bs {
				if b.P5 < 0 || b.P5 > b.P50 || b.P50 > b.P95 {
					t.Errorf("%s/%s retry %d: %+v out of order", name, e.name, b.Retry, b)
				}
			}
		}
	}
}
