// Package contention reruns the contention workload of the AWS
// Architecture Blog's "Exponential Backoff and Jitter" (Marc Brooker,
// 2015): N clients start at once, and each must make one write to a
// single row under optimistic concurrency control (OCC). A client reads
// the row's version, then writes with it; the write fails if the version
// changed in between, and the client backs off, reads again and writes
// again, until its write succeeds. The study charts the writes all the
// clients make (the blog's "work") and the time until the last of them is
// done (its "completion time") against N, one line per strategy.
//
// The model follows the simulator behind the post,
// aws-samples/aws-arch-backoff-simulator's src/backoff_simulator.py, choice
// by choice (Simulate's comment gives each). The waits are backofflab's
// own formulas (package strategies), with the parameters that make them
// the simulator's, retry for retry (Lines): its attempts count from 1, so
// its exponential windows start at 2 × base, FirstWait.
// TestMatchesTheOriginal holds the study to the simulator's own numbers.
package contention

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// Net is the network between the clients and the row: every message, a
// request or its answer, takes |Normal(Mean, SD)| to arrive. The
// simulator's Net(10, 2) is DefaultNet. SD 0 makes every message take Mean,
// drawing nothing, for the cases a reader derives by hand.
type Net struct {
	Mean, SD time.Duration
}

// DefaultNet is the simulator's network: 10 ms, 2 ms.
var DefaultNet = Net{Mean: 10 * time.Millisecond, SD: 2 * time.Millisecond}

// delay draws one message's delay: the simulator's
// abs(random.normalvariate(mean, sd)).
func (n Net) delay(rng *rand.Rand) time.Duration {
	if n.SD == 0 {
		return n.Mean
	}
	// The explicit float64 keeps the product rounded on its own, so that
	// no platform fuses it with the sum and draws another delay.
	d := float64(n.Mean) + float64(rng.NormFloat64()*float64(n.SD))
	if d < 0 {
		d = -d
	}
	return time.Duration(d)
}

// Result is what one run measured.
type Result struct {
	// Calls counts the writes, failed or not: the simulator's
	// stats.calls, which its server counts in write and nowhere else,
	// and which the blog charts as work.
	Calls int
	// Failures counts the writes that failed: the simulator's
	// stats.failures. Calls − Failures is the number of clients.
	Failures int
	// Reads counts the reads, one before every write.
	Reads int
	// Time is when the last client learnt that its write succeeded: the
	// time of the simulator's last event, which run_sim returns.
	Time time.Duration
	// Attempts holds each client's writes; each ends with one success.
	Attempts []int
	// Finished holds when each client learnt that its write succeeded.
	Finished []time.Duration
}

// The messages of the protocol, each an event at its arrival.
const (
	readAtRow   = iota // a client's read reaches the row
	readAnswer         // the version read reaches the client
	writeAtRow         // a client's write, with the version it read, reaches the row
	writeAnswer        // the write's outcome reaches the client
)

// event is a message arriving at at; seq orders the ones that arrive at
// the same time in the order they were sent.
type event struct {
	at     time.Duration
	seq    uint64
	client int32
	kind   uint8
}

func (e event) before(f event) bool { return e.at < f.at || e.at == f.at && e.seq < f.seq }

// heap is a binary min-heap of events. Each client has one message in
// flight, so it never holds more than N.
type heap []event

func (h *heap) push(e event) {
	*h = append(*h, e)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].before(q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *heap) pop() event {
	q := *h
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && q[l].before(q[m]) {
			m = l
		}
		if r := l + 1; r < n && q[r].before(q[m]) {
			m = r
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}

// checkEvery is how many events a run handles between looks at its ctx:
// a few hundred microseconds of work.
const checkEvery = 4096

// Simulate runs the workload once: clients clients, each backing off as
// pol says after a failed write, on net, drawing every random number (the
// network's delays and the strategy's waits) from rng. It returns ctx's
// error, with what it measured so far, if ctx ends first.
//
// Its choices are the simulator's (src/backoff_simulator.py):
//   - Every client starts at time 0 by sending a read (OccClient.start);
//     the row's version starts at 0 (OccServer).
//   - Every message pays one network delay, the request and the answer
//     alike: a read or a write is a round trip of two delays
//     (OccServer.read and write answer at tm + net.delay(), and the
//     client's requests are sent at tm + net.delay()).
//   - The version is read when the read reaches the row, and the write is
//     judged when it reaches the row: it succeeds, and bumps the version,
//     if the version is the one its client read (OccServer.write).
//   - A client sends its write as soon as its read's answer arrives
//     (OccClient.read_rsp), and after a failed write's answer it sends its
//     next read after the strategy's wait, which adds to that read's
//     network delay (OccClient.write_rsp: tm + net.delay() +
//     backoff.backoff(attempt)).
//   - Only writes are counted as calls (OccServer.write's stats.calls).
//   - The run's time is that of its last event: the last successful
//     write's answer (run_sim returns the last event's time).
//
// Events at the same time are handled in the order they were sent; the
// simulator's float times made such ties vanishingly rare, while Net's
// fixed delays make them the rule.
func Simulate(ctx context.Context, clients int, pol *strategies.Policy, net Net, rng *rand.Rand) (Result, error) {
	if clients < 1 {
		return Result{}, fmt.Errorf("contention: %d clients, want at least 1", clients)
	}
	res := Result{Attempts: make([]int, clients), Finished: make([]time.Duration, clients)}
	states := make([]strategies.State, clients)
	read := make([]int64, clients) // the version each client read last
	won := make([]bool, clients)   // whose write succeeded
	var version int64
	var seq uint64
	q := make(heap, 0, clients)
	send := func(c int32, kind uint8, at time.Duration) {
		seq++
		q.push(event{at: at, seq: seq, client: c, kind: kind})
	}
	for c := range int32(clients) {
		pol.Begin(&states[c], 0, 0)
		if !pol.AllowFirst(&states[c], 0, rng) {
			return res, fmt.Errorf("contention: the policy refused client %d's first write; the study's policies have no limits", c)
		}
		send(c, readAtRow, net.delay(rng))
	}
	for n := 1; len(q) > 0; n++ {
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
		}
		e := q.pop()
		c, now := e.client, e.at
		res.Time = now
		switch e.kind {
		case readAtRow:
			res.Reads++
			read[c] = version
			send(c, readAnswer, now+net.delay(rng))
		case readAnswer:
			send(c, writeAtRow, now+net.delay(rng))
		case writeAtRow:
			res.Calls++
			res.Attempts[c]++
			if read[c] == version {
				version++
				won[c] = true
			} else {
				res.Failures++
			}
			send(c, writeAnswer, now+net.delay(rng))
		case writeAnswer:
			// The policy is told of every write's outcome, as its
			// contract asks; the study's policies have no limits to
			// learn from it.
			if won[c] {
				pol.Record(&states[c], now, strategies.Success)
				res.Finished[c] = now
				continue
			}
			pol.Record(&states[c], now, strategies.Error)
			d := net.delay(rng)
			wait, retry := pol.Retry(&states[c], now, rng)
			if !retry {
				return res, fmt.Errorf("contention: strategy %T gave up on client %d after %d writes; the study's strategies retry until they succeed",
					pol.Strategy, c, res.Attempts[c])
			}
			send(c, readAtRow, now+d+wait)
		}
	}
	return res, nil
}
