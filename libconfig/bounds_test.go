package libconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// yamlLibraries are the libraries whose parser reads YAML, aliases and all.
var yamlLibraries = []string{"envoy", "istio", "linkerd", "resilience4j"}

// hostile reads a file of testdata/hostile.
func hostile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hostile", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// allocated is the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// nested is a document whose value sits depth mappings deep.
func nested(depth int) []byte {
	return []byte(strings.Repeat("{a: ", depth) + "1" + strings.Repeat("}", depth) + "\n")
}

// TestYAMLBounds: an alias that refers to the node holding it, an alias
// bomb (few bytes, 10⁸ nodes once its aliases are followed) and a
// document nested deeper than MaxDepth are each refused by every YAML
// library with a FieldError naming the line and the bound, and reading
// them allocates little: the bound is checked before any walk follows the
// aliases.
func TestYAMLBounds(t *testing.T) {
	tests := []struct {
		name string
		text []byte
		kind error
		line int
		want string // in the message
	}{
		{"recursive alias", hostile(t, "recursive_alias.yml"), ErrRecursive, 2, `"*r"`},
		{"recursive alias in a list", hostile(t, "recursive_list.yml"), ErrRecursive, 3, `"*r"`},
		{"recursive merge key", hostile(t, "recursive_merge.yml"), ErrRecursive, 2, `"*r"`},
		{"alias bomb", hostile(t, "alias_bomb.yml"), ErrTooLarge, 0, fmt.Sprintf("at most %d nodes", MaxNodes)},
		{"alias bomb of lists", hostile(t, "alias_bomb_list.yml"), ErrTooLarge, 0, fmt.Sprintf("at most %d nodes", MaxNodes)},
		{"nested too deep", nested(MaxDepth + 1), ErrTooLarge, 1, fmt.Sprintf("at most %d levels", MaxDepth)},
	}
	for _, tt := range tests {
		for _, name := range yamlLibraries {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				lib, _ := Lookup(name)
				var err error
				bytes := allocated(func() { _, _, err = lib.Parse(tt.text) })
				var fe *FieldError
				if !errors.As(err, &fe) || !errors.Is(err, tt.kind) {
					t.Fatalf("Parse = %v, want a FieldError of kind %v", err, tt.kind)
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("message %q does not say %q", err, tt.want)
				}
				if tt.line > 0 && fe.Line != tt.line || fe.Line == 0 {
					t.Errorf("error at line %d, want %d", fe.Line, tt.line)
				}
				if bytes > 8<<20 {
					t.Errorf("Parse allocated %d bytes, want at most 8 MiB", bytes)
				}
			})
		}
	}
}

// TestYAMLWithinBounds: a document at the bounds is read; aliases that
// stay within them are followed as before.
func TestYAMLWithinBounds(t *testing.T) {
	if _, err := document(nested(MaxDepth), false); err != nil {
		t.Errorf("nested %d deep: %v", MaxDepth, err)
	}
	// Ten scalars under three levels of ten aliases: about 10⁴ nodes.
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	if _, err := document([]byte(b.String()), false); err != nil {
		t.Errorf("10⁴ nodes through aliases: %v", err)
	}
}

// TestInputTooLarge: text past MaxInput is ErrTooLarge naming the limit,
// in every library, not a syntax error.
func TestInputTooLarge(t *testing.T) {
	// The second is a manifest of documents each well within the bound,
	// which the whole file passes.
	doc := "kind: Service\nmetadata: {name: " + strings.Repeat("x", 3000) + "}\n---\n"
	for _, text := range [][]byte{[]byte(strings.Repeat("#", MaxInput+1)), []byte(strings.Repeat(doc, MaxInput/len(doc)+1))} {
		for _, lib := range Libraries() {
			t.Run(lib.Name, func(t *testing.T) {
				_, _, err := lib.Parse(text)
				if !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), fmt.Sprintf("at most %d bytes", MaxInput)) {
					t.Errorf("Parse of %d bytes = %v, want ErrTooLarge naming %d bytes", len(text), err, MaxInput)
				}
			})
		}
	}
}

