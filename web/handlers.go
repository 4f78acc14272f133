package web

import (
	"io"
	"net/http"
)

// handleHealthz answers "ok": the server is up. The host guard lets it
// answer any Host (guard.go says why).
func handleHealthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
}
