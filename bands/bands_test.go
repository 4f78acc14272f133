package bands

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// small is a short run of few clients with an outage: tens of
// milliseconds a seed.
func small(t *testing.T, extra ...string) scenario.Params {
	t.Helper()
	q := url.Values{"clients": {"200"}, "duration": {"20s"}, "outage_at": {"5s"}, "outage_for": {"5s"}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	p, err := scenario.Parse(q)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var nan = math.NaN()

// TestQuantileByHand checks the nearest-rank quantiles against values
// worked out by hand, K = 0, 1, 2 among them.
func TestQuantileByHand(t *testing.T) {
	for _, tc := range []struct {
		name string
		vals []float64
		want [3]float64
	}{
		{"none", nil, [3]float64{nan, nan, nan}},
		{"K=1", []float64{3}, [3]float64{3, 3, 3}},
		// p5: ⌈0.1⌉ = 1st; p50: ⌈1⌉ = 1st; p95: ⌈1.9⌉ = 2nd.
		{"K=2", []float64{2, 1}, [3]float64{1, 1, 2}},
		// p5: ⌈0.25⌉ = 1st; p50: ⌈2.5⌉ = 3rd; p95: ⌈4.75⌉ = 5th.
		{"K=5", []float64{5, 1, 4, 2, 3}, [3]float64{1, 3, 5}},
		// p5: ⌈1⌉ = 1st; p50: ⌈10⌉ = 10th; p95: ⌈19⌉ = 19th.
		{"K=20", []float64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, [3]float64{1, 10, 19}},
		// p5: ⌈5⌉ = 5th; p50: ⌈50⌉ = 50th; p95: ⌈95⌉ = 95th.
		{"K=100", seq(100), [3]float64{5, 50, 95}},
		// p5: ⌈1.05⌉ = 2nd; p50: ⌈10.5⌉ = 11th; p95: ⌈19.95⌉ = 20th.
		{"K=21", seq(21), [3]float64{2, 11, 20}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Quantile(tc.vals)
			for k := range got {
				if !same(got[k], tc.want[k]) {
					t.Errorf("%s = %v, want %v", QuantileNames[k], got[k], tc.want[k])
				}
			}
		})
	}
}

func seq(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(n - i) // reversed: Quantile sorts
	}
	return v
}

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// TestBandsSkipAbsentValues builds a store by hand, two seeds of one lane
// over three ticks, where a value is absent (NaN) in one seed, in both,
// or in neither, and checks each tick's quantiles and the collapsed count.
func TestBandsSkipAbsentValues(t *testing.T) {
	p := scenario.Defaults()
	p.Lanes = p.Lanes[:1]
	cols := len(scenario.Columns)
	r := &Result{Params: p, Seeds: 2, T: []float64{0.1, 0.2, 0.3}, store: make([]float32, 2*3*cols)}
	// Column 0 (ok): seed 0 has 4, 5, absent; seed 1 has 2, absent, absent
	// (a lane that stopped).
	set := func(seed, tick int, v float64) { r.store[r.index(seed, tick, 0, 0)] = float32(v) }
	set(0, 0, 4)
	set(0, 1, 5)
	set(0, 2, nan)
	set(1, 0, 2)
	set(1, 1, nan)
	set(1, 2, nan)
	r.bands([][]scenario.Summary{{{Collapsed: false}}, {{Collapsed: true, Stopped: "memory"}}})
	ln := r.Lanes[0]
	if ln.Collapsed != 1 || len(ln.Outcomes) != 2 || ln.Outcomes[1].Seed != p.Seed+1 {
		t.Errorf("collapsed %d, outcomes %+v", ln.Collapsed, ln.Outcomes)
	}
	want := [][3]float64{{2, 2, 4}, {5, 5, 5}, {nan, nan, nan}}
	for i, w := range want {
		for k := range w {
			if got := float64(ln.Columns[0].Q[k][i]); !same(got, w[k]) {
				t.Errorf("tick %d %s = %v, want %v", i, QuantileNames[k], got, w[k])
			}
		}
	}
	// Every other column is 0 in both seeds.
	if got := ln.Columns[1].Q[2][0]; got != 0 || ln.Columns[1].Name != "errors" {
		t.Errorf("%s p95 = %v, want 0", ln.Columns[1].Name, got)
	}
}

