package libconfig

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testrace"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// laneCases is how many random lanes per library the lane round trip
// writes and reads back (fewer with -short).
const laneCases = 1000

// laneGenerators draw random lanes that each library can express: its
// row's parameters within the vocabulary's ranges and the library's own.
var laneGenerators = map[string]func(rng *rand.Rand) strategies.Params{
	"grpc": func(rng *rand.Rand) strategies.Params {
		l := laneOf(strategies.NameGRPCRetry)
		l.MinDelay = durIn(rng, time.Millisecond, 10*time.Second, time.Millisecond)
		l.MaxDelay = l.MinDelay + durIn(rng, 0, 2*time.Minute, time.Millisecond)
		l.Factor, l.MaxAttempts, l.Deadline = round(1+rng.Float64()*9, 2), 2+rng.IntN(4), maybeDur(rng, time.Millisecond, time.Hour)
		if rng.IntN(2) == 0 {
			l.GRPCThrottle, l.GRPCMaxTokens, l.GRPCTokenRatio = strategies.LimiterOn, float64(1+rng.IntN(1000)), round(0.001+rng.Float64()*10, 3)
		}
		return l
	},
	"envoy": func(rng *rand.Rand) strategies.Params {
		l := laneOf(strategies.NameEnvoy)
		l.MinDelay = durIn(rng, time.Millisecond, time.Second, time.Millisecond)
		l.MaxDelay = l.MinDelay + durIn(rng, 0, 30*time.Second, time.Millisecond)
		if rng.IntN(4) == 0 {
			l.MinDelay, l.MaxDelay = EnvoyDefaultBaseInterval, 10*EnvoyDefaultBaseInterval
		}
		l.MaxAttempts, l.PerTryTimeout, l.Deadline = 1+rng.IntN(10), maybeDur(rng, time.Millisecond, 10*time.Second), maybeDur(rng, time.Millisecond, time.Hour)
		switch rng.IntN(2) {
		case 0:
			l.EnvoyRetryLimit, l.EnvoyMaxRetries = strategies.EnvoyMaxRetries, rng.IntN(100)
		case 1:
			l.EnvoyRetryLimit, l.EnvoyMaxRetries = strategies.EnvoyBudget, rng.IntN(100)
			l.EnvoyBudgetPercent, l.EnvoyMinRetryConcurrency = round(rng.Float64()*100, rng.IntN(3)), rng.IntN(20)
		}
		return l
	},
	"istio": func(rng *rand.Rand) strategies.Params {
		l := laneOf(strategies.NameEnvoy)
		l.MinDelay = durIn(rng, time.Millisecond, time.Second, time.Millisecond)
		l.MaxDelay = 10 * l.MinDelay
		l.MaxAttempts, l.PerTryTimeout, l.Deadline = 1+rng.IntN(10), maybeDur(rng, time.Millisecond, 10*time.Second), maybeDur(rng, time.Millisecond, time.Hour)
		return l
	},
	"linkerd": func(rng *rand.Rand) strategies.Params {
		l := laneOf(strategies.NameFixed)
		l.MinDelay, l.MaxAttempts, l.Deadline = linkerdDelay, 1+rng.IntN(10), maybeDur(rng, time.Millisecond, time.Hour)
		if rng.IntN(2) == 0 {
			l.MaxAttempts = 0
			l.RetryBudget, l.BudgetPercent = strategies.LimiterOn, round(rng.Float64()*1000, rng.IntN(3))
			l.BudgetMinPerSec, l.BudgetTTL = rng.IntN(1000), durIn(rng, time.Second, time.Minute, time.Millisecond)
		}
		return l
	},
	"aws": func(rng *rand.Rand) strategies.Params {
		l := laneOf(strategies.NameFullJitter)
		l.MinDelay, l.MaxDelay, l.MaxAttempts = awsBaseDelay, awsMaxBackoff, 1+rng.IntN(10)
		l.AWSQuota, l.AWSRetryCost, l.AWSTimeoutCost = strategies.LimiterOn, awsRetryCost2026, awsRetryCost2026
		if rng.IntN(2) == 0 {
			l.Strategy, l.AWSAdaptive, l.AWSRetryCost = strategies.NameAWSThrottled, strategies.LimiterOn, awsThrottlingRetryCost
		}
		return l
	},
	"resilience4j": func(rng *rand.Rand) strategies.Params {
		l := laneOf(strategies.NameResilience4j)
		l.MinDelay, l.MaxAttempts = durIn(rng, time.Millisecond, 10*time.Second, time.Millisecond), 1+rng.IntN(10)
		if rng.IntN(2) == 0 {
			l.Factor = round(1+rng.Float64()*9, 2)
		}
		if rng.IntN(2) == 0 {
			l.MaxDelay = l.MinDelay + durIn(rng, 0, time.Hour, time.Millisecond)
		}
		if rng.IntN(2) == 0 {
			l.Jitter = min(round(0.01+rng.Float64()*0.99, 2), 0.99)
		}
		if rng.IntN(2) == 0 {
			l.Breaker, l.BreakerThreshold = strategies.BreakerAll, round(1+rng.Float64()*99, 1)
			l.BreakerWindow, l.BreakerMinCalls, l.BreakerProbes = 1+rng.IntN(1000), 1+rng.IntN(1000), 1+rng.IntN(100)
			l.BreakerOpenFor = durIn(rng, time.Millisecond, 10*time.Minute, time.Millisecond)
		}
		return l
	},
	"polly":        genPollyLane,
	"polly-csharp": genPollyLane,
	"cenkalti": func(rng *rand.Rand) strategies.Params {
		l := laneOf(strategies.NameCenkalti)
		l.MinDelay = durIn(rng, time.Millisecond, 10*time.Second, time.Millisecond)
		l.MaxDelay = l.MinDelay + durIn(rng, 0, time.Hour, time.Millisecond)
		l.Factor, l.Jitter = round(1+rng.Float64()*9, 2), round(rng.Float64(), 2)
		l.MaxAttempts, l.Deadline = rng.IntN(10), maybeDur(rng, time.Second, time.Hour)
		return l
	},
	"client-go": func(rng *rand.Rand) strategies.Params {
		l := laneOf(strategies.NameClientGo)
		l.MinDelay = durIn(rng, time.Millisecond, 10*time.Second, time.Millisecond)
		if rng.IntN(2) == 0 {
			l.MaxDelay = l.MinDelay + durIn(rng, 0, time.Hour, time.Millisecond)
		}
		l.Factor, l.Jitter, l.MaxAttempts = round(1+rng.Float64()*9, 2), round(rng.Float64(), 2), 1+rng.IntN(10)
		return l
	},
	"tenacity": func(rng *rand.Rand) strategies.Params {
		l := laneOf(pick(rng, strategies.NameTenacityExponential, strategies.NameTenacityRandomExponential))
		l.MinDelay = durIn(rng, time.Millisecond, 10*time.Second, time.Millisecond)
		if rng.IntN(2) == 0 {
			l.MaxDelay = l.MinDelay + durIn(rng, 0, time.Hour, time.Millisecond)
		}
		l.Factor, l.MaxAttempts, l.Deadline = round(1+rng.Float64()*9, 2), rng.IntN(10), maybeDur(rng, time.Second, time.Hour)
		return l
	},
	"urllib3": func(rng *rand.Rand) strategies.Params {
		l := laneOf(strategies.NameUrllib3)
		l.MinDelay = durIn(rng, time.Millisecond, 10*time.Second, time.Millisecond)
		l.MaxDelay = l.MinDelay + durIn(rng, 0, time.Hour, time.Millisecond)
		l.MaxAttempts = 1 + rng.IntN(20)
		return l
	},
}

