// Package libconfig reads and writes real retry configurations in each
// library's own syntax: a gRPC service config, an Envoy route and cluster
// fragment, an Istio VirtualService, Linkerd's retry annotations and
// ServiceProfile budget, an AWS shared config profile, a resilience4j
// application.yml block and Polly's RetryStrategyOptions as JSON.
//
// Each library has a typed model whose fields, units, defaults and ranges
// are those the library documents (each field's doc comment names them,
// and each model its source and version), a parser from the library's
// syntax into the model and a writer back (Marshal). Parsing is strict:
// an unknown field, a value of the wrong type, a value outside the
// library's range and a setting the model cannot represent are each a
// FieldError that names the field's path in the library's own names
// (methodConfig[0].retryPolicy.maxAttemps: unknown field), the value and
// what the library allows; a field the library has that does not bear on
// retries is read and reported as a Warning, never dropped in silence.
// Durations are read in each library's own format: google.protobuf.Duration
// strings ("0.1s") for gRPC and Envoy, Go's ("250ms") for Istio and
// Linkerd's ttl, Spring's ("500ms", "PT0.5S") for resilience4j, .NET's
// TimeSpan ("00:00:02") for Polly.
//
// YAML is read into go.yaml.in/yaml/v3 nodes and walked by hand, field by
// field, rather than unmarshalled into the projects' own Go API types
// (go-control-plane's RetryPolicy and CircuitBreakers, istio.io/api's
// HTTPRetry through sigs.k8s.io/yaml and protojson). Those give the exact
// field names and Validate(), but they cover two of the seven libraries
// and are heavy: with the config command, backofflab builds to 15.8 MB
// against 14.8 MB without it (yaml.v3 and this package: +1.0 MB); reading
// the three types through protojson as well makes it 26.3 MB (+10.5 MB
// more). (go build, Go 1.26, linux/amd64.) The walk also gives every error
// its path in the library's names and its line, which protojson's errors
// do not.
package libconfig
