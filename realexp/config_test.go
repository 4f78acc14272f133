package realexp

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/scenario"
)

// TestConfigsReadEveryRow: every row of the scopes that the server or the
// clients read goes into its config, from the lane asked for, comes back
// out of it for Validate, and a bad value of it is reported under the row's
// name. A new row that ServerConfigOf or ClientConfigOf leave out fails here.
func TestConfigsReadEveryRow(t *testing.T) {
	const lane = 1
	for _, row := range scenario.Table {
		if row.SimOnly {
			continue // the real experiment does not implement it
		}
		var back func(p *scenario.Params) (scenario.Params, error)
		switch row.Scope {
		case scenario.ScopeServer:
			back = func(p *scenario.Params) (scenario.Params, error) {
				c := ServerConfigOf(p, lane)
				return c.params(), c.Validate()
			}
		case scenario.ScopeClients, scenario.ScopeStrategy, scenario.ScopeLimiter:
			back = func(p *scenario.Params) (scenario.Params, error) {
				c := ClientConfigOf(p, lane)
				c.Addr = "127.0.0.1:8070"
				return c.params(), c.Validate()
			}
		default:
			continue
		}
		t.Run(row.Name, func(t *testing.T) {
			p := scenariotest.CurveDefaults()
			var bad func()
			switch v := row.Field(&p, lane).(type) {
			case *int:
				*v = int(cmpOther(float64(*v), row.Min, row.Max))
				bad = func() { *v = int(row.Min) - 1 }
			case *float64:
				*v = cmpOther(*v, row.Min, row.Max)
				bad = func() { *v = math.NaN() }
			case *time.Duration:
				*v = time.Duration(cmpOther(float64(*v), row.Min, row.Max))
				bad = func() { *v = time.Duration(row.Min) - 1 }
			case *string:
				if i := slices.IndexFunc(row.Choices, func(c string) bool { return c != *v }); i >= 0 {
					*v = row.Choices[i]
				}
				bad = func() { *v = "bogus" }
			case *bool:
				*v = !*v
			default:
				t.Fatalf("a field of type %T", v)
			}
			// The delays stay in order whatever the row set.
			p.Lanes[lane].MinDelay, p.Lanes[lane].MaxDelay = min(p.Lanes[lane].MinDelay, p.Lanes[lane].MaxDelay),
				max(p.Lanes[lane].MinDelay, p.Lanes[lane].MaxDelay)
			want := row.Value(&p, lane)
			if other := row.Value(&p, 0); row.Lane && other == want {
				t.Fatalf("lane a's value %s is the one set on lane b: the test cannot tell them apart", other)
			}
			got, err := back(&p)
			if err != nil {
				t.Fatalf("Validate of a good value %s: %v", want, err)
			}
			if v := row.Value(&got, 0); v != want {
				t.Errorf("%s = %s went through the config as %s", row.Name, want, v)
			}
			if bad == nil {
				return
			}
			bad()
			_, err = back(&p)
			if !slices.ContainsFunc(scenario.Errors(err), func(pe *scenario.ParamError) bool {
				return pe.Name == row.Name && pe.Value == row.Value(&p, lane)
			}) {
				t.Errorf("Validate of %s = %s: %v, want an error naming both", row.Name, row.Value(&p, lane), err)
			}
		})
	}
}

// cmpOther returns lo or hi, whichever v is not.
func cmpOther(v, lo, hi float64) float64 {
	if v == hi {
		return lo
	}
	return hi
}
