// Package reqcheck holds the checks that keep a browser from being turned
// against a server on this machine: which host names can only mean this
// machine, and whether a request was made by another site's page.
//
// Both the playground (web) and the real server's control endpoints
// (realexp) use them, so that the two refuse the same requests for the same
// reasons.
package reqcheck

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// HostName returns the name in a Host header or a URL's host: without its
// port or an IPv6 literal's brackets, without a trailing dot, in lower case.
// Hosts compare by name: the port a client used says nothing about which
// site it meant.
func HostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// Loopback reports whether name, as HostName returns it, can only mean this
// machine: "localhost", an address in 127.0.0.0/8, or ::1. A page that DNS
// rebinding pointed at this machine still names its own site in the Host
// header, never one of these.
//
// Subdomains of localhost are not included: RFC 6761 lets resolvers answer
// them with loopback, and browsers do, but some system resolvers pass them
// on to DNS, so whether they mean this machine depends on who resolves them.
func Loopback(name string) bool {
	if name == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(name)
	return err == nil && a.Unmap().IsLoopback()
}

// CrossSite returns why r was made by another site's page, or "" when it
// was not. A browser says where a request comes from in Sec-Fetch-Site:
// same-origin (the server's own page) and none (the user typed the URL or
// opened a bookmark) pass; cross-site and same-site do not, same-site
// because another port of localhost is the same site. Older browsers only
// send Origin, which must then name this host. A request with neither
// header is not a browser's, and passes: it cannot carry a user's
// browser into anything.
func CrossSite(r *http.Request) string {
	switch s := r.Header.Get("Sec-Fetch-Site"); s {
	case "", "same-origin", "none":
	default:
		return fmt.Sprintf("the request comes from another site's page (Sec-Fetch-Site: %s)", s)
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return ""
	}
	// The scheme is not compared: behind a proxy that ends TLS, the server
	// cannot tell which one the page used.
	if u, err := url.Parse(o); err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) {
		return fmt.Sprintf("the request comes from another site's page (Origin %q, not this host %q)", o, r.Host)
	}
	return ""
}
