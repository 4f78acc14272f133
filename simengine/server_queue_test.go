package simengine

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

const ms = time.Millisecond

// newQueueTest returns a queue server of w workers, fixed 100 ms services,
// order and a backlog of b.
func newQueueTest(t *testing.T, w int, order string, b int) *queueModel {
	t.Helper()
	p := scenario.Defaults()
	p.ServerModel, p.Workers, p.ServiceTime, p.ServiceDist, p.QueueOrder, p.Backlog =
		scenario.QueueModel, w, 100*ms, scenario.ServiceFixed, order, b
	return newQueueModel(&p).(*queueModel)
}

// drain completes every request in m, from now, and returns the clients in
// the order they finish and when.
func drain(m *queueModel, now time.Duration) (order []int32, at []time.Duration) {
	for {
		next := m.next(now)
		if next == never {
			return order, at
		}
		now = next
		_, c := m.complete()
		order, at = append(order, c), append(at, now)
	}
}

func TestQueueModelOrder(t *testing.T) {
	for _, tc := range []struct {
		order string
		want  []int32
	}{
		{scenario.QueueFIFO, []int32{0, 1, 2, 3}},
		{scenario.QueueLIFO, []int32{0, 3, 2, 1}},
	} {
		t.Run(tc.order, func(t *testing.T) {
			m := newQueueTest(t, 1, tc.order, 10)
			for c := range int32(4) {
				if _, err := m.admit(0, c, nil); err != nil {
					t.Fatal(err)
				}
			}
			if m.concurrency() != 4 || m.queued() != 3 {
				t.Fatalf("concurrency %d, queued %d; want 4 and 3", m.concurrency(), m.queued())
			}
			if got := m.latency(); got != 400*ms {
				t.Errorf("latency %v with 3 waiting for 1 worker, want 400ms", got)
			}
			order, at := drain(m, 0)
			if !slices.Equal(order, tc.want) {
				t.Errorf("served %v, want %v", order, tc.want)
			}
			if want := []time.Duration{100 * ms, 200 * ms, 300 * ms, 400 * ms}; !slices.Equal(at, want) {
				t.Errorf("done at %v, want %v", at, want)
			}
		})
	}
}

// TestQueueModelBacklog: past the backlog a connect is dropped; workers
// serve in parallel.
func TestQueueModelBacklog(t *testing.T) {
	m := newQueueTest(t, 2, scenario.QueueFIFO, 1)
	for c := range int32(3) {
		if _, err := m.admit(0, c, nil); err != nil {
			t.Fatalf("client %d: %v", c, err)
		}
	}
	if _, err := m.admit(0, 3, nil); err != errFull {
		t.Fatalf("a fourth request with 2 workers busy and 1 waiting: %v, want errFull", err)
	}
	order, at := drain(m, 0)
	if !slices.Equal(order, []int32{0, 1, 2}) || !slices.Equal(at, []time.Duration{100 * ms, 100 * ms, 200 * ms}) {
		t.Errorf("served %v at %v", order, at)
	}
}

// admitThree admits clients 0, 1 and 2 at time 0, and returns their slots.
func admitThree(t *testing.T, m *queueModel) []uint64 {
	t.Helper()
	var slots []uint64
	for c := range int32(3) {
		s, err := m.admit(0, c, nil)
		if err != nil {
			t.Fatalf("client %d: %v", c, err)
		}
		slots = append(slots, s)
	}
	return slots
}

// TestQueueModelCancel: a cancelled waiting request is passed over, and a
// cancelled one in service frees its worker at once.
func TestQueueModelCancel(t *testing.T) {
	m := newQueueTest(t, 1, scenario.QueueFIFO, 10)
	slots := admitThree(t, m)
	if !m.cancel(slots[1], 1) || m.concurrency() != 2 || m.queued() != 1 {
		t.Fatalf("cancel of the waiting request: concurrency %d, queued %d", m.concurrency(), m.queued())
	}
	if !m.cancel(slots[0], 0) || m.concurrency() != 1 {
		t.Fatalf("cancel of the request in service: concurrency %d", m.concurrency())
	}
	order, at := drain(m, 30*ms)
	if !slices.Equal(order, []int32{2}) || !slices.Equal(at, []time.Duration{130 * ms}) {
		t.Errorf("served %v at %v, want client 2 at 130ms (its worker freed at 30ms)", order, at)
	}
}

