package simengine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// This file tests the model's parts on their own: steady load against the
// closed-loop formula and Little's law, the verdict detector, the server's
// latency curve, the event queue and the request FIFO.

// TestModelSteadyLoad checks the closed loop without an outage: each client
// makes one request per think + latency, so ok/s = clients / (think +
// server_delay) while concurrency stays under server_limit, and by Little's
// law the mean concurrency is ok/s × server_delay.
func TestModelSteadyLoad(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		clients int
		think   time.Duration
		seeds   []uint64
	}{
		{1000, 10 * time.Second, []uint64{1, 2, 3}},
		{500, 2 * time.Second, []uint64{1, 4}},
	} {
		for _, seed := range c.seeds {
			t.Run(fmt.Sprintf("%d clients, think %v, seed %d", c.clients, c.think, seed), func(t *testing.T) {
				t.Parallel()
				p := scenariotest.CurveDefaults()
				p.Clients, p.Think, p.Seed = c.clients, c.think, seed
				p.Outage = scenario.OutageNone
				p.Duration = 300 * time.Second
				p.Lanes = []scenario.Lane{simLane(strategies.NameFixed)}
				e, ticks := simRun(t, p)
				lts := simSeries(ticks, 0)
				win := simWindow(lts, 10, 300) // past the start, when nobody is in the server
				ok := simMean(win, func(lt scenario.LaneTick) float64 { return lt.OK })
				want := float64(c.clients) / (c.think + p.ServerDelay).Seconds()
				if math.Abs(ok-want) > 0.05*want {
					t.Errorf("%.2f ok/s, want %.2f ± 5 %%", ok, want)
				}
				conc := simMean(win, func(lt scenario.LaneTick) float64 { return float64(lt.Concurrency) })
				if little := ok * p.ServerDelay.Seconds(); math.Abs(conc-little) > 0.1*little {
					t.Errorf("mean concurrency %.2f, Little's law says %.2f ± 10 %%", conc, little)
				}
				t.Logf("ok/s %.2f (formula %.2f), concurrency %.2f", ok, want, conc)

				// Nothing fails, every request succeeds in server_delay.
				s := e.Summaries()[0]
				if s.Attempts != s.Requests || s.GaveUp != 0 || s.Open > int64(c.clients) || s.Collapsed ||
					s.ServerRecoveredAfter != nil || s.ServiceRecoveredAfter != nil {
					t.Errorf("summary %+v", s)
				}
				// Without an outage the baseline is the whole run's ok rate.
				if b := float64(s.Succeeded) / p.Duration.Seconds(); math.Abs(s.BaselineOK-b) > 1e-9*b {
					t.Errorf("baseline %v ok/s, the run made %v", s.BaselineOK, b)
				}
				var p50s []float64
				for _, lt := range win {
					if lt.Timeouts != 0 || lt.Errors != 0 || lt.Retries != 0 {
						t.Fatalf("t=%v: a failure without an outage: %+v", lt.T, lt)
					}
					if !math.IsNaN(lt.P50) {
						p50s = append(p50s, lt.P50)
						if lt.P50 < p.ServerDelay.Seconds() || lt.P99 < lt.P50 {
							t.Fatalf("t=%v: p50 %v, p99 %v under the server's delay", lt.T, lt.P50, lt.P99)
						}
					}
				}
				slices.Sort(p50s)
				if m := p50s[len(p50s)/2]; m > 1.05*p.ServerDelay.Seconds() {
					t.Errorf("median p50 %v s, want about server_delay %v", m, p.ServerDelay.Seconds())
				}
			})
		}
	}
}

