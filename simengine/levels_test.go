package simengine

import (
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// TestTickLevelsAddUp: a closed loop's every client is in one place at a
// tick's end, thinking, waiting for an answer (Alive less InBackoff) or
// waiting to retry, so Thinking and Alive add up to the clients, through
// outages, faults, tiers and live changes of the client count; a server's
// Queued are among the requests inside it and in its backlog, and those in
// service are at most its workers. The page's picture of the system draws
// these levels.
func TestTickLevelsAddUp(t *testing.T) {
	queue := func(outage string) scenario.Params {
		p := scenario.Defaults()
		p.Clients, p.Duration, p.Outage = 400, 40*time.Second, outage
		p.OutageAt, p.OutageFor = 10*time.Second, 5*time.Second
		p.Lanes = []scenario.Lane{simLane(strategies.NameFixed), simLane(strategies.NameExponential)}
		return p
	}
	tiers := simSmall()
	tiers.Lanes[1].Tiers = []scenario.Tier{{Strategy: strategies.NameFixed, Attempts: 3, Timeout: 500 * time.Millisecond}}
	cases := []struct {
		name string
		p    scenario.Params
		// clients gives the client count from a moment on: a live change.
		clients map[time.Duration]int
	}{
		{name: "curve_pause", p: simSmall()},
		{name: "queue_pause", p: queue(scenario.OutagePause)},
		{name: "queue_crash", p: queue(scenario.OutageCrash)},
		{name: "queue_partition", p: queue(scenario.OutagePartition)},
		{name: "tiers", p: tiers},
		{name: "clients_change", p: queue(scenario.OutagePause), clients: map[time.Duration]int{
			5 * time.Second: 900, 12 * time.Second: 150, 20 * time.Second: 600}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := simNew(t, c.p)
			clients := c.p.Clients
			step := time.Second
			for now := time.Duration(0); now < c.p.Duration; now += step {
				if n, ok := c.clients[now]; ok {
					p := e.p.Clone()
					p.Clients = n
					if err := e.Set(p); err != nil {
						t.Fatalf("Set clients=%d at %v: %v", n, now, err)
					}
					clients = n
				}
				for _, tk := range simAdvance(t, e, now+step) {
					for i, lt := range tk.Lanes {
						where := func() string {
							return string(scenario.LaneNames[i]) + " at " + time.Duration(tk.T*float64(time.Second)).String()
						}
						if lt.Thinking+lt.Alive != clients || lt.Thinking < 0 || lt.InBackoff > lt.Alive {
							t.Fatalf("lane %s: thinking %d + alive %d (in backoff %d) = %d, want the %d clients",
								where(), lt.Thinking, lt.Alive, lt.InBackoff, lt.Thinking+lt.Alive, clients)
						}
						if lt.Queued < 0 || lt.Queued > lt.Concurrency || lt.Queued > lt.Backlog {
							t.Fatalf("lane %s: queued %d, inside %d, backlog %d", where(), lt.Queued, lt.Concurrency, lt.Backlog)
						}
						switch c.p.ServerModel {
						case scenario.QueueModel:
							if busy := lt.Concurrency - lt.Queued; busy > c.p.Workers {
								t.Fatalf("lane %s: %d in service, more than the %d workers", where(), busy, c.p.Workers)
							}
						default:
							if lt.Queued != 0 {
								t.Fatalf("lane %s: a latency curve has %d queued, want 0", where(), lt.Queued)
							}
						}
					}
				}
			}
		})
	}
	// An open loop has no client between requests.
	t.Run("open", func(t *testing.T) {
		p := openQueue(10, 50*time.Millisecond, 100, 10*time.Second)
		_, ticks := simRun(t, p)
		for _, tk := range ticks {
			if lt := tk.Lanes[0]; lt.Thinking != 0 {
				t.Fatalf("open loop at %vs: thinking %d, want 0", tk.T, lt.Thinking)
			}
		}
	})
}
