package libconfig

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzParse feeds every library's parser arbitrary text: none may panic,
// and a configuration it accepts must write back as text it reads as the
// same configuration (for a file of several, the same ones in the same
// order: their names follow where Marshal puts them). The seeds are testdata's files, given to every
// library.
func FuzzParse(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		if st, err := os.Stat(name); err != nil || st.IsDir() {
			continue // testdata/fuzz, when the fuzzer has written a failure there
		}
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for i := range libraries {
			f.Add(uint8(i), data)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		lib := libraries[int(which)%len(libraries)]
		if c, _, err := lib.Parse(data); err == nil {
			checkRoundTrip(t, lib, data, c)
		}
	})
}

// configsOf is c's configurations: a Found's items', or c.
func configsOf(c Config) []Config {
	if f, ok := c.(Found); ok {
		out := make([]Config, len(f.Items))
		for i, it := range f.Items {
			out[i] = it.Config
		}
		return out
	}
	return []Config{c}
}

// FuzzYAML feeds the YAML libraries' parsers (Envoy, Istio, Linkerd,
// resilience4j) arbitrary text, seeded with their testdata and the hostile
// files (a recursive alias, alias bombs, control bytes, a duration past
// time.Duration): see checkParse for what must hold.
func FuzzYAML(f *testing.F) {
	fuzzSyntax(f, "yaml", yamlLibraries, ".yaml", ".yml")
}

// FuzzJSON is FuzzYAML for the JSON libraries (gRPC, Polly).
func FuzzJSON(f *testing.F) {
	fuzzSyntax(f, "json", []string{"grpc", "polly"}, ".json")
}

// FuzzINI is FuzzYAML for the INI library (AWS).
func FuzzINI(f *testing.F) {
	fuzzSyntax(f, "ini", []string{"aws"}, ".ini")
}

// fuzzSyntax fuzzes the parsers of libs, which read syntax, seeded with
// every file of testdata and testdata/hostile that ends with one of exts.
func fuzzSyntax(f *testing.F, syntax string, libs []string, exts ...string) {
	f.Helper()
	for _, dir := range []string{"testdata", filepath.Join("testdata", "hostile")} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			f.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() || !slices.ContainsFunc(exts, func(ext string) bool { return strings.HasSuffix(e.Name(), ext) }) {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				f.Fatal(err)
			}
			for i := range libs {
				f.Add(uint8(i), data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		lib, _ := Lookup(libs[int(which)%len(libs)])
		checkParse(t, lib, syntax, data)
	})
}

// checkParse parses data as lib's and checks what must hold for any text:
// no panic; an error is FieldErrors (and at most one note of how many more
// there were), at most MaxNotes+1 of them, as are the warnings, every one
// of them printable; a YAML or JSON document that document takes, which
// the parsers then walk, is within MaxNodes and MaxDepth, counted here
// apart from bound; and a configuration read writes back as text read as
// the same configuration.
func checkParse(t *testing.T, lib Library, syntax string, data []byte) {
	t.Helper()
	c, warns, err := lib.Parse(data)
	if len(warns) > MaxNotes+1 {
		t.Errorf("%s: %d warnings", lib.Name, len(warns))
	}
	for _, w := range warns {
		checkPrintable(t, "warning", w.String())
	}
	if err != nil {
		checkPrintable(t, "error", err.Error())
		errs := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			errs = j.Unwrap()
		}
		if len(errs) > MaxNotes+1 {
			t.Errorf("%s: %d errors", lib.Name, len(errs))
		}
		for i, e := range errs {
			var fe *FieldError
			if !errors.As(e, &fe) && !(i == MaxNotes && strings.Contains(e.Error(), "more errors")) {
				t.Errorf("%s: error %d, %q, is not a FieldError", lib.Name, i, e)
			}
		}
	}
	if syntax != "ini" {
		if top, err := document(data, syntax == "json"); err == nil {
			if n, depth := expanded(top, 0, MaxNodes+1); n > MaxNodes || depth > MaxDepth {
				t.Errorf("%s: took a document of %d nodes or more, %d deep or more, aliases followed", lib.Name, n, depth)
			}
		}
	}
	if err == nil {
		checkRoundTrip(t, lib, data, c)
	}
}

// checkRoundTrip checks that c, which lib parsed from data, writes back as
// text lib reads as the same configurations, in the same order.
func checkRoundTrip(t *testing.T, lib Library, data []byte, c Config) {
	t.Helper()
	text, err := c.Marshal()
	if err != nil {
		t.Fatalf("%s: Marshal(%#v): %v", lib.Name, c, err)
	}
	back, _, err := lib.Parse(text)
	if err != nil {
		t.Fatalf("%s: %q parsed, but what Marshal wrote does not:\n%s\n%v", lib.Name, data, text, err)
	}
	if !reflect.DeepEqual(configsOf(back), configsOf(c)) {
		t.Fatalf("%s: %q parsed as\n%#v\nwritten as\n%s\nread back as\n%#v", lib.Name, data, c, text, back)
	}
}

// expanded counts the nodes under n with its aliases followed, up to
// limit, and the depth of its collections (up to MaxDepth+1): the
// bounds' own count, without their code.
func expanded(n *yaml.Node, depth, limit int) (nodes, deepest int) {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || limit <= 0 {
		return 0, depth
	}
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		depth++
	}
	nodes, deepest = 1, depth
	if depth > MaxDepth {
		return nodes, deepest
	}
	for _, c := range n.Content {
		k, d := expanded(c, depth, limit-nodes)
		nodes, deepest = nodes+k, max(deepest, d)
		if nodes >= limit {
			break
		}
	}
	return nodes, deepest
}
