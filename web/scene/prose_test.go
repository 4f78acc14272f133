package scene

import (
	"slices"
	"testing"
)

func TestProse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []ProsePart
	}{
		{"", nil},
		{"plain words", []ProsePart{{Text: "plain words"}}},
		{"wait min_delay, then a.max_delay.", []ProsePart{{Text: "wait "}, {Text: "min_delay", Code: true}, {Text: ", then "}, {Text: "a.max_delay", Code: true}, {Text: "."}}},
		{"shed_above=100", []ProsePart{{Text: "shed_above", Code: true}, {Text: "=100"}}},
	} {
		if got := ProseOf(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("ProseOf(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
