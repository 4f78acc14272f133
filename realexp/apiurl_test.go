package realexp

import (
	"errors"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// TestAPIURL: -addr is checked whole before any client starts: a typo is
// a usage error, not a run in which every attempt fails.
func TestAPIURL(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"127.0.0.1:8070", "http://127.0.0.1:8070/api"},
		{"localhost:1", "http://localhost:1/api"},
		{"[::1]:8070", "http://[::1]:8070/api"},
		{":8070", "http://:8070/api"},
		{"http://127.0.0.1:8070", "http://127.0.0.1:8070/api"},
		{"http://127.0.0.1:8070/", "http://127.0.0.1:8070/api"},
		{"https://example.com", "https://example.com/api"},
		{"http://[::1]:65535/base/", "http://[::1]:65535/base/api"},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			got, err := apiURL(tc.addr)
			if err != nil || got != tc.want {
				t.Errorf("apiURL(%q) = %q, %v; want %q", tc.addr, got, err, tc.want)
			}
		})
	}
	for _, addr := range []string{
		"", "nowhere", "localhost", "localhost:abc", "localhost:0", "localhost:99999", "[::1",
		"http://[::1", "http://[::1]:99999", "http://", "http:///api", "ftp://127.0.0.1:8070",
		"ws://127.0.0.1:8070", "http://user:pw@127.0.0.1:8070", "http://127.0.0.1:8070/?x=1",
		"http://127.0.0.1:8070/#top", "127.0.0.1:8070://",
	} {
		t.Run("bad "+addr, func(t *testing.T) {
			got, err := apiURL(addr)
			var pe *scenario.ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("apiURL(%q) = %q, %v; want a *ParamError", addr, got, err)
			}
			if pe.Name != "addr" || pe.Value != addr || !strings.Contains(pe.Allow, "host:port") || !strings.Contains(pe.Allow, "http://") {
				t.Errorf("error %v: want it to name addr, %q and what is allowed", err, addr)
			}
			if err := (func() error { c := DefaultClientConfig(); c.Addr = addr; return c.Validate() })(); !errors.As(err, &pe) {
				t.Errorf("Validate with Addr %q: %v, want the addr error", addr, err)
			}
		})
	}
}
