package libconfig

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

// TestParseRealConfigs reads configurations as they are written in the
// wild (testdata/) and checks every field of the model and every warning.
func TestParseRealConfigs(t *testing.T) {
	tests := []struct {
		lib, file string
		want      Config
		warnings  []string // the warnings' paths, in order
	}{
		{"grpc", "grpc_service_config.json", GRPCServiceConfig{
			MethodConfigs: []GRPCMethodConfig{{
				Names:   []GRPCName{{"helloworld.Greeter", "SayHello"}, {"helloworld.Greeter", "SayGoodbye"}},
				Timeout: 10 * time.Second,
				RetryPolicy: &GRPCRetryPolicy{MaxAttempts: 4, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second,
					BackoffMultiplier: 2, RetryableStatusCodes: []string{"UNAVAILABLE", "DEADLINE_EXCEEDED"}},
			}},
			Throttling: &GRPCThrottling{MaxTokens: 10, TokenRatio: 0.1},
		}, []string{"loadBalancingConfig", "methodConfig[0].waitForReady"}},
		{"envoy", "envoy_route.yaml", EnvoyConfig{
			Timeout: ptr(15 * time.Second),
			RetryPolicy: &EnvoyRetryPolicy{RetryOn: []string{"5xx", "reset", "connect-failure", "retriable-status-codes"},
				NumRetries: 3, PerTryTimeout: 2 * time.Second, RetriableStatusCodes: []uint32{503, 429},
				BackOff: &EnvoyBackOff{BaseInterval: 50 * time.Millisecond, MaxInterval: time.Second}},
			CircuitBreakers: &EnvoyCircuitBreakers{Thresholds: []EnvoyThresholds{
				{Priority: "DEFAULT", MaxRetries: 5, RetryBudget: &EnvoyRetryBudget{BudgetPercent: 25, MinRetryConcurrency: 10}},
				{Priority: "HIGH", MaxRetries: 10},
			}},
		}, []string{"cluster", "retry_policy.retry_host_predicate", "retry_policy.host_selection_retry_max_attempts",
			"circuit_breakers.thresholds[0].max_connections"}},
		{"istio", "istio_virtualservice.yaml", IstioConfig{Routes: []IstioRoute{{
			Name: "ratings-v1", Timeout: 10 * time.Second,
			Retries: &IstioRetry{Attempts: 3, PerTryTimeout: 2 * time.Second,
				RetryOn: []string{"gateway-error", "connect-failure", "refused-stream", "503"}},
		}}}, []string{"spec.http[0].match", "spec.http[0].route", "spec.http[0].retries.retryRemoteLocalities"}},
		{"linkerd", "linkerd_httproute.yaml", LinkerdConfig{
			HTTP: []string{"5xx", "429"}, Limit: 2, Timeout: 300 * time.Millisecond, RequestTimeout: 2 * time.Second,
		}, []string{`metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"]`, "spec"}},
		{"linkerd", "linkerd_serviceprofile.yaml", LinkerdConfig{
			Limit: 1, Budget: &LinkerdBudget{RetryRatio: 0.2, MinRetriesPerSecond: 10, TTL: 10 * time.Second},
		}, []string{"spec.routes"}},
		{"aws", "aws_config.ini", AWSConfig{Profiles: []AWSProfile{{Name: "prod", RetryMode: "adaptive", MaxAttempts: 5}}},
			[]string{"[default].region", "[default].output", "[profile prod].region", "[profile prod].s3"}},
		{"resilience4j", "resilience4j_application.yml", Resilience4jConfig{Instances: []R4jInstance{{
			Name: "inventory",
			Retry: &R4jRetry{MaxAttempts: 4, WaitDuration: 200 * time.Millisecond, EnableExponentialBackoff: true,
				ExponentialBackoffMultiplier: 2, ExponentialMaxWaitDuration: 5 * time.Second, EnableRandomizedWait: true,
				RandomizedWaitFactor: 0.5},
			CircuitBreaker: &R4jCircuitBreaker{FailureRateThreshold: 50, SlidingWindowType: "COUNT_BASED", SlidingWindowSize: 20,
				MinimumNumberOfCalls: 10, WaitDurationInOpenState: 30 * time.Second, PermittedNumberOfCallsInHalfOpenState: 3,
				SlowCallRateThreshold: 100, SlowCallDurationThreshold: time.Minute},
		}}}, []string{"spring", "resilience4j.circuitbreaker.instances.inventory.registerHealthIndicator",
			"resilience4j.retry.configs.default.retryExceptions"}},
		{"polly", "polly_options.json", PollyRetry{MaxRetryAttempts: 4, Delay: 200 * time.Millisecond,
			MaxDelay: ptr(30 * time.Second), BackoffType: "Exponential", UseJitter: true}, []string{"Name"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			lib, ok := Lookup(tt.lib)
			if !ok {
				t.Fatalf("no library %q", tt.lib)
			}
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, warns, err := lib.Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse =\n%#v\nwant\n%#v", got, tt.want)
			}
			var paths []string
			for _, w := range warns {
				paths = append(paths, w.Path)
			}
			slices.Sort(paths)
			want := slices.Sorted(slices.Values(tt.warnings))
			if !slices.Equal(paths, want) {
				t.Errorf("warnings at %q, want %q (all: %v)", paths, want, warns)
			}
		})
	}
}