// TestModelThinkTimes checks the common-random-number stream of think
// times: a pure function of the seed, the client and the count, the same in
// every lane, exponential with mean think.
func TestModelThinkTimes(t *testing.T) {
	t.Parallel()
	p := scenariotest.CurveDefaults()
	p.Lanes = []scenario.Lane{simLane(strategies.NameFixed), simLane(strategies.NameThinkScaled)}
	e := simNew(t, p)
	a, b := e.lanes[0], e.lanes[1]
	q := p
	q.Seed = 2
	other := simNew(t, q).lanes[0]
	var sum float64
	over, same := 0, 0
	const n = 200_000
	for i := range n {
		ci, k := int32(i%1000), uint32(i/1000+1)
		d := a.thinkTime(ci, k)
		if d < 0 {
			t.Fatalf("think time %v", d)
		}
		if d != b.thinkTime(ci, k) || d != a.thinkTime(ci, k) {
			t.Fatalf("client %d's think time %d differs between lanes or calls", ci, k)
		}
		if d == other.thinkTime(ci, k) {
			same++
		}
		sum += d.Seconds()
		if d > p.Think {
			over++
		}
	}
	mean := sum / n
	// Exponential: the mean is think (standard error think/√n), and
	// P(X > mean) = 1/e.
	if se := p.Think.Seconds() / math.Sqrt(n); math.Abs(mean-p.Think.Seconds()) > 5*se {
		t.Errorf("mean think time %.4f s, want %.4f ± %.4f", mean, p.Think.Seconds(), 5*se)
	}
	if frac := float64(over) / n; math.Abs(frac-math.Exp(-1)) > 0.005 {
		t.Errorf("%.4f of think times over the mean, want 1/e = %.4f", frac, math.Exp(-1))
	}
	if same > 10 {
		t.Errorf("%d think times equal under seeds 1 and 2", same)
	}
	// Consecutive think times of one client are not correlated.
	var sxy, sx, sy float64
	for k := uint32(1); k <= 5000; k++ {
		x, y := a.thinkTime(7, k).Seconds(), a.thinkTime(7, k+1).Seconds()
		sxy, sx, sy = sxy+x*y, sx+x, sy+y
	}
	if cov := sxy/5000 - sx/5000*sy/5000; math.Abs(cov) > 0.1*100 {
		t.Errorf("covariance %.2f s² between consecutive think times", cov)
	}
}

// curveRef is the latency curve written out: 001's formula with the cap.
func curveRef(p *scenario.Params, n int) float64 {
	base := float64(p.ServerDelay)
	if n > p.ServerLimit {
		base *= math.Pow(p.ServerFactor, float64(n-p.ServerLimit)/p.ServerK)
	}
	return math.Min(base, float64(p.MaxServerDelay))
}

func TestModelCurve(t *testing.T) {
	t.Parallel()
	def := scenariotest.CurveDefaults()
	for _, c := range []struct {
		name  string
		set   func(*scenario.Params)
		flat  bool // the same delay at every concurrency
		capAt int  // the first concurrency at the cap, or 0
	}{
		{name: "defaults", capAt: 3256},
		{name: "factor 1", set: func(p *scenario.Params) { p.ServerFactor = 1 }, flat: true},
		{name: "steep", set: func(p *scenario.Params) { p.ServerFactor, p.ServerK, p.MaxServerDelay = 2, 1, time.Second }, capAt: 34},
		{name: "cap under the base", set: func(p *scenario.Params) { p.MaxServerDelay = 50 * time.Millisecond }, flat: true},
		{name: "limit 1, fractional k", set: func(p *scenario.Params) { p.ServerLimit, p.ServerK = 1, 0.7 }},
		{name: "huge k", set: func(p *scenario.Params) { p.ServerK = 1e6 }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := def
			if c.set != nil {
				c.set(&p)
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			cv := newCurve(&p)
			const top = 6000
			got := make([]time.Duration, top+1)
			for n := range got {
				got[n] = cv.delay(n)
			}
			for n, d := range got {
				want := curveRef(&p, n)
				if math.Abs(float64(d)-want) > max(1, 1e-9*want) {
					t.Fatalf("delay(%d) = %v, want %v", n, d, time.Duration(want))
				}
				if n <= p.ServerLimit && d != min(p.ServerDelay, p.MaxServerDelay) {
					t.Fatalf("delay(%d) = %v under the limit, want %v", n, d, p.ServerDelay)
				}
				if d > p.MaxServerDelay {
					t.Fatalf("delay(%d) = %v over the cap %v", n, d, p.MaxServerDelay)
				}
				if n > 0 && d < got[n-1] {
					t.Fatalf("delay(%d) = %v < delay(%d) = %v", n, d, n-1, got[n-1])
				}
				if c.flat && d != got[0] {
					t.Fatalf("delay(%d) = %v, want flat %v", n, d, got[0])
				}
			}
			if c.capAt > 0 {
				if got[c.capAt] != p.MaxServerDelay || got[c.capAt-1] == p.MaxServerDelay {
					t.Errorf("the cap is reached at %d: delay %v, %v before", c.capAt, got[c.capAt], got[c.capAt-1])
				}
				if d := cv.delay(10_000_000); d != p.MaxServerDelay {
					t.Errorf("delay(10 000 000) = %v, want the cap", d)
				}
			}
			// Asked in any order, the cached curve gives the same delays.
			fresh := newCurve(&p)
			rng := rand.New(rand.NewPCG(7, 7))
			for range 2000 {
				n := rng.IntN(top + 1)
				if d := fresh.delay(n); d != got[n] {
					t.Fatalf("delay(%d) = %v asked out of order, %v in order", n, d, got[n])
				}
			}
		})
	}

	t.Run("001", func(t *testing.T) {
		// 001's server printed 2.671444385s at concurrency 1040.
		cv := newCurve(&def)
		d := cv.delay(1040)
		if d != 2671444385*time.Nanosecond {
			t.Errorf("delay(1040) = %v, 001 printed 2.671444385s", d)
		}
		if d := cv.delay(30); d != 100*time.Millisecond {
			t.Errorf("delay(30) = %v", d)
		}
		if d := cv.delay(45); math.Abs(d.Seconds()-0.105) > 1e-9 {
			t.Errorf("delay(45) = %v, want 105ms (one k over the limit)", d)
		}
	})
}

