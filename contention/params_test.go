package contention

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// TestDefaultSpecIsTheBlogs: N from 10 to 190 in steps of 10, 100 seeds,
// the five strategies, seed 1; and Values gives it back.
func TestDefaultSpecIsTheBlogs(t *testing.T) {
	s := DefaultSpec()
	var ns []int
	for n := 10; n <= 190; n += 10 {
		ns = append(ns, n)
	}
	want := Spec{Ns: ns, Seeds: 100, Strategies: LineNames(), Seed: 1}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("got %+v, want %+v", s, want)
	}
	if got := s.Values().Get("n"); got != "10:190:10" {
		t.Errorf("Values: n=%s, want 10:190:10", got)
	}
	for _, ns := range [][]int{s.Ns, {7}, {10, 20}, {50, 100, 190}, {1, 2, 3}} {
		s.Ns = ns
		back, err := Parse(s.Values(), Limits{})
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Fatalf("Values round trip of %v: %+v, %v", ns, back, err)
		}
	}
}

func TestParse(t *testing.T) {
	b := Limits{MaxClients: 190, MaxSeeds: 100, MaxPoints: 20}
	ok := []struct {
		q    string
		want Spec
	}{
		{"n=50,10,100:120:10&seeds=3&strategies=full_jitter,fixed&seed=9",
			Spec{Ns: []int{10, 50, 100, 110, 120}, Seeds: 3, Strategies: []string{"full_jitter", "fixed"}, Seed: 9}},
		// runs, the old name of seeds, in the URLs of the page's first
		// version.
		{"n=50&runs=3&strategies=fixed", Spec{Ns: []int{50}, Seeds: 3, Strategies: []string{"fixed"}, Seed: 1}},
		{"n=190&strategies=decorrelated", Spec{Ns: []int{190}, Seeds: 100, Strategies: []string{"decorrelated"}, Seed: 1}},
	}
	for _, c := range ok {
		t.Run(c.q, func(t *testing.T) {
			v, _ := url.ParseQuery(c.q)
			s, err := Parse(v, b)
			if err != nil || !reflect.DeepEqual(s, c.want) {
				t.Fatalf("got %+v, %v; want %+v", s, err, c.want)
			}
		})
	}
	bad := []struct {
		q, name, says string
	}{
		{"n=0", "n", "from 1 to 190"},
		{"n=191", "n", "from 1 to 190"},
		{"n=", "n", "at least one"},
		{"n=10:5:1", "n", "from ≤ to"},
		{"n=10:20:0", "n", "step"},
		{"n=10,10", "n", "none twice"},
		{"n=x", "n", "a list of N"},
		{"seeds=0", "seeds", "from 1 to 100"},
		{"seeds=101", "seeds", "from 1 to 100"},
		{"runs=101", "runs", "from 1 to 100"},
		{"runs=3&seeds=3", "runs", "nothing beside seeds"},
		{"strategies=none", "strategies", `"fixed" (min_delay 0)`},
		{"strategies=grpc", "strategies", "not one of"},
		{"strategies=fixed,fixed", "strategies", "twice"},
		{"seed=-1", "seed", "whole number"},
		{"wat=1", "wat", "not a parameter"},
		{"n=10:100:10&strategies=fixed,exponential,full_jitter", "n", "at most 20"},
		{"seeds=1&seeds=2", "seeds", "once"},
		{"runs=1&runs=2", "runs", "once"},
	}
	for _, c := range bad {
		t.Run(c.q, func(t *testing.T) {
			v, _ := url.ParseQuery(c.q)
			_, err := Parse(v, b)
			var pe *scenario.ParamError
			if !errors.As(err, &pe) || pe.Name != c.name || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v; want an error on %s saying %q", err, c.name, c.says)
			}
		})
	}
}

// TestParseWork: past MaxWork, seeds is refused with the most seeds these
// Ns and strategies may have; when even one run is too dear, n is.
func TestParseWork(t *testing.T) {
	b := Limits{MaxWork: 1_000_000}
	for _, c := range []struct {
		q, name, says string
	}{
		{"n=100,200&strategies=fixed&seeds=20", "", ""},
		{"n=100,200&strategies=fixed&seeds=21", "seeds", "from 1 to 20 with these Ns"},
		{"n=100,200&strategies=fixed,decorrelated&seeds=11", "seeds", "from 1 to 10 with these Ns"},
		{"n=100,200&strategies=fixed,decorrelated&runs=11", "runs", "from 1 to 10 with these Ns"},
		{"n=1000&strategies=fixed&seeds=1", "", ""},
		{"n=1001&strategies=fixed&seeds=1", "n", "would cost 1e+06"},
	} {
		t.Run(c.q, func(t *testing.T) {
			v, _ := url.ParseQuery(c.q)
			s, err := Parse(v, b)
			if c.name == "" {
				if err != nil || s.Work() > 1_000_000 {
					t.Fatalf("got %v, work %g; want it allowed", err, s.Work())
				}
				return
			}
			var pe *scenario.ParamError
			if !errors.As(err, &pe) || pe.Name != c.name || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v; want an error on %s saying %q", err, c.name, c.says)
			}
		})
	}
}

// TestCLILimits: the simulator's study and the comparison with it
// (TestMatchesTheOriginal's 1000 runs at N = 50, 100 and 190) fit the
// command's limits, and the dearest study they allow records its runs in
// at most 120 MB, as CLILimits says.
func TestCLILimits(t *testing.T) {
	for _, q := range []string{"", "n=50,100,190&seeds=1000"} {
		v, _ := url.ParseQuery(q)
		if _, err := Parse(v, CLILimits); err != nil {
			t.Errorf("%q: %v", q, err)
		}
	}
	if w := DefaultSpec().Work(); w > 1.3e8 {
		t.Errorf("the simulator's study costs %g, want about 1.2e8 as CLILimits says", w)
	}
	if rec := int64(CLILimits.MaxPoints) * int64(CLILimits.MaxSeeds) * 3 * 8; rec > 120_000_000 {
		t.Errorf("the dearest study records %d bytes of runs, want at most 120 MB", rec)
	}
}
