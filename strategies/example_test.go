package strategies_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// A fixed 100 ms policy that allows 4 attempts: a request that keeps failing
// retries 3 times and then gives up.
func ExamplePolicy() {
	p, _ := strategies.Defaults(strategies.NameFixed)
	p.MaxAttempts = 4
	pol, err := strategies.New(p)
	if err != nil {
		panic(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var s strategies.State
	pol.Begin(&s, 0, 10*time.Second)
	for {
		now := s.AttemptStart + 50*time.Millisecond // the attempt fails after 50 ms
		d, ok := pol.Retry(&s, now, rng)
		if !ok {
			fmt.Printf("gave up at %v after %d retries\n", now, s.Retries)
			return
		}
		fmt.Printf("failed at %v, retry %d in %v\n", now, s.Retries, d)
	}
	// Output:
	// failed at 50ms, retry 1 in 100ms
	// failed at 200ms, retry 2 in 100ms
	// failed at 350ms, retry 3 in 100ms
	// gave up at 500ms after 3 retries
}

// gRPC's first wait counts from the failed attempt's start: an attempt that
// started at 0 and failed at 300 ms waits until its 1 s deadline.
func ExampleGRPC() {
	p, _ := strategies.Defaults(strategies.NameGRPC)
	pol, _ := strategies.New(p)
	var s strategies.State
	pol.Begin(&s, 0, 0)
	fmt.Println("timeout:", pol.AttemptTimeout(&s, 2*time.Second))
	d, _ := pol.Retry(&s, 300*time.Millisecond, rand.New(rand.NewPCG(1, 2)))
	fmt.Println("wait:", d, "backoff now:", s.Prev)
	// Output:
	// timeout: 20s
	// wait: 700ms backoff now: 1.6s
}

func ExampleRetryDelays() {
	p, _ := strategies.Defaults(strategies.NameFixed)
	p.MaxAttempts = 3
	d, _ := strategies.RetryDelays(p, 10*time.Second, 5, 100, 1)
	for _, b := range d.Retries {
		fmt.Println(b.Retry, b.Draws, b.P5, b.P50, b.P95, b.Max)
	}
	for _, g := range d.GaveUp {
		fmt.Printf("%d draws gave up after retry %d: %s\n", g.Draws, g.After, g.By)
	}
	// Output:
	// 1 100 100ms 100ms 100ms 100ms
	// 2 100 100ms 100ms 100ms 100ms
	// 100 draws gave up after retry 2: max_attempts
}

func ExampleQuantile() {
	sorted := []time.Duration{10, 20, 30, 40, 50}
	fmt.Println(strategies.Quantile(sorted, 0.5), strategies.Quantile(sorted, 0.95), strategies.Quantile([]float64{}, 0.5))
	// Output: 30ns 50ns 0
}
