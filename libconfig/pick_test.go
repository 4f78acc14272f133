package libconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// importFile parses testdata file name as library lib's configuration and
// maps the policy pick names onto lane a.
func importFile(t *testing.T, lib, name, pick string) (query string, warns []Warning, err error) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	l, ok := Lookup(lib)
	if !ok {
		t.Fatalf("no library %s", lib)
	}
	c, w, err := l.Parse(data)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	lane, more, err := ToLanePick(c, pick)
	if err != nil {
		return "", append(w, more...), err
	}
	return Query(lane, "a").Encode(), append(w, more...), nil
}

// warned reports whether one of warns is at path and says want.
func warned(warns []Warning, path, want string) bool {
	return slices.ContainsFunc(warns, func(w Warning) bool { return w.Path == path && strings.Contains(w.Message, want) })
}

// TestNothingDroppedInSilence: a gRPC methodConfig without a retryPolicy,
// an Istio route without retries (Istio's default, 2 retries), and a
// gRPC timeout (the call's deadline, which also ends the attempt in
// flight) are each said; with several routes the import names the one it
// took, and without a pick it takes none.
func TestNothingDroppedInSilence(t *testing.T) {
	tests := []struct {
		name, lib, file, pick string
		query                 string // "" for an *AmbiguousError
		candidates            []string
		warnPath, warn        string
	}{
		{"istio without a pick", "istio", "pick/istio_two_routes.yaml", "", "", []string{"reviews-v2", "reviews-default"}, "", ""},
		{"istio route with retries", "istio", "pick/istio_two_routes.yaml", "reviews-v2",
			"a.max_attempts=6&a.per_try_timeout=1s&a.strategy=envoy", nil, "http[0]", "the lane is this route, reviews-v2, of 2"},
		{"istio route without retries", "istio", "pick/istio_two_routes.yaml", "http[1]",
			"a.deadline=8s&a.max_attempts=3&a.strategy=envoy", nil, "http[1].retries", "Istio's default, 2 retries"},
		{"grpc method without retryPolicy", "grpc", "pick/grpc_no_retry_method.json", "",
			"a.deadline=2s&a.max_attempts=3&a.max_delay=2s&a.min_delay=200ms&a.strategy=grpc_retry", nil, "methodConfig[0]", "no retryPolicy: gRPC does not retry calls to shop.Cart/Checkout"},
		{"grpc timeout", "grpc", "grpc_service_config.json", "",
			"a.deadline=10s&a.grpc_throttle=on&a.strategy=grpc_retry", nil, "methodConfig[0].timeout", "cancels the attempt in flight"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, warns, err := importFile(t, tt.lib, tt.file, tt.pick)
			if tt.query == "" {
				var ae *AmbiguousError
				if !errors.As(err, &ae) || !slices.Equal(ae.Candidates, tt.candidates) || !errors.Is(err, ErrAmbiguous) {
					t.Fatalf("import = %q, %v; want an AmbiguousError listing %q", q, err, tt.candidates)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if q != tt.query {
				t.Errorf("lane %s, want %s", q, tt.query)
			}
			if !warned(warns, tt.warnPath, tt.warn) {
				t.Errorf("no warning at %s saying %q; warnings:\n%v", tt.warnPath, tt.warn, warns)
			}
		})
	}
}

// TestRealFiles: files as users keep them (an Envoy bootstrap, an
// appsettings.json whose retry options sit in nested sections, a Linkerd
// manifest of several documents, a gRPC service config with two retry
// policies) are read whole; where they hold several retry policies the
// import lists them, and a pick takes one by its name.
func TestRealFiles(t *testing.T) {
	tests := []struct {
		lib, file, pick string
		query           string // "" for an *AmbiguousError
		candidates      []string
	}{
		{"envoy", "envoy_bootstrap.yaml", "", "", []string{"orders", "shop/prefix:/catalog"}},
		{"envoy", "envoy_bootstrap.yaml", "orders",
			"a.deadline=5s&a.envoy_max_retries=10&a.envoy_retry_limit=max_retries&a.max_attempts=4&a.max_delay=2s&a.min_delay=100ms&a.per_try_timeout=1s&a.strategy=envoy", nil},
		// The catalog route has no retry_policy: its virtual host's.
		{"envoy", "envoy_bootstrap.yaml", "shop/prefix:/catalog", "a.deadline=15s&a.envoy_retry_limit=max_retries&a.max_attempts=3&a.strategy=envoy", nil},
		{"polly", "polly_appsettings.json", "", "", []string{"Resilience:Orders:Retry", "Resilience:Catalog:Retry"}},
		{"polly", "polly_appsettings.json", "Orders",
			"a.backoff_type=exponential&a.max_attempts=6&a.max_delay=10s&a.min_delay=500ms&a.strategy=polly&a.use_jitter=true", nil},
		{"polly", "polly_appsettings.json", "Resilience:Catalog:Retry", "a.max_attempts=3&a.min_delay=1s&a.strategy=polly", nil},
		{"linkerd", "linkerd_manifest.yaml", "", "", []string{"books-read", "books-write"}},
		{"linkerd", "linkerd_manifest.yaml", "books-read", "a.deadline=5s&a.max_attempts=4&a.min_delay=1ms&a.strategy=fixed", nil},
		{"linkerd", "linkerd_manifest.yaml", "HTTPRoute/books-write", "a.max_attempts=2&a.min_delay=1ms&a.strategy=fixed", nil},
		{"grpc", "grpc_two_policies.json", "", "", []string{"shop.Catalog", "shop.Orders/Place"}},
		{"grpc", "grpc_two_policies.json", "shop.Orders/Cancel",
			"a.deadline=10s&a.factor=3&a.max_attempts=3&a.max_delay=5s&a.min_delay=500ms&a.strategy=grpc_retry", nil},
		{"grpc", "grpc_two_policies.json", "shop.Catalog", "a.deadline=2s&a.max_attempts=5&a.max_delay=500ms&a.min_delay=50ms&a.strategy=grpc_retry", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.pick, func(t *testing.T) {
			q, _, err := importFile(t, tt.lib, tt.file, tt.pick)
			if tt.query == "" {
				var ae *AmbiguousError
				if !errors.As(err, &ae) || !slices.Equal(ae.Candidates, tt.candidates) {
					t.Fatalf("import = %q, %v; want an AmbiguousError listing %q", q, err, tt.candidates)
				}
				for _, c := range tt.candidates {
					if !strings.Contains(err.Error(), c) {
						t.Errorf("the error %q does not name %q", err, c)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if q != tt.query {
				t.Errorf("lane %s, want %s", q, tt.query)
			}
		})
	}
}

// TestPickNamesNone: a pick that names no policy of the file is an error
// that lists them, never a policy taken in its place.
func TestPickNamesNone(t *testing.T) {
	_, _, err := importFile(t, "grpc", "grpc_two_policies.json", "shop.Orders/Get")
	var ae *AmbiguousError
	if !errors.As(err, &ae) || ae.Field.Path != "pick" || !strings.Contains(err.Error(), `"shop.Orders/Get"`) {
		t.Errorf("pick of a method without a retryPolicy = %v, want an AmbiguousError at pick", err)
	}
}

// TestBootstrapAliasBound: a bootstrap whose lists are aliases, 1000
// virtual hosts each of the same 1000 routes in a few KiB, would make the
// walk visit a million routes: the document's own bound refuses it, named.
func TestBootstrapAliasBound(t *testing.T) {
	text := "one: &route {match: {prefix: /}, route: {cluster: a, retry_policy: {num_retries: 1}}}\n" +
		"routes: &r [" + strings.Repeat("*route,", 1000) + "]\n" +
		"two: &host {name: x, routes: *r}\n" +
		"hosts: &h [" + strings.Repeat("*host,", 1000) + "]\n" +
		"route_config:\n  virtual_hosts: *h\n"
	_, _, err := parseEnvoyFile([]byte(text))
	var fe *FieldError
	if !errors.As(err, &fe) || !errors.Is(err, ErrTooLarge) || !strings.Contains(fe.Allowed, fmt.Sprint(MaxNodes)) {
		t.Errorf("parseEnvoyFile = %v, want out of range naming its bound", err)
	}
}

// TestManifestBounds: an error in a manifest's third document names the
// file's line, not the document's; a manifest of more documents than the
// bound is refused with it named.
func TestManifestBounds(t *testing.T) {
	text := "kind: Service\nmetadata:\n  name: a\n---\nkind: Service\nmetadata:\n  name: b\n---\nkind: HTTPRoute\nmetadata:\n  name: c\n  annotations:\n    retry.linkerd.io/limit: many\n"
	_, _, err := parseLinkerdFile([]byte(text))
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Line != 13 {
		t.Errorf("an error in the third document = %v, want one at the file's line 13", err)
	}
	_, _, err = parseLinkerdFile([]byte(strings.Repeat("a: 1\n---\n", maxDocuments+1)))
	if !errors.As(err, &fe) || !errors.Is(err, ErrOutOfRange) || !strings.Contains(fe.Allowed, "at most 100 YAML documents") {
		t.Errorf("%d documents = %v, want the bound named", maxDocuments+1, err)
	}
}