func genPollyLane(rng *rand.Rand) strategies.Params {
	l := laneOf(strategies.NamePolly)
	l.MinDelay = durIn(rng, time.Millisecond, time.Hour, pick(rng, time.Millisecond, time.Second))
	if rng.IntN(2) == 0 {
		l.MaxDelay = l.MinDelay + durIn(rng, 0, time.Hour, time.Millisecond)
	}
	l.MaxAttempts, l.BackoffType, l.UseJitter = 2+rng.IntN(20), pick(rng, strategies.PollyBackoffTypes()...), rng.IntN(2) == 0
	return l
}

// maybeDur is 0 half the time, else a whole number of milliseconds in
// [lo, hi].
func maybeDur(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	if rng.IntN(2) == 0 {
		return 0
	}
	return durIn(rng, lo, hi, time.Millisecond)
}

// TestLaneRoundTrip is the property import(export(lane)) == lane for every
// library and random lanes it can express: the lane written as the
// library's configuration, that configuration written as text and parsed
// back (for the libraries configured by text), mapped onto a lane again.
func TestLaneRoundTrip(t *testing.T) {
	testrace.SkipUnder(t, roundTripUnderRace)
	cases := laneCases
	if testing.Short() {
		cases = 200
	}
	total := 0
	for _, exp := range Exporters() {
		gen, ok := laneGenerators[exp.Name]
		if !ok {
			t.Errorf("exporter %s has no lane generator", exp.Name)
			continue
		}
		t.Run(exp.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1126, uint64(len(exp.Name))))
			for i := range cases {
				l := gen(rng)
				if err := checkLane(l, nil); err != nil {
					t.Fatalf("case %d: the generator drew a lane outside the vocabulary: %v", i, err)
				}
				c, _, err := exp.Export(l)
				if err != nil {
					t.Fatalf("case %d: Export(%+v): %v", i, l, err)
				}
				if lib, ok := Lookup(exp.Name); ok {
					text, err := c.Marshal()
					if err != nil {
						t.Fatalf("case %d: Marshal: %v", i, err)
					}
					if c, _, err = lib.Parse(text); err != nil {
						t.Fatalf("case %d: parsing\n%s\n%v", i, text, err)
					}
				}
				back, _, err := ToLane(c)
				if err != nil {
					t.Fatalf("case %d: ToLane(%#v): %v", i, c, err)
				}
				if !reflect.DeepEqual(back, l) {
					t.Fatalf("case %d: lane\n%+v\ncame back as\n%+v\nthrough %#v", i, l, back, c)
				}
			}
		})
		total += cases
	}
	t.Logf("%d lanes over %d libraries: import(export(lane)) == lane in every one", total, len(exporters))
}

