package kit

import (
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestParseQuery: a pair ParseQuery cannot read, and a name given twice,
// are errors that name them; the rest is read as url.ParseQuery reads it.
func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      url.Values
		errs      []string // each error's name and value, name=value
	}{
		{"empty", "", url.Values{}, nil},
		{"pairs", "clients=300&a.strategy=full_jitter&faults=", url.Values{"clients": {"300"}, "a.strategy": {"full_jitter"}, "faults": {""}}, nil},
		{"escapes and empty pairs", "&faults=pause%3A10s%3A5s&&tiers=a+b&", url.Values{"faults": {"pause:10s:5s"}, "tiers": {"a b"}}, nil},
		{"a name twice", "clients=300&seed=2&clients=400", url.Values{"seed": {"2"}}, []string{`clients="300,400"`}},
		{"a name three times, another twice", "x=1&y=2&x=3&y=2&x=", url.Values{}, []string{`x="1,3,"`, `y="2,2"`}},
		{"a semicolon alone", "clients=300&;=1", url.Values{"clients": {"300"}}, []string{`query=";=1"`}},
		{"a semicolon in a value", "clients=1;2&seed=3", url.Values{"seed": {"3"}}, []string{`clients="clients=1;2"`}},
		{"pairs joined by a semicolon", "a.strategy=fixed;b.strategy=fixed", url.Values{}, []string{`a.strategy="a.strategy=fixed;b.strategy=fixed"`}},
		{"a bad escape", "clients=%zz&seed=1", url.Values{"seed": {"1"}}, []string{`clients="clients=%zz"`}},
		{"a bad escape in a name", "%g1=2", url.Values{}, []string{`query="%g1=2"`}},
		{"no name", "=2&seed=1&=", url.Values{"seed": {"1"}}, []string{`query="=2"`, `query="="`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, errs := ParseQuery(tc.raw)
			if !reflect.DeepEqual(q, tc.want) {
				t.Errorf("values %v, want %v", q, tc.want)
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Name+"="+`"`+e.Value+`"`)
				if !strings.Contains(e.Error(), strconv.Quote(e.Value)) || e.Allow == "" {
					t.Errorf("error %q does not name the value %q and what is allowed", e.Error(), e.Value)
				}
			}
			if !reflect.DeepEqual(got, tc.errs) {
				t.Errorf("errors %q, want %q", got, tc.errs)
			}
		})
	}
}
