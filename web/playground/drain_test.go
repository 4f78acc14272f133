package playground

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestWaitSessions: Wait returns once every page has had its going-away
// close, and not before: while a session lives, a Wait whose context ends
// says how many are open.
func TestWaitSessions(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv, h := serveMounted(ctx, Limits{})
	defer srv.Close()
	const n = 20
	pages := make([]*page, n)
	for i := range pages {
		pages[i] = dialPage(t, srv, "clients=500&duration=1h")
	}
	for _, p := range pages {
		p.await("tick", nil)
	}
	done, stop := context.WithCancel(t.Context())
	stop()
	if err := h.Wait(done); err == nil || !strings.Contains(err.Error(), "20 sessions") {
		t.Fatalf("Wait with 20 live sessions and its context done: %v", err)
	}

	cancel()
	wctx, wcancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer wcancel()
	if err := h.Wait(wctx); err != nil {
		t.Fatalf("Wait after the shutdown: %v", err)
	}
	var wg sync.WaitGroup
	for i, p := range pages {
		wg.Go(func() {
			<-p.done
			if websocket.CloseStatus(p.err) != websocket.StatusGoingAway {
				t.Errorf("page %d closed with %v, want going away", i, p.err)
			}
		})
	}
	wg.Wait()
}
