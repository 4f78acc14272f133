package simengine

import (
	"fmt"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// TestOwnTimeoutOutlivesAChange: an attempt's own timeout (Envoy's
// per_try_timeout here) belongs to the request that its strategy set it
// in. A live change to a strategy that sets none leaves the request in
// flight its timeouts until it ends, and a lane that never had such a
// strategy keeps no table of them. One client, behind a partition that
// loses every attempt, retries a single request for the whole run.
func TestOwnTimeoutOutlivesAChange(t *testing.T) {
	t.Parallel()
	p := simSmall()
	p.Clients, p.Think, p.Timeout = 1, time.Millisecond, 5*time.Second
	p.Outage, p.OutageAt, p.OutageFor = scenario.OutagePartition, 0, p.Duration
	envoy := simLane(strategies.NameEnvoy)
	envoy.PerTryTimeout, envoy.MaxAttempts = time.Second, 0
	fixed := simLane(strategies.NameFixed)
	fixed.MaxAttempts = 0
	p.Lanes = []scenario.Lane{envoy, fixed}
	e := simNew(t, p)
	if e.lanes[0].timeouts == nil || e.lanes[1].timeouts != nil {
		t.Fatalf("own timeouts kept: envoy %v, fixed %v; want envoy's only", e.lanes[0].timeouts != nil, e.lanes[1].timeouts != nil)
	}
	ticks := simAdvance(t, e, 10*time.Second)
	setChange(func(p *scenario.Params) { p.Lanes[0] = fixed })(e, func(tk scenario.Tick) { ticks = append(ticks, tk) })
	ticks = append(ticks, simAdvance(t, e, p.Duration)...)
	if e.lanes[0].timeouts == nil {
		t.Fatal("the change dropped the lane's own timeouts")
	}
	timeouts := func(lane int) float64 {
		var n float64
		for _, lt := range simWindow(simSeries(ticks, lane), 12, 30) {
			n += lt.Timeouts * p.Tick.Seconds()
		}
		return n
	}
	// 18 s of 1 s attempts and 100 ms waits: 16; of 5 s ones: 3 or 4.
	if n := timeouts(0); n < 15 || n > 17 {
		t.Errorf("lane a, changed from envoy to fixed at 10 s: %v timeouts in (12 s, 30 s], want 16 of 1 s attempts", n)
	}
	if n := timeouts(1); n < 3 || n > 4 {
		t.Errorf("lane b, fixed throughout: %v timeouts in (12 s, 30 s], want 3 or 4 of 5 s attempts", n)
	}
}

// TestOwnTimeoutsKeepInvariants: lanes whose strategies set their
// attempts' timeouts, at the clients and at the tiers, switched to and
// from strategies that set none, and from one such strategy to another,
// while requests are in flight, keep every invariant of simCheck: each
// waiting client times out at its own timeout, each backing one keeps it
// in its slot.
func TestOwnTimeoutsKeepInvariants(t *testing.T) {
	t.Parallel()
	lane := func(name string, tiers string) scenario.Lane {
		l := simLane(name)
		l.PerTryTimeout = 700 * time.Millisecond
		l.MinConnectTimeout = 1500 * time.Millisecond
		if tiers != "" {
			l.Tiers = mustTiers(tiers)
		}
		return l
	}
	set := func(names ...string) func(p *scenario.Params) {
		return func(p *scenario.Params) {
			for i, n := range names {
				p.Lanes[i].Strategy = n
			}
		}
	}
	const (
		grpc, envoy, fixed, exp = strategies.NameGRPC, strategies.NameEnvoy, strategies.NameFixed, strategies.NameExponential
	)
	for _, c := range []struct {
		name    string
		lanes   []scenario.Lane
		changes []func(p *scenario.Params) // at 12 s, 13 s, 14 s…
	}{
		{"clients", []scenario.Lane{lane(grpc, ""), lane(envoy, ""), lane(fixed, "")},
			[]func(*scenario.Params){set(exp, grpc, envoy), set(grpc, fixed, envoy), set(envoy, envoy, grpc),
				func(p *scenario.Params) {
					p.Lanes[0].PerTryTimeout, p.Lanes[2].MinConnectTimeout = 300*time.Millisecond, time.Second
				},
				set(fixed, grpc, fixed)}},
		{"tiers", []scenario.Lane{lane(grpc, "envoy:3:1s,grpc:2:500ms"), lane(fixed, "fixed:3:1s")},
			[]func(*scenario.Params){set(fixed, envoy), set(envoy, fixed), set(grpc, grpc)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := simSmall()
			p.Lanes = c.lanes
			e := simNew(t, p)
			for at := 250 * time.Millisecond; at <= p.Duration; at += 250 * time.Millisecond {
				e.AdvanceTo(at, nil)
				simCheck(t, e, fmt.Sprintf("at %v", at), nil)
				if k := int((at - 12*time.Second) / time.Second); at%time.Second == 0 && k >= 0 && k < len(c.changes) {
					setChange(c.changes[k])(e, nil)
					simCheck(t, e, fmt.Sprintf("after the change at %v", at), nil)
				}
			}
		})
	}
}

// BenchmarkOwnTimeouts runs the lanes whose strategies set their
// attempts' timeouts, gRPC against Envoy (per_try_timeout 1 s), on 001's
// curve for 120 s, with 2 000 and 100 000 clients: the runs that pay for
// own timeouts, if anything does.
func BenchmarkOwnTimeouts(b *testing.B) {
	for _, n := range []int{2000, 100_000} {
		p := scenario.Defaults()
		p.ServerModel = "curve"
		p.Clients = n
		envoy := simLane(strategies.NameEnvoy)
		envoy.PerTryTimeout = time.Second
		p.Lanes = []scenario.Lane{simLane(strategies.NameGRPC), envoy}
		b.Run(sizeName(n), func(b *testing.B) {
			var events int64
			for b.Loop() {
				e, err := New(p)
				if err != nil {
					b.Fatal(err)
				}
				e.AdvanceTo(p.Duration, nil)
				for _, l := range e.lanes {
					events += l.events
				}
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
