package libconfig

import "slices"

// Config is one library's retry configuration, typed: the fields,
// units and ranges that library documents.
type Config interface {
	// Marshal writes the configuration in its library's own syntax, which
	// the library's Parse reads back as the same Config.
	Marshal() ([]byte, error)
}

// Library is one library whose configuration backofflab reads and writes.
type Library struct {
	// Name is the library's name on the command line (-lib).
	Name string
	// Syntax says what Parse reads, in words.
	Syntax string
	// Parse reads a configuration: the typed Config, the warnings (settings
	// read and left out), or an error joining a FieldError for every
	// problem.
	Parse func(data []byte) (Config, []Warning, error)
	// profile is the library's defaults and every setting, which its
	// profile (Profiles) reads.
	profile profileDef
}

// typed adapts a typed parser to Library.Parse.
func typed[C Config](parse func([]byte) (C, []Warning, error)) func([]byte) (Config, []Warning, error) {
	return func(data []byte) (Config, []Warning, error) {
		c, w, err := parse(data)
		if err != nil {
			return nil, w, err
		}
		return c, w, nil
	}
}

// libraries lists the libraries whose configuration is text. A new one is
// a model with its Parse and Marshal in a file of its own and a row here,
// with its profile: its defaults (gRPC has none: they are gRFC A6's
// example, as the grpc_retry row's are) and a configuration that sets
// every setting the mapping reads.
var libraries = []Library{
	{"grpc", "a gRPC service config (JSON): methodConfig[].retryPolicy, retryThrottling", typed(ParseGRPC),
		profileDef{"gRPC has no default retry policy: these are gRFC A6's example's values",
			`{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`,
			`{"methodConfig": [{"name": [{}], "timeout": "10s", "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}], "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}`}},
	{"envoy", "an Envoy YAML fragment (a route's timeout and retry_policy, a cluster's circuit_breakers), or a bootstrap, route_config or virtual_hosts holding routes", parseEnvoyFile,
		profileDef{"",
			"retry_policy:\n  retry_on: 5xx\n",
			"timeout: 15s\nretry_policy:\n  retry_on: 5xx\n  num_retries: 1\n  per_try_timeout: 2s\n  retry_back_off:\n    base_interval: 0.025s\n    max_interval: 0.25s\ncircuit_breakers:\n  thresholds:\n  - priority: DEFAULT\n    max_retries: 3\n    retry_budget:\n      budget_percent:\n        value: 20.0\n      min_retry_concurrency: 3\n"}},
	{"istio", "an Istio VirtualService (YAML), whole or its spec: http[].timeout and http[].retries", typed(ParseIstio),
		profileDef{"",
			"http:\n- route:\n  - destination:\n      host: backend\n",
			"http:\n- route:\n  - destination:\n      host: backend\n  timeout: 10s\n  retries:\n    attempts: 2\n    perTryTimeout: 2s\n    backoff: 25ms\n"}},
	{"linkerd", "Linkerd's retry annotations (retry.linkerd.io/…) on a Service or route, or a ServiceProfile's retryBudget (YAML; a manifest of several documents too)", parseLinkerdFile,
		profileDef{"",
			"metadata:\n  annotations:\n    retry.linkerd.io/http: 5xx\n",
			"metadata:\n  annotations:\n    retry.linkerd.io/http: 5xx\n    retry.linkerd.io/limit: \"1\"\n    timeout.linkerd.io/request: 10s\n"}},
	{"aws", "an AWS shared config file (INI): retry_mode and max_attempts per profile", typed(ParseAWS),
		profileDef{"",
			"[default]\nretry_mode = standard\n",
			"[default]\nretry_mode = standard\nmax_attempts = 3\n"}},
	{"resilience4j", "a Spring Boot application.yml block: resilience4j.retry and resilience4j.circuitbreaker instances", typed(ParseResilience4j),
		profileDef{"",
			"resilience4j.retry.instances.backend.maxAttempts: 3\n",
			"resilience4j:\n  retry:\n    instances:\n      backend:\n        maxAttempts: 3\n        waitDuration: 500ms\n        enableExponentialBackoff: true\n        exponentialBackoffMultiplier: 2\n        exponentialMaxWaitDuration: 10s\n        enableRandomizedWait: true\n        randomizedWaitFactor: 0.5\n  circuitbreaker:\n    instances:\n      backend:\n        failureRateThreshold: 50\n        slidingWindowSize: 100\n        minimumNumberOfCalls: 100\n        waitDurationInOpenState: 60s\n        permittedNumberOfCallsInHalfOpenState: 10\n"}},
	{"polly", "Polly v8 RetryStrategyOptions as JSON (the object, or an appsettings.json holding it in a section)", parsePollyFile,
		profileDef{"",
			"{}",
			`{"MaxRetryAttempts": 3, "Delay": "00:00:02", "MaxDelay": "00:00:30", "BackoffType": "Exponential", "UseJitter": true}`}},
}

// Libraries lists the libraries whose configuration is read and written,
// in the order the command and the page list them.
func Libraries() []Library { return slices.Clone(libraries) }

// Lookup returns the library named name.
func Lookup(name string) (Library, bool) {
	i := slices.IndexFunc(libraries, func(l Library) bool { return l.Name == name })
	if i < 0 {
		return Library{}, false
	}
	return libraries[i], true
}

// Names lists the libraries' names.
func Names() []string {
	out := make([]string, len(libraries))
	for i, l := range libraries {
		out[i] = l.Name
	}
	return out
}
