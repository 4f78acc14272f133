package adviseview

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"backofflab/advise"
	"backofflab/budget"
	"backofflab/web/internal/webtest"
	"backofflab/web/kit"
)

func TestMain(m *testing.M) { webtest.Main(m) }

var get = webtest.Get

// adviseServer serves the view (Mount) on a kit of its own, with its
// live context in the test's hands.
func adviseServer(t *testing.T, lim kit.Limits) (*httptest.Server, *kit.Kit, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	k := kit.New(ctx, nil, lim, budget.NewPool(1<<30))
	mux := http.NewServeMux()
	Mount(mux, k)
	srv := webtest.Serve(t, mux, cancel, k.Wait)
	return srv, k, cancel
}

// TestDecodeAdvise: a request's bad value is refused naming the
// parameter, the value and what is allowed, whichever row it is (the
// advice's own, the scenario's, the server's bounds, the query's
// syntax); a good one reads back as its canonical query.
func TestDecodeAdvise(t *testing.T) {
	lim := kit.Limits{MaxClients: 5000}.WithDefaults()
	for _, tc := range []struct {
		name, query string
		want        []string // each error's text, in part
	}{
		{"defaults", "", nil},
		{"seeds too many", "seeds=500", []string{`seeds: "500" is not allowed (allowed: a whole number from 1 to 20)`}},
		{"seeds not a number", "seeds=five", []string{`seeds: "five"`}},
		{"library unknown", "library=retrofit", []string{`library: "retrofit" is not allowed`}},
		{"recover_within not a duration", "recover_within=soon", []string{`recover_within: "soon" is not allowed`}},
		{"attempts below one", "attempts_per_request=0.5", []string{`attempts_per_request: "0.5" is not allowed (allowed: a number from 1 to 1000)`}},
		{"clients past the server's bound", "clients=9000", []string{`clients: "9000" is not allowed (allowed: a whole number from 1 to 5000 on this server)`}},
		{"clients at the server's bound", "clients=5000", nil},
		{"no outage", "outage=none", []string{`outage: "none" is not allowed`}},
		{"a lane the advice fills", "b.factor=3", []string{`b.factor: "3" is not allowed (allowed: lane a only`}},
		{"think not a duration", "think=10", []string{`think: "10" is not allowed`}},
		{"a name given twice", "clients=10&clients=20", []string{`clients: "10,20" is not allowed (allowed: give it once)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _, errs := decodeAdvise(tc.query, lim)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if len(tc.want) == 0 {
				if len(errs) > 0 {
					t.Fatalf("errors %q, want none", got)
				}
				again, _, errs := decodeAdvise(req.Query().Encode(), lim)
				if len(errs) > 0 || again.Query().Encode() != req.Query().Encode() {
					t.Errorf("the canonical query %q reads back as %q (%v)", req.Query().Encode(), again.Query().Encode(), errs)
				}
				return
			}
			all := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("errors %q lack %q", all, w)
				}
			}
		})
	}
}

// TestAdvisePage: the page's form has one control per row the advice
// reads, each labelled in words with its name; a bad URL's value is
// named beside its control and runs nothing; the switches hide what
// their value does not read.
func TestAdvisePage(t *testing.T) {
	srv, _, _ := adviseServer(t, kit.Limits{})
	t.Run("form", func(t *testing.T) {
		resp, body := get(t, srv.URL+"/advise", nil)
		page := string(body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %.300s", resp.Status, page)
		}
		names := []string{}
		for _, g := range formGroups {
			names = append(names, g.names...)
		}
		for _, p := range advise.Table {
			names = append(names, p.Name)
		}
		for _, n := range names {
			if c := strings.Count(page, `data-param="`+n+`"`); c != 1 {
				t.Errorf("%d controls of %s, want 1", c, n)
			}
			if !strings.Contains(page, `<code class="name">`+n+`</code>`) {
				t.Errorf("%s's label does not name it as code", n)
			}
		}
		// The landing view's system: a queue server, so the curve's rows
		// are hidden.
		if !strings.Contains(page, `data-ctl="server_limit" hidden`) || strings.Contains(page, `data-ctl="workers" hidden`) {
			t.Errorf("the queue model's page hides the wrong rows")
		}
		if strings.Contains(page, `value="none"`) {
			t.Errorf("the outage menu offers none: the advice is of an outage")
		}
		if !strings.Contains(page, `"run":false`) {
			t.Errorf("a bare /advise runs a search")
		}
	})
	t.Run("bad value", func(t *testing.T) {
		_, body := get(t, srv.URL+"/advise?seeds=500", nil)
		page := string(body)
		want := `data-error-for="seeds" role="alert">seeds: &#34;500&#34; is not allowed (allowed: a whole number from 1 to 20)`
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
		if !strings.Contains(page, `"run":false`) || !strings.Contains(page, "not run: fix the values above") {
			t.Errorf("a bad URL's page runs")
		}
	})
	t.Run("curve", func(t *testing.T) {
		_, body := get(t, srv.URL+"/advise?server_model=curve&duration=3m", nil)
		page := string(body)
		if !strings.Contains(page, `data-ctl="workers" hidden`) || strings.Contains(page, `data-ctl="server_limit" hidden`) {
			t.Errorf("the curve's page hides the wrong rows")
		}
		// A value no control shows travels as a hidden field.
		if !strings.Contains(page, `type="hidden" name="duration" value="3m0s"`) {
			t.Errorf("the run's length is not carried by the form")
		}
		if !strings.Contains(page, `"run":true`) {
			t.Errorf("a good URL's page does not run")
		}
	})
}

// TestEveryOwnRowHasALabel: each of the advice's own parameters has its
// words on the page.
func TestEveryOwnRowHasALabel(t *testing.T) {
	for _, p := range advise.Table {
		if _, ok := ownLabels[p.Name]; !ok {
			t.Errorf("advise.Table's %s has no label in ownLabels", p.Name)
		}
	}
}

// TestEveryCellHasASign: every outcome of the small map has a sign and a
// pattern besides its colour.
func TestEveryCellHasASign(t *testing.T) {
	for _, o := range []string{advise.CellMeets, advise.CellRecovers, advise.CellFails} {
		i := slices.IndexFunc(cellMarks, func(c cellMark) bool { return c.Outcome == o })
		if i < 0 || cellMarks[i].Sign == "" || cellMarks[i].Pattern == "" || cellMarks[i].Label == "" {
			t.Errorf("the map's outcome %s has no sign, pattern or words", o)
		}
	}
}
