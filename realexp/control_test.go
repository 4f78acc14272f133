package realexp

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestServerControlRefusesPages: a page in a browser on this machine cannot
// drive the control endpoints, neither from another site (the browser says
// so in Sec-Fetch-Site or Origin) nor through DNS rebinding (the request
// names another site's host), while curl and the playground's own calls
// still pass.
func TestServerControlRefusesPages(t *testing.T) {
	s, addr := startServer(t, DefaultServerConfig(), nil)
	_, port, _ := strings.Cut(addr, ":")
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	for _, tc := range []struct {
		name         string
		method, path string
		host         string // "" for addr
		hdr          map[string]string
		want         int
		says         string
	}{
		{"curl", "POST", "/control/pause", "", nil, 200, ""},
		{"curl to localhost", "GET", "/control/stats", "localhost:" + port, nil, 200, ""},
		{"curl to [::1]", "GET", "/control/stats", "[::1]:" + port, nil, 200, ""},
		{"typed URL", "GET", "/control/stats", "", map[string]string{"Sec-Fetch-Site": "none"}, 200, ""},
		{"same origin", "GET", "/control/stats", "", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://" + addr}, 200, ""},
		{"another site's form", "POST", "/control/pause", "", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "Sec-Fetch-Site: cross-site"},
		{"another port of this site", "POST", "/control/resume", "", map[string]string{"Sec-Fetch-Site": "same-site"}, 403, "Sec-Fetch-Site: same-site"},
		{"another site's fetch, old browser", "POST", "/control/pause", "", map[string]string{"Origin": "http://evil.example"}, 403, `Origin "http://evil.example"`},
		{"sandboxed page", "GET", "/control/stats", "", map[string]string{"Origin": "null"}, 403, `Origin "null"`},
		{"DNS rebinding", "POST", "/control/pause", "evil.example:" + port,
			map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "http://evil.example:" + port}, 403, `not "evil.example:` + port + `"`},
		{"subdomain of localhost", "GET", "/control/stats", "app.localhost:" + port, nil, 403, "loopback host only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resume(t, tr, addr) // so that each pause below is a refused one or the first
			req, err := http.NewRequest(tc.method, "http://"+addr+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			for k, v := range tc.hdr {
				req.Header.Set(k, v)
			}
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want || !strings.Contains(string(body), tc.says) {
				t.Fatalf("%d %q, want %d saying %q", resp.StatusCode, body, tc.want, tc.says)
			}
			if wantPaused := tc.path == "/control/pause" && tc.want == 200; s.Stats().Paused != wantPaused {
				t.Errorf("paused = %v after the request, want %v", s.Stats().Paused, wantPaused)
			}
		})
	}
}

// resume resumes the server at addr as curl would.
func resume(t *testing.T, tr http.RoundTripper, addr string) {
	t.Helper()
	req, _ := http.NewRequest("POST", "http://"+addr+"/control/resume", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("resume: %d", resp.StatusCode)
	}
}
