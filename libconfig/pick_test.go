package libconfig

import (
	"errors"
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