// TestParseErrors checks that each kind of bad input is a FieldError with
// the field's path, its kind, and the library's allowed range in words.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, lib, text string
		path            string
		kind            error
		allowed         string // a part of FieldError.Allowed
	}{
		{"grpc unknown field", "grpc", `{"methodConfig":[{"name":[{"service":"s"}],"retryPolicy":{"maxAttemps":4,"maxAttempts":4,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}`,
			"methodConfig[0].retryPolicy.maxAttemps", ErrUnknownField, ""},
		{"grpc maxAttempts 1", "grpc", `{"methodConfig":[{"retryPolicy":{"maxAttempts":1,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}`,
			"methodConfig[0].retryPolicy.maxAttempts", ErrOutOfRange, "greater than 1"},
		{"grpc duration without s", "grpc", `{"methodConfig":[{"retryPolicy":{"maxAttempts":2,"initialBackoff":"100ms","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}`,
			"methodConfig[0].retryPolicy.initialBackoff", ErrType, "google.protobuf.Duration"},
		{"grpc zero backoff", "grpc", `{"methodConfig":[{"retryPolicy":{"maxAttempts":2,"initialBackoff":"0s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}`,
			"methodConfig[0].retryPolicy.initialBackoff", ErrOutOfRange, "greater than 0"},
		{"grpc multiplier 0", "grpc", `{"methodConfig":[{"retryPolicy":{"maxAttempts":2,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":0,"retryableStatusCodes":["UNAVAILABLE"]}}]}`,
			"methodConfig[0].retryPolicy.backoffMultiplier", ErrOutOfRange, "greater than 0"},
		{"grpc missing codes", "grpc", `{"methodConfig":[{"retryPolicy":{"maxAttempts":2,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":2}}]}`,
			"methodConfig[0].retryPolicy.retryableStatusCodes", ErrMissing, "gRFC A6"},
		{"grpc bad code", "grpc", `{"methodConfig":[{"retryPolicy":{"maxAttempts":2,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["unavailable"]}}]}`,
			"methodConfig[0].retryPolicy.retryableStatusCodes[0]", ErrType, "UNAVAILABLE"},
		{"grpc maxAttempts as string", "grpc", `{"methodConfig":[{"retryPolicy":{"maxAttempts":"3","initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}`,
			"methodConfig[0].retryPolicy.maxAttempts", ErrType, "whole number"},
		{"grpc maxTokens 1001", "grpc", `{"retryThrottling":{"maxTokens":1001,"tokenRatio":0.1}}`,
			"retryThrottling.maxTokens", ErrOutOfRange, "(0, 1000]"},
		{"grpc tokenRatio 0", "grpc", `{"retryThrottling":{"maxTokens":10,"tokenRatio":0}}`,
			"retryThrottling.tokenRatio", ErrOutOfRange, "greater than 0"},
		{"grpc hedging", "grpc", `{"methodConfig":[{"hedgingPolicy":{"maxAttempts":3}}]}`,
			"methodConfig[0].hedgingPolicy", ErrUnsupported, "hedging"},
		{"grpc not JSON", "grpc", "methodConfig: []\n", "", ErrSyntax, "JSON"},
		{"grpc duplicate key", "grpc", `{"retryThrottling":{"maxTokens":10,"maxTokens":20,"tokenRatio":1}}`,
			"retryThrottling.maxTokens", ErrDuplicate, ""},
		{"envoy unknown field", "envoy", "retry_policy:\n  num_retry: 3\n", "retry_policy.num_retry", ErrUnknownField, ""},
		{"envoy go duration", "envoy", "retry_policy:\n  per_try_timeout: 250ms\n", "retry_policy.per_try_timeout", ErrType, "0.025s"},
		{"envoy base missing", "envoy", "retry_policy:\n  retry_back_off:\n    max_interval: 1s\n", "retry_policy.retry_back_off.base_interval", ErrMissing, ""},
		{"envoy max below base", "envoy", "retry_policy:\n  retry_back_off:\n    base_interval: 2s\n    max_interval: 1s\n", "retry_policy.retry_back_off.max_interval", ErrOutOfRange, "at least base_interval"},
		{"envoy budget 150%", "envoy", "circuit_breakers:\n  thresholds:\n  - retry_budget:\n      budget_percent: {value: 150}\n", "circuit_breakers.thresholds[0].retry_budget.budget_percent.value", ErrOutOfRange, "[0, 100]"},
		{"envoy rate-limited back-off", "envoy", "retry_policy:\n  rate_limited_retry_back_off: {}\n", "retry_policy.rate_limited_retry_back_off", ErrUnsupported, ""},
		{"istio attempts negative", "istio", "http:\n- retries:\n    attempts: -1\n", "http[0].retries.attempts", ErrOutOfRange, "0 or more"},
		{"istio perTryTimeout under 1ms", "istio", "http:\n- retries:\n    perTryTimeout: 500us\n", "http[0].retries.perTryTimeout", ErrOutOfRange, "at least 1ms"},
		{"istio unknown retry field", "istio", "spec:\n  http:\n  - retries:\n      attempt: 3\n", "spec.http[0].retries.attempt", ErrUnknownField, ""},
		{"istio bad condition", "istio", "http:\n- retries:\n    retryOn: 5xx,conect-failure\n", "http[0].retries.retryOn", ErrOutOfRange, "connect-failure"},
		{"istio wrong kind", "istio", "kind: DestinationRule\nspec: {}\n", "kind", ErrOutOfRange, "VirtualService"},
		{"linkerd unknown annotation", "linkerd", "retry.linkerd.io/limt: \"3\"\n", `["retry.linkerd.io/limt"]`, ErrUnknownField, "retry.linkerd.io/limit"},
		{"linkerd timeout without unit", "linkerd", "retry.linkerd.io/timeout: \"300\"\n", `["retry.linkerd.io/timeout"]`, ErrType, "unit"},
		{"linkerd bad http", "linkerd", "retry.linkerd.io/http: 5xx,504-500\n", `["retry.linkerd.io/http"]`, ErrOutOfRange, "500-504"},
		{"linkerd bad ttl", "linkerd", "retryBudget:\n  ttl: 10\n", "retryBudget.ttl", ErrType, "Go duration"},
		{"aws bad mode", "aws", "[default]\nretry_mode = fast\n", "[default].retry_mode", ErrOutOfRange, "standard, adaptive or legacy"},
		{"aws zero attempts", "aws", "[profile x]\nmax_attempts = 0\n", "[profile x].max_attempts", ErrOutOfRange, "1 or more"},
		{"aws attempts word", "aws", "[profile x]\nmax_attempts = three\n", "[profile x].max_attempts", ErrType, "whole number"},
		{"aws key outside a section", "aws", "max_attempts = 3\n", "max_attempts", ErrSyntax, "section"},
		{"resilience4j unknown property", "resilience4j", "resilience4j:\n  retry:\n    instances:\n      a:\n        maxAttempt: 3\n", "resilience4j.retry.instances.a.maxAttempt", ErrUnknownField, ""},
		{"resilience4j factor over 1", "resilience4j", "resilience4j:\n  retry:\n    instances:\n      a:\n        randomizedWaitFactor: 1.5\n", "resilience4j.retry.instances.a.randomizedWaitFactor", ErrOutOfRange, "[0, 1)"},
		{"resilience4j multiplier 0", "resilience4j", "resilience4j:\n  retry:\n    instances:\n      a:\n        exponentialBackoffMultiplier: 0\n", "resilience4j.retry.instances.a.exponentialBackoffMultiplier", ErrOutOfRange, "greater than 0"},
		{"resilience4j decimal duration", "resilience4j", "resilience4j:\n  retry:\n    instances:\n      a:\n        waitDuration: 1.5s\n", "resilience4j.retry.instances.a.waitDuration", ErrType, "PT0.5S"},
		{"resilience4j missing base", "resilience4j", "resilience4j:\n  retry:\n    instances:\n      a:\n        baseConfig: shared\n", "resilience4j.retry.instances.a.baseConfig", ErrOutOfRange, "configs"},
		{"resilience4j base loop", "resilience4j", "resilience4j:\n  retry:\n    configs:\n      x:\n        baseConfig: y\n      y:\n        baseConfig: x\n    instances:\n      a:\n        baseConfig: x\n", "resilience4j.retry.configs.y.baseConfig", ErrOutOfRange, "do not loop"},
		{"resilience4j interval function", "resilience4j", "resilience4j:\n  retry:\n    instances:\n      a:\n        intervalBiFunction: com.x.F\n", "resilience4j.retry.instances.a.intervalBiFunction", ErrUnsupported, ""},
		{"resilience4j window type", "resilience4j", "resilience4j:\n  circuitbreaker:\n    instances:\n      a:\n        slidingWindowType: SLIDING\n", "resilience4j.circuitbreaker.instances.a.slidingWindowType", ErrOutOfRange, "COUNT_BASED"},
		{"polly zero retries", "polly", `{"MaxRetryAttempts": 0}`, "MaxRetryAttempts", ErrOutOfRange, "1 to 2147483647"},
		{"polly delay over a day", "polly", `{"Delay": "1.00:00:01"}`, "Delay", ErrOutOfRange, "1.00:00:00"},
		{"polly go duration", "polly", `{"Delay": "2s"}`, "Delay", ErrType, "TimeSpan"},
		{"polly backoff type", "polly", `{"BackoffType": "Exponentail"}`, "BackoffType", ErrOutOfRange, "Exponential"},
		{"polly delegate", "polly", `{"ShouldHandle": "x"}`, "ShouldHandle", ErrUnknownField, ""},
		{"empty document", "envoy", "", "", ErrMissing, "empty"},
		{"a list, not an object", "istio", "- a\n- b\n", "", ErrType, "object"},
		{"two documents", "istio", "a: 1\n---\nb: 2\n", "", ErrAmbiguous, "one YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib, _ := Lookup(tt.lib)
			_, _, err := lib.Parse([]byte(tt.text))
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse(%q) = %v, want a *FieldError", tt.text, err)
			}
			if fe.Path != tt.path || !errors.Is(fe, tt.kind) || !strings.Contains(fe.Allowed, tt.allowed) {
				t.Errorf("Parse(%q) = %q (path %q, allowed %q), want path %q, kind %v, allowed containing %q",
					tt.text, err, fe.Path, fe.Allowed, tt.path, tt.kind, tt.allowed)
			}
			if !strings.HasPrefix(err.Error(), tt.path) {
				t.Errorf("message %q does not start with the path %q", err, tt.path)
			}
		})
	}
}

