package cli

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/scenario"
)

// TestConfigImport: each testdata configuration prints its lane's flags
// and query, which scenario.Parse reads as the lane libconfig maps it to;
// its warnings go to stderr.
func TestConfigImport(t *testing.T) {
	tests := []struct{ lib, file, stderr string }{
		{"grpc", "grpc_service_config.json", "loadBalancingConfig: not read"},
		{"envoy", "envoy_route.yaml", "retry_policy.retry_host_predicate: not read"},
		{"istio", "istio_virtualservice.yaml", "spec.http[0].route: not read"},
		{"linkerd", "linkerd_httproute.yaml", "Linkerd's retry timing is not a row"},
		{"aws", "aws_config.ini", "[profile prod].retry_mode: adaptive"},
		{"resilience4j", "resilience4j_application.yml", "spring: not read"},
		{"polly", "polly_options.json", "Name: not read"},
	}
	for _, tt := range tests {
		t.Run(tt.lib, func(t *testing.T) {
			path := filepath.Join("libconfig", "testdata", tt.file)
			out, errOut, err := runArgs(t, "config", "import", "-lib", tt.lib, "-lane", "b", path)
			if err != nil {
				t.Fatalf("config import: %v\n%s", err, errOut)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr\n%s\nwant it to hold %q", errOut, tt.stderr)
			}
			flags, query, ok := strings.Cut(strings.TrimSuffix(out, "\n"), "\nquery: ")
			if !ok || !strings.HasPrefix(flags, "flags: -b.") {
				t.Fatalf("output %q: want a flags line and a query line", out)
			}
			// The flags, given to the run command's flag set, and the query,
			// read as a URL's, make the same lane.
			fs, q := scenarioFlagSet("test", &strings.Builder{})
			if err := fs.Parse(strings.Fields(strings.TrimPrefix(flags, "flags: "))); err != nil {
				t.Fatalf("flags %s: %v", flags, err)
			}
			fromFlags, err := scenario.Parse(q)
			if err != nil {
				t.Fatalf("flags %s: %v", flags, err)
			}
			fromQuery := parseQuery(t, query)
			data, _ := os.ReadFile(path)
			lib, _ := libconfig.Lookup(tt.lib)
			c, _, _ := lib.Parse(data)
			want, _, _ := libconfig.ToLane(c)
			if !reflect.DeepEqual(fromFlags.Lanes[1].Params, want) || !reflect.DeepEqual(fromQuery.Lanes[1].Params, want) {
				t.Errorf("lane b from the flags\n%+v\nfrom the query\n%+v\nwant\n%+v", fromFlags.Lanes[1].Params, fromQuery.Lanes[1].Params, want)
			}
		})
	}
}

