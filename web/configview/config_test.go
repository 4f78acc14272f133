package configview

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/web/internal/webtest"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

func TestMain(m *testing.M) { webtest.Main(m) }

// testBoxes stands for the page's rule of its number boxes: each box of
// a lane's values shows its value as is, at position 1.
func testBoxes(l strategies.Params, _ kit.Limits) map[string]scene.Box {
	out := map[string]scene.Box{}
	for name, v := range scene.LaneValues(l) {
		out[name] = scene.Box{Text: v, Pos: 1}
	}
	return out
}

// newTestServer serves the view alone, with testBoxes, on a kit of lim.
func newTestServer(t *testing.T, lim kit.Limits) (*httptest.Server, *kit.Kit) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	k := kit.New(ctx, nil, lim, nil)
	mux := http.NewServeMux()
	Mount(testBoxes)(mux, k)
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		cancel()
		srv.Close()
	})
	return srv, k
}

// postImport posts body to srv's /config/import and decodes the answer.
func postImport(t *testing.T, srv string, body []byte) (int, importAnswer) {
	t.Helper()
	req, err := http.NewRequest("POST", srv+"/config/import", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans importAnswer
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		t.Fatalf("answer %d does not decode: %v", resp.StatusCode, err)
	}
	return resp.StatusCode, ans
}

