package contention

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// fixedNet makes every message take 10 ms: the cases below are derived by
// hand from it.
var fixedNet = Net{Mean: 10 * time.Millisecond}

// top is a random source stuck at its largest value: every uniform draw
// from [lo, hi) then gives hi − 1 ns (Int64N(n) is the top 64 bits of
// x × n, n − 1 for x = 2^64 − 1), so a strategy's waits are known.
type top struct{}

func (top) Uint64() uint64 { return math.MaxUint64 }

// policy returns the study's policy of strategy name.
func policy(t *testing.T, name string) *strategies.Policy {
	t.Helper()
	l, err := LineOf(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strategies.New(l.Params)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func simulate(t *testing.T, n int, name string, net Net, rng *rand.Rand) Result {
	t.Helper()
	res, err := Simulate(context.Background(), n, policy(t, name), net, rng)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestOneClient: one client reads, then writes, and is done: one call, and
// the time is its four messages' delays (a read and a write are a round
// trip each), the four first draws of its RNG.
func TestOneClient(t *testing.T) {
	for _, name := range LineNames() {
		t.Run(name, func(t *testing.T) {
			res := simulate(t, 1, name, DefaultNet, rand.New(rand.NewPCG(7, 8)))
			want := time.Duration(0)
			rng := rand.New(rand.NewPCG(7, 8))
			for range 4 {
				want += time.Duration(math.Abs(10e6 + 2e6*rng.NormFloat64()))
			}
			if res.Calls != 1 || res.Reads != 1 || res.Failures != 0 || res.Time != want || !slices.Equal(res.Attempts, []int{1}) {
				t.Errorf("got %d calls, %d reads, %d failures, time %v, attempts %v; want 1, 1, 0, %v, [1]",
					res.Calls, res.Reads, res.Failures, res.Time, res.Attempts, want)
			}
		})
	}
}

// TestTwoClientsByHand: both reads reach the row at 10 ms and read version
// 0; both writes reach it at 30 ms, client 0's first (it was sent first),
// which wins; client 1 learns it lost at 40 ms, waits its strategy's first
// wait, and reads (50 ms + wait), writes and wins, and learns it at
// 80 ms + wait. The first wait is the simulator's backoff(1): exponential
// 2 × 5 ms, and the top source makes each jittered wait its range's last
// nanosecond: full jitter U(0, 10 ms), equal jitter 5 ms + U(0, 5 ms),
// decorrelated U(5 ms, 15 ms).
func TestTwoClientsByHand(t *testing.T) {
	waits := map[string]time.Duration{
		strategies.NameFixed:        0,
		strategies.NameExponential:  10 * time.Millisecond,
		strategies.NameFullJitter:   10*time.Millisecond - 1,
		strategies.NameEqualJitter:  10*time.Millisecond - 1,
		strategies.NameDecorrelated: 15*time.Millisecond - 1,
	}
	for _, name := range LineNames() {
		t.Run(name, func(t *testing.T) {
			wait, ok := waits[name]
			if !ok {
				t.Fatalf("no hand-derived wait for %s", name)
			}
			res := simulate(t, 2, name, fixedNet, rand.New(top{}))
			want := 80*time.Millisecond + wait
			if res.Calls != 3 || res.Reads != 3 || res.Failures != 1 || res.Time != want ||
				!slices.Equal(res.Attempts, []int{1, 2}) || !slices.Equal(res.Finished, []time.Duration{40 * time.Millisecond, want}) {
				t.Errorf("got %d calls, %d reads, %d failures, time %v, attempts %v, finished %v; want 3, 3, 1, %v, [1 2], [40ms %v]",
					res.Calls, res.Reads, res.Failures, res.Time, res.Attempts, res.Finished, want, want)
			}
		})
	}
}

// TestLockstepByHand: with every message 10 ms and no jitter in the
// waits, the clients stay in lockstep, so each round of read and write
// (40 ms, plus the round's wait) lets exactly one write through, the
// first sent: client c wins round c+1, after c+1 writes. N clients make
// N + (N−1) + … + 1 = N(N+1)/2 calls; no backoff finishes at 40N ms, and
// exponential backoff waits the simulator's min(2 s, 5 ms × 2^(k+1)) after
// round k+1 too.
func TestLockstepByHand(t *testing.T) {
	for _, name := range []string{strategies.NameFixed, strategies.NameExponential} {
		for _, n := range []int{1, 2, 5, 20} {
			res := simulate(t, n, name, fixedNet, rand.New(rand.NewPCG(1, 2)))
			want := time.Duration(40*n) * time.Millisecond
			if name == strategies.NameExponential {
				for k := range n - 1 {
					want += min(2*time.Second, 5*time.Millisecond<<(k+1))
				}
			}
			if res.Calls != n*(n+1)/2 || res.Reads != res.Calls || res.Time != want {
				t.Errorf("%s, N=%d: %d calls, %d reads, time %v; want %d, %d, %v", name, n, res.Calls, res.Reads, res.Time,
					n*(n+1)/2, n*(n+1)/2, want)
			}
			for c, a := range res.Attempts {
				if a != c+1 {
					t.Errorf("%s, N=%d: client %d made %d writes, want %d", name, n, c, a, c+1)
				}
			}
		}
	}
}

// TestEveryClientWritesOnce: on the real network, every client's last
// write, and only it, succeeds: as many successes as clients, each client
// finished, the last at the run's time, and every write counted once.
func TestEveryClientWritesOnce(t *testing.T) {
	for _, name := range LineNames() {
		for seed := range uint64(5) {
			res := simulate(t, 60, name, DefaultNet, rand.New(rand.NewPCG(seed, 9)))
			sum, last := 0, time.Duration(0)
			for c := range 60 {
				if res.Attempts[c] < 1 || res.Finished[c] <= 0 {
					t.Fatalf("%s seed %d: client %d: %d writes, finished at %v", name, seed, c, res.Attempts[c], res.Finished[c])
				}
				sum += res.Attempts[c]
				last = max(last, res.Finished[c])
			}
			if res.Calls-res.Failures != 60 || sum != res.Calls || res.Reads != res.Calls || last != res.Time {
				t.Errorf("%s seed %d: %d calls, %d failures, %d reads, %d writes by the clients, last done %v, time %v",
					name, seed, res.Calls, res.Failures, res.Reads, sum, last, res.Time)
			}
		}
	}
}

// TestSimulateStopsOnCancel: a cancelled run returns ctx's error.
func TestSimulateStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Simulate(ctx, 190, policy(t, strategies.NameFixed), DefaultNet, rand.New(rand.NewPCG(1, 1)))
	if err != context.Canceled {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestSimulateRefusesAStrategyThatGivesUp: none would leave its clients
// unfinished; the run says so instead of counting them done.
func TestSimulateRefusesAStrategyThatGivesUp(t *testing.T) {
	p, err := strategies.New(strategies.Params{Strategy: strategies.NameNone})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Simulate(context.Background(), 3, p, fixedNet, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Fatal("no error for a strategy that gives up")
	}
	if _, err := Simulate(context.Background(), 0, p, fixedNet, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Fatal("no error for 0 clients")
	}
}