// TestConfigImportErrors: a configuration error exits with status 2 and
// names the field; a file that cannot be read exits with 1.
func TestConfigImportErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"methodConfig":[{"retryPolicy":{"maxAttemps":4}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ambiguous := filepath.Join(dir, "two.ini")
	if err := os.WriteFile(ambiguous, []byte("[default]\nmax_attempts = 2\n[profile b]\nmax_attempts = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte(strings.Repeat("#", 1<<20)), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown field", []string{"-lib", "grpc", bad}, exitUsage, "methodConfig[0].retryPolicy.maxAttemps: unknown field"},
		{"missing field", []string{"-lib", "grpc", bad}, exitUsage, "methodConfig[0].retryPolicy.initialBackoff: required field missing"},
		{"no lane", []string{"-lib", "aws", ambiguous}, exitUsage, "[profile b]: ambiguous"},
		{"no pick lists the profiles", []string{"-lib", "aws", ambiguous}, exitUsage, "choose one with -pick NAME, one of: default, b"},
		{"a pick that names none", []string{"-lib", "aws", "-pick", "c", ambiguous}, exitUsage, `pick: ambiguous "c"`},
		{"nothing to pick", []string{"-lib", "envoy", "-pick", "x", filepath.Join("libconfig", "testdata", "envoy_route.yaml")}, exitUsage, "nothing to pick"},
		{"unknown library", []string{"-lib", "hystrix", bad}, exitUsage, `-lib "hystrix"`},
		{"no file", []string{"-lib", "grpc"}, exitUsage, "one FILE"},
		{"bad lane", []string{"-lib", "grpc", "-lane", "z", bad}, exitUsage, `-lane "z"`},
		{"missing file", []string{"-lib", "grpc", filepath.Join(dir, "none.json")}, exitFailure, "no such file"},
		{"file too large", []string{"-lib", "envoy", big}, exitUsage, fmt.Sprintf("too large (at most %d bytes, 256 KiB)", libconfig.MaxInput)},
		{"recursive alias", []string{"-lib", "resilience4j", filepath.Join("libconfig", "testdata", "hostile", "recursive_alias.yml")},
			exitUsage, `a.b: recursive alias "*r"`},
		{"alias bomb", []string{"-lib", "resilience4j", filepath.Join("libconfig", "testdata", "hostile", "alias_bomb.yml")},
			exitUsage, fmt.Sprintf("(at most %d nodes, aliases followed) at line 5", libconfig.MaxNodes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runArgs(t, append([]string{"config", "import"}, tt.args...)...)
			if err == nil || ExitCode(err) != tt.code || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("config import %q = %v (exit %d), want exit %d and %q", tt.args, err, ExitCode(err), tt.code, tt.want)
			}
		})
	}
}

// TestConfigImportPick: -pick takes one of several retry policies by its
// name.
func TestConfigImportPick(t *testing.T) {
	dir := t.TempDir()
	two := filepath.Join(dir, "two.ini")
	if err := os.WriteFile(two, []byte("[default]\nmax_attempts = 2\n[profile b]\nmax_attempts = 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ pick, want string }{
		{"b", "a.max_attempts=7"},
		{"[profile b]", "a.max_attempts=7"},
		{"default", "a.max_attempts=2"},
	}
	for _, tt := range tests {
		t.Run(tt.pick, func(t *testing.T) {
			out, errOut, err := runArgs(t, "config", "import", "-lib", "aws", "-pick", tt.pick, two)
			if err != nil {
				t.Fatalf("config import -pick %s: %v\n%s", tt.pick, err, errOut)
			}
			if !strings.Contains(out, tt.want) {
				t.Errorf("output %q, want %q", out, tt.want)
			}
		})
	}
}

// TestConfigExport: a lane imported from a configuration and exported to
// the same library reads back as the same lane; a library that cannot
// express a lane says why, and exits 2 when it was the one asked for.
func TestConfigExport(t *testing.T) {
	out := mustRun(t, "config", "import", "-lib", "polly", filepath.Join("libconfig", "testdata", "polly_options.json"))
	flags, _, _ := strings.Cut(strings.TrimPrefix(out, "flags: "), "\n")
	text := mustRun(t, append([]string{"config", "export", "-lib", "polly"}, strings.Fields(flags)...)...)
	c, _, err := libconfig.ParsePolly([]byte(text))
	if err != nil {
		t.Fatalf("export wrote\n%s\n%v", text, err)
	}
	data, _ := os.ReadFile(filepath.Join("libconfig", "testdata", "polly_options.json"))
	orig, _, _ := libconfig.ParsePolly(data)
	if !reflect.DeepEqual(c, orig) {
		t.Errorf("exported\n%+v\nimported\n%+v", c, orig)
	}

	all, errOut, err := runArgs(t, "config", "export", "-a.strategy", "cenkalti", "-a.max_attempts", "5")
	if err != nil || !strings.Contains(all, "== cenkalti ==\nb := backoff.NewExponentialBackOff()") || strings.Contains(all, "== grpc ==") {
		t.Errorf("export of every library: %v\n%s", err, all)
	}
	if !strings.Contains(errOut, "grpc cannot express this lane: gRPC's back-off is the row grpc_retry; the lane's strategy is cenkalti") {
		t.Errorf("stderr does not say why gRPC cannot express the lane:\n%s", errOut)
	}

	_, _, err = runArgs(t, "config", "export", "-lib", "istio", "-a.strategy", "envoy", "-a.max_delay", "1s")
	var ce *libconfig.CannotExpress
	if !errors.As(err, &ce) || ExitCode(err) != exitUsage || !strings.Contains(err.Error(), "10 × that") {
		t.Errorf("export of a cap Istio cannot set = %v (exit %d)", err, ExitCode(err))
	}
	_, _, err = runArgs(t, "config", "export", "-a.factor", "20")
	if err == nil || ExitCode(err) != exitUsage || !strings.Contains(err.Error(), "a.factor") {
		t.Errorf("export with a bad lane flag = %v", err)
	}
}

// parseQuery reads a query line as the playground reads its URL.
func parseQuery(t *testing.T, query string) scenario.Params {
	t.Helper()
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Parse(q)
	if err != nil {
		t.Fatalf("query %s: %v", query, err)
	}
	return p
}
