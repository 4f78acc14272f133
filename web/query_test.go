package web

import (
	"backofflab/web/kit"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestParseQuery: a pair parseQuery cannot read, and a name given twice,
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, errs := kit.ParseQuery(tc.raw)
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

// TestEveryViewRefusesBadQueries: every view reads its query through
// parseQuery. A name given twice or a pair with a semicolon is refused,
// named, by every route that takes a query: a stream or an export answers
// 400 with the error and runs nothing, a page shows the error and starts
// nothing, a live session reports it.
func TestEveryViewRefusesBadQueries(t *testing.T) {
	hs, _, _ := mapTestServer(t, Limits{})
	const (
		scen = "clients=300&duration=5s&outage=none"
		aMap = scen + "&x=outage_for&x_from=2s&x_to=10s&x_steps=2"
		band = scen + "&seeds=2"
		cont = "n=10:20:10&runs=2"
	)
	bad := []struct {
		name, add, param, value string
	}{
		{"a name twice", "&seed=2&seed=3", "seed", "2,3"},
		{"a semicolon", "&;=1", kit.QueryParam, ";=1"},
	}
	contBad := []struct {
		name, add, param, value string
	}{
		{"a name twice", "&runs=3", "runs", "2,3"},
		{"a semicolon", "&;=1", kit.QueryParam, ";=1"},
	}
	type route struct {
		method, path, query string
		page                bool // a page shows the error, 200; else 400
		// starts is what a page's state holds when it would start its
		// work; "" for the playground, which runs the values it can read.
		starts string
	}
	routes := []route{
		{"GET", "/", scen, true, ""},
		{"GET", "/export.csv", scen, false, ""},
		{"GET", "/export.json", scen, false, ""},
		{"POST", "/export.csv", scen, false, ""},
		{"POST", "/export.json", scen, false, ""},
		{"GET", "/map", aMap, true, `"valid":true`},
		{"GET", "/map/cells", aMap, false, ""},
		{"GET", "/map.csv", aMap, false, ""},
		{"GET", "/map.json", aMap, false, ""},
		{"POST", "/map.csv", aMap, false, ""},
		{"POST", "/map.json", aMap, false, ""},
		{"GET", "/bands", band, true, `"run":"/bands/run`},
		{"GET", "/bands/run", band, false, ""},
		{"GET", "/contention", cont, true, `"query":"n=`},
		{"GET", "/contention/stream", cont, false, ""},
		{"GET", "/contention.csv", cont, false, ""},
		{"GET", "/contention.json", cont, false, ""},
	}
	// The pages start their work on a good query: the marks are right.
	for _, r := range routes {
		if r.starts == "" {
			continue
		}
		if _, body := get(t, hs.URL+r.path+"?"+r.query, nil); !strings.Contains(string(body), r.starts) {
			t.Fatalf("%s of a good query: no %s in the page", r.path, r.starts)
		}
	}
	for _, r := range routes {
		cases := bad
		if strings.HasPrefix(r.path, "/contention") {
			cases = contBad
		}
		for _, b := range cases {
			t.Run(r.method+" "+r.path+" "+b.name, func(t *testing.T) {
				req, err := http.NewRequest(r.method, hs.URL+r.path+"?"+r.query+b.add, strings.NewReader("null\n"))
				if err != nil {
					t.Fatal(err)
				}
				resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				raw, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				body := string(raw)
				want := http.StatusBadRequest
				if r.page {
					want = http.StatusOK
				}
				if resp.StatusCode != want {
					t.Fatalf("%s, want %d: %.300s", resp.Status, want, body)
				}
				text := html.UnescapeString(body)
				if r.path == "/map/cells" {
					var me mapErrors
					if err := json.Unmarshal([]byte(body), &me); err != nil || len(me.Errors) == 0 {
						t.Fatalf("body %.300s: %v", body, err)
					}
					if me.Errors[0].Name != b.param {
						t.Errorf("the error names %q, want %q", me.Errors[0].Name, b.param)
					}
					text = me.Errors[0].Message
				}
				if !strings.Contains(text, b.param+": "+strconv.Quote(b.value)+" is not allowed") {
					t.Errorf("no error names %s and %q: %.500s", b.param, b.value, text)
				}
				if r.starts != "" && strings.Contains(body, r.starts) {
					t.Errorf("the page would start its work on its bad query: %s", r.starts)
				}
			})
		}
	}
	// The live session: its URL's query, and a set message's.
	for _, b := range bad {
		t.Run("ws "+b.name, func(t *testing.T) {
			p := dialPage(t, hs, scen+b.add)
			m := p.await("error", nil)
			if field[string](t, m, "param") != b.param || !strings.Contains(field[string](t, m, "message"), strconv.Quote(b.value)) {
				t.Errorf("the session's URL: error %v, want one naming %s and %q", m, b.param, b.value)
			}
		})
		t.Run("ws set "+b.name, func(t *testing.T) {
			p := dialPage(t, hs, scen)
			p.await("hello", nil)
			p.send(inMsg{Type: "set", Query: scen + b.add})
			m := p.await("error", nil)
			if field[string](t, m, "param") != b.param || !strings.Contains(field[string](t, m, "message"), strconv.Quote(b.value)) {
				t.Errorf("a set message: error %v, want one naming %s and %q", m, b.param, b.value)
			}
		})
	}
}
