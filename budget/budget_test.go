package budget_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/backofflab/backofflab/budget"
)

func TestRunGrowShrink(t *testing.T) {
	pool := budget.NewPool(100)
	a, b := budget.NewAccount(pool, 60), budget.NewAccount(pool, 60)
	steps := []struct {
		run     *budget.Account
		grow    int64
		wantErr string // "" for none
		used    int64  // the run's after the step
		pool    int64
	}{
		{a, 50, "", 50, 50},
		{a, 11, "the memory budget of a run (60 B)", 50, 50},
		{b, 40, "", 40, 90},
		{b, 11, "the server's memory budget (100 B, shared by every page and export)", 40, 90},
		{a, 10, "", 60, 100},
		{a, -5, "", 60, 100}, // a negative grow takes nothing
		{b, 0, "", 40, 100},
	}
	for i, s := range steps {
		err := s.run.Grow(s.grow)
		got := ""
		if err != nil {
			got = err.Error()
			var ex *budget.ExceededError
			if !errors.As(err, &ex) {
				t.Errorf("step %d: %T is not an ExceededError", i, err)
			}
		}
		if got != s.wantErr || s.run.Used() != s.used || pool.Used() != s.pool {
			t.Errorf("step %d: Grow(%d) = %q, used %d, pool %d; want %q, %d, %d",
				i, s.grow, got, s.run.Used(), pool.Used(), s.wantErr, s.used, s.pool)
		}
	}
	a.Shrink(1000) // never more than it holds
	if a.Used() != 0 || pool.Used() != 40 {
		t.Errorf("after Shrink: run %d, pool %d", a.Used(), pool.Used())
	}
	b.Close()
	if b.Used() != 0 || pool.Used() != 0 || pool.Free() != 100 {
		t.Errorf("after Close: run %d, pool %d, free %d", b.Used(), pool.Used(), pool.Free())
	}
	var none *budget.Account // a nil run bounds nothing
	if err := none.Grow(1 << 40); err != nil {
		t.Errorf("nil run: %v", err)
	}
	none.Shrink(1)
	none.Close()
}

// TestPoolConcurrent: runs that grow and shrink at once never take more
// than the pool holds, and give it all back.
func TestPoolConcurrent(t *testing.T) {
	pool := budget.NewPool(1000)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			r := budget.NewAccount(pool, 500)
			for k := range 10_000 {
				if r.Grow(int64(k%7)) == nil && pool.Used() > pool.Max() {
					t.Errorf("pool used %d of %d", pool.Used(), pool.Max())
				}
				if k%3 == 0 {
					r.Shrink(int64(k % 5))
				}
			}
			r.Close()
		})
	}
	wg.Wait()
	if pool.Used() != 0 {
		t.Errorf("pool holds %d after every run closed", pool.Used())
	}
}

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"256MiB", 256 << 20, true},
		{"1.5GiB", 3 << 29, true},
		{"512MB", 512e6, true},
		{"64 KiB", 64 << 10, true},
		{"4096", 4096, true},
		{"2g", 2 << 30, true},
		{"", 0, false},
		{"MiB", 0, false},
		{"-1GiB", 0, false},
		{"12 parsecs", 0, false},
		{"1e3", 0, false},
		{"99999999999TiB", 0, false},
		// A fraction of a byte is refused, not dropped.
		{"1.5", 0, false},
		{"1.0001KB", 0, false},
		{"0.5B", 0, false},
		{"1.1GiB", 0, false},
		{"0.001KB", 1, true},
		{"1.5KiB", 1536, true},
		{"0.3MB", 300_000, true},
		{"1.", 1, true},
	} {
		got, err := budget.ParseBytes(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1 KiB", 256 << 20: "256 MiB", 3 << 29: "1.5 GiB", 6 << 30: "6 GiB",
	} {
		if got := budget.Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func ExampleAccount() {
	pool := budget.NewPool(1 << 30)         // the server's budget
	run := budget.NewAccount(pool, 256<<20) // one page's run
	fmt.Println(run.Grow(200 << 20))        // fits
	fmt.Println(run.Grow(100 << 20))        // would pass the run's limit
	run.Close()                             // the page left
	fmt.Println(budget.Bytes(pool.Used()))
	// Output:
	// <nil>
	// the memory budget of a run (256 MiB)
	// 0 B
}

// TestShare: a share is bounded by its own limit whatever its siblings
// hold, and passes every change on to its lead, whose limit and pool
// bound all of them.
func TestShare(t *testing.T) {
	pool := budget.NewPool(1000)
	lead := budget.NewAccount(pool, 100)
	a, b := lead.Share(50), lead.Share(50)
	if err := a.Grow(40); err != nil {
		t.Fatalf("Grow within the share: %v", err)
	}
	err := a.Grow(11)
	var ex *budget.ExceededError
	if !errors.As(err, &ex) || ex.Limit != 50 || ex.Of != 100 || ex.Shared {
		t.Fatalf("Grow past the share: %v, want its share's ExceededError", err)
	}
	if want := "the memory budget of a run (100 B; 50 B a lane)"; err.Error() != want {
		t.Errorf("the share's error %q, want %q", err, want)
	}
	if err := b.Grow(50); err != nil {
		t.Fatalf("the other share, to its limit: %v", err)
	}
	if a.Used() != 40 || b.Used() != 50 || lead.Used() != 90 || pool.Used() != 90 {
		t.Fatalf("shares %d and %d, lead %d, pool %d; want 40, 50, 90, 90", a.Used(), b.Used(), lead.Used(), pool.Used())
	}
	// The lead bounds its shares together: what it holds of its own
	// counts too.
	if err := lead.Grow(5); err != nil {
		t.Fatalf("the lead's own Grow: %v", err)
	}
	if err := a.Grow(10); !errors.As(err, &ex) || ex.Limit != 100 || ex.Of != 0 {
		t.Fatalf("a share's Grow past the lead's limit: %v, want the lead's ExceededError", err)
	}
	if a.Used() != 40 || lead.Used() != 95 {
		t.Fatalf("after the refused Grow: share %d, lead %d; want 40, 95", a.Used(), lead.Used())
	}
	a.Shrink(1000) // never more than it holds
	b.Close()
	if a.Used() != 0 || b.Used() != 0 || lead.Used() != 5 || pool.Used() != 5 {
		t.Fatalf("after Shrink and Close: shares %d and %d, lead %d, pool %d; want 0, 0, 5, 5", a.Used(), b.Used(), lead.Used(), pool.Used())
	}
	one := lead.Share(100)
	if err := one.Grow(200); err == nil || err.Error() != "the memory budget of a run (100 B)" {
		t.Errorf("a share of the whole run: %v, want the run's own words", err)
	}
}

// TestSharesConcurrent: shares of one account grow and shrink from
// goroutines of their own, and their lead and pool add up (run with -race).
func TestSharesConcurrent(t *testing.T) {
	pool := budget.NewPool(1 << 20)
	lead := budget.NewAccount(pool, 1<<20)
	var wg sync.WaitGroup
	for range 4 {
		s := lead.Share(1 << 18)
		wg.Go(func() {
			for i := range 1000 {
				if err := s.Grow(100); err != nil {
					t.Errorf("Grow %d: %v", i, err)
					return
				}
				if i%2 == 0 {
					s.Shrink(50)
				}
			}
		})
	}
	wg.Wait()
	if want := int64(4 * (1000*100 - 500*50)); lead.Used() != want || pool.Used() != want {
		t.Fatalf("lead %d, pool %d; want %d", lead.Used(), pool.Used(), want)
	}
}