// TestNotesBounded: a file of thousands of bad lines or unknown fields is
// MaxNotes errors and warnings, and one more of each saying how many were
// left out, in every syntax: what a reader keeps and what the command or
// the page prints stays small however long the list would be.
func TestNotesBounded(t *testing.T) {
	var yml, ini, warned strings.Builder
	ini.WriteString("[default]\n")
	warned.WriteString("[default]\n")
	for i := range 20000 {
		fmt.Fprintf(&yml, "k%d: 1\n", i)
		ini.WriteString("x\n")
		fmt.Fprintf(&warned, "k%d = 1\n", i)
	}
	tests := []struct {
		name, lib, text string
		errs, warns     int // the notes that would be, were they all listed
	}{
		{"YAML unknown fields", "envoy", yml.String(), 20000, 0},
		{"JSON unknown and repeated fields", "polly", `{"a": 1` + strings.Repeat(`, "a": 1`, 19999) + `}`, 2, 0},
		{"INI bad lines", "aws", ini.String(), 20000, 0},
		{"INI other keys", "aws", warned.String(), 0, 20000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib, _ := Lookup(tt.lib)
			_, warns, err := lib.Parse([]byte(tt.text))
			var errs []error
			if err != nil {
				errs = err.(interface{ Unwrap() []error }).Unwrap()
			}
			for _, c := range []struct {
				what       string
				got, would int
				last       string
			}{{"errors", len(errs), tt.errs, fmt.Sprint(errs[max(len(errs)-1, 0):])}, {"warnings", len(warns), tt.warns, fmt.Sprint(warns[max(len(warns)-1, 0):])}} {
				want := min(c.would, MaxNotes+1)
				if c.got != want {
					t.Errorf("%d %s, want %d", c.got, c.what, want)
				}
				if c.would > MaxNotes && !strings.Contains(c.last, fmt.Sprintf("%d more %s", c.would-MaxNotes, c.what)) {
					t.Errorf("the last of the %s is %s: want it to say %d more", c.what, c.last, c.would-MaxNotes)
				}
			}
		})
	}
}

// TestR4jInheritanceBounded: resilience4j's instances each read the
// configs they inherit, an expansion like an alias's: 2 000 instances of
// a default config of 2 000 fields, written out or merged in from an
// anchor, would read 4 000 000 fields. Past MaxNodes read it is
// ErrTooLarge naming the instance and the bound, and what reading it
// allocates stays small.
func TestR4jInheritanceBounded(t *testing.T) {
	fieldsOf := func(indent string) string {
		var b strings.Builder
		for i := range 2000 {
			fmt.Fprintf(&b, "%sk%d: 1\n", indent, i)
		}
		return b.String()
	}
	var instances strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&instances, "      i%d: {}\n", i)
	}
	for _, tt := range []struct{ name, text string }{
		{"written out", "resilience4j:\n  retry:\n    configs:\n      default:\n" + fieldsOf("        ") + "    instances:\n" + instances.String()},
		{"merged in", "shared: &big\n" + fieldsOf("  ") + "resilience4j:\n  retry:\n    configs:\n      default:\n        <<: *big\n    instances:\n" + instances.String()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			bytes := allocated(func() { _, _, err = ParseResilience4j([]byte(tt.text)) })
			var fe *FieldError
			if !errors.As(err, &fe) || !errors.Is(err, ErrTooLarge) || !strings.HasPrefix(fe.Path, "resilience4j.retry.instances.i") || !strings.Contains(fe.Allowed, fmt.Sprint(MaxNodes)) {
				t.Errorf("error %v: want an instance too large, naming %d", err, MaxNodes)
			}
			if bytes > 32<<20 {
				t.Errorf("Parse allocated %d bytes, want at most 32 MiB", bytes)
			}
		})
	}
}
