package kit

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseQuery feeds ParseQuery arbitrary queries: it never panics;
// each error names its value and what is allowed; no name it keeps has
// more than one value, nor is it one an error names; and a query it reads
// without an error is what url.ParseQuery reads. Its cost is one pass
// over the query: the bound on its size is the transport's (the server's
// header limit, a WebSocket message's 64 KiB).
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"", "clients=300&a.strategy=full_jitter&faults=", "&faults=pause%3A10s%3A5s&&tiers=a+b&",
		"clients=300&seed=2&clients=400", "clients=300&;=1", "clients=%zz&seed=1", "%g1=2", "=&=&a",
		"changes=%401s+clients%3D1000000", "a=%", "a=%2", "%=1", "a==b=c",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, errs := ParseQuery(raw)
		named := map[string]bool{}
		for _, e := range errs {
			if e.Name == "" || e.Allow == "" || !strings.Contains(e.Error(), strconv.Quote(e.Value)) {
				t.Errorf("ParseQuery(%q): error %q names no parameter, value or allowed values", raw, e.Error())
			}
			named[e.Name] = true
		}
		for name, vs := range q {
			if len(vs) != 1 {
				t.Errorf("ParseQuery(%q) kept %s with %d values", raw, name, len(vs))
			}
			if named[name] && len(vs) > 0 {
				for _, e := range errs {
					if e.Name == name && e.Allow == "give it once" {
						t.Errorf("ParseQuery(%q) kept %s, which it refused as given twice", raw, name)
					}
				}
			}
		}
		if len(errs) == 0 {
			want, err := url.ParseQuery(raw)
			if err != nil {
				t.Fatalf("ParseQuery(%q) read what url.ParseQuery refuses: %v", raw, err)
			}
			if !reflect.DeepEqual(q, want) {
				t.Errorf("ParseQuery(%q) = %v, url.ParseQuery %v", raw, q, want)
			}
		}
	})
}