// TestModelFifo drives the curve server's queue with pushes, pops,
// cancels and abandons in waves, against a slice of the requests with
// their owners, and checks what every operation returns, each request's
// start and owner, and that the owners it keeps stay few.
func TestModelFifo(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	type req struct {
		start time.Duration
		c     int32 // the client that waits on it, cancelledReq or abandonedReq
	}
	var f fifo
	var ref []req
	var base uint64 // the absolute index of ref[0]
	var now time.Duration
	most, wide := 0, 0
	for op := range 60_000 {
		// Grow and shrink in waves, across many chunks.
		grow := (op/6000)%2 == 0
		switch r := rng.IntN(20); {
		case r < 2 && len(ref) > 0: // cancel or abandon a request, its owner's or not
			i := rng.IntN(len(ref))
			c := ref[i].c
			if c < 0 || rng.IntN(4) == 0 {
				c = int32(rng.IntN(1000))
			}
			abs := base + uint64(i)
			if r == 0 {
				ok := f.cancel(abs, c)
				if want := c >= 0 && ref[i].c == c; ok != want {
					t.Fatalf("op %d: cancel(%d, %d) = %v, want %v (%+v)", op, abs, c, ok, want, ref[i])
				}
				if ok {
					ref[i].c = cancelledReq
				}
			} else {
				f.abandon(abs, c)
				if ref[i].c == c {
					ref[i].c = abandonedReq
				}
			}
		case (r < 16) == grow || len(ref) == 0:
			// Mostly close together, at times at the same instant, and now
			// and then seconds or days apart.
			switch k := rng.IntN(100); {
			case k < 10:
			case k < 90:
				now += time.Duration(rng.IntN(int(100 * time.Microsecond)))
			case k < 99:
				now += time.Duration(rng.IntN(int(time.Second)))
			default:
				now += time.Duration(rng.Int64N(int64(1000 * time.Hour)))
				wide++
			}
			c := int32(rng.IntN(1000))
			abs, err := f.push(now, c, nil)
			if err != nil {
				t.Fatal(err)
			}
			ref = append(ref, req{now, c})
			if want := base + uint64(len(ref)-1); abs != want {
				t.Fatalf("op %d: push at %d, want %d", op, abs, want)
			}
		default:
			if f.start != ref[0].start || f.frontCancelled() != (ref[0].c == cancelledReq) {
				t.Fatalf("op %d: front at %v (cancelled %v), want %+v", op, f.start, f.frontCancelled(), ref[0])
			}
			want := max(ref[0].c, -1)
			if abs, c := f.pop(); abs != base || c != want {
				t.Fatalf("op %d: pop (%d, %d), want (%d, %d)", op, abs, c, base, want)
			}
			ref = ref[1:]
			base++
		}
		most = max(most, len(ref))
		if f.len() != len(ref) || f.base != base {
			t.Fatalf("op %d: n %d base %d, want %d %d", op, f.len(), f.base, len(ref), base)
		}
		if op%101 == 0 || len(ref) < 3 {
			i := 0
			f.each(func(abs uint64, start time.Duration, c int32) {
				if abs != base+uint64(i) || start != ref[i].start || c != ref[i].c {
					t.Fatalf("op %d: request %d is (%d, %v, %d), want %+v", op, i, abs, start, c, ref[i])
				}
				i++
			})
			if i != len(ref) {
				t.Fatalf("op %d: each saw %d requests of %d", op, i, len(ref))
			}
			if len(ref) > 0 && f.start != ref[0].start || len(ref) > 0 && f.last != ref[len(ref)-1].start {
				t.Fatalf("op %d: start %v last %v", op, f.start, f.last)
			}
			if f.owners.n > 2*(f.waiting+f.cancelled)+chunkLen+1 {
				t.Fatalf("op %d: %d owners for %d waiting and %d cancelled", op, f.owners.n, f.waiting, f.cancelled)
			}
		}
		if abs := base + uint64(rng.IntN(len(ref)+2)); f.holds(abs) != (abs < base+uint64(len(ref))) || f.holds(base-1) {
			t.Fatalf("op %d: holds(%d) = %v with %d from %d", op, abs, f.holds(abs), len(ref), base)
		}
	}
	if most < 3*chunkLen || wide < 10 {
		t.Errorf("the fifo held at most %d requests and %d wide gaps: too few to cross chunks and varint lengths", most, wide)
	}
	for len(ref) > 0 {
		if _, c := f.pop(); c != max(ref[0].c, -1) {
			t.Fatalf("draining: pop %d, want %+v", c, ref[0])
		}
		ref = ref[1:]
	}
	if f.len() != 0 || f.owners.n != 0 || f.gaps.n != 0 || f.waiting+f.cancelled+f.abandoned != 0 {
		t.Fatalf("after draining: n %d, owners %d, gaps %d", f.len(), f.owners.n, f.gaps.n)
	}
}