// TestYAMLMergeKeys: a mapping merged in with "<<: *anchor" is read as if
// written in place, and a key written beside it overrides it.
func TestYAMLMergeKeys(t *testing.T) {
	c, _, err := ParseResilience4j([]byte(`resilience4j:
  retry:
    instances:
      a:
        <<: &base
          maxAttempts: 5
          waitDuration: 1s
        waitDuration: 2s
      b: *base
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Instances) != 2 || c.Instances[0].Retry.MaxAttempts != 5 || c.Instances[0].Retry.WaitDuration != 2*time.Second ||
		c.Instances[1].Retry.WaitDuration != time.Second {
		t.Errorf("read %+v %+v", c.Instances[0].Retry, c.Instances[1].Retry)
	}
}

// TestSpringDottedKeys: Spring reads "a.b: v" as "a: {b: v}", merged with
// the siblings that share the prefix; brackets keep a name's dots.
func TestSpringDottedKeys(t *testing.T) {
	c, _, err := ParseResilience4j([]byte(`resilience4j.retry.instances.a.maxAttempts: 5
resilience4j:
  retry:
    instances:
      a:
        waitDuration: 1s
resilience4j.retry.instances.[b.c].max-attempts: 2
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Instances) != 2 || c.Instances[0].Name != "a" || c.Instances[0].Retry.MaxAttempts != 5 ||
		c.Instances[0].Retry.WaitDuration != time.Second || c.Instances[1].Name != "b.c" || c.Instances[1].Retry.MaxAttempts != 2 {
		t.Errorf("read %+v", c.Instances)
	}
	_, _, err = ParseResilience4j([]byte("resilience4j.retry.instances.a.maxAttempts: 5\nresilience4j.retry.instances.a:\n  maxAttempts: 6\n"))
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Path != "resilience4j.retry.instances.a.maxAttempts" || !errors.Is(err, ErrDuplicate) {
		t.Errorf("a property given twice = %v", err)
	}
}

// TestEnvoyUnknownCondition: Envoy loads a route whose retry_on names a
// condition it does not know, and ignores that condition; so does the
// parser, with a warning that names it.
func TestEnvoyUnknownCondition(t *testing.T) {
	c, warns, err := ParseEnvoy([]byte("retry_policy:\n  retry_on: 5xx,conect-failure\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.RetryPolicy.RetryOn; !slices.Equal(got, []string{"5xx"}) {
		t.Errorf("retry_on read as %q", got)
	}
	if len(warns) != 1 || warns[0].Path != "retry_policy.retry_on" || !strings.Contains(warns[0].Message, `"conect-failure"`) {
		t.Errorf("warnings %v", warns)
	}
}

// TestParseReportsEveryError checks that one pass reports every bad field,
// not only the first.
func TestParseReportsEveryError(t *testing.T) {
	_, _, err := ParseGRPC([]byte(`{"methodConfig":[{"retryPolicy":{"maxAttempts":1,"initialBackoff":"-1s","maxBackoff":"x","backoffMultiplier":-2,"retryableStatusCodes":["NOPE"]}}],"retryThrottlin":{}}`))
	var paths []string
	for _, e := range errorsOf(err) {
		paths = append(paths, e.Path)
	}
	want := []string{"methodConfig[0].retryPolicy.maxAttempts", "methodConfig[0].retryPolicy.initialBackoff",
		"methodConfig[0].retryPolicy.maxBackoff", "methodConfig[0].retryPolicy.backoffMultiplier",
		"methodConfig[0].retryPolicy.retryableStatusCodes[0]", "retryThrottlin"}
	for _, p := range want {
		if !slices.Contains(paths, p) {
			t.Errorf("no error at %s; errors: %v", p, err)
		}
	}
}

// errorsOf lists the FieldErrors joined in err.
func errorsOf(err error) []*FieldError {
	var out []*FieldError
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, errorsOf(e)...)
		}
		return out
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		out = append(out, fe)
	}
	return out
}

