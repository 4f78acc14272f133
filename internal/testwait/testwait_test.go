package testwait

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestWithin(t *testing.T) {
	t.Run("a condition that comes true is seen", func(t *testing.T) {
		var n atomic.Int32
		if !Within(Bound, func() bool { return n.Add(1) >= 5 }) {
			t.Fatal("Within gave up on a condition that held on the fifth call")
		}
		if got := n.Load(); got != 5 {
			t.Errorf("cond called %d times, want 5: Within polls until, and only until, it holds", got)
		}
	})
	t.Run("a condition that never holds gives false after the bound", func(t *testing.T) {
		var n atomic.Int32
		if Within(20*time.Millisecond, func() bool { n.Add(1); return false }) {
			t.Fatal("Within reported a condition that never held")
		}
		if n.Load() < 2 {
			t.Errorf("cond called %d times, want it polled more than once", n.Load())
		}
	})
}

// fakeT records a failure instead of ending the test, so that the failing
// path of Eventually can be checked.
type fakeT struct {
	testing.TB
	failed string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = format
}

func TestEventually(t *testing.T) {
	f := &fakeT{TB: t}
	Eventually(f, "it holds", func() bool { return true })
	if f.failed != "" {
		t.Fatalf("Eventually failed on a condition that held: %s", f.failed)
	}
}

// TestBuffer: what one goroutine writes, the test reads while it writes,
// whole writes in order (go test -race checks the locking).
func TestBuffer(t *testing.T) {
	var b Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			b.Write([]byte("ab"))
		}
	}()
	Eventually(t, "the 100 writes", func() bool {
		s := b.String()
		if len(s)%2 != 0 || strings.Count(s, "ab") != len(s)/2 {
			t.Fatalf("read %q: a write seen in part", s)
		}
		return len(s) == 200
	})
	<-done
}