func importBody(t *testing.T, lib, lane, text string) []byte {
	t.Helper()
	b, err := json.Marshal(importRequest{Lib: lib, Lane: lane, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("../../libconfig/testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestImportPick: a configuration that holds several retry policies
// answers their names as choices and no lane; the same request with a
// pick answers the lane of the one it names; a pick that names none
// answers the choices again, with an error at pick.
func TestImportPick(t *testing.T) {
	srv, _ := newTestServer(t, kit.DefaultLimits)
	boot := testdata(t, "envoy_bootstrap.yaml")
	post := func(pick string) importAnswer {
		t.Helper()
		b, err := json.Marshal(importRequest{Lib: "envoy", Lane: "b", Text: boot, Pick: pick})
		if err != nil {
			t.Fatal(err)
		}
		status, ans := postImport(t, srv.URL, b)
		if status != http.StatusOK {
			t.Fatalf("pick %q: status %d, errors %v", pick, status, ans.Errors)
		}
		return ans
	}
	choices := []string{"orders", "shop/prefix:/catalog"}
	tests := []struct {
		pick, attempts string // "" attempts: no lane
		errPath        string
	}{
		{"", "", "static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes[1]"},
		{"orders", "4", ""},
		{"shop/prefix:/catalog", "3", ""},
		{"payments", "", "pick"},
	}
	for _, tt := range tests {
		t.Run(tt.pick, func(t *testing.T) {
			ans := post(tt.pick)
			if tt.attempts == "" {
				if ans.Values != nil || len(ans.Errors) == 0 || ans.Errors[0].Path != tt.errPath || strings.Join(ans.Choices, "|") != strings.Join(choices, "|") {
					t.Errorf("values %v, errors %v, choices %v; want no lane, an error at %s and the choices %v", ans.Values, ans.Errors, ans.Choices, tt.errPath, choices)
				}
				return
			}
			if len(ans.Errors) > 0 || ans.Values["max_attempts"] != tt.attempts || len(ans.Choices) > 0 {
				t.Errorf("errors %v, values %v, choices %v: want max_attempts %s", ans.Errors, ans.Values, ans.Choices, tt.attempts)
			}
		})
	}
	b, _ := json.Marshal(importRequest{Lib: "envoy", Lane: "b", Text: boot, Pick: strings.Repeat("x", maxPick+1)})
	if status, ans := postImport(t, srv.URL, b); status != http.StatusBadRequest || len(ans.Errors) == 0 || ans.Errors[0].Path != "pick" {
		t.Errorf("a pick of %d bytes: status %d, errors %v; want 400 at pick", maxPick+1, status, ans.Errors)
	}
}

// TestImportEndpoint posts configurations to /config/import: a good one
// answers the lane's values and query, which decode as the page's state;
// a bad field, an oversize body, an unknown library and a bad lane each
// answer an error that names what is wrong.
func TestImportEndpoint(t *testing.T) {
	srv, _ := newTestServer(t, kit.DefaultLimits)
	envoy := testdata(t, "envoy_route.yaml")

	t.Run("good", func(t *testing.T) {
		status, ans := postImport(t, srv.URL, importBody(t, "envoy", "b", envoy))
		if status != http.StatusOK || len(ans.Errors) > 0 {
			t.Fatalf("status %d, errors %v", status, ans.Errors)
		}
		for k, want := range map[string]string{"strategy": "envoy", "max_attempts": "4", "per_try_timeout": "2s",
			"min_delay": "50ms", "max_delay": "1s", "envoy_retry_limit": "budget", "envoy_budget_percent": "25", "envoy_min_retry_concurrency": "10"} {
			if got := ans.Values[k]; got != want {
				t.Errorf("values[%s] = %q, want %q", k, got, want)
			}
		}
		if b, ok := ans.Boxes["max_attempts"]; !ok || b != (scene.Box{Text: "4", Pos: 1}) {
			t.Errorf("boxes[max_attempts] = %+v, %v: want the page's rule's, {4 1}", b, ok)
		}
		q, err := url.ParseQuery(ans.Query)
		if err != nil || q.Get("b.strategy") != "envoy" || q.Get("b.max_attempts") != "4" {
			t.Errorf("query %q (%v): want b.strategy=envoy, b.max_attempts=4", ans.Query, err)
		}
		// The query is the lane as the page's state takes it.
		if _, errs := scene.Decode(q, kit.DefaultLimits); len(errs) > 0 {
			t.Errorf("query %q does not decode: %v", ans.Query, errs)
		}
		var paths []string
		for _, w := range ans.Warnings {
			paths = append(paths, w.Path)
		}
		if !strings.Contains(strings.Join(paths, " "), "retry_policy.retry_on") {
			t.Errorf("warnings %v: none for retry_policy.retry_on", ans.Warnings)
		}
	})

	t.Run("cross-site", func(t *testing.T) {
		req, err := http.NewRequest("POST", srv.URL+"/config/import", bytes.NewReader(importBody(t, "envoy", "b", envoy)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("a cross-site import: status %d, want 403", resp.StatusCode)
		}
	})

	for _, tc := range []struct {
		name   string
		body   []byte
		status int
		path   string // the first error's path
		want   string // in the first error's message
	}{
		{"unknown field", importBody(t, "envoy", "b", strings.Replace(envoy, "num_retries:", "num_retrys:", 1)),
			http.StatusOK, "retry_policy.num_retrys", "unknown field"},
		{"out of range", importBody(t, "grpc", "a", `{"methodConfig":[{"name":[{}],"retryPolicy":{"maxAttempts":1,"initialBackoff":"0.1s","maxBackoff":"1s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}`),
			http.StatusOK, "methodConfig[0].retryPolicy.maxAttempts", "out of range"},
		{"unknown library", importBody(t, "hystrix", "b", envoy),
			http.StatusBadRequest, "lib", strings.Join(libconfig.Names(), ", ")},
		{"bad lane", importBody(t, "envoy", "z", envoy),
			http.StatusBadRequest, "lane", "one of a, b, c, d"},
		{"empty", importBody(t, "envoy", "b", "  \n"),
			http.StatusBadRequest, "", "empty"},
		{"text too long", importBody(t, "envoy", "b", strings.Repeat("#", libconfig.MaxInput+1)),
			http.StatusRequestEntityTooLarge, "", "at most 262144"},
		{"body too large", bytes.Repeat([]byte(" "), maxImportBody+1),
			http.StatusRequestEntityTooLarge, "", "larger than"},
		{"not JSON", []byte("retry_policy: {}"),
			http.StatusBadRequest, "", "not {"},
		// A request is one object of each field once: encoding/json kept
		// the last of two keys and read nothing after the object.
		{"lib twice", []byte(`{"lib":"envoy","lane":"b","lib":"grpc","text":"x: 1"}`),
			http.StatusBadRequest, "lib", `the field "lib" is given twice: give it once`},
		{"text twice", []byte(`{"lib":"envoy","lane":"b","text":"a","text":"b"}`),
			http.StatusBadRequest, "text", `the field "text" is given twice`},
		{"trailing JSON", append(importBody(t, "envoy", "b", envoy), []byte(`{"lib":"grpc"}`)...),
			http.StatusBadRequest, "", "more after the object, at byte"},
		{"trailing junk", append(importBody(t, "envoy", "b", envoy), []byte(" x")...),
			http.StatusBadRequest, "", "more after the object"},
		{"unknown request field", []byte(`{"lib":"envoy","lane":"b","text":"x: 1","LIB":"grpc"}`),
			http.StatusBadRequest, "LIB", `unknown field "LIB"`},
		{"not a string", []byte(`{"lib":["envoy"],"lane":"b","text":"x: 1"}`),
			http.StatusBadRequest, "lib", `the field "lib" must be a JSON string`},
		{"an array", []byte(`[]`),
			http.StatusBadRequest, "", "where an object begins"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, ans := postImport(t, srv.URL, tc.body)
			if status != tc.status {
				t.Errorf("status %d, want %d", status, tc.status)
			}
			if len(ans.Errors) == 0 {
				t.Fatalf("no error; values %v", ans.Values)
			}
			if e := ans.Errors[0]; e.Path != tc.path || !strings.Contains(e.Message, tc.want) {
				t.Errorf("error %+v: want path %q and %q", e, tc.path, tc.want)
			}
			if ans.Values != nil {
				t.Errorf("values %v beside an error", ans.Values)
			}
		})
	}
}

// getExport gets srv's export of lane with the state query.
func getExport(t *testing.T, srv, lane, query string) (int, exportAnswer) {
	t.Helper()
	resp, err := http.Get(srv + "/config/export/" + lane + "?" + query)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans exportAnswer
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, ans
}

// TestExportEndpoint gets a lane written as every library: a gRPC lane as
// a service config that libconfig reads back, a plain statement from each
// library that cannot express it, and errors for a bad state or lane.
func TestExportEndpoint(t *testing.T) {
	srv, _ := newTestServer(t, kit.DefaultLimits)
	status, ans := getExport(t, srv.URL, "b", "b.strategy=grpc_retry&b.max_attempts=3")
	if status != http.StatusOK || len(ans.Errors) > 0 {
		t.Fatalf("status %d, errors %v", status, ans.Errors)
	}
	if len(ans.Snippets) != len(libconfig.Exporters()) {
		t.Fatalf("%d snippets, %d exporters", len(ans.Snippets), len(libconfig.Exporters()))
	}
	by := map[string]exportSnippet{}
	for _, s := range ans.Snippets {
		by[s.Lib] = s
		if (s.Text == "") == (len(s.Cannot) == 0) {
			t.Errorf("%s: text %q and reasons %v: want one of them", s.Lib, s.Text, s.Cannot)
		}
	}
	g := by["grpc"]
	c, _, err := libconfig.ParseGRPC([]byte(g.Text))
	if err != nil {
		t.Fatalf("the gRPC snippet does not parse: %v\n%s", err, g.Text)
	}
	if got := c.MethodConfigs[0].RetryPolicy.MaxAttempts; got != 3 {
		t.Errorf("gRPC snippet's maxAttempts %d, want 3", got)
	}
	if e := by["envoy"]; len(e.Cannot) == 0 || !strings.Contains(strings.Join(e.Cannot, "; "), "grpc_retry") {
		t.Errorf("envoy: reasons %v: want the lane's strategy named", e.Cannot)
	}
	for _, tc := range []struct{ lane, query, path string }{
		{"c", "lanes=2", "lane"},
		{"b", "b.max_attempts=-1", "b.max_attempts"},
	} {
		status, ans := getExport(t, srv.URL, tc.lane, tc.query)
		if status != http.StatusBadRequest || len(ans.Errors) == 0 || ans.Errors[0].Path != tc.path {
			t.Errorf("lane %s of %q: status %d, errors %v: want 400 naming %s", tc.lane, tc.query, status, ans.Errors, tc.path)
		}
	}
}

// TestExportSaysWhatItAssumes: the page's export of a urllib3 lane and of
// a tenacity lane carries, beside the code, what the code sets so that
// the library does what the lane does.
func TestExportSaysWhatItAssumes(t *testing.T) {
	srv, _ := newTestServer(t, kit.DefaultLimits)
	for _, tc := range []struct{ query, lib, want string }{
		{"b.strategy=urllib3", "urllib3", "status=3 with total=6 stops retrying error answers after 4 attempts"},
		{"b.strategy=urllib3", "urllib3", "backoff_jitter"},
		{"b.strategy=tenacity_exponential", "tenacity", "min"},
	} {
		status, ans := getExport(t, srv.URL, "b", tc.query)
		if status != http.StatusOK {
			t.Fatalf("%s: status %d, errors %v", tc.query, status, ans.Errors)
		}
		found := false
		for _, s := range ans.Snippets {
			if s.Lib != tc.lib {
				continue
			}
			found = true
			if s.Text == "" || !strings.Contains(strings.Join(s.Warnings, "\n"), tc.want) || len(s.WarningParts) != len(s.Warnings) {
				t.Errorf("%s's snippet: warnings %q, want one saying %q, in prose parts too", tc.lib, s.Warnings, tc.want)
			}
		}
		if !found {
			t.Errorf("%s: no %s snippet", tc.query, tc.lib)
		}
	}
}

// TestImportRefusesHostileYAML posts a recursive alias and an alias bomb to
// a loopback server: each is a 400 naming the alias, its line and the
// parser's bound (libconfig.MaxNodes bounds what reading it costs), and the
// server goes on serving.
func TestImportRefusesHostileYAML(t *testing.T) {
	srv, _ := newTestServer(t, kit.DefaultLimits)
	for _, tc := range []struct {
		name, lib, file string
		want            string
	}{
		{"recursive alias", "resilience4j", "recursive_alias.yml", `a.b: recursive alias "*r"`},
		{"alias bomb", "resilience4j", "alias_bomb.yml", fmt.Sprintf("too large \"*l3\" (at most %d nodes, aliases followed) at line 5", libconfig.MaxNodes)},
		{"alias bomb through envoy", "envoy", "alias_bomb_list.yml", fmt.Sprintf("at most %d nodes", libconfig.MaxNodes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, ans := postImport(t, srv.URL, importBody(t, tc.lib, "a", testdata(t, "hostile/"+tc.file)))
			if status != http.StatusBadRequest || len(ans.Errors) != 1 || !strings.Contains(ans.Errors[0].Message, tc.want) {
				t.Errorf("status %d, errors %+v: want 400 and one error saying %q", status, ans.Errors, tc.want)
			}
			status, ans = postImport(t, srv.URL, importBody(t, "envoy", "a", testdata(t, "envoy_route.yaml")))
			if status != http.StatusOK || len(ans.Errors) > 0 {
				t.Errorf("after it, a good import: status %d, errors %v", status, ans.Errors)
			}
		})
	}
}
