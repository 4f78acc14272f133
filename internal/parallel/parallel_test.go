package parallel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testwait"
)

// TestDoRunsEveryJobOnce: each index is run exactly once, on no more
// goroutines at a time than asked for.
func TestDoRunsEveryJobOnce(t *testing.T) {
	for _, tc := range []struct{ workers, n int }{{1, 10}, {2, 1}, {3, 100}, {8, 7}, {4, 0}} {
		t.Run(fmt.Sprintf("%d workers %d jobs", tc.workers, tc.n), func(t *testing.T) {
			seen := make([]atomic.Int32, tc.n)
			var running, peak atomic.Int32
			err := Do(context.Background(), tc.workers, tc.n, func(ctx context.Context, i int) error {
				r := running.Add(1)
				for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
				}
				time.Sleep(time.Millisecond) // a job that takes time, so that jobs overlap
				seen[i].Add(1)
				running.Add(-1)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := range seen {
				if n := seen[i].Load(); n != 1 {
					t.Errorf("job %d ran %d times", i, n)
				}
			}
			if p := int(peak.Load()); p > tc.workers {
				t.Errorf("%d jobs ran at once on %d workers", p, tc.workers)
			}
		})
	}
}

// TestDoStopsAtTheFirstError: the first error is returned, the jobs still
// running see their context cancelled, and no job starts after it.
func TestDoStopsAtTheFirstError(t *testing.T) {
	boom := errors.New("boom")
	var started atomic.Int32
	err := Do(context.Background(), 2, 1000, func(ctx context.Context, i int) error {
		started.Add(1)
		if i == 5 {
			return boom
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Millisecond):
			return nil
		}
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Do returned %v, want %v", err, boom)
	}
	if n := started.Load(); n > 8 {
		t.Errorf("%d jobs started, want the first few only", n)
	}
}

// TestDoCancel: cancelling the context stops every worker promptly (the
// jobs watch it), Do returns the context's error, and nothing is left
// running (goleak, TestMain).
func TestDoCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var cancelledAt time.Time
	var returned []time.Time
	var started atomic.Int32
	done := make(chan error)
	go func() {
		done <- Do(ctx, 2, 1<<20, func(ctx context.Context, i int) error {
			started.Add(1)
			<-ctx.Done()
			mu.Lock()
			returned = append(returned, time.Now())
			mu.Unlock()
			return nil
		})
	}()
	testwait.Eventually(t, "both workers run a job", func() bool { return started.Load() == 2 })
	mu.Lock()
	cancelledAt = time.Now()
	mu.Unlock()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Do returned %v, want context.Canceled", err)
	}
	if len(returned) != 2 {
		t.Fatalf("%d jobs returned, want the 2 running", len(returned))
	}
	for _, at := range returned {
		if d := at.Sub(cancelledAt); d > 100*time.Millisecond {
			t.Errorf("a worker stopped %v after the cancel", d)
		}
	}
}

// TestWorkers: 0 or less means every CPU the process may use.
func TestWorkers(t *testing.T) {
	if Workers(3) != 3 || Workers(0) < 1 || Workers(-1) != Workers(0) {
		t.Errorf("Workers(3, 0, -1) = %d, %d, %d", Workers(3), Workers(0), Workers(-1))
	}
}

func ExampleDo() {
	squares := make([]int, 5)
	_ = Do(context.Background(), 2, len(squares), func(_ context.Context, i int) error {
		squares[i] = i * i // each job writes its own index: no lock needed
		return nil
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16]
}
