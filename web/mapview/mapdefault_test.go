package mapview

import (
	"context"
	"math"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/sweep"
	"github.com/backofflab/backofflab/web/kit"
)

// isNice reports whether step is 1, 2 or 5 times a power of ten.
func isNice(step float64) bool {
	p := math.Pow(10, math.Floor(math.Log10(step)+1e-9))
	m := step / p
	for _, n := range []float64{1, 2, 5} {
		if math.Abs(m-n) < 1e-6 {
			return true
		}
	}
	return false
}

// checkRoundAxis fails unless the values of the axis are evenly spaced
// by a round step (isNice) and each a multiple of it.
func checkRoundAxis(t *testing.T, a sweep.Axis) {
	t.Helper()
	vs := a.Quantities()
	if len(vs) < 2 {
		t.Fatalf("axis %s has values %v", a.Name, vs)
	}
	step := vs[1] - vs[0]
	if !isNice(step) {
		t.Errorf("axis %s steps by %g: not 1, 2 or 5 times a power of ten (values %v)", a.Name, step, a.Values())
	}
	for i, v := range vs {
		if k := v / step; math.Abs(k-math.Round(k)) > 1e-6 {
			t.Errorf("axis %s's value %s is not a multiple of its step %g", a.Name, a.Values()[i], step)
		}
		if i > 0 && math.Abs(v-vs[i-1]-step) > 1e-6*step {
			t.Errorf("axis %s is not evenly spaced: %v", a.Name, a.Values())
		}
	}
}

// TestDefaultMap: a link without axes opens its scenario's default map,
// outage_for × clients where the scenario reads both, in round steps,
// whose estimated cost the kit's check accepts (kit.TooDear with the
// server's limits); a link with axes keeps them.
func TestDefaultMap(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the default maps' corners: seconds of CPU")
	}
	lim := kit.Limits{}.WithDefaults()
	for _, tc := range []struct {
		name, query string
		x, y        string
	}{
		{"the landing view", "", "outage_for", "clients"},
		{"the links' scenario", "lanes=3&c.strategy=fixed&c.min_delay=250ms&b.factor=3&clients=300&duration=30s&outage_at=5s&outage_for=5s", "outage_for", "clients"},
		{"001's curve server", "server_model=curve&clients=100", "outage_for", "clients"},
		{"one lane", "lanes=1&a.strategy=exponential", "outage_for", "clients"},
		{"no outage", "outage=none", "clients", "think"},
		{"the most clients, an hour", "clients=20000&duration=1h", "outage_for", "clients"},
		{"a speed and a sim source", "speed=4&b.source=sim", "outage_for", "clients"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			v := newMapView(q, nil, lim)
			if !v.Data.Valid || len(v.General) > 0 {
				t.Fatalf("no default map: valid %v, errors %v", v.Data.Valid, v.General)
			}
			mq, _ := url.ParseQuery(v.Data.Query)
			spec, errs := decodeMap(mq, lim)
			if len(errs) > 0 {
				t.Fatalf("the default map's query is refused: %v", errs)
			}
			if spec.X.Name != tc.x || spec.Y.Name != tc.y {
				t.Errorf("the default map is %s × %s, want %s × %s", spec.X.Name, spec.Y.Name, tc.x, tc.y)
			}
			checkRoundAxis(t, spec.X)
			if spec.Y.Name != "" {
				checkRoundAxis(t, spec.Y)
			}
			est, err := sweep.EstimateCost(context.Background(), spec, kit.PilotCPU, nil)
			if err != nil {
				t.Fatal(err)
			}
			if msg := kit.TooDear(est.Total(), est.Whole, lim, "the default map", ""); msg != "" {
				t.Errorf("the kit refuses the default map: %s", msg)
			}
			t.Logf("%d cells, x %v, y %v: about %v of CPU (whole: %v)", spec.Cells(), spec.X.Values(), spec.Y.Values(),
				est.Total().Round(time.Millisecond), est.Whole)
		})
	}
	t.Run("a link with axes keeps them", func(t *testing.T) {
		q, _ := url.ParseQuery("x=b.factor&x_from=1&x_to=3&x_steps=5")
		v := newMapView(q, nil, lim)
		mq, _ := url.ParseQuery(v.Data.Query)
		if mq.Get("x") != "b.factor" || mq.Has("y") || v.Data.Cells != 5 {
			t.Errorf("the map of x=b.factor is %s", v.Data.Query)
		}
	})
}

// TestRoundRange: the form's ranges step by 1, 2 or 5 times a power of
// ten, from a multiple of the step, within the parameter's range.
func TestRoundRange(t *testing.T) {
	row := func(name string) scenario.Param {
		p, _, ok := scenario.Lookup(name)
		if !ok {
			t.Fatalf("no parameter %s", name)
		}
		return p
	}
	s := func(d time.Duration) float64 { return float64(d) }
	for _, tc := range []struct {
		param    string
		lo, hi   float64
		target   int
		from, to string
		steps    int
	}{
		{"outage_for", 0, s(50 * time.Second), 10, "5s", "50s", 10},
		{"outage_for", s(3750 * time.Millisecond), s(time.Minute), 16, "5s", "1m0s", 12},
		{"clients", 0, 2000, 8, "200", "2000", 10},
		{"clients", 250, 4000, 16, "400", "4000", 19},
		{"b.factor", 0.5, 8, 16, "1", "8", 15},
		{"b.jitter", 0.025, 0.4, 16, "0.04", "0.4", 19},
		{"b.min_delay", s(25 * time.Millisecond), s(400 * time.Millisecond), 16, "40ms", "400ms", 19},
	} {
		t.Run(tc.param+" "+strconv.Itoa(tc.target), func(t *testing.T) {
			r, ok := roundRange(row(tc.param), tc.lo, tc.hi, tc.target)
			if !ok {
				t.Fatal("no range")
			}
			if r.From != tc.from || r.To != tc.to || r.Steps != strconv.Itoa(tc.steps) || r.Scale != sweep.ScaleLinear {
				t.Errorf("roundRange = %+v, want %s to %s in %d linear steps", r, tc.from, tc.to, tc.steps)
			}
			n, _ := strconv.Atoi(r.Steps)
			ax := sweep.Axis{Name: tc.param, From: r.From, To: r.To, Steps: n, Scale: r.Scale}
			checkRoundAxis(t, ax)
		})
	}
}
