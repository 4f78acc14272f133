package libconfig

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testrace"
)

// roundTripCases is how many random models per library the round-trip
// test writes and reads back (fewer with -short).
const roundTripCases = 2000

// generators draw a random valid model of each library: every field
// within the library's documented range, in the canonical form its parser
// gives (nil for an absent list, the default where the parser fills one).
var generators = map[string]func(rng *rand.Rand) Config{
	"grpc":         genGRPC,
	"envoy":        genEnvoy,
	"istio":        genIstio,
	"linkerd":      genLinkerd,
	"aws":          genAWS,
	"resilience4j": genResilience4j,
	"polly":        genPolly,
}

// roundTripUnderRace is why a round trip of thousands of random models
// skips under -race: they run on the test's one goroutine, where the
// detector has nothing to watch and only slows them tenfold. make test
// runs them again without the detector, with as many models.
const roundTripUnderRace = "thousands of models on one goroutine, tenfold slower under -race"

// TestRoundTrip is the property parse(write(m)) == m for random valid
// models of every library, on fixed seeds.
func TestRoundTrip(t *testing.T) {
	testrace.SkipUnder(t, roundTripUnderRace)
	cases := roundTripCases
	if testing.Short() {
		cases = 300
	}
	total := 0
	for _, lib := range Libraries() {
		gen, ok := generators[lib.Name]
		if !ok {
			t.Errorf("library %s has no generator in the round-trip test", lib.Name)
			continue
		}
		t.Run(lib.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(20261126, uint64(len(lib.Name))))
			for i := range cases {
				m := gen(rng)
				text, err := m.Marshal()
				if err != nil {
					t.Fatalf("case %d: Marshal(%+v): %v", i, m, err)
				}
				back, warns, err := lib.Parse(text)
				if err != nil {
					t.Fatalf("case %d: parsing what Marshal wrote:\n%s\n%v", i, text, err)
				}
				for _, w := range warns {
					if !expectedWarning(w) {
						t.Errorf("case %d: warning %q for what Marshal wrote:\n%s", i, w, text)
					}
				}
				if !reflect.DeepEqual(back, m) {
					t.Fatalf("case %d: read back\n%#v\nwrote\n%#v\nas\n%s", i, back, m, text)
				}
			}
		})
		total += cases
	}
	t.Logf("%d cases over %d libraries: parse(write(m)) == m in every one", total, len(libraries))
}

// expectedWarning reports whether a warning is one a valid model may
// draw: gRPC's note that it caps maxAttempts at 5.
func expectedWarning(w Warning) bool {
	return strings.HasSuffix(w.Path, "maxAttempts") && strings.Contains(w.Message, "treated as 5")
}

// Helpers that draw values in a range.
func durIn(rng *rand.Rand, lo, hi time.Duration, step time.Duration) time.Duration {
	n := int64((hi - lo) / step)
	return lo + time.Duration(rng.Int64N(n+1))*step
}

func pick[T any](rng *rand.Rand, xs ...T) T { return xs[rng.IntN(len(xs))] }

func some[T any](rng *rand.Rand, xs []T) []T {
	var out []T
	for _, x := range xs {
		if rng.IntN(3) == 0 {
			out = append(out, x)
		}
	}
	return out
}

func round(x float64, places int) float64 {
	p := 1.0
	for range places {
		p *= 10
	}
	return float64(int64(x*p+0.5)) / p
}

func genGRPC(rng *rand.Rand) Config {
	var c GRPCServiceConfig
	used := map[GRPCName]bool{}
	for i := range rng.IntN(3) {
		m := GRPCMethodConfig{}
		for j := range rng.IntN(3) {
			n := GRPCName{Service: pick(rng, "", "helloworld.Greeter", "pkg.Svc"), Method: pick(rng, "", "SayHello", "Get")}
			if n.Service == "" {
				n.Method = ""
			}
			if n.Method != "" {
				n.Method += string(rune('A' + i*3 + j))
			}
			if !used[n] {
				used[n] = true
				m.Names = append(m.Names, n)
			}
		}
		if rng.IntN(2) == 0 {
			m.Timeout = durIn(rng, time.Millisecond, time.Minute, time.Millisecond)
		}
		if rng.IntN(4) != 0 {
			p := &GRPCRetryPolicy{
				MaxAttempts:       2 + rng.IntN(6),
				InitialBackoff:    durIn(rng, time.Nanosecond, 10*time.Second, pick(rng, time.Nanosecond, time.Millisecond, 100*time.Millisecond)),
				MaxBackoff:        durIn(rng, time.Millisecond, 5*time.Minute, time.Millisecond),
				BackoffMultiplier: round(0.1+rng.Float64()*4, rng.IntN(4)),
			}
			for p.BackoffMultiplier <= 0 {
				p.BackoffMultiplier = 1
			}
			p.RetryableStatusCodes = some(rng, grpcCodes)
			if len(p.RetryableStatusCodes) == 0 {
				p.RetryableStatusCodes = []string{"UNAVAILABLE"}
			}
			if rng.IntN(3) == 0 {
				p.PerAttemptRecvTimeout = durIn(rng, time.Millisecond, 30*time.Second, time.Millisecond)
			}
			m.RetryPolicy = p
		}
		c.MethodConfigs = append(c.MethodConfigs, m)
	}
	if rng.IntN(2) == 0 {
		c.Throttling = &GRPCThrottling{MaxTokens: 1 + rng.IntN(1000), TokenRatio: round(0.001+rng.Float64()*5, 3)}
	}
	return c
}

