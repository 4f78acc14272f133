package parallel

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testwait"
)

// TestPoolTakesTurnsByShare: on one core, with every Yield handing the
// core over, a share with two goroutines and a share with one take turns
// one for one: the share, not the goroutine, is what gets a turn.
func TestPoolTakesTurnsByShare(t *testing.T) {
	p := NewPool(1, 0)
	var mu sync.Mutex
	var turns strings.Builder
	gate := make(chan struct{})
	loop := func(name string) func(ctx context.Context, i int) error {
		return func(ctx context.Context, i int) error {
			<-gate
			for range 10 {
				mu.Lock()
				turns.WriteString(name)
				mu.Unlock()
				if err := Yield(ctx); err != nil {
					return err
				}
			}
			return nil
		}
	}
	var wg sync.WaitGroup
	run := func(name string, workers int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := Do(p.Join(context.Background(), 0), workers, workers, loop(name)); err != nil {
				t.Error(err)
			}
		}()
	}
	run("A", 2)
	testwait.Eventually(t, "A's two goroutines: one holding the core, one waiting", func() bool { return p.Held() == 1 && p.Waiting() == 1 })
	run("B", 1)
	testwait.Eventually(t, "B waiting too", func() bool { return p.Waiting() == 2 })
	close(gate)
	wg.Wait()
	got := turns.String()
	if len(got) != 30 {
		t.Fatalf("turns %q: want 30", got)
	}
	if want := strings.Repeat("AB", 10); got[:20] != want {
		t.Errorf("the first 20 turns are %q, want %q", got[:20], want)
	}
	if p.Held() != 0 || p.Waiting() != 0 {
		t.Errorf("after the work, %d cores held and %d shares waiting", p.Held(), p.Waiting())
	}
}

// TestPoolQuantum: a goroutine keeps its core while its quantum lasts,
// even with another share waiting.
func TestPoolQuantum(t *testing.T) {
	p := NewPool(1, time.Hour)
	hold := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		Do(p.Join(context.Background(), 0), 1, 1, func(ctx context.Context, i int) error {
			<-hold
			for range 1000 {
				if err := Yield(ctx); err != nil {
					return err
				}
			}
			return nil
		})
	}()
	testwait.Eventually(t, "the first share holding the core", func() bool { return p.Held() == 1 })
	var second atomic.Bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		Do(p.Join(context.Background(), 0), 1, 1, func(ctx context.Context, i int) error {
			second.Store(true)
			return nil
		})
	}()
	testwait.Eventually(t, "the second share waiting", func() bool { return p.Waiting() == 1 })
	close(hold)
	wg.Wait()
	if !second.Load() {
		t.Error("the second share never ran")
	}
}

// TestPoolCancelWhileWaiting: a request that leaves while it waits for a
// core returns at once with its context's error, and leaves the pool as
// it found it.
func TestPoolCancelWhileWaiting(t *testing.T) {
	p := NewPool(1, 0)
	release := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		Do(p.Join(context.Background(), 0), 1, 1, func(ctx context.Context, i int) error {
			<-release
			return nil
		})
	}()
	testwait.Eventually(t, "the first share holding the core", func() bool { return p.Held() == 1 })
	ctx, cancel := context.WithCancel(p.Join(context.Background(), 0))
	done := make(chan error, 1)
	var ran atomic.Bool
	go func() {
		done <- Do(ctx, 2, 5, func(ctx context.Context, i int) error { ran.Store(true); return nil })
	}()
	testwait.Eventually(t, "the second share waiting", func() bool { return p.Waiting() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Do returned %v, want context.Canceled", err)
	}
	if ran.Load() {
		t.Error("a job of the cancelled request ran")
	}
	if p.Waiting() != 0 {
		t.Errorf("%d shares still waiting", p.Waiting())
	}
	close(release)
	wg.Wait()
	if p.Held() != 0 {
		t.Errorf("%d cores held after the work", p.Held())
	}
}

// TestPoolBudget: a share past its budget of core time stops with a
// *BudgetError that says so.
func TestPoolBudget(t *testing.T) {
	p := NewPool(2, DefaultQuantum)
	err := Do(p.Join(context.Background(), time.Millisecond), 2, 4, func(ctx context.Context, i int) error {
		for {
			if err := Yield(ctx); err != nil {
				return err
			}
		}
	})
	var be *BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("Do returned %v, want a *BudgetError", err)
	}
	if be.Used < time.Millisecond || be.Budget != time.Millisecond {
		t.Errorf("%+v: want Used ≥ Budget = 1ms", be)
	}
	if !strings.Contains(be.Error(), "budget") {
		t.Errorf("%q does not name the budget", be.Error())
	}
	if p.Held() != 0 {
		t.Errorf("%d cores held after the work", p.Held())
	}
}

// TestPoolNestedDo: a Do within a job of a share runs on the core its
// caller holds, rather than waiting for a core the caller holds itself.
func TestPoolNestedDo(t *testing.T) {
	p := NewPool(1, 0)
	var peak atomic.Int32
	var n atomic.Int32
	err := Do(p.Join(context.Background(), 0), 2, 2, func(ctx context.Context, i int) error {
		return Do(ctx, 4, 10, func(ctx context.Context, j int) error {
			peak.Store(max(peak.Load(), int32(p.Held())))
			n.Add(1)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 20 || peak.Load() != 1 {
		t.Errorf("%d jobs ran with up to %d cores held; want 20 on 1", n.Load(), peak.Load())
	}
}

// TestPoolSharesEveryJobOnce: under a share, Do still runs each job once,
// on no more goroutines at a time than the pool has cores.
func TestPoolSharesEveryJobOnce(t *testing.T) {
	p := NewPool(3, 0)
	var wg sync.WaitGroup
	var running, peak atomic.Int32
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := make([]atomic.Int32, 50)
			err := Do(p.Join(context.Background(), 0), 4, 50, func(ctx context.Context, i int) error {
				r := running.Add(1)
				for q := peak.Load(); r > q && !peak.CompareAndSwap(q, r); q = peak.Load() {
				}
				seen[i].Add(1)
				running.Add(-1)
				return Yield(ctx)
			})
			if err != nil {
				t.Error(err)
			}
			for i := range seen {
				if seen[i].Load() != 1 {
					t.Errorf("job %d ran %d times", i, seen[i].Load())
				}
			}
		}()
	}
	wg.Wait()
	if peak.Load() > 3 {
		t.Errorf("%d jobs ran at once on 3 cores", peak.Load())
	}
}
