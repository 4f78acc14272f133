package web

import (
	"fmt"
	"net/http"

	"github.com/backofflab/backofflab/internal/reqcheck"
)

// guardHost refuses requests whose Host is not one of the server's names:
// a loopback name (see reqcheck.Loopback) or one of hosts. Without it, a
// page on another site whose name DNS rebinding pointed at this machine
// would be same-origin with the playground: it could open sessions and
// read exports, the WebSocket's Origin check passing since Origin and Host
// both name that site.
//
// GET /healthz answers any Host: probes from load balancers and
// orchestrators address the server by whatever name or address they know,
// and "ok" tells a rebound page nothing and costs nothing.
func guardHost(h http.Handler, hosts []string) http.Handler {
	allowed := map[string]bool{}
	for _, n := range hosts {
		if n = reqcheck.HostName(n); n != "" {
			allowed[n] = true
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := reqcheck.HostName(r.Host)
		if reqcheck.Loopback(name) || allowed[name] || r.URL.Path == "/healthz" {
			h.ServeHTTP(w, r)
			return
		}
		msg := fmt.Sprintf("backofflab: this server does not answer to the host %q.\n"+
			"It answers to localhost, 127.0.0.1 and [::1], to the host of its -addr, and to the names given to -host.\n"+
			"To serve the playground under this name, start it with -host %s (a comma-separated list).\n", r.Host, name)
		if name == "" {
			msg = "backofflab: the request names no host (Host header); this server answers to localhost, 127.0.0.1, [::1] and the names given to -host.\n"
		}
		// 421: the server is reachable but not configured for this name,
		// which is what a request rebound from another site's name is.
		http.Error(w, msg, http.StatusMisdirectedRequest)
	})
}
