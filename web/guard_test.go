package web

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func TestHostGuard(t *testing.T) {
	srv, port, _ := serveWeb(t, t.Context(), Options{Hosts: []string{"play.example.com", "[2001:db8::7]", "192.0.2.7"}})
	u := srv.URL
	for _, tc := range []struct {
		host string
		path string
		want int
	}{
		{"localhost:" + port, "/", 200},
		{"localhost", "/", 200},
		{"LocalHost.:" + port, "/", 200},
		{"127.0.0.1:" + port, "/", 200},
		{"127.9.9.9:80", "/", 200},
		{"[::1]:" + port, "/", 200},
		{"[::1]", "/static/app.js", 200},
		{"play.example.com", "/", 200},
		{"play.example.com:443", "/static/style.css", 200}, // the port is ignored
		{"PLAY.example.com", "/", 200},
		{"[2001:db8::7]:8080", "/", 200},
		{"192.0.2.7", "/", 200},
		{"evil.example", "/", 421},
		{"evil.example:" + port, "/", 421},
		{"evil.example:" + port, "/static/app.js", 421},
		{"evil.example:" + port, "/export.csv?duration=1s", 421},
		{"evil.example:" + port, "/nope", 421},
		{"app.localhost:" + port, "/", 421},
		{"localhost.evil.example", "/", 421},
		{"play.example.com.evil.example", "/", 421},
		{"0.0.0.0:" + port, "/", 421},
		{"192.0.2.8", "/", 421},
		// Probes address the server by any name: /healthz answers them.
		{"evil.example", "/healthz", 200},
		{"10.1.2.3:8080", "/healthz", 200},
	} {
		t.Run(tc.host+tc.path, func(t *testing.T) {
			code, body := send(t, "GET", u+tc.path, tc.host, nil)
			if code != tc.want {
				t.Fatalf("status %d, want %d: %q", code, tc.want, body)
			}
			if tc.want == 421 {
				name := strings.TrimSuffix(strings.Split(tc.host, ":")[0], ".")
				for _, w := range []string{`"` + tc.host + `"`, "-host " + strings.ToLower(name)} {
					if !strings.Contains(body, w) {
						t.Errorf("body %q does not say %q", body, w)
					}
				}
			}
		})
	}
}

// TestHostGuardNoHost: an HTTP/1.0 request may carry no Host at all.
func TestHostGuardNoHost(t *testing.T) {
	srv, _, _ := serveWeb(t, t.Context(), Options{})
	u := srv.URL
	for path, want := range map[string]string{"/": "421", "/healthz": "200"} {
		t.Run(path, func(t *testing.T) {
			c, err := net.Dial("tcp", strings.TrimPrefix(u, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, "GET "+path+" HTTP/1.0\r\n\r\n")
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil || !strings.Contains(line, " "+want+" ") {
				t.Fatalf("status line %q (%v), want %s", line, err, want)
			}
		})
	}
}

// TestSocketDNSRebinding: a page whose name was rebound to this machine
// sends its own site as Host and as Origin; the Origin check alone would let
// it open a session.
func TestSocketDNSRebinding(t *testing.T) {
	srv, port, _ := serveWeb(t, t.Context(), Options{})
	u := srv.URL
	ws := "ws" + strings.TrimPrefix(u, "http") + "/ws?clients=100"
	for _, tc := range []struct {
		host string
		want int
	}{
		{"evil.example:" + port, http.StatusMisdirectedRequest},
		{"localhost:" + port, http.StatusSwitchingProtocols},
	} {
		t.Run(tc.host, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			c, resp, err := websocket.Dial(ctx, ws, &websocket.DialOptions{Host: tc.host,
				HTTPHeader: http.Header{"Origin": {"http://" + tc.host}}})
			if c != nil {
				defer c.Close(websocket.StatusNormalClosure, "")
			}
			if resp == nil || resp.StatusCode != tc.want {
				t.Fatalf("dial with Host and Origin %s: %v, %v; want status %d", tc.host, resp, err, tc.want)
			}
		})
	}
}

// TestExportCrossSite: another site's page cannot make its visitors run
// exports here; the playground's page, a typed URL and curl can.
func TestExportCrossSite(t *testing.T) {
	srv, port, _ := serveWeb(t, t.Context(), Options{})
	u := srv.URL
	for _, format := range []string{"csv", "json"} {
		for _, tc := range []struct {
			name string
			hdr  map[string]string
			want int
			says string
		}{
			{"curl", nil, 200, ""},
			{"typed URL", map[string]string{"Sec-Fetch-Site": "none"}, 200, ""},
			{"the playground's link", map[string]string{"Sec-Fetch-Site": "same-origin"}, 200, ""},
			{"same origin, old browser", map[string]string{"Origin": "http://127.0.0.1:" + port}, 200, ""},
			{"another site's link", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "Sec-Fetch-Site: cross-site"},
			{"another port of this site", map[string]string{"Sec-Fetch-Site": "same-site"}, 403, "Sec-Fetch-Site: same-site"},
			{"another site, old browser", map[string]string{"Origin": "http://evil.example"}, 403, `Origin "http://evil.example"`},
			{"another port, old browser", map[string]string{"Origin": "http://127.0.0.1:1"}, 403, `Origin "http://127.0.0.1:1"`},
		} {
			t.Run(format+" "+tc.name, func(t *testing.T) {
				code, body := send(t, "GET", u+"/export."+format+"?duration=2s&clients=10", "", tc.hdr)
				if code != tc.want || !strings.Contains(body, tc.says) {
					t.Fatalf("%d %.200q, want %d saying %q", code, body, tc.want, tc.says)
				}
			})
		}
	}
}
