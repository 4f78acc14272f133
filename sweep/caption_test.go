package sweep

import (
	"net/url"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// TestCaptions: every chart of a map has its caption, naming its lane or
// its two lanes, the axes with their ranges, the seeds, and the scenario
// without the axes' own parameters.
func TestCaptions(t *testing.T) {
	q, err := url.ParseQuery("lanes=3&b.strategy=fixed&c.strategy=exponential&clients=300&x=outage_for&x_from=2s&x_to=10s&x_steps=3&y=think&y_from=1s&y_to=3s&y_steps=2&seeds=2")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSpec(q, CLILimits)
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenario.Parse(s.Base)
	if err != nil {
		t.Fatal(err)
	}
	got := Captions(s, &p)
	if len(got) != 3+3*2 {
		t.Errorf("%d captions, want one per lane and per ordered pair, 9: %v", len(got), got)
	}
	for _, tc := range []struct {
		id   string
		want []string
	}{
		{"a", []string{"backofflab phase map · lane a: fixed interval (fixed) · x: outage_for 2s → 10s (3 steps, linear)"}},
		{"b", []string{"lane b: fixed interval (fixed)"}},
		{"c", []string{"lane c: exponential backoff (exponential)"}},
		{"a/b", []string{"lane a (fixed interval (fixed)) vs lane b (fixed interval (fixed))"}},
		{"c/a", []string{"lane c (exponential backoff (exponential)) vs lane a (fixed interval (fixed))"}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			c, ok := got[tc.id]
			if !ok {
				t.Fatalf("no caption for %s", tc.id)
			}
			for _, w := range append(tc.want, "y: think 1s → 3s (2 steps", "2 seeds per cell", "b.strategy=fixed", "clients=300", "lanes=3") {
				if !strings.Contains(c, w) {
					t.Errorf("%q lacks %q", c, w)
				}
			}
			for _, axis := range []string{"outage_for=", "think="} {
				if strings.Contains(c, axis) {
					t.Errorf("%q names the axis's parameter %s", c, axis)
				}
			}
		})
	}
}
