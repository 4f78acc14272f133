package web

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAnalysesBegin: past its cap a view is refused with a message that
// names the cap; ending one frees its slot.
func TestAnalysesBegin(t *testing.T) {
	a := newAnalyses(2, 1)
	end1, err := a.begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.begin(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.begin(); err == nil || !strings.Contains(err.Error(), "server busy: 2 maps") {
		t.Fatalf("a third view: %v, want server busy naming the cap", err)
	}
	end1()
	if _, err := a.begin(); err != nil {
		t.Fatalf("after one ended: %v", err)
	}
}

// TestAnalysesSimulate: no more simulations run at once than there are
// cores, running counts them while they run, and a job waiting for a core
// gives up when its context ends.
func TestAnalysesSimulate(t *testing.T) {
	a := newAnalyses(4, 2)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a.simulate(context.Background(), func() error { <-release; return nil })
		}()
	}
	for deadline := time.Now().Add(5 * time.Second); a.running.Load() != 2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("running = %d, want 2", a.running.Load())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	if err := a.simulate(ctx, func() error { ran = true; return nil }); !errors.Is(err, context.Canceled) || ran {
		t.Fatalf("a third job with both cores taken and its context done: err %v, ran %v", err, ran)
	}
	close(release)
	wg.Wait()
	if n := a.running.Load(); n != 0 {
		t.Fatalf("running = %d after every job ended", n)
	}
}