// TestFifoBudget: the queue pays for each chunk of its gaps and owners
// from its budget, stops growing, adding nothing (not even half a gap),
// when the budget has no room, and gives every chunk back when freed.
func TestFifoBudget(t *testing.T) {
	for _, gap := range []time.Duration{1, 1 << 20, 1 << 62} { // 1, 3 and 9 bytes
		t.Run(strconv.FormatInt(int64(gap), 10), func(t *testing.T) {
			var f fifo
			owners, gaps := f.owners.chunkBytes(), f.gaps.chunkBytes()
			limit := owners + 5*gaps
			pool := budget.NewPool(10 * limit)
			run := budget.NewAccount(pool, limit)
			n := 0
			for ; ; n++ {
				if _, err := f.push(time.Duration(n)*gap, int32(n%1000), run); err != nil {
					var ex *budget.ExceededError
					if !errors.As(err, &ex) || ex.Shared || ex.Limit != limit {
						t.Fatalf("push %d: %v, want the run's budget of %d", n, err, limit)
					}
					break
				}
			}
			if f.len() != n || f.owners.n != n || run.Used() > limit || pool.Used() != run.Used() {
				t.Fatalf("held %d requests (len %d, %d owners), run uses %d of %d, pool %d",
					n, f.len(), f.owners.n, run.Used(), limit, pool.Used())
			}
			perGap := map[time.Duration]int{1: 1, 1 << 20: 3, 1 << 62: 9}[gap]
			if f.gaps.n != (n-1)*perGap || n < min(chunkLen, 5*chunkLen/perGap) {
				t.Fatalf("%d requests in %d bytes of gaps, want %d bytes each", n, f.gaps.n, perGap)
			}
			last := f.last
			for i := range n {
				if _, c := f.pop(); c != int32(i%1000) {
					t.Fatalf("pop %d: client %d", i, c)
				}
			}
			if f.start != last {
				t.Fatalf("the last request started at %v, want %v", f.start, last)
			}
			f.free(run)
			if run.Used() != 0 || pool.Used() != 0 || f.len() != 0 {
				t.Fatalf("after free: run %d, pool %d, len %d", run.Used(), pool.Used(), f.len())
			}
		})
	}
}
