package simengine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/scenariotest"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// spiralCount wraps a lane's strategy (think_scaled) and counts, by
// request, the delays it keeps in State.Prev: the requests whose delay went
// below 0 (their retry did not wait), those that spiralled (the delay
// reached −1 s: from there it only grows in the negative, see
// strategies' TestThinkScaledSpiralOdds), and those whose delay wrapped
// to centuries. It changes nothing the strategy computes.
type spiralCount struct {
	strategies.Strategy
	marks                      map[*strategies.State]spiralMark
	negative, spirals, wrapped int // requests
	atOnce                     int // retries with a negative delay
	// calls, when record is set, holds every call of Next.
	record bool
	calls  []spiralCall
}

// spiralCall is one call of spiralCount's Next: the client's State, the
// time, the request's start, and the delay and the wait that it computed.
type spiralCall struct {
	s                       *strategies.State
	now, start, delay, wait time.Duration
}

// spiralMark is what spiralCount has counted of a client's current
// request. Marks are by the client's State, whose address stays put while
// the lane's client count does.
type spiralMark struct{ negative, spiral, wrapped bool }

// spiralFar is where a delay has certainly spiralled, and spiralWrapped
// where it has certainly wrapped (beyond any cap the vocabulary allows).
const (
	spiralFar     = -time.Second
	spiralWrapped = 100 * 365 * 24 * time.Hour
)

func (c *spiralCount) Begin(s *strategies.State, think time.Duration) {
	c.Strategy.Begin(s, think)
	c.marks[s] = spiralMark{}
}

func (c *spiralCount) Next(s *strategies.State, now time.Duration, rng *rand.Rand) time.Duration {
	d := c.Strategy.Next(s, now, rng)
	if c.record {
		c.calls = append(c.calls, spiralCall{s, now, s.RequestStart, s.Prev, d})
	}
	m := c.marks[s]
	if s.Prev < 0 {
		c.atOnce++
		if !m.negative {
			m.negative = true
			c.negative++
		}
	}
	if s.Prev <= spiralFar && !m.spiral {
		m.spiral = true
		c.spirals++
	}
	if s.Prev >= spiralWrapped && !m.wrapped {
		m.wrapped = true
		c.wrapped++
	}
	c.marks[s] = m
	return d
}

// withSpiralCount makes lane i of e build its Policy around a spiralCount
// of its strategy, passed through wrap when it is not nil, and returns the
// count.
func withSpiralCount(e *Engine, i int, wrap func(strategies.Strategy) strategies.Strategy) *spiralCount {
	c := &spiralCount{marks: map[*strategies.State]spiralMark{}}
	l := e.lanes[i]
	l.build = func(p strategies.Params) (*strategies.Policy, error) {
		pol, err := strategies.New(p)
		if err != nil {
			return nil, err
		}
		c.Strategy = pol.Strategy
		if wrap != nil {
			c.Strategy = wrap(c.Strategy)
		}
		return strategies.NewPolicy(c, pol.Limiters()...), nil
	}
	l.pol = nil
	l.configure(i)
	return c
}

// pauseDeadline is the flag set of the golden file pause_deadline.json.
func pauseDeadline() scenario.Params {
	p := scenariotest.CurveDefaults()
	p.Clients, p.Think, p.Timeout = 500, 2*time.Second, 500*time.Millisecond
	p.ServerLimit, p.Backlog, p.Duration = 20, 100, 45*time.Second
	p.Lanes[0].Deadline = 3 * time.Second
	p.Lanes[1].Jitter = 0.3
	return p
}

// TestThinkScaledSpiralInGoldenRuns measures what keeping think_scaled's
// delay signed does to the runs the golden files keep (lane b is
// think_scaled in both): how many requests' delays went below 0, how many
// spiralled, how many wrapped, and it checks that counting changes
// nothing. The counts are pinned: the README quotes the first run's.
//
// None goes below 0. A request fails when it begins in the outage, and
// the think time before it then spans the outage's start: such think
// times are length-biased, with density about t·e^(−t/μ)/μ², so one below
// 0.1 s, which a delay below 0 about needs (e·0.1 s is 2.7 σ), is one in
// 20 000 (with mean μ = 10 s), not one in 100.
func TestThinkScaledSpiralInGoldenRuns(t *testing.T) {
	cases := []struct {
		name                               string
		p                                  scenario.Params
		negative, spirals, wrapped, atOnce int
	}{
		// 001's published experiment: `run -server_model curve
		// -b.strategy think_scaled`.
		{"001_published", scenariotest.CurveDefaults(), 0, 0, 0, 0},
		{"pause_deadline", pauseDeadline(), 0, 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			plain, want := simRun(t, c.p)
			e := simNew(t, c.p)
			n := withSpiralCount(e, 1, nil)
			got := simAdvance(t, e, c.p.Duration)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatal("counting changed the ticks")
			}
			if a, b := mustJSON(t, plain.Summaries()), mustJSON(t, e.Summaries()); a != b {
				t.Fatalf("counting changed the summaries:\n%s\n%s", a, b)
			}
			sum := e.Summaries()[1]
			t.Logf("%d requests, %d attempts: %d went below 0, %d spiralled, %d wrapped; %d retries at once",
				sum.Requests, sum.Attempts, n.negative, n.spirals, n.wrapped, n.atOnce)
			if n.negative != c.negative || n.spirals != c.spirals || n.wrapped != c.wrapped || n.atOnce != c.atOnce {
				t.Errorf("below 0 %d, spiralled %d, wrapped %d, at once %d; want %d, %d, %d, %d",
					n.negative, n.spirals, n.wrapped, n.atOnce, c.negative, c.spirals, c.wrapped, c.atOnce)
			}
		})
	}
}

