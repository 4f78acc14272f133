package strategies

import (
	"fmt"
	"testing"
	"time"
)

func newDefaultBudget() *RetryBudget {
	return NewRetryBudget(RetryBudgetConfig{Percent: DefaultBudgetPercent, MinPerSec: DefaultBudgetMinPerSec, TTL: DefaultBudgetTTL})
}

// TestRetryBudgetArithmetic: Finagle's units: a request deposits 1000, a
// retry costs 1000/percent, the reserve is min_per_sec retries per second
// of ttl; percent 0 makes every retry cost 1 and deposits nothing.
func TestRetryBudgetArithmetic(t *testing.T) {
	cases := []struct {
		percent                      float64
		minPerSec                    int
		ttl                          time.Duration
		deposit, withdrawal, reserve int64
	}{
		{20, 10, 10 * time.Second, 1000, 5000, 500_000},
		{30, 10, 10 * time.Second, 1000, 3333, 333_300}, // truncated, as Finagle's toInt
		{100, 0, time.Second, 1000, 1000, 0},
		{200, 1, 2 * time.Second, 1000, 500, 1000},
		{0, 5, 10 * time.Second, 0, 1, 50},
		{0, 0, 10 * time.Second, 0, 1, 0},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v%%/%d/%v", c.percent, c.minPerSec, c.ttl), func(t *testing.T) {
			b := NewRetryBudget(RetryBudgetConfig{Percent: c.percent, MinPerSec: c.minPerSec, TTL: c.ttl})
			if b.deposit != c.deposit || b.withdrawal != c.withdrawal || b.reserve != c.reserve {
				t.Errorf("deposit %d withdrawal %d reserve %d; want %d %d %d",
					b.deposit, b.withdrawal, b.reserve, c.deposit, c.withdrawal, c.reserve)
			}
		})
	}
}

// TestRetryBudgetBalance: the defaults' reserve pays for 100 retries at
// once; then every five requests pay for one more; withdrawals and
// deposits leave the balance after ttl (to a tenth of it); a budget of no
// percent and no minimum never pays.
func TestRetryBudgetBalance(t *testing.T) {
	b := newDefaultBudget()
	var s State
	withdraw := func(now time.Duration, max int) int {
		n := 0
		for n < max && b.AllowRetry(&s, now, nil) {
			n++
		}
		return n
	}
	if got := b.Balance(0); got != 100 {
		t.Errorf("balance %v at the start, want 100 (10/s × 10 s)", got)
	}
	if n := withdraw(0, 1000); n != 100 {
		t.Errorf("%d retries from the reserve, want 100", n)
	}
	for range 4 {
		b.AllowFirst(&s, time.Second, nil)
	}
	if n := withdraw(time.Second, 10); n != 0 {
		t.Errorf("four requests paid for %d retries, want 0", n)
	}
	b.AllowFirst(&s, time.Second, nil)
	if n := withdraw(time.Second, 10); n != 1 {
		t.Errorf("five requests paid for %d retries, want 1", n)
	}
	// The 100 withdrawals at 0 leave in the slice [10 s, 11 s); the
	// deposits and the withdrawal at 1 s a slice later.
	for _, c := range []struct {
		at   time.Duration
		want float64
	}{{9999 * time.Millisecond, 0}, {10 * time.Second, 100}, {11 * time.Second, 100}} {
		if got := b.Balance(c.at); got != c.want {
			t.Errorf("balance %v at %v, want %v", got, c.at, c.want)
		}
	}
	empty := NewRetryBudget(RetryBudgetConfig{Percent: 0, MinPerSec: 0, TTL: 10 * time.Second})
	for range 100 {
		empty.AllowFirst(&s, 0, nil)
	}
	if empty.AllowRetry(&s, 0, nil) {
		t.Error("a budget of 0 % and no minimum paid for a retry")
	}
}

// TestRetryBudgetBound: requests at a steady rate, each retried as often
// as the budget pays: over any span the retries are at most percent of the
// requests of the span and the ttl before it, plus min_per_sec for the
// span and the ttl; and at a steady state they come near that.
func TestRetryBudgetBound(t *testing.T) {
	for _, rate := range []int{10, 100, 1000} { // requests per second
		t.Run(fmt.Sprint(rate, "/s"), func(t *testing.T) {
			b := newDefaultBudget()
			pol := NewPolicy(Fixed{Delay: time.Millisecond}, b)
			rng := newRNG(1040)
			var s State
			const span = 60 * time.Second
			step := time.Second / time.Duration(rate)
			requests, retries := 0, 0
			var atTTL [2]int // requests and retries in the first ttl
			for now := time.Duration(0); now < span; now += step {
				pol.Begin(&s, now, 0)
				pol.AllowFirst(&s, now, rng)
				requests++
				for range 3 { // a client that would retry three times at once
					pol.Record(&s, now, Error)
					if _, ok := pol.Retry(&s, now, rng); !ok {
						break
					}
					retries++
				}
				if now < DefaultBudgetTTL {
					atTTL = [2]int{requests, retries}
				}
			}
			bound := 0.2*float64(requests) + 10*(span+DefaultBudgetTTL).Seconds()
			steady := 0.2*float64(requests-atTTL[0]) + 10*(span-DefaultBudgetTTL).Seconds()
			if got := float64(retries); got > bound || float64(retries-atTTL[1]) < 0.95*steady {
				t.Errorf("%d retries for %d requests: want at most %.0f, and at least 95 %% of %.0f after the first ttl",
					retries, requests, bound, steady)
			}
			t.Logf("%d requests, %d retries (bound %.0f)", requests, retries, bound)
		})
	}
}