// TestDurations checks each library's duration format on the edges.
func TestDurations(t *testing.T) {
	tests := []struct {
		format string
		parse  func(string) (time.Duration, error)
		in     string
		want   time.Duration
		ok     bool
	}{
		{"proto", parseProtoDuration, "0.1s", 100 * time.Millisecond, true},
		{"proto", parseProtoDuration, "1.000000001s", time.Second + 1, true},
		{"proto", parseProtoDuration, "1.0000000001s", 0, false},
		{"proto", parseProtoDuration, "100ms", 0, false},
		{"proto", parseProtoDuration, "1", 0, false},
		{"proto", parseProtoDuration, "-0.5s", -500 * time.Millisecond, true},
		{"proto", parseProtoDuration, "99999999999s", 0, false},
		{"spring", parseSpringDuration, "500", 500 * time.Millisecond, true},
		{"spring", parseSpringDuration, "10s", 10 * time.Second, true},
		{"spring", parseSpringDuration, "2M", 2 * time.Minute, true},
		{"spring", parseSpringDuration, "1d", 24 * time.Hour, true},
		{"spring", parseSpringDuration, "PT0.5S", 500 * time.Millisecond, true},
		{"spring", parseSpringDuration, "pt1m30s", 90 * time.Second, true},
		{"spring", parseSpringDuration, "P1DT2H", 26 * time.Hour, true},
		{"spring", parseSpringDuration, "PT", 0, false},
		{"spring", parseSpringDuration, "1.5s", 0, false},
		{"spring", parseSpringDuration, "10 s", 0, false},
		{"linkerd", parseLinkerdDuration, "300ms", 300 * time.Millisecond, true},
		{"linkerd", parseLinkerdDuration, "5s", 5 * time.Second, true},
		{"linkerd", parseLinkerdDuration, "300", 0, false},
		{"linkerd", parseLinkerdDuration, "1.5s", 0, false},
		{"linkerd", parseLinkerdDuration, "-1s", 0, false},
		{"timespan", parseTimeSpan, "00:00:02", 2 * time.Second, true},
		{"timespan", parseTimeSpan, "00:00:00.2", 200 * time.Millisecond, true},
		{"timespan", parseTimeSpan, "00:00:00.0000001", 100, true},
		{"timespan", parseTimeSpan, "1.00:00:00", 24 * time.Hour, true},
		{"timespan", parseTimeSpan, "1", 24 * time.Hour, true},
		{"timespan", parseTimeSpan, "00:01", time.Minute, true},
		{"timespan", parseTimeSpan, "24:00:00", 0, false},
		{"timespan", parseTimeSpan, "00:60:00", 0, false},
		{"timespan", parseTimeSpan, "2s", 0, false},
	}
	for _, tt := range tests {
		got, err := tt.parse(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("%s %q = %v, %v; want %v, ok %v", tt.format, tt.in, got, err, tt.want, tt.ok)
		}
	}
	for _, d := range []time.Duration{0, 1, 100, time.Millisecond, 25 * time.Millisecond, 1500 * time.Millisecond, time.Hour + 1, 36 * time.Hour} {
		if got, err := parseProtoDuration(formatProtoDuration(d)); err != nil || got != d {
			t.Errorf("proto %v: wrote %q, read %v, %v", d, formatProtoDuration(d), got, err)
		}
		if got, err := parseSpringDuration(formatSpringDuration(d)); err != nil || got != d {
			t.Errorf("spring %v: wrote %q, read %v, %v", d, formatSpringDuration(d), got, err)
		}
		if d%100 == 0 {
			if got, err := parseTimeSpan(formatTimeSpan(d)); err != nil || got != d {
				t.Errorf("timespan %v: wrote %q, read %v, %v", d, formatTimeSpan(d), got, err)
			}
		}
	}
}
