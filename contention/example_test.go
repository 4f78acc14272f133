package contention_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/backofflab/backofflab/contention"
	"github.com/backofflab/backofflab/strategies"
)

// Three clients that retry at once, on a network where every message takes
// 10 ms: each 40 ms round of read and write lets one write through, so
// they make 3 + 2 + 1 calls and the last is done after three rounds.
func ExampleSimulate() {
	line, _ := contention.LineOf(strategies.NameFixed)
	pol, _ := strategies.New(line.Params)
	net := contention.Net{Mean: 10 * time.Millisecond}
	res, _ := contention.Simulate(context.Background(), 3, pol, net, rand.New(rand.NewPCG(1, 1)))
	fmt.Println(line.Label()+":", res.Calls, "calls, done after", res.Time, "; writes per client", res.Attempts)
	// Output: fixed interval, 0 ms: no backoff: 6 calls, done after 120ms ; writes per client [1 2 3]
}

// The blog's study at two Ns, 10 runs each: the mean calls and completion
// time of each strategy.
func ExampleRun() {
	spec := contention.Spec{Ns: []int{10, 100}, Seeds: 10, Strategies: contention.LineNames(), Seed: 1}
	points, _ := contention.Run(context.Background(), spec, contention.Options{})
	for _, p := range points {
		fmt.Printf("N=%d %-12s %6.0f calls %5.2f s\n", p.Clients, p.Strategy, p.Calls.Mean, p.Time.Mean)
	}
	// Output:
	// N=10 fixed            50 calls  0.37 s
	// N=10 exponential      52 calls  4.01 s
	// N=10 full_jitter      40 calls  0.47 s
	// N=10 equal_jitter     42 calls  0.69 s
	// N=10 decorrelated     37 calls  0.43 s
	// N=100 fixed          2434 calls  2.05 s
	// N=100 exponential    1878 calls 64.54 s
	// N=100 full_jitter     797 calls  4.56 s
	// N=100 equal_jitter    810 calls  6.51 s
	// N=100 decorrelated   1000 calls  4.76 s
}
