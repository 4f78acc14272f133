package scenario_test

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// TestViewParamPerView: a many-run row is defined once, and each view that reads
// it gets its own default and largest value; a view that does not read a
// row, or a name that is no row, is not found.
func TestViewParamPerView(t *testing.T) {
	for _, c := range []struct {
		name         string
		view         scenario.View
		def, allowed string
	}{
		{scenario.SeedsParam, scenario.ViewMap, "1", "a whole number from 1 to 1000"},
		{scenario.SeedsParam, scenario.ViewBands, "20", "a whole number from 1 to 100"},
		{scenario.SeedsParam, scenario.ViewContention, "100", "a whole number from 1 to 10000"},
		{scenario.ParallelParam, scenario.ViewMap, "0", "a whole number from 0 to 10000"},
		{scenario.ParallelParam, scenario.ViewBands, "0", "a whole number from 0 to 10000"},
		{scenario.ParallelParam, scenario.ViewContention, "0", "a whole number from 0 to 256"},
		{scenario.SeedsParam, scenario.ViewAdvise, "5", "a whole number from 1 to 20"},
		{scenario.ParallelParam, scenario.ViewAdvise, "0", "a whole number from 0 to 10000"},
	} {
		t.Run(c.name+"/"+c.view.String(), func(t *testing.T) {
			p, ok := scenario.ViewParam(c.name, c.view)
			if !ok || p.Default != c.def || p.Allowed() != c.allowed || p.Scope != scenario.ScopeView {
				t.Fatalf("ViewParam = %+v, %v; want default %s, %s", p, ok, c.def, c.allowed)
			}
			var n int
			if err := p.Set(&n, c.name, p.Default); err != nil {
				t.Errorf("the default %s does not set: %v", p.Default, err)
			}
		})
	}
	if p, ok := scenario.ViewParam("workers", scenario.ViewMap); ok {
		t.Errorf("ViewParam(workers) = %+v: the queue model's workers is no many-run row", p)
	}
	if p, ok := scenario.ViewParam(scenario.SeedsParam, scenario.View(99)); ok {
		t.Errorf("ViewParam(seeds, an unknown view) = %+v", p)
	}
}

// TestViewParallelWording: every view refuses a bad -parallel with one
// wording: the name, the value and the view's range.
func TestViewParallelWording(t *testing.T) {
	for _, view := range []scenario.View{scenario.ViewMap, scenario.ViewBands, scenario.ViewContention, scenario.ViewAdvise} {
		t.Run(view.String(), func(t *testing.T) {
			p := scenario.MustViewParam(scenario.ParallelParam, view)
			var n int
			err := p.Set(&n, "parallel", "-1")
			var pe *scenario.ParamError
			if !errors.As(err, &pe) || pe.Name != "parallel" || pe.Value != "-1" ||
				!strings.HasPrefix(err.Error(), `parallel: "-1" is not allowed (allowed: a whole number from 0 to `) {
				t.Fatalf("Set(-1) = %v", err)
			}
		})
	}
}

// TestUnalias: an old name is read as its new one and remembered, so that
// an error can name it as given; beside its new name it is an error; the
// caller's values are left as they were.
func TestUnalias(t *testing.T) {
	q := url.Values{"runs": {"7"}, "n": {"10"}}
	out, given, err := scenario.Unalias(q, scenario.ViewContention)
	if err != nil || !reflect.DeepEqual(out, url.Values{"seeds": {"7"}, "n": {"10"}}) || given["seeds"] != "runs" {
		t.Fatalf("Unalias = %v, %v, %v", out, given, err)
	}
	if !reflect.DeepEqual(q, url.Values{"runs": {"7"}, "n": {"10"}}) {
		t.Errorf("Unalias changed its argument: %v", q)
	}
	_, _, err = scenario.Unalias(url.Values{"runs": {"7"}, "seeds": {"8"}}, scenario.ViewContention)
	var pe *scenario.ParamError
	if !errors.As(err, &pe) || pe.Name != "runs" || !strings.Contains(pe.Allow, "beside seeds") {
		t.Errorf("runs beside seeds: %v", err)
	}
	// runs is an old name of the contention study's alone.
	out, _, err = scenario.Unalias(url.Values{"runs": {"7"}}, scenario.ViewMap)
	if err != nil || !reflect.DeepEqual(out, url.Values{"runs": {"7"}}) {
		t.Errorf("Unalias for the sweep = %v, %v", out, err)
	}
}