// inSpiral is a test's think_scaled whose every request starts in the
// spiral: its first retry scales a delay of −1 s instead of the think time,
// so it is e × −1 s plus a draw of N(0, 0.1 s), and it never comes back
// above 0 (it would take a draw 27 σ up). From −100 ms it would, one
// request in 300.
type inSpiral struct{ strategies.Strategy }

func (s inSpiral) Begin(st *strategies.State, think time.Duration) {
	s.Strategy.Begin(st, think)
	st.Prev = -time.Second
}

// TestThinkScaledSpiralInEngine: a client in the spiral retries with no
// wait, each attempt counted once, its request once; once its delay wraps
// it waits for good (its event at never), and the run goes on to its end,
// its other lane untouched. With a crashed server every attempt is refused
// at once, so a request's retries all happen at the instant it began; with
// a partitioned one every attempt times out, and the next starts at that
// instant.
func TestThinkScaledSpiralInEngine(t *testing.T) {
	cases := []struct {
		outage string
		gap    time.Duration // between a request's retries
	}{
		{scenario.OutageCrash, 0},
		{scenario.OutagePartition, 500 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.outage, func(t *testing.T) {
			p := scenariotest.CurveDefaults()
			p.Clients, p.Think, p.Timeout = 50, time.Second, 500*time.Millisecond
			p.Outage, p.OutageAt, p.OutageFor, p.Duration = c.outage, 0, 60*time.Second, 60*time.Second
			e := simNew(t, p)
			n := withSpiralCount(e, 1, func(s strategies.Strategy) strategies.Strategy { return inSpiral{s} })
			n.record = true
			ticks := simAdvance(t, e, p.Duration)
			simCheck(t, e, "at the end", nil)
			simCheckTicks(t, e, ticks, "at the end")
			if want := int(p.Duration / p.Tick); len(ticks) != want {
				t.Fatalf("%d ticks, want %d", len(ticks), want)
			}

			// Every client made one request, which spiralled and wrapped:
			// it waits for good, and its event is at never.
			l := e.lanes[1]
			sum := l.summary()
			if sum.Requests != int64(p.Clients) || n.wrapped != p.Clients || n.spirals != p.Clients || sum.Open != int64(p.Clients) {
				t.Fatalf("%d requests, %d spiralled, %d wrapped, %d open; want %d of each", sum.Requests, n.spirals, n.wrapped, sum.Open, p.Clients)
			}
			if l.inBackoff != p.Clients || l.waiting != 0 {
				t.Errorf("%d in backoff, %d waiting; want every client in backoff", l.inBackoff, l.waiting)
			}
			// A wait that would end past never (math.MaxInt64) ends at
			// never: the wrapped delay is math.MaxInt64 + 1 plus a draw
			// of about −0.1 s, and most requests began later than that.
			atNever := 0
			for _, ev := range l.q.events() {
				if ev.at < spiralWrapped {
					t.Errorf("client %d's event at %v, want centuries away", ev.c, ev.at)
				}
				if ev.at == never {
					atNever++
				}
			}
			if atNever == 0 {
				t.Error("no event at never: the test no longer reaches the wait's cut")
			}
			if last := ticks[len(ticks)-1].Lanes[1]; last.Attempts != 0 || last.InBackoff != p.Clients || last.Alive != p.Clients {
				t.Errorf("last tick %+v: want no attempt, every client alive in backoff", last)
			}

			// Retry by retry: no wait until the wrap, each retry at its
			// failed attempt's end, and one attempt a retry.
			prev := map[*strategies.State]time.Duration{}
			for i, call := range n.calls {
				last, seen := prev[call.s] // the previous attempt's start
				if !seen {
					last = call.start
				}
				if want := last + c.gap; call.now != want {
					t.Fatalf("call %d at %v, want %v: the attempt before it did not start at once", i, call.now, want)
				}
				prev[call.s] = call.now
				if call.wait != 0 && call.delay < spiralWrapped {
					t.Fatalf("call %d: wait %v with delay %v", i, call.wait, call.delay)
				}
			}
			// Each call of Next but a request's last (which wrapped) made
			// a retry.
			retries := int64(len(n.calls) - p.Clients)
			if sum.Attempts != sum.Requests+retries || l.total.retries != retries {
				t.Errorf("%d attempts and %d retries for %d requests and %d calls of Next; want %d retries",
					sum.Attempts, l.total.retries, sum.Requests, len(n.calls), retries)
			}
			t.Logf("%d retries in all; the first wrap after %d; %d of %d events at never",
				len(n.calls)-p.Clients, firstWrap(n.calls), atNever, p.Clients)

			// The other lane (fixed) kept retrying to the end.
			if a := ticks[len(ticks)-1].Lanes[0]; a.Attempts == 0 {
				t.Errorf("lane a's last tick %+v: want attempts", a)
			}
		})
	}
}

// firstWrap returns how many calls the first request that wrapped made.
func firstWrap(calls []spiralCall) int {
	k := map[*strategies.State]int{}
	for _, c := range calls {
		k[c.s]++
		if c.delay >= spiralWrapped {
			return k[c.s]
		}
	}
	return -1
}

// mustJSON returns v in JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
