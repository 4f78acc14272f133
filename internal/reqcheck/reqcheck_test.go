package reqcheck

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHostName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"localhost", "localhost"},
		{"localhost:8080", "localhost"},
		{"LocalHost.:8080", "localhost"},
		{"127.0.0.1:1", "127.0.0.1"},
		{"[::1]:8080", "::1"},
		{"[::1]", "::1"},
		{"Play.Example.COM", "play.example.com"},
		{"evil.example:80", "evil.example"},
		{"", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := HostName(tc.in); got != tc.want {
				t.Errorf("HostName(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestLoopback(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"localhost", true},
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"app.localhost", false}, // depends on the resolver: see Loopback
		{"localhost.evil.example", false},
		{"evil.example", false},
		{"0.0.0.0", false},
		{"::", false},
		{"10.0.0.1", false},
		{"128.0.0.1", false},
		{"", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Loopback(tc.name); got != tc.want {
				t.Errorf("Loopback(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}

func TestCrossSite(t *testing.T) {
	for _, tc := range []struct {
		name         string
		site, origin string
		want         string // in the reason; "" when the request passes
	}{
		{"no headers (curl)", "", "", ""},
		{"same-origin", "same-origin", "", ""},
		{"typed URL", "none", "", ""},
		{"same-origin with its Origin", "same-origin", "http://localhost:8080", ""},
		{"Origin alone, matching", "", "http://localhost:8080", ""},
		{"Origin in other case", "", "http://LOCALHOST:8080", ""},
		{"cross-site", "cross-site", "", "Sec-Fetch-Site: cross-site"},
		{"same-site: another port of localhost", "same-site", "", "Sec-Fetch-Site: same-site"},
		{"unknown Sec-Fetch-Site", "elsewhere", "", "Sec-Fetch-Site: elsewhere"},
		{"cross-site with a forged-looking Origin", "cross-site", "http://localhost:8080", "Sec-Fetch-Site"},
		{"Origin of another site", "", "http://evil.example", `Origin "http://evil.example"`},
		{"Origin of another port", "", "http://localhost:3000", `Origin "http://localhost:3000"`},
		{"Origin null (sandboxed page)", "", "null", `Origin "null"`},
		{"Origin malformed", "", "http://[::1", `Origin "http://[::1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "http://localhost:8080/export.csv", nil)
			if tc.site != "" {
				r.Header.Set("Sec-Fetch-Site", tc.site)
			}
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			got := CrossSite(r)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("CrossSite = %q, want %q", got, tc.want)
			}
		})
	}
}