// TestImportRealConfigs maps each testdata configuration onto a lane and
// checks the lane's query, which scenario.Parse must read back as the same
// lane.
func TestImportRealConfigs(t *testing.T) {
	tests := []struct {
		lib, file, query string
	}{
		{"grpc", "grpc_service_config.json", "a.deadline=10s&a.grpc_throttle=on&a.strategy=grpc_retry"},
		{"resilience4j", "resilience4j_breaker_only.yml", "a.breaker=all&a.breaker_open_for=10s&a.max_attempts=1&a.strategy=resilience4j"},
		{"envoy", "envoy_route.yaml", "a.deadline=15s&a.envoy_budget_percent=25&a.envoy_max_retries=5&a.envoy_min_retry_concurrency=10&a.envoy_retry_limit=budget&a.max_attempts=4&a.max_delay=1s&a.min_delay=50ms&a.per_try_timeout=2s&a.strategy=envoy"},
		{"istio", "istio_virtualservice.yaml", "a.deadline=10s&a.max_attempts=4&a.per_try_timeout=2s&a.strategy=envoy"},
		{"linkerd", "linkerd_httproute.yaml", "a.deadline=2s&a.max_attempts=3&a.min_delay=1ms&a.strategy=fixed"},
		{"linkerd", "linkerd_serviceprofile.yaml", "a.min_delay=1ms&a.retry_budget=on&a.strategy=fixed"},
		{"aws", "aws_config.ini", "a.aws_adaptive=on&a.aws_quota=on&a.aws_retry_cost=5&a.max_attempts=5&a.strategy=aws_throttled"},
		{"resilience4j", "resilience4j_application.yml", "a.breaker=all&a.breaker_min_calls=10&a.breaker_open_for=30s&a.breaker_probes=3&a.breaker_window=20&a.factor=2&a.jitter=0.5&a.max_attempts=4&a.max_delay=5s&a.min_delay=200ms&a.strategy=resilience4j"},
		{"polly", "polly_options.json", "a.backoff_type=exponential&a.max_attempts=5&a.max_delay=30s&a.min_delay=200ms&a.strategy=polly&a.use_jitter=true"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			lib, _ := Lookup(tt.lib)
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			c, _, err := lib.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			l, _, err := ToLane(c)
			if err != nil {
				t.Fatalf("ToLane: %v", err)
			}
			q := Query(l, "a")
			if got := q.Encode(); got != tt.query {
				t.Errorf("query\n%s\nwant\n%s", got, tt.query)
			}
			p, err := scenario.Parse(q)
			if err != nil {
				t.Fatalf("scenario.Parse(%s): %v", q.Encode(), err)
			}
			if !reflect.DeepEqual(p.Lanes[0].Params, l) {
				t.Errorf("scenario.Parse read the query as\n%+v\nnot\n%+v", p.Lanes[0].Params, l)
			}
		})
	}
}