// TestSeedIsTheSingleRun: seed i of a band is the run with seed+i alone,
// every tick's every value (as float32) and every summary byte for byte.
func TestSeedIsTheSingleRun(t *testing.T) {
	p := small(t, "seed", "7", "lanes", "3", "c.strategy", "full_jitter")
	const k = 3
	r, err := Run(context.Background(), p, k, Options{Parallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.T) != TicksOf(p) || TicksOf(p) != 200 {
		t.Fatalf("%d ticks, TicksOf %d, want 200", len(r.T), TicksOf(p))
	}
	for s := range k {
		one := p.Clone()
		one.Seed = p.Seed + uint64(s)
		i := 0
		sums, err := simengine.Run(context.Background(), one, func(tk scenario.Tick) {
			if r.T[i] != tk.T {
				t.Fatalf("seed %d tick %d at %v, band's at %v", s, i, tk.T, r.T[i])
			}
			for l, lt := range tk.Lanes {
				for c, v := range lt.Values() {
					if got, want := r.Value(s, i, l, c), float32(v); math.Float32bits(got) != math.Float32bits(want) {
						t.Fatalf("seed %d tick %d lane %d %s = %v, single run %v", s, i, l, scenario.Columns[c], got, want)
					}
				}
			}
			i++
		})
		if err != nil {
			t.Fatal(err)
		}
		for l := range sums {
			got, _ := json.Marshal(r.Lanes[l].Outcomes[s].Summary)
			want, _ := json.Marshal(sums[l])
			if !bytes.Equal(got, want) {
				t.Errorf("seed %d lane %d summary\n%s\nsingle run\n%s", s, l, got, want)
			}
			if r.Lanes[l].Outcomes[s].Seed != one.Seed {
				t.Errorf("seed %d lane %d outcome's seed %d, want %d", s, l, r.Lanes[l].Outcomes[s].Seed, one.Seed)
			}
		}
	}
	// The bands are the quantiles of the kept values: the median of the
	// three seeds' ok at a tick is the middle one.
	for i := range r.T {
		v := []float64{float64(r.Value(0, i, 1, 0)), float64(r.Value(1, i, 1, 0)), float64(r.Value(2, i, 1, 0))}
		if got, want := r.Lanes[1].Columns[0].Q[1][i], float32(Quantile(v)[1]); got != want {
			t.Fatalf("tick %d median ok %v, want %v", i, got, want)
		}
	}
}

// TestRefusals: a seeds value out of range and a store above the bound
// are refused before anything runs, each naming the seeds parameter.
func TestRefusals(t *testing.T) {
	p := small(t) // 2 lanes × 200 ticks
	for _, tc := range []struct {
		name     string
		seeds    int
		maxCells int64
		allow    string
	}{
		{"no seeds", 0, 0, "from 1 to 100"},
		{"too many seeds", 101, 0, "from 1 to 100"},
		// (10 + 3) × 2 lanes × 200 ticks = 5200.
		{"store too large", 10, 5200 - 1, "from 1 to 9 for this run"},
		{"no seed fits", 1, 4*400 - 1, "none fits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := false
			_, err := Run(context.Background(), p, tc.seeds, Options{MaxCells: tc.maxCells,
				Progress: func(int) { ran = true }})
			var pe *scenario.ParamError
			if tl := (*TooLargeError)(nil); errors.As(err, &tl) {
				pe = tl.ParamError()
			} else if !errors.As(err, &pe) {
				t.Fatalf("err %v, want a ParamError or TooLargeError", err)
			}
			if pe.Name != SeedsParam || !strings.Contains(pe.Allow, tc.allow) {
				t.Errorf("error %v, want seeds with %q", pe, tc.allow)
			}
			if ran {
				t.Error("a seed ran")
			}
		})
	}
	if _, err := Run(context.Background(), p, 10, Options{MaxCells: 5200}); err != nil {
		t.Errorf("a store at the bound: %v", err)
	}
}