// TestQueueModelFreeze: a stopped server's workers resume with the service
// time they had left; nothing starts while it is stopped.
func TestQueueModelFreeze(t *testing.T) {
	m := newQueueTest(t, 1, scenario.QueueFIFO, 10)
	m.admit(0, 0, nil)
	m.freeze(40 * ms)
	m.admit(50*ms, 1, nil) // waits: the worker is busy, and the server stopped
	m.thaw(1040 * ms)
	order, at := drain(m, 1040*ms)
	if !slices.Equal(order, []int32{0, 1}) || !slices.Equal(at, []time.Duration{1100 * ms, 1200 * ms}) {
		t.Errorf("served %v at %v, want 0 at 1.1s (60 ms left at the stop) and 1 at 1.2s", order, at)
	}
}

// TestQueueModelDrop: a crash loses every request inside, waiting or not,
// but not the cancelled ones.
func TestQueueModelDrop(t *testing.T) {
	m := newQueueTest(t, 1, scenario.QueueFIFO, 10)
	slots := admitThree(t, m)
	m.cancel(slots[2], 2)
	var lost []int32
	m.drop(func(_ uint64, c int32) { lost = append(lost, c) })
	slices.Sort(lost)
	if !slices.Equal(lost, []int32{0, 1}) || m.concurrency() != 0 || m.held() != 0 {
		t.Errorf("lost %v, concurrency %d, held %d", lost, m.concurrency(), m.held())
	}
}

// TestQueueModelServiceTimes: exponential service times have the mean and
// spread of an exponential; fixed ones are all the mean.
func TestQueueModelServiceTimes(t *testing.T) {
	m := newQueueTest(t, 1, scenario.QueueFIFO, 10)
	m.svc.Fixed = false
	const n = 200_000
	var sum, sq float64
	for range n {
		d := m.svc.Draw().Seconds()
		sum += d
		sq += d * d
	}
	mean := sum / n
	sd := math.Sqrt(sq/n - mean*mean)
	if se := 0.1 / math.Sqrt(n); math.Abs(mean-0.1) > 5*se || math.Abs(sd-0.1) > 0.01*0.1 {
		t.Errorf("exp: mean %.5f s, sd %.5f s; want 0.1 and 0.1", mean, sd)
	}
	m.svc.Fixed = true
	if d := m.svc.Draw(); d != 100*ms {
		t.Errorf("fixed: %v", d)
	}
}

// closedThroughput is the exact throughput of a closed network of n
// clients thinking z seconds on average, then visiting a station of c
// servers with mean service time s: the figure mean-value analysis gives,
// computed from the network's product form, which stays exact near
// saturation where MVA's recursion loses its digits. With j requests at the
// station, π(j) ∝ z^(n−j)/(n−j)! × s^j/∏_{i≤j} min(i, c), and the
// throughput is Σ π(j)·min(j, c)/s. Logarithms keep the terms in range.
func closedThroughput(n, c int, z, s float64) float64 {
	logw := make([]float64, n+1)
	top := math.Inf(-1)
	for j := 0; j <= n; j++ {
		lg, _ := math.Lgamma(float64(n-j) + 1)
		w := float64(n-j)*math.Log(z) - lg + float64(j)*math.Log(s)
		for i := 1; i <= j; i++ {
			w -= math.Log(float64(min(i, c)))
		}
		logw[j] = w
		top = max(top, w)
	}
	var norm, x float64
	for j, w := range logw {
		p := math.Exp(w - top)
		norm += p
		x += p * float64(min(j, c)) / s
	}
	return x / norm
}

// TestModelQueueClosedLoop: 001's closed loop on the worker queue, with no
// outage and no timeouts, against the exact analysis: throughput within 2 %.
func TestModelQueueClosedLoop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		workers int
		service time.Duration
	}{
		{30, 100 * ms}, // 001's load, a third of capacity
		{10, 100 * ms}, // 99 of 100 req/s: the queue matters
	} {
		p := scenario.Defaults()
		p.ServerModel, p.Workers, p.ServiceTime = scenario.QueueModel, tc.workers, tc.service
		p.Outage, p.Duration = scenario.OutageNone, 400*time.Second
		p.Lanes = []scenario.Lane{simLane(strategies.NameFixed)}
		p.Timeout = time.Hour // no timeouts: the closed network the analysis solves
		want := closedThroughput(p.Clients, tc.workers, p.Think.Seconds(), tc.service.Seconds())
		var sum float64
		seeds := []uint64{1, 2, 3}
		for _, seed := range seeds {
			p.Seed = seed
			_, ticks := simRun(t, p)
			win := simWindow(simSeries(ticks, 0), 50, 400)
			sum += simMean(win, func(lt scenario.LaneTick) float64 { return lt.OK })
		}
		got := sum / float64(len(seeds))
		t.Logf("%d workers × %v: %.2f ok/s, exact analysis %.2f", tc.workers, tc.service, got, want)
		if math.Abs(got-want) > 0.02*want {
			t.Errorf("%d workers: %.2f ok/s, want %.2f ± 2 %%", tc.workers, got, want)
		}
	}
}