// TestImportErrors checks the configurations that make no lane, or a lane
// outside the vocabulary's ranges: each is a FieldError naming the
// library's field.
func TestImportErrors(t *testing.T) {
	tests := []struct {
		name, lib, text, path string
		kind                  error
	}{
		{"grpc two policies", "grpc", `{"methodConfig":[{"retryPolicy":{"maxAttempts":2,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}},{"retryPolicy":{"maxAttempts":3,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}`,
			"methodConfig[1]", ErrAmbiguous},
		{"grpc no policy", "grpc", `{"retryThrottling":{"maxTokens":10,"tokenRatio":0.1}}`, "methodConfig[].retryPolicy", ErrMissing},
		{"grpc multiplier below 1", "grpc", `{"methodConfig":[{"retryPolicy":{"maxAttempts":2,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":0.5,"retryableStatusCodes":["UNAVAILABLE"]}}]}`,
			"methodConfig[0].retryPolicy.backoffMultiplier", ErrUnsupported},
		{"grpc backoff under 1ms", "grpc", `{"methodConfig":[{"retryPolicy":{"maxAttempts":2,"initialBackoff":"0.0005s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}`,
			"methodConfig[0].retryPolicy.initialBackoff", ErrUnsupported},
		{"envoy without retry policy", "envoy", "timeout: 5s\n", "retry_policy", ErrMissing},
		{"envoy max_retries past the vocabulary", "envoy", "retry_policy: {}\ncircuit_breakers:\n  thresholds:\n  - max_retries: 2000000\n",
			"circuit_breakers.thresholds[0].max_retries", ErrUnsupported},
		{"aws legacy", "aws", "[default]\nretry_mode = legacy\n", "[default].retry_mode", ErrUnsupported},
		{"aws two profiles", "aws", "[default]\nmax_attempts = 3\n[profile b]\nmax_attempts = 4\n", "[profile b]", ErrAmbiguous},
		{"resilience4j time window", "resilience4j", "resilience4j:\n  circuitbreaker:\n    instances:\n      a:\n        slidingWindowType: TIME_BASED\n",
			"resilience4j.circuitbreaker.instances.a.slidingWindowType", ErrUnsupported},
		{"resilience4j multiplier below 1", "resilience4j", "resilience4j:\n  retry:\n    instances:\n      a:\n        waitDuration: 1s\n        enableExponentialBackoff: true\n        exponentialBackoffMultiplier: 0.5\n",
			"resilience4j.retry.instances.a.exponentialBackoffMultiplier", ErrUnsupported},
		{"resilience4j zero wait", "resilience4j", "resilience4j:\n  retry:\n    instances:\n      a:\n        waitDuration: 0\n",
			"resilience4j.retry.instances.a.waitDuration", ErrUnsupported},
		{"polly zero delay", "polly", `{"Delay":"00:00:00"}`, "Delay", ErrUnsupported},
		{"linkerd nothing", "linkerd", "metadata:\n  annotations:\n    a: b\n", `["retry.linkerd.io/http"]`, ErrMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib, _ := Lookup(tt.lib)
			c, _, err := lib.Parse([]byte(tt.text))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			_, _, err = ToLane(c)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Path != tt.path || !errors.Is(err, tt.kind) {
				t.Errorf("ToLane = %v, want a FieldError at %s of kind %v", err, tt.path, tt.kind)
			}
		})
	}
}

