package web

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/web/kit"
)

// TestExportsAreNotStored: every route that serves a generated export
// (routes.go: a run's, the page's, a map's, a study's, each as CSV and
// JSON, an advice's as JSON and text, by GET and, for those the page
// posts, by POST) answers it as an
// attachment that no cache may store.
func TestExportsAreNotStored(t *testing.T) {
	hs, _, _ := serveShell(t, Options{})
	const (
		scen = "clients=100&duration=2s&outage=none"
		// Two cells of two lanes, and the page's post of them.
		aMap     = scen + "&x=clients&x_from=100&x_to=200&x_steps=2"
		mapCells = `[{"index":0,"summaries":[{},{}]},{"index":1,"summaries":[{},{}]}]`
		cont     = "n=10&runs=2"
		adv      = "clients=100&seeds=1"
	)
	for _, tc := range []struct {
		method, path, query, body, file string
	}{
		{"GET", "/export.csv", scen, "", "backofflab.csv"},
		{"GET", "/export.json", scen, "", "backofflab.json"},
		{"POST", "/export.csv", scen, "null\n", "backofflab.csv"},
		{"POST", "/export.json", scen, "null\n", "backofflab.json"},
		{"GET", "/map.csv", aMap, "", "backofflab-map.csv"},
		{"GET", "/map.json", aMap, "", "backofflab-map.json"},
		{"POST", "/map.csv", aMap, mapCells, "backofflab-map.csv"},
		{"POST", "/map.json", aMap, mapCells, "backofflab-map.json"},
		{"GET", "/contention.csv", cont, "", "backofflab-contention.csv"},
		{"GET", "/contention.json", cont, "", "backofflab-contention.json"},
		{"GET", "/advise.json", adv, "", "backofflab-advice.json"},
		{"GET", "/advise.txt", adv, "", "backofflab-advice.txt"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, hs.URL+tc.path+"?"+tc.query, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := (&http.Transport{DisableKeepAlives: true}).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("the body: %v", err)
			}
			if resp.StatusCode != http.StatusOK || len(body) == 0 {
				t.Fatalf("%s, %d bytes: %.300s", resp.Status, len(body), body)
			}
			h := resp.Header
			if got := h.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", got)
			}
			if got, want := h.Get("Content-Disposition"), `attachment; filename="`+tc.file+`"`; got != want {
				t.Errorf("Content-Disposition %q, want %q", got, want)
			}
			if got, want := h.Get("Content-Type"), kit.ExportTypes[tc.file[strings.LastIndexByte(tc.file, '.')+1:]]; got != want {
				t.Errorf("Content-Type %q, want %q", got, want)
			}
		})
	}
}
