package playground

import (
	"context"
	"log/slog"
	"net/url"
	"testing"
	"testing/synctest"
	"time"

	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// TestPacingInVirtualTime: a session's run advances the simulation with
// the wall clock at its speed, to the step: after 2 s of wall time at
// speed 1 the engine is at 2 s, after 1 s more at speed 4 at 6 s; paused,
// it stays where it is however long the page waits, and no row is sent;
// resumed, it goes on from there. The run is in a synctest bubble, whose
// clock moves only when the session waits, so the times are exact
// whatever the machine's load.
func TestPacingInVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q, _ := url.ParseQuery("speed=1&duration=60s&clients=100&lanes=1&outage=none")
		sc, errs := scene.Decode(q, kit.DefaultLimits)
		if len(errs) > 0 {
			t.Fatalf("errors %v", errs)
		}
		s, err := newSession(nil, slog.New(slog.DiscardHandler), kit.DefaultLimits, &realSlots{}, nil, sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		s.hello()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); s.run(ctx, nil) }()
		rows := s.out.pending
		at := func(what string, want time.Duration) {
			t.Helper()
			synctest.Wait()
			if got := s.eng.Now(); got != want {
				t.Errorf("%s: the engine is at %v, want %v", what, got, want)
			}
		}

		time.Sleep(2 * time.Second)
		at("after 2 s at speed 1", 2*time.Second)
		s.in <- inMsg{Type: "speed", Speed: "4"}
		synctest.Wait()
		time.Sleep(time.Second)
		at("after 1 s more at speed 4", 6*time.Second)

		s.in <- inMsg{Type: "pause"}
		synctest.Wait()
		paused, sent := s.eng.Now(), rows()
		time.Sleep(time.Minute)
		at("a minute after the pause", paused)
		if rows() != sent {
			t.Errorf("%d rows sent while paused", rows()-sent)
		}

		s.in <- inMsg{Type: "play"}
		synctest.Wait()
		time.Sleep(500 * time.Millisecond)
		at("half a second after the resume at speed 4", paused+2*time.Second)
		cancel()
		<-done
	})
}
