package contention

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"unsafe"

	"github.com/backofflab/backofflab/internal/parallel"
	"github.com/backofflab/backofflab/strategies"
)

// Stat sums up one measure over a point's runs.
type Stat struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"` // the sample standard deviation; 0 for one run
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// stat returns xs' Stat.
func stat(xs []float64) Stat {
	s := Stat{Min: math.Inf(1), Max: math.Inf(-1)}
	for _, x := range xs {
		s.Mean += x
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	s.Mean /= float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - s.Mean) * (x - s.Mean)
		}
		s.SD = math.Sqrt(ss / float64(len(xs)-1))
	}
	return s
}

// Point is one strategy at one N: its runs summed up.
type Point struct {
	Strategy string `json:"strategy"`
	Clients  int    `json:"clients"`
	Runs     int    `json:"runs"`
	// Calls are the writes of a run (Result.Calls), the blog's work.
	Calls Stat `json:"calls"`
	// Time is a run's completion time (Result.Time), in seconds.
	Time Stat `json:"time"`
	// MaxAttempts are the most writes any one client of a run made.
	MaxAttempts Stat `json:"max_attempts"`
}

// Options tune how Run runs a study; the zero Options run it on every CPU
// on DefaultNet.
type Options struct {
	// Parallel is how many runs go at once, the -parallel flag
	// (scenario.ParallelParam; parallel.Workers: 0 means one per CPU).
	Parallel int
	// Net is the network; the zero Net means DefaultNet.
	Net Net
	// Point, when set, is given each point as soon as its last run ends,
	// with how many points are done of how many; calls are never
	// concurrent.
	Point func(p Point, done, total int)
}

// clientBytes is what Simulate allocates per client, with room: its
// strategies.State (56 bytes), the version it read, whether it won, its
// writes and its finish time, and its message in the heap (24 bytes);
// TestMemoryCoversARun measured 26 424 bytes for a run of 190 clients,
// 139 a client, its policy and result included.
const clientBytes = 160

// Memory returns about how many bytes Run holds for s with atOnce runs at
// once (Options.Parallel): every run's three numbers and every point, plus
// a run of the largest N on each goroutine. A server reserves it from its memory budget.
func (s Spec) Memory(atOnce int) int64 {
	largest := 0
	for _, n := range s.Ns {
		largest = max(largest, n)
	}
	points := int64(s.Points())
	return points*int64(s.Seeds)*3*8 + points*int64(unsafe.Sizeof(Point{})) +
		int64(parallel.Workers(atOnce))*int64(largest)*clientBytes
}

// Stream returns the stream of run r at n clients in a study of seed
// seed: its RNG is rand.New(rand.NewPCG(seed, Stream(n, r))). Every strategy
// meets the same network at its first messages (common random numbers),
// so that two lines differ by their strategies, not by their luck.
func Stream(n, r int) uint64 { return uint64(n)<<32 | uint64(r) }

// Run runs spec's study: for each N of spec.Ns and each of its strategies
// (a point), spec.Seeds runs, each on its own goroutine of opt.Parallel
// (parallel.Do). It returns the points in the order of spec.Ns, then of
// spec.Strategies. The numbers depend on spec alone, not on opt.Parallel or
// the order the runs end in. It stops at ctx's end, returning its error.
func Run(ctx context.Context, spec Spec, opt Options) ([]Point, error) {
	net := opt.Net
	if net == (Net{}) {
		net = DefaultNet
	}
	nl := len(spec.Strategies)
	params := make([]strategies.Params, nl)
	for i, name := range spec.Strategies {
		l, err := LineOf(name)
		if err != nil {
			return nil, err
		}
		params[i] = l.Params
	}
	total := len(spec.Ns) * nl
	points := make([]Point, total)
	calls := make([][]float64, total)
	times := make([][]float64, total)
	most := make([][]float64, total)
	left := make([]int, total)
	for p := range points {
		points[p] = Point{Strategy: spec.Strategies[p%nl], Clients: spec.Ns[p/nl], Runs: spec.Seeds}
		calls[p], times[p], most[p] = make([]float64, spec.Seeds), make([]float64, spec.Seeds), make([]float64, spec.Seeds)
		left[p] = spec.Seeds
	}
	var mu sync.Mutex // guards left, done and the calls of opt.Point
	done := 0
	err := parallel.Do(ctx, opt.Parallel, total*spec.Seeds, func(ctx context.Context, i int) error {
		p, r := i/spec.Seeds, i%spec.Seeds
		pt := points[p]
		pol, err := strategies.New(params[p%nl])
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(spec.Seed, Stream(pt.Clients, r)))
		res, err := Simulate(ctx, pt.Clients, pol, net, rng)
		if err != nil {
			return err
		}
		calls[p][r], times[p][r] = float64(res.Calls), res.Time.Seconds()
		for _, a := range res.Attempts {
			most[p][r] = max(most[p][r], float64(a))
		}
		mu.Lock()
		defer mu.Unlock()
		if left[p]--; left[p] > 0 {
			return nil
		}
		points[p].Calls, points[p].Time, points[p].MaxAttempts = stat(calls[p]), stat(times[p]), stat(most[p])
		done++
		if opt.Point != nil {
			opt.Point(points[p], done, total)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return points, nil
}
