package parallel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// These tests are about how long a core is held, so they run in a
// synctest bubble: its clock moves only when every goroutine in it waits,
// so a job that sleeps 10 ms has held its core exactly 10 ms, whatever
// the machine's load, and the turns can be checked to the millisecond.

// TestPoolQuantumInVirtualTime: a goroutine keeps its core through the
// Yields before its quantum is over, hands it to the waiting share at the
// first Yield after, and takes it back once that share is done.
func TestPoolQuantumInVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewPool(1, 20*time.Millisecond)
		start := time.Now()
		var mu sync.Mutex
		var turns []string
		note := func(who string) {
			mu.Lock()
			defer mu.Unlock()
			turns = append(turns, fmt.Sprintf("%s@%v", who, time.Since(start)))
		}
		var wg sync.WaitGroup
		wg.Go(func() {
			err := Do(p.Join(context.Background(), 0), 1, 1, func(ctx context.Context, i int) error {
				for range 6 {
					time.Sleep(10 * time.Millisecond)
					note("a")
					if err := Yield(ctx); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Errorf("a: %v", err)
			}
		})
		synctest.Wait() // a holds the core and sleeps
		wg.Go(func() {
			err := Do(p.Join(context.Background(), 0), 1, 1, func(ctx context.Context, i int) error {
				note("b")
				return nil
			})
			if err != nil {
				t.Errorf("b: %v", err)
			}
		})
		wg.Wait()
		want := []string{"a@10ms", "a@20ms", "b@20ms", "a@30ms", "a@40ms", "a@50ms", "a@60ms"}
		if !slices.Equal(turns, want) {
			t.Errorf("turns %v, want %v", turns, want)
		}
		if p.Held() != 0 || p.Waiting() != 0 {
			t.Errorf("after the work, %d cores held and %d shares waiting", p.Held(), p.Waiting())
		}
	})
}

// TestPoolBudgetInVirtualTime: a share's budget counts the time its
// goroutines held cores, summed over them, and its first Yield at or past
// the budget stops it with exactly the time used.
func TestPoolBudgetInVirtualTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := NewPool(2, DefaultQuantum)
		var mu sync.Mutex
		yields := 0
		err := Do(p.Join(context.Background(), 50*time.Millisecond), 2, 2, func(ctx context.Context, i int) error {
			for {
				time.Sleep(10 * time.Millisecond)
				if err := Yield(ctx); err != nil {
					return err
				}
				mu.Lock()
				yields++
				mu.Unlock()
			}
		})
		var be *BudgetError
		if !errors.As(err, &be) {
			t.Fatalf("Do returned %v, want a *BudgetError", err)
		}
		// Two cores held from 0: 20 ms used at 10 ms, 40 at 20, 60 at
		// 30, the first Yield past the 50 ms. Counting only a goroutine's
		// own turn, the share would have used 100 ms before it stopped.
		if be.Used != 60*time.Millisecond || be.Budget != 50*time.Millisecond {
			t.Errorf("stopped with Used %v and Budget %v, want 60ms and 50ms", be.Used, be.Budget)
		}
		if yields != 4 {
			t.Errorf("%d Yields let the jobs go on, want 4 (both at 10 and 20 ms)", yields)
		}
		if p.Held() != 0 {
			t.Errorf("%d cores held after the work", p.Held())
		}
	})
}
