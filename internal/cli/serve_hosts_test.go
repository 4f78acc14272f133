package cli

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestServeHosts: the playground answers to loopback names, to -addr's
// host and to -host's names, and refuses others with 421 saying how to add
// them.
func TestServeHosts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	url, done := startServe(t, ctx, "-host", "play.example.com, Other.Example.org.,[2001:db8::1]")
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	for _, tc := range []struct {
		host string
		want int
	}{
		{"play.example.com", 200},
		{"other.example.org:8443", 200},
		{"[2001:db8::1]:80", 200},
		{"localhost", 200},
		{"evil.example", 421},
		{"example.com", 421},
	} {
		t.Run(tc.host, func(t *testing.T) {
			req, _ := http.NewRequest("GET", url, nil)
			req.Host = tc.host
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %q", resp.StatusCode, tc.want, body)
			}
			if tc.want == 421 && !strings.Contains(string(body), "-host "+tc.host) {
				t.Errorf("body %q does not say how to allow the host", body)
			}
		})
	}
}

func TestServedHosts(t *testing.T) {
	for _, tc := range []struct {
		addr, hosts string
		want        []string
	}{
		{"localhost:8080", "", []string{"localhost"}},
		{":8080", "", nil},
		{"0.0.0.0:8080", "play.example.com", []string{"play.example.com", "0.0.0.0"}},
		{"play.example.com:80", " a.example , b.example,", []string{"a.example", "b.example", "play.example.com"}},
		{"[::]:8080", "192.0.2.7,[2001:db8::1],2001:db8::2", []string{"192.0.2.7", "[2001:db8::1]", "2001:db8::2", "::"}},
	} {
		t.Run(tc.addr+" "+tc.hosts, func(t *testing.T) {
			got, err := servedHosts(tc.addr, tc.hosts)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("servedHosts(%q, %q) = %q, %v; want %q", tc.addr, tc.hosts, got, err, tc.want)
			}
		})
	}
}

func TestServeBadHost(t *testing.T) {
	for _, h := range []string{"play.example.com:443", "http://play.example.com", "play example", "a..b", "*.example.com", "play.example.com/"} {
		t.Run(h, func(t *testing.T) {
			err := Run(context.Background(), []string{"-addr", "127.0.0.1:0", "-host", "ok.example," + h}, io.Discard, io.Discard)
			if !errors.As(err, new(usageError)) {
				t.Fatalf("-host %q: %v (%T), want a usage error (exit status 2)", h, err, err)
			}
			for _, w := range []string{"host", strconv.Quote(h), "without port or scheme"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