func genEnvoy(rng *rand.Rand) Config {
	var c EnvoyConfig
	if rng.IntN(2) == 0 {
		d := durIn(rng, 0, time.Minute, pick(rng, time.Millisecond, time.Second))
		c.Timeout = &d
	}
	if rng.IntN(4) != 0 {
		p := &EnvoyRetryPolicy{RetryOn: some(rng, envoyRetryOn), NumRetries: uint32(rng.IntN(11))}
		if rng.IntN(2) == 0 {
			p.PerTryTimeout = durIn(rng, time.Millisecond, 10*time.Second, time.Millisecond)
		}
		for range rng.IntN(3) {
			p.RetriableStatusCodes = append(p.RetriableStatusCodes, uint32(400+rng.IntN(200)))
		}
		if rng.IntN(2) == 0 {
			b := &EnvoyBackOff{BaseInterval: durIn(rng, time.Millisecond, time.Second, time.Millisecond)}
			if rng.IntN(2) == 0 {
				b.MaxInterval = b.BaseInterval + durIn(rng, 0, 30*time.Second, time.Millisecond)
			}
			p.BackOff = b
		}
		c.RetryPolicy = p
	}
	if rng.IntN(2) == 0 {
		cb := &EnvoyCircuitBreakers{}
		for range rng.IntN(3) {
			t := EnvoyThresholds{Priority: pick(rng, "DEFAULT", "HIGH"), MaxRetries: uint32(rng.IntN(100))}
			if rng.IntN(2) == 0 {
				t.RetryBudget = &EnvoyRetryBudget{BudgetPercent: round(rng.Float64()*100, rng.IntN(3)),
					MinRetryConcurrency: uint32(rng.IntN(20))}
				if rng.IntN(3) == 0 {
					t.RetryBudget.BudgetInterval = durIn(rng, time.Millisecond, 10*time.Second, time.Millisecond)
				}
			}
			cb.Thresholds = append(cb.Thresholds, t)
		}
		c.CircuitBreakers = cb
	}
	return c
}

func genIstio(rng *rand.Rand) Config {
	var c IstioConfig
	codes := append(append([]string{}, envoyRetryOn...), "503", "429")
	for range 1 + rng.IntN(3) {
		rt := IstioRoute{Name: pick(rng, "", "reviews-v1", "default")}
		if rng.IntN(2) == 0 {
			rt.Timeout = durIn(rng, time.Millisecond, time.Hour, pick(rng, time.Millisecond, time.Second))
		}
		if rng.IntN(4) != 0 {
			t := &IstioRetry{Attempts: int32(rng.IntN(20)), RetryOn: some(rng, codes)}
			if rng.IntN(2) == 0 {
				t.PerTryTimeout = durIn(rng, time.Millisecond, time.Minute, time.Millisecond)
			}
			if rng.IntN(2) == 0 {
				t.Backoff = durIn(rng, time.Millisecond, 5*time.Second, time.Millisecond)
			}
			rt.Retries = t
		}
		c.Routes = append(c.Routes, rt)
	}
	return c
}