// TestCannotExpress checks that a lane a library cannot express gets a
// plain statement of why, for every exporter.
func TestCannotExpress(t *testing.T) {
	exp := laneOf(strategies.NameExponential)
	exp.MaxAttempts = 4
	tests := []struct {
		lib    string
		lane   strategies.Params
		reason string
	}{
		{"grpc", exp, "the row grpc_retry; the lane's strategy is exponential"},
		{"grpc", with(laneOf(strategies.NameGRPCRetry), func(l *strategies.Params) { l.MaxAttempts = 7 }), "2 to 5"},
		{"envoy", with(laneOf(strategies.NameEnvoy), func(l *strategies.Params) { l.SREThrottle = strategies.LimiterOn }), "sre_throttle"},
		{"envoy", with(laneOf(strategies.NameEnvoy), func(l *strategies.Params) { l.MaxAttempts = 3 }), "envoy_retry_limit is off"},
		{"istio", with(laneOf(strategies.NameEnvoy), func(l *strategies.Params) { l.MaxDelay = time.Second }), "10 × that"},
		{"istio", with(laneOf(strategies.NameEnvoy), func(l *strategies.Params) { l.EnvoyRetryLimit = strategies.EnvoyMaxRetries }), "DestinationRule"},
		{"istio", with(laneOf(strategies.NameEnvoy), func(l *strategies.Params) { l.EnvoyRetryLimit = strategies.EnvoyBudget }), "retry_budget"},
		{"linkerd", with(laneOf(strategies.NameFixed), func(l *strategies.Params) { l.MaxAttempts = 3 }), "sets no back-off"},
		{"linkerd", with(laneOf(strategies.NameFixed), func(l *strategies.Params) {
			l.MinDelay, l.MaxAttempts, l.RetryBudget = linkerdDelay, 3, strategies.LimiterOn
		}), "never both"},
		{"aws", with(laneOf(strategies.NameFullJitter), func(l *strategies.Params) { l.MaxAttempts = 3 }), "sets no delays"},
		{"aws", with(awsLane(), func(l *strategies.Params) { l.Strategy = strategies.NameAWSLegacy }), "before v1.48.0"},
		{"aws", with(awsLane(), func(l *strategies.Params) { l.Deadline = time.Minute }), "no deadline"},
		{"aws", with(awsLane(), func(l *strategies.Params) { l.RetryBudget = strategies.LimiterOn }), "retry_budget"},
		{"envoy", with(laneOf(strategies.NameEnvoy), func(l *strategies.Params) {
			l.EnvoyRetryLimit, l.AWSAdaptive = strategies.EnvoyMaxRetries, strategies.LimiterOn
		}), "aws_adaptive"},
		{"grpc", with(laneOf(strategies.NameGRPCRetry), func(l *strategies.Params) { l.AWSAdaptive = strategies.LimiterOn }), "aws_adaptive"},
		{"resilience4j", with(laneOf(strategies.NameResilience4j), func(l *strategies.Params) { l.Deadline = time.Minute }), "no deadline"},
		{"resilience4j", with(laneOf(strategies.NameResilience4j), func(l *strategies.Params) { l.Breaker = strategies.BreakerRetries }), "retries only"},
		{"resilience4j", laneOf(strategies.NameNone), "the row resilience4j; the lane's strategy is none"},
		{"polly", with(laneOf(strategies.NamePolly), func(l *strategies.Params) { l.MaxAttempts = 0 }), "MaxRetryAttempts is at least 1"},
		{"polly-csharp", exp, "the row polly"},
		{"polly", with(laneOf(strategies.NamePolly), func(l *strategies.Params) { l.Deadline = time.Minute }), "no deadline"},
		{"cenkalti", exp, "the row cenkalti"},
		{"client-go", with(laneOf(strategies.NameClientGo), func(l *strategies.Params) { l.Deadline = time.Minute }), "no deadline"},
		{"tenacity", exp, "tenacity_exponential or tenacity_random_exponential"},
		{"urllib3", with(laneOf(strategies.NameUrllib3), func(l *strategies.Params) { l.MaxAttempts = 0 }), "total is a count"},
	}
	for _, tt := range tests {
		t.Run(tt.lib+"/"+tt.reason, func(t *testing.T) {
			e, ok := LookupExporter(tt.lib)
			if !ok {
				t.Fatalf("no exporter %s", tt.lib)
			}
			_, _, err := e.Export(tt.lane)
			var ce *CannotExpress
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.reason) || !errors.Is(err, ErrUnsupported) {
				t.Errorf("Export = %v, want a CannotExpress saying %q", err, tt.reason)
			}
		})
	}
}

