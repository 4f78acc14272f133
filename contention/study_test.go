package contention

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/backofflab/backofflab/strategies"
)

// study runs a study of the given Ns and runs with every strategy, seed 1.
func study(t *testing.T, runs int, ns ...int) map[string]map[int]Point {
	t.Helper()
	spec := Spec{Ns: ns, Seeds: runs, Strategies: LineNames(), Seed: 1}
	points, err := Run(context.Background(), spec, Options{Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != spec.Points() {
		t.Fatalf("%d points, want %d", len(points), spec.Points())
	}
	by := map[string]map[int]Point{}
	for _, p := range points {
		if by[p.Strategy] == nil {
			by[p.Strategy] = map[int]Point{}
		}
		by[p.Strategy][p.Clients] = p
	}
	return by
}

// TestStudyShape checks what the blog's charts show and this engine shows
// robustly, with margins, over 20 runs of seed 1 at N = 50, 100 and 190:
// no backoff makes the most calls; full jitter makes fewer calls than
// exponential backoff without jitter (under 70 % of them) and, like every
// jittered strategy, finishes in under a third of its time; no backoff,
// for all its calls, finishes first.
func TestStudyShape(t *testing.T) {
	by := study(t, 20, 50, 100, 190)
	none, expo, full := by[strategies.NameFixed], by[strategies.NameExponential], by[strategies.NameFullJitter]
	for _, n := range []int{50, 100, 190} {
		for _, name := range LineNames()[1:] {
			if p := by[name][n]; p.Calls.Mean >= none[n].Calls.Mean {
				t.Errorf("N=%d: %s makes %.1f calls, no backoff %.1f: want no backoff to make the most", n, name, p.Calls.Mean, none[n].Calls.Mean)
			}
			if p := by[name][n]; p.Time.Mean <= none[n].Time.Mean {
				t.Errorf("N=%d: %s finishes in %.3fs, before no backoff's %.3fs", n, name, p.Time.Mean, none[n].Time.Mean)
			}
		}
		if full[n].Calls.Mean >= 0.7*expo[n].Calls.Mean {
			t.Errorf("N=%d: full jitter makes %.1f calls, exponential %.1f: want under 70 %%", n, full[n].Calls.Mean, expo[n].Calls.Mean)
		}
		for _, name := range []string{strategies.NameFullJitter, strategies.NameEqualJitter, strategies.NameDecorrelated} {
			if p := by[name][n]; p.Time.Mean >= expo[n].Time.Mean/3 {
				t.Errorf("N=%d: %s finishes in %.3fs, exponential in %.3fs: want under a third", n, name, p.Time.Mean, expo[n].Time.Mean)
			}
		}
	}
}

// TestStudyBookkeeping: every point has its runs, and its spread brackets
// its mean; a point's calls are at least its clients' one write each.
func TestStudyBookkeeping(t *testing.T) {
	for name, ps := range study(t, 7, 1, 10, 30) {
		for n, p := range ps {
			if p.Runs != 7 || p.Calls.Min > p.Calls.Mean || p.Calls.Mean > p.Calls.Max || p.Time.Min > p.Time.Mean || p.Time.Mean > p.Time.Max {
				t.Errorf("%s N=%d: %+v", name, n, p)
			}
			if p.Calls.Min < float64(n) || n == 1 && (p.Calls.Max != 1 || p.Calls.SD != 0) {
				t.Errorf("%s N=%d: calls %+v", name, n, p.Calls)
			}
		}
	}
}

// TestStudyDeterministic: the numbers depend on the spec alone, not on the
// workers or the order the runs end in.
func TestStudyDeterministic(t *testing.T) {
	spec := Spec{Ns: []int{10, 40}, Seeds: 6, Strategies: []string{strategies.NameDecorrelated, strategies.NameFixed}, Seed: 3}
	one, err := Run(context.Background(), spec, Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	three, err := Run(context.Background(), spec, Options{Parallel: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, three) {
		t.Fatalf("1 worker: %+v\n3 workers: %+v", one, three)
	}
	spec.Seed = 4
	other, err := Run(context.Background(), spec, Options{Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(one, other) {
		t.Fatal("seeds 3 and 4 gave the same study")
	}
}

// TestStudyProgress: Point reports every point once, done counting up to
// the total, each in the spec's list.
func TestStudyProgress(t *testing.T) {
	spec := Spec{Ns: []int{5, 15}, Seeds: 4, Strategies: LineNames(), Seed: 1}
	seen := map[[2]any]bool{}
	last := 0
	points, err := Run(context.Background(), spec, Options{Parallel: 2, Point: func(p Point, done, total int) {
		if done != last+1 || total != spec.Points() {
			t.Errorf("done %d after %d, total %d", done, last, total)
		}
		last = done
		k := [2]any{p.Strategy, p.Clients}
		if seen[k] {
			t.Errorf("point %v reported twice", k)
		}
		seen[k] = true
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range points {
		if !seen[[2]any{p.Strategy, p.Clients}] {
			t.Errorf("point %s N=%d never reported", p.Strategy, p.Clients)
		}
	}
}

// TestStudyCancel: a cancel stops the study and leaves nothing running
// (TestMain's goleak checks), and an error of Each stops it too.
func TestStudyCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec := DefaultSpec()
	n := 0
	_, err := Run(ctx, spec, Options{Parallel: 2, Point: func(Point, int, int) {
		if n++; n == 1 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if n >= spec.Points() {
		t.Fatalf("all %d points ran after the cancel", n)
	}
}

// TestMemoryCoversARun: what Spec.Memory reserves for a run of N clients
// covers what Simulate allocates for it, the heap's growth included.
func TestMemoryCoversARun(t *testing.T) {
	spec := Spec{Ns: []int{190}, Seeds: 1, Strategies: []string{strategies.NameFixed}, Seed: 1}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := Simulate(context.Background(), 190, policy(t, strategies.NameFixed), DefaultNet, rand.New(rand.NewPCG(1, 1))); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got, want := int64(after.TotalAlloc-before.TotalAlloc), spec.Memory(1); got > want {
		t.Errorf("a run of 190 clients allocated %d bytes; Memory reserves %d", got, want)
	}
}
