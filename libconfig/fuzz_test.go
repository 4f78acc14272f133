package libconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
		c, _, err := lib.Parse(data)
		if err != nil {
			return
		}
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