// TestStoreBudget: the kept ticks are charged to Options.Store, refused
// past it, and given back when Run returns.
func TestStoreBudget(t *testing.T) {
	p := small(t)
	size := int64((3+3)*2*200) * int64(len(scenario.Columns)) * 4
	if Bytes(p, 3) != size {
		t.Fatalf("Bytes %d, want %d", Bytes(p, 3), size)
	}
	tight := budget.NewAccount(nil, size-1)
	var ex *budget.ExceededError
	if _, err := Run(context.Background(), p, 3, Options{Store: tight}); !errors.As(err, &ex) {
		t.Fatalf("err %v, want a budget.ExceededError", err)
	}
	store := budget.NewAccount(nil, size)
	if _, err := Run(context.Background(), p, 3, Options{Store: store}); err != nil {
		t.Fatal(err)
	}
	if store.Used() != 0 {
		t.Errorf("store holds %d bytes after Run", store.Used())
	}
}

// TestCancelStops: a cancel after the first seed stops the band with the
// context's error; every goroutine is gone (goleak in TestMain), and every
// seed's memory and the store are given back.
func TestCancelStops(t *testing.T) {
	p := small(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool := budget.NewPool(1 << 30)
	store := budget.NewAccount(pool, 1<<30)
	var started atomic.Int32
	_, err := Run(ctx, p, 50, Options{Parallel: 2, Store: store,
		Memory: func() (*budget.Account, error) { started.Add(1); return budget.NewAccount(pool, 64<<20), nil },
		Progress: func(done int) {
			if done == 1 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if n := started.Load(); n >= 50 {
		t.Errorf("%d seeds started after the cancel", n)
	}
	if pool.Used() != 0 {
		t.Errorf("%d bytes still held", pool.Used())
	}
}

// TestProgressCountsEverySeed: Progress is told 1, 2, …, K.
func TestProgressCountsEverySeed(t *testing.T) {
	var got []int
	if _, err := Run(context.Background(), small(t), 4, Options{Parallel: 3,
		Progress: func(done int) { got = append(got, done) }}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0] != 1 || got[3] != 4 {
		t.Errorf("progress %v, want 1 to 4", got)
	}
}

// TestWriters: the CSV has its header and one row per tick per lane of
// 2 + 3 × columns fields; the JSON reads back to the same bands.
func TestWriters(t *testing.T) {
	p := small(t)
	r, err := Run(context.Background(), p, 2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "t,lane,ok_p5,ok_p50,ok_p95,errors_p5,") {
		t.Errorf("header %q", strings.SplitN(b.String(), "\n", 2)[0])
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+200*2 || len(rows[1]) != 2+3*len(scenario.Columns) || rows[1][1] != "a" || rows[2][1] != "b" {
		t.Errorf("%d rows of %d fields, lanes %q %q", len(rows), len(rows[1]), rows[1][1], rows[2][1])
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Seeds int       `json:"seeds"`
		T     []float64 `json:"t"`
		Lanes []struct {
			Name      string                           `json:"name"`
			Collapsed int                              `json:"collapsed"`
			Outcomes  []struct{ Verdict string }       `json:"outcomes"`
			Bands     map[string]map[string][]*float64 `json:"bands"`
		} `json:"lanes"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%.300s", err, b.String())
	}
	if doc.Seeds != 2 || len(doc.T) != 200 || len(doc.Lanes) != 2 || len(doc.Lanes[0].Outcomes) != 2 ||
		doc.Lanes[0].Outcomes[0].Verdict == "" || len(doc.Lanes[1].Bands) != len(scenario.Columns) {
		t.Fatalf("json %+v", doc)
	}
	for i, v := range doc.Lanes[1].Bands["concurrency"]["p95"] {
		if v == nil || float32(*v) != r.Lanes[1].Columns[6].Q[2][i] {
			t.Fatalf("tick %d concurrency p95 %v, want %v", i, v, r.Lanes[1].Columns[6].Q[2][i])
		}
	}
}