func genLinkerd(rng *rand.Rand) Config {
	c := LinkerdConfig{Limit: LinkerdDefaultLimit}
	if rng.IntN(3) != 0 {
		c.HTTP = some(rng, []string{"5xx", "gateway-error", "429", "500-504", "503"})
		c.GRPC = some(rng, linkerdGRPC)
		c.Limit = rng.IntN(10)
		if rng.IntN(2) == 0 {
			c.Timeout = durIn(rng, time.Millisecond, time.Minute, time.Millisecond)
		}
		if rng.IntN(2) == 0 {
			c.RequestTimeout = durIn(rng, time.Millisecond, time.Hour, pick(rng, time.Millisecond, time.Second, time.Minute))
		}
	}
	// A budget beside retry annotations draws a warning (Linkerd reads
	// only one of them); the model holds both, the warning aside.
	if len(c.HTTP)+len(c.GRPC) == 0 && rng.IntN(2) == 0 {
		c.Budget = &LinkerdBudget{RetryRatio: round(rng.Float64()*2, rng.IntN(3)), MinRetriesPerSecond: rng.IntN(100),
			TTL: durIn(rng, time.Millisecond, time.Minute, time.Millisecond)}
	}
	return c
}

func genAWS(rng *rand.Rand) Config {
	var c AWSConfig
	for i := range rng.IntN(4) {
		p := AWSProfile{Name: pick(rng, "default", "prod", "dev-eu") + strings.Repeat("x", i)}
		if rng.IntN(3) != 0 {
			p.RetryMode = pick(rng, awsModes...)
		}
		if p.RetryMode == "" || rng.IntN(2) == 0 {
			p.MaxAttempts = 1 + rng.IntN(20)
		}
		c.Profiles = append(c.Profiles, p)
	}
	return c
}

func genResilience4j(rng *rand.Rand) Config {
	var c Resilience4jConfig
	for i := range 1 + rng.IntN(3) {
		in := R4jInstance{Name: pick(rng, "backendA", "backend-b", "payments") + strings.Repeat("2", i)}
		if rng.IntN(4) != 0 {
			t := R4jRetry{MaxAttempts: 1 + rng.IntN(10),
				WaitDuration:                 durIn(rng, time.Millisecond, 10*time.Second, pick(rng, time.Millisecond, time.Second, time.Microsecond)),
				EnableExponentialBackoff:     rng.IntN(2) == 0,
				ExponentialBackoffMultiplier: round(0.1+rng.Float64()*3, rng.IntN(3)+1),
				EnableRandomizedWait:         rng.IntN(2) == 0,
				RandomizedWaitFactor:         min(round(rng.Float64(), 2), 0.99)}
			if rng.IntN(2) == 0 {
				t.ExponentialMaxWaitDuration = durIn(rng, time.Millisecond, time.Hour, time.Millisecond)
			}
			// The model holds what resilience4j runs: the defaults where
			// the interval reads no value.
			d := R4jRetryDefaults()
			if !t.EnableExponentialBackoff {
				t.ExponentialBackoffMultiplier, t.ExponentialMaxWaitDuration = d.ExponentialBackoffMultiplier, 0
			}
			if !t.EnableRandomizedWait {
				t.RandomizedWaitFactor = d.RandomizedWaitFactor
			}
			in.Retry = &t
		}
		if in.Retry == nil || rng.IntN(2) == 0 {
			b := R4jCircuitBreaker{FailureRateThreshold: round(0.5+rng.Float64()*99.5, rng.IntN(2)),
				SlidingWindowType: pick(rng, "COUNT_BASED", "TIME_BASED"), SlidingWindowSize: 1 + rng.IntN(200),
				MinimumNumberOfCalls: 1 + rng.IntN(200), WaitDurationInOpenState: durIn(rng, time.Millisecond, 10*time.Minute, time.Millisecond),
				PermittedNumberOfCallsInHalfOpenState: 1 + rng.IntN(20), SlowCallRateThreshold: round(0.5+rng.Float64()*99.5, 1),
				SlowCallDurationThreshold:                    durIn(rng, time.Nanosecond, time.Minute, pick(rng, time.Nanosecond, time.Millisecond)),
				AutomaticTransitionFromOpenToHalfOpenEnabled: rng.IntN(2) == 0}
			in.CircuitBreaker = &b
		}
		c.Instances = append(c.Instances, in)
	}
	// The parser lists retry instances first.
	slices.SortStableFunc(c.Instances, func(a, b R4jInstance) int { return cmpBool(a.Retry == nil, b.Retry == nil) })
	return c
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func genPolly(rng *rand.Rand) Config {
	p := PollyRetry{MaxRetryAttempts: 1 + rng.IntN(20),
		Delay:       durIn(rng, 0, 24*time.Hour, pick(rng, 100*time.Nanosecond, time.Millisecond, time.Second, time.Hour)),
		BackoffType: pick(rng, pollyBackoffTypes...), UseJitter: rng.IntN(2) == 0}
	if rng.IntN(2) == 0 {
		d := durIn(rng, 0, 24*time.Hour, pick(rng, time.Millisecond, time.Minute))
		p.MaxDelay = &d
	}
	return p
}
