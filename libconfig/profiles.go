package libconfig

import (
	"fmt"
	"slices"

	"backofflab/scenario"
	"backofflab/strategies"
)

// Profile is a library as a page offers it: its name in words, the lane
// its defaults make, and its knobs: the lane parameters its configuration
// sets, each under the library's own name.
type Profile struct {
	// Name is the library's name, as Library.Name.
	Name string
	// Title is the library in words ("Envoy").
	Title string
	// Lane is the lane the library's defaults make: its strategy row and
	// its limiter, as ToLane maps a configuration that sets nothing the
	// library does not require.
	Lane strategies.Params
	// Defaults is that configuration, in the library's own syntax.
	Defaults string
	// Note says where the defaults come from when the library has none
	// of its own; empty otherwise.
	Note string
	// Knobs are the lane parameters the library's settings map to, in the
	// vocabulary table's order.
	Knobs []Knob
}

// Knob is one setting of a library and the lane parameter it maps to.
type Knob struct {
	Param string // the vocabulary's lane parameter (min_delay)
	Field string // the library's setting, its path in the library's own names
}

// profileDef is a library's profile as written: its defaults and a
// configuration that sets every setting the mapping reads, whose fields
// name the knobs.
type profileDef struct {
	name     string
	note     string // where the defaults come from, when not the library's own
	defaults string // the least configuration that retries, in the library's syntax
	full     string // every retry setting set, its optional sections too
}

// profileDefs holds one row per library of libraries. gRPC has no default
// retry policy: its defaults are gRFC A6's example, as the grpc_retry
// row's are.
var profileDefs = []profileDef{
	{"grpc", "gRPC has no default retry policy: these are gRFC A6's example's values",
		`{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`,
		`{"methodConfig": [{"name": [{}], "timeout": "10s", "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}], "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}`},
	{"envoy", "",
		"retry_policy:\n  retry_on: 5xx\n",
		"timeout: 15s\nretry_policy:\n  retry_on: 5xx\n  num_retries: 1\n  per_try_timeout: 2s\n  retry_back_off:\n    base_interval: 0.025s\n    max_interval: 0.25s\ncircuit_breakers:\n  thresholds:\n  - priority: DEFAULT\n    max_retries: 3\n    retry_budget:\n      budget_percent:\n        value: 20.0\n      min_retry_concurrency: 3\n"},
	{"istio", "",
		"http:\n- route:\n  - destination:\n      host: backend\n",
		"http:\n- route:\n  - destination:\n      host: backend\n  timeout: 10s\n  retries:\n    attempts: 2\n    perTryTimeout: 2s\n    backoff: 25ms\n"},
	{"linkerd", "",
		"metadata:\n  annotations:\n    retry.linkerd.io/http: 5xx\n",
		"metadata:\n  annotations:\n    retry.linkerd.io/http: 5xx\n    retry.linkerd.io/limit: \"1\"\n    timeout.linkerd.io/request: 10s\n"},
	{"aws", "",
		"[default]\nretry_mode = standard\n",
		"[default]\nretry_mode = standard\nmax_attempts = 3\n"},
	{"resilience4j", "",
		"resilience4j.retry.instances.backend.maxAttempts: 3\n",
		"resilience4j:\n  retry:\n    instances:\n      backend:\n        maxAttempts: 3\n        waitDuration: 500ms\n        enableExponentialBackoff: true\n        exponentialBackoffMultiplier: 2\n        exponentialMaxWaitDuration: 10s\n        enableRandomizedWait: true\n        randomizedWaitFactor: 0.5\n  circuitbreaker:\n    instances:\n      backend:\n        failureRateThreshold: 50\n        slidingWindowSize: 100\n        minimumNumberOfCalls: 100\n        waitDurationInOpenState: 60s\n        permittedNumberOfCallsInHalfOpenState: 10\n"},
	{"polly", "",
		"{}",
		`{"MaxRetryAttempts": 3, "Delay": "00:00:02", "MaxDelay": "00:00:30", "BackoffType": "Exponential", "UseJitter": true}`},
}

// Profiles lists every library's profile, in Libraries' order.
func Profiles() []Profile {
	out := make([]Profile, 0, len(profileDefs))
	for _, d := range profileDefs {
		p, err := profileOf(d)
		if err != nil {
			panic(err) // a bad row of profileDefs: its test catches it
		}
		out = append(out, p)
	}
	return out
}

// LookupProfile returns the profile of the library named name.
func LookupProfile(name string) (Profile, bool) {
	i := slices.IndexFunc(profileDefs, func(d profileDef) bool { return d.name == name })
	if i < 0 {
		return Profile{}, false
	}
	p, err := profileOf(profileDefs[i])
	if err != nil {
		panic(err)
	}
	return p, true
}

func profileOf(d profileDef) (Profile, error) {
	lib, ok := Lookup(d.name)
	if !ok {
		return Profile{}, fmt.Errorf("libconfig: profile of %s: no such library", d.name)
	}
	lane, _, _, err := laneFields(lib, d.defaults)
	if err != nil {
		return Profile{}, fmt.Errorf("libconfig: %s's defaults: %w", d.name, err)
	}
	_, _, field, err := laneFields(lib, d.full)
	if err != nil {
		return Profile{}, fmt.Errorf("libconfig: %s's settings: %w", d.name, err)
	}
	p := Profile{Name: d.name, Title: Title(d.name), Lane: lane, Defaults: d.defaults, Note: d.note}
	for _, row := range scenario.Table {
		if f, ok := field[row.Name]; ok && row.Lane {
			p.Knobs = append(p.Knobs, Knob{Param: row.Name, Field: f})
		}
	}
	return p, nil
}

// laneFields parses text as lib's configuration and maps it onto a lane,
// as ToLane does, with the map from each lane parameter set to the
// library's field that set it.
func laneFields(lib Library, text string) (strategies.Params, []Warning, map[string]string, error) {
	c, w, err := lib.Parse([]byte(text))
	if err != nil {
		return strategies.Params{}, w, nil, err
	}
	l, lw, field, err := toLane(c)
	return l, append(w, lw...), field, err
}

// titles are the libraries, and the exporters' other targets, in words.
var titles = map[string]string{
	"grpc": "gRPC", "envoy": "Envoy", "istio": "Istio", "linkerd": "Linkerd", "aws": "AWS SDKs",
	"resilience4j": "resilience4j", "polly": "Polly",
	"polly-csharp": "Polly (C# code)", "cenkalti": "cenkalti/backoff (Go code)", "client-go": "client-go's wait.Backoff (Go code)",
	"tenacity": "tenacity (Python code)", "urllib3": "urllib3's Retry (Python code)",
}

// Title is a library's or an exporter's name in words ("Envoy",
// "tenacity (Python code)"); the name itself for one it does not know.
func Title(name string) string {
	if t, ok := titles[name]; ok {
		return t
	}
	return name
}