func with(l strategies.Params, f func(*strategies.Params)) strategies.Params {
	f(&l)
	return l
}

// TestEnvoyDefaultRetryLimit: a route without its cluster's
// circuit_breakers takes Envoy's default limit, max_retries 3, and says so.
func TestEnvoyDefaultRetryLimit(t *testing.T) {
	c, _, err := ParseEnvoy([]byte("retry_policy:\n  num_retries: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	l, warns, err := ToLane(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := Query(l, "a").Encode(); got != "a.deadline=15s&a.envoy_retry_limit=max_retries&a.max_attempts=3&a.strategy=envoy" {
		t.Errorf("query %s", got)
	}
	if !slices.ContainsFunc(warns, func(w Warning) bool { return w.Path == "circuit_breakers" }) {
		t.Errorf("no warning about the absent circuit_breakers: %v", warns)
	}
}

// awsLane is the lane an AWS shared config's standard mode makes with
// its defaults.
func awsLane() strategies.Params {
	l := laneOf(strategies.NameFullJitter)
	l.MinDelay, l.MaxDelay, l.MaxAttempts = awsBaseDelay, awsMaxBackoff, AWSDefaultMaxAttempts
	l.AWSQuota, l.AWSRetryCost, l.AWSTimeoutCost = strategies.LimiterOn, awsRetryCost2026, awsRetryCost2026
	return l
}

// TestAWSModes: standard mode is the full_jitter row with the quota;
// adaptive mode is the same with the aws_adaptive limiter on, and says
// which choices of the model it makes; each lane is written back as its
// mode.
func TestAWSModes(t *testing.T) {
	// Adaptive mode's lane takes error answers for throttling errors, so
	// it does what the SDK does after one: back off from 1 s
	// (aws_throttled) and charge the quota 5 tokens, not 14.
	adaptive := with(awsLane(), func(l *strategies.Params) {
		l.Strategy, l.AWSAdaptive, l.AWSRetryCost = strategies.NameAWSThrottled, strategies.LimiterOn, 5
	})
	tests := []struct {
		mode, warn string
		lane       strategies.Params
	}{
		{"standard", "v1.48.0", awsLane()},
		{"adaptive", "FailOnNoAttemptTokens", adaptive},
		{"", "unset: the SDKs' default, standard", awsLane()},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			text := "[default]\nmax_attempts = 3\n"
			if tt.mode != "" {
				text += "retry_mode = " + tt.mode + "\n"
			}
			c, _, err := ParseAWS([]byte(text))
			if err != nil {
				t.Fatal(err)
			}
			l, warns, err := ToLane(c)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(l, tt.lane) {
				t.Errorf("lane\n%+v\nwant\n%+v", l, tt.lane)
			}
			if !slices.ContainsFunc(warns, func(w Warning) bool { return strings.Contains(w.Message, tt.warn) }) {
				t.Errorf("warnings %v: want one saying %q", warns, tt.warn)
			}
			e, _ := LookupExporter("aws")
			back, _, err := e.Export(l)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.mode
			if want == "" {
				want = "standard"
			}
			if got := back.(AWSConfig).Profiles[0].RetryMode; got != want {
				t.Errorf("exported retry_mode %q, want %q", got, want)
			}
		})
	}
}

// TestIstioRetryLimit: an Istio route leaves its clusters' retry limit to
// a DestinationRule, whose default is no limit; import says so and leaves
// the lane's envoy_retry_limit off.
func TestIstioRetryLimit(t *testing.T) {
	c, _, err := ParseIstio([]byte("http:\n- retries:\n    attempts: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	l, warns, err := ToLane(c)
	if err != nil {
		t.Fatal(err)
	}
	if l.EnvoyRetryLimit != strategies.LimiterOff {
		t.Errorf("envoy_retry_limit %q, want off", l.EnvoyRetryLimit)
	}
	if !slices.ContainsFunc(warns, func(w Warning) bool { return strings.Contains(w.Message, "connectionPool.http.maxRetries") }) {
		t.Errorf("no warning about the DestinationRule's maxRetries: %v", warns)
	}
}
