package web

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestEveryRouteHoldsChangesToTheBounds: a live change is held to the
// server's bounds on a run as the values at t = 0 are. Every route that
// runs a URL's scenario refuses, 400, a change to more clients than the
// server allows, naming the changes parameter, the value and the range in
// force on this server; none runs it. (A live set over /ws is the
// playground's TestSocketHoldsChangesToTheBounds; the command line's,
// TestRunHoldsChangesToTheTable.)
func TestEveryRouteHoldsChangesToTheBounds(t *testing.T) {
	hs, _, _ := serveShell(t, Options{Limits: Limits{MaxClients: 2000}})
	const (
		scen   = "clients=300&duration=5s&outage=none&changes=" + "%401s+clients%3D1000000"
		scen2  = "clients=300&duration=5s&outage=none&changes=" + "%401s+clients%3D3000"
		aMap   = "&x=outage_for&x_from=2s&x_to=4s&x_steps=2"
		band   = "&seeds=2"
		within = `change 1: clients: "1000000" is not allowed (allowed: a whole number from 1 to 2000 on this server)`
		just   = `change 1: clients: "3000" is not allowed (allowed: a whole number from 1 to 2000 on this server)`
	)
	for _, r := range []struct {
		method, path, query string
	}{
		{"GET", "/export.csv", ""},
		{"GET", "/export.json", ""},
		{"POST", "/export.csv", ""},
		{"POST", "/export.json", ""},
		{"GET", "/map/cells", aMap},
		{"GET", "/map.csv", aMap},
		{"GET", "/map.json", aMap},
		{"POST", "/map.csv", aMap},
		{"GET", "/bands/run", band},
	} {
		for _, c := range []struct{ name, query, want string }{
			{"past the table's cap", scen, within},
			{"past this server's", scen2, just},
		} {
			t.Run(r.method+" "+r.path+" "+c.name, func(t *testing.T) {
				resp, raw := sendNull(t, r.method, hs.URL+r.path+"?"+c.query+r.query)
				text := html.UnescapeString(string(raw))
				if r.path == "/map/cells" {
					var me struct {
						Errors []struct{ Name, Message string } `json:"errors"`
					}
					if err := json.Unmarshal(raw, &me); err != nil || len(me.Errors) == 0 {
						t.Fatalf("%s: body %.300s: %v", resp.Status, raw, err)
					}
					if me.Errors[0].Name != "changes" {
						t.Errorf("the error names %q, want changes", me.Errors[0].Name)
					}
					text = me.Errors[0].Message
				}
				if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(text, "changes: ") || !strings.Contains(text, c.want) {
					t.Errorf("%s: %.400s\nwant 400 naming changes and %q", resp.Status, text, c.want)
				}
			})
		}
	}
	// The advice takes no live changes at all: refused, named.
	q, _ := url.ParseQuery(scen)
	resp, body := get(t, hs.URL+"/advise.txt?"+q.Encode(), nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.HasPrefix(string(body), "changes: ") {
		t.Errorf("/advise.txt: %s: %.300s", resp.Status, body)
	}
}

// TestErrorsNameTheRangeInForce: every route's error for a value past the
// server's bounds names the server's range, whatever the table allows,
// also for a value past the table's range, and a map's axis end.
func TestErrorsNameTheRangeInForce(t *testing.T) {
	hs, _, _ := serveShell(t, Options{Limits: Limits{MaxClients: 2000}})
	const want = "a whole number from 1 to 2000 on this server"
	for _, u := range []string{
		"/export.csv?clients=2000000",
		"/export.json?clients=abc",
		"/bands/run?clients=2000000",
		"/map.csv?x=outage_for&x_from=2s&x_to=4s&clients=2000000",
		"/map.csv?x=clients&x_from=100&x_to=2000000",
		"/map.json?x=clients&x_from=100&x_to=3000",
		"/advise.txt?clients=2000000",
		"/advise.json?clients=3000",
	} {
		t.Run(u, func(t *testing.T) {
			resp, body := get(t, hs.URL+u, nil)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), want) || strings.Contains(string(body), "1000000)") {
				t.Errorf("%s: %.300s\nwant 400 saying %q", resp.Status, body, want)
			}
		})
	}
}

// TestMapRefusesAMalformedAxisValue: a scenario's value of a map's own
// axis parameter is replaced cell by cell, but a malformed one is refused,
// named, not dropped in silence.
func TestMapRefusesAMalformedAxisValue(t *testing.T) {
	hs, _, _ := serveShell(t, Options{})
	for _, u := range []string{
		"/map/cells?x=b.factor&x_from=1&x_to=3&x_steps=2&b.factor=abc",
		"/map.csv?x=b.factor&x_from=1&x_to=3&x_steps=2&b.factor=abc",
		"/map.csv?x=outage_for&x_from=1s&x_to=3s&x_steps=2&y=b.factor&y_from=1&y_to=3&y_steps=2&b.factor=11",
	} {
		t.Run(u, func(t *testing.T) {
			resp, body := get(t, hs.URL+u, nil)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `b.factor: \"`) && !strings.Contains(string(body), `b.factor: "`) ||
				!strings.Contains(string(body), "a number from 1 to 10") {
				t.Errorf("%s: %.300s\nwant 400 naming b.factor and its range", resp.Status, body)
			}
		})
	}
	// A well-formed one, as a playground's link carries it, is the axis's.
	if resp, body := get(t, hs.URL+"/map.csv?x=b.factor&x_from=1&x_to=3&x_steps=2&b.factor=2&duration=5s&clients=100", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("a well-formed value of the axis: %s: %.300s", resp.Status, body)
	}
}
