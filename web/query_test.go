package web

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/web/kit"
)

// TestEveryViewRefusesBadQueries: every view reads its query through
// kit.ParseQuery. A name given twice or a pair with a semicolon is refused,
// named, by every route that takes a query: a stream or an export answers
// 400 with the error and runs nothing, a page shows the error and starts
// nothing (a live session reports it: the playground's
// TestSocketRefusesBadQueries).
func TestEveryViewRefusesBadQueries(t *testing.T) {
	hs, _, _ := serveShell(t, Options{})
	const (
		scen = "clients=300&duration=5s&outage=none"
		aMap = scen + "&x=outage_for&x_from=2s&x_to=10s&x_steps=2"
		band = scen + "&seeds=2"
		cont = "n=10:20:10&runs=2"
		adv  = "clients=100&seeds=1"
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
		{"GET", "/advise", adv, true, `"run":true`},
		{"GET", "/advise/stream", adv, false, ""},
		{"GET", "/advise.json", adv, false, ""},
		{"GET", "/advise.txt", adv, false, ""},
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
				resp, raw := sendNull(t, r.method, hs.URL+r.path+"?"+r.query+b.add)
				body := string(raw)
				want := http.StatusBadRequest
				if r.page {
					want = http.StatusOK
				}
				if resp.StatusCode != want {
					t.Fatalf("%s, want %d: %.300s", resp.Status, want, body)
				}
				text := html.UnescapeString(body)
				if r.path == "/map/cells" || r.path == "/advise/stream" {
					var me struct { // the map's and the advice's errors as their streams write them
						Errors []struct{ Name, Message string } `json:"errors"`
					}
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
}

// sendNull sends method url with a body of JSON null, asking for no
// compression, and returns the answer and its whole body.
func sendNull(t *testing.T, method, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader("null\n"))
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
	return resp, raw
}
