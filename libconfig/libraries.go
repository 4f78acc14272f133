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
// a model with its Parse and Marshal in a file of its own and a row here.
var libraries = []Library{
	{"grpc", "a gRPC service config (JSON): methodConfig[].retryPolicy, retryThrottling", typed(ParseGRPC)},
	{"envoy", "an Envoy YAML fragment (a route's timeout and retry_policy, a cluster's circuit_breakers), or a bootstrap, route_config or virtual_hosts holding routes", parseEnvoyFile},
	{"istio", "an Istio VirtualService (YAML), whole or its spec: http[].timeout and http[].retries", typed(ParseIstio)},
	{"linkerd", "Linkerd's retry annotations (retry.linkerd.io/…) on a Service or route, or a ServiceProfile's retryBudget (YAML; a manifest of several documents too)", parseLinkerdFile},
	{"aws", "an AWS shared config file (INI): retry_mode and max_attempts per profile", typed(ParseAWS)},
	{"resilience4j", "a Spring Boot application.yml block: resilience4j.retry and resilience4j.circuitbreaker instances", typed(ParseResilience4j)},
	{"polly", "Polly v8 RetryStrategyOptions as JSON (the object, or an appsettings.json holding it in a section)", parsePollyFile},
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
