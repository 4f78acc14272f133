package scenario

import (
	"math"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/reqhist"
)

// The verdict detector on scripted ticks.

// detStep is one tick fed to a detector, and what happens at its end.
type detStep struct {
	ok, maxC int
	on, off  bool          // the outage starts or ends at the tick's end
	offAt    time.Duration // when off: the end's time if not at the tick's end
}

// detRun feeds steps to a fresh detector with 100 ms ticks and limit 30,
// the first ending at 100 ms, and returns its summary after each tick.
func detRun(t *testing.T, steps []detStep) []Summary {
	t.Helper()
	p := Defaults()
	d := NewDetector(p) // the exported API, as the playground's real lane uses it
	if d.window != 50 {
		t.Fatalf("window %d ticks, want 50", d.window)
	}
	out := make([]Summary, len(steps))
	for k, s := range steps {
		at := time.Duration(k+1) * p.Tick
		d.Tick(at, int64(s.ok), 0, s.maxC)
		out[k] = d.Summary(0, 0, 0, 0)
		if s.on {
			d.OutageStarted()
		}
		if s.off {
			end := at
			if s.offAt != 0 {
				end = s.offAt
			}
			d.OutageEnded(end)
		}
	}
	return out
}

// detPhase appends n ticks of ok and maxC to steps.
func detPhase(steps []detStep, n, ok, maxC int) []detStep {
	for range n {
		steps = append(steps, detStep{ok: ok, maxC: maxC})
	}
	return steps
}

// detScript is the usual story: 2 s of baseline at 10 ok per tick (100
// ok/s), an outage from 2 s to 4 s, then the phases given.
func detScript(after ...[3]int) []detStep {
	s := detPhase(nil, 20, 10, 5)
	s[19].on = true
	s = detPhase(s, 20, 0, 5)
	s[39].off = true
	for _, ph := range after {
		s = detPhase(s, ph[0], ph[1], ph[2])
	}
	return s
}

// detFirst returns the time in seconds of the first tick whose summary has
// a non-nil f, its value, and whether there was one.
func detFirst(sums []Summary, f func(Summary) *float64) (at, v float64, found bool) {
	for k, s := range sums {
		if p := f(s); p != nil {
			return float64(k+1) / 10, *p, true
		}
	}
	return 0, 0, false
}

func TestModelDetector(t *testing.T) {
	t.Parallel()
	server := func(s Summary) *float64 { return s.ServerRecoveredAfter }
	service := func(s Summary) *float64 { return s.ServiceRecoveredAfter }
	type verdict struct {
		at, v float64 // first tick with a value, the value; at 0: never
	}
	for _, c := range []struct {
		name            string
		steps           []detStep
		server, service verdict
		collapsed       bool
		baseline, peak  float64
	}{
		{
			name:     "no outage",
			steps:    detPhase(nil, 300, 10, 5),
			baseline: 100, peak: 5,
		},
		{
			// Back at once: both windows are the first 5 s after the end.
			name:   "immediate",
			steps:  detScript([3]int{100, 10, 5}),
			server: verdict{9, 0}, service: verdict{9, 0},
			baseline: 100, peak: 5,
		},
		{
			// Over the limit until the tick that ends at 6.3 s.
			name:   "server late",
			steps:  detScript([3]int{23, 10, 100}, [3]int{100, 10, 30}),
			server: verdict{11.3, 2.3}, service: verdict{9, 0},
			baseline: 100, peak: 100,
		},
		{
			// 12 ok per tick from 7 s: 38 ticks make the 450 (90 % of 500)
			// that a 5 s window needs, at 10.8 s; the window began at 5.8 s.
			name:   "service late",
			steps:  detScript([3]int{30, 0, 5}, [3]int{100, 12, 5}),
			server: verdict{9, 0}, service: verdict{10.8, 1.8},
			baseline: 100, peak: 5,
		},
		{
			// 90 % of the baseline is enough.
			name:   "service at 90 %",
			steps:  detScript([3]int{100, 9, 5}),
			server: verdict{9, 0}, service: verdict{9, 0},
			baseline: 100, peak: 5,
		},
		{
			// 80 % is not: the server is back, the service is not, and
			// that is no collapse.
			name:     "service at 80 %",
			steps:    detScript([3]int{200, 8, 10}),
			server:   verdict{9, 0},
			baseline: 100, peak: 10,
		},
		{
			name:      "collapsed",
			steps:     detScript([3]int{200, 0, 500}),
			collapsed: true,
			baseline:  100, peak: 500,
		},
		{
			// The service comes back while the server stays over its limit
			// (a lower load would be needed): not collapsed either.
			name:     "service only",
			steps:    detScript([3]int{200, 10, 31}),
			service:  verdict{9, 0},
			baseline: 100, peak: 31,
		},
		{
			// A 4.9 s run under the limit does not count: one tick over it
			// (ending at 9 s) restarts the window, which holds from 9 s to 14 s.
			name:   "interrupted",
			steps:  detScript([3]int{49, 10, 5}, [3]int{1, 10, 31}, [3]int{100, 10, 5}),
			server: verdict{14, 5}, service: verdict{9, 0},
			baseline: 100, peak: 31,
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			sums := detRun(t, c.steps)
			for _, v := range []struct {
				name string
				f    func(Summary) *float64
				want verdict
			}{{"server_recovered_after", server, c.server}, {"service_recovered_after", service, c.service}} {
				at, got, found := detFirst(sums, v.f)
				switch {
				case v.want.at == 0 && found:
					t.Errorf("%s = %v at t=%v, want never", v.name, got, at)
				case v.want.at != 0 && !found:
					t.Errorf("%s never set, want %v at t=%v", v.name, v.want.v, v.want.at)
				case found && (math.Abs(at-v.want.at) > 1e-9 || math.Abs(got-v.want.v) > 1e-9):
					t.Errorf("%s = %v at t=%v, want %v at t=%v", v.name, got, at, v.want.v, v.want.at)
				}
				// Once set, a verdict stays.
				if found {
					for k := int(math.Round(at * 10)); k <= len(sums); k++ {
						if p := v.f(sums[k-1]); p == nil || *p != got {
							t.Fatalf("%s changed at t=%v", v.name, float64(k)/10)
						}
					}
				}
			}
			last := sums[len(sums)-1]
			if last.Collapsed != c.collapsed {
				t.Errorf("collapsed = %v, want %v", last.Collapsed, c.collapsed)
			}
			if math.Abs(last.BaselineOK-c.baseline) > 1e-9 || float64(last.PeakConcurrency) != c.peak {
				t.Errorf("baseline %v, peak %d; want %v, %v", last.BaselineOK, last.PeakConcurrency, c.baseline, c.peak)
			}
			// Never collapsed during the outage or before it.
			for k := range min(40, len(sums)) {
				if sums[k].Collapsed {
					t.Errorf("collapsed at t=%v, before the outage ended", float64(k+1)/10)
				}
			}
		})
	}

	t.Run("end inside a tick", func(t *testing.T) {
		// The outage ends at 4.05 s: the tick that ends at 4.1 s began before
		// the end and does not count; the windows start at 4.1 s.
		steps := detScript([3]int{100, 10, 5})
		steps[39].offAt = 4050 * time.Millisecond
		sums := detRun(t, steps)
		for _, f := range []func(Summary) *float64{server, service} {
			at, v, found := detFirst(sums, f)
			if !found || math.Abs(at-9.1) > 1e-9 || math.Abs(v-0.05) > 1e-9 {
				t.Errorf("recovered %v s after the end at t=%v (found %v), want 0.05 at 9.1", v, at, found)
			}
		}
	})

	t.Run("second outage", func(t *testing.T) {
		// Recovered after the first outage; a second one (12 s to 14 s)
		// clears the verdict, and the run collapses after it. The baseline
		// stays that of the ticks before the first outage.
		steps := detScript([3]int{80, 30, 5}) // up to 12 s, 300 ok/s
		steps[119].on = true
		steps = detPhase(steps, 20, 0, 5)
		steps[139].off = true
		steps = detPhase(steps, 100, 0, 100)
		sums := detRun(t, steps)
		if s := sums[119]; s.ServerRecoveredAfter == nil || s.ServiceRecoveredAfter == nil || s.Collapsed {
			t.Fatalf("at 12 s: %+v, want recovered", s)
		}
		for k := 120; k < 140; k++ {
			if s := sums[k]; s.ServerRecoveredAfter != nil || s.ServiceRecoveredAfter != nil || s.Collapsed {
				t.Fatalf("t=%v during the second outage: %+v, want no verdict", float64(k+1)/10, s)
			}
		}
		last := sums[len(sums)-1]
		if !last.Collapsed || last.ServerRecoveredAfter != nil || last.ServiceRecoveredAfter != nil {
			t.Errorf("after the second outage: %+v, want collapsed", last)
		}
		if last.BaselineOK != 100 {
			t.Errorf("baseline %v, want the first outage's 100", last.BaselineOK)
		}
		// And the other way round: collapsed, then recovered after a second
		// outage, which is measured from its own end (16 s).
		steps = detScript([3]int{100, 0, 100}) // to 14 s
		steps[139].on = true
		steps = detPhase(steps, 20, 0, 100)
		steps[159].off = true
		steps = detPhase(steps, 60, 10, 5)
		sums = detRun(t, steps)
		if !sums[139].Collapsed {
			t.Errorf("not collapsed at 14 s: %+v", sums[139])
		}
		at, v, found := detFirst(sums, server)
		if !found || math.Abs(at-21) > 1e-9 || v != 0 {
			t.Errorf("server recovered %v s at t=%v (found %v), want 0 at 21", v, at, found)
		}
		if sums[len(sums)-1].Collapsed {
			t.Error("still collapsed after recovering")
		}
	})

	t.Run("outage at the start", func(t *testing.T) {
		// No baseline: the service cannot be judged, the server can.
		steps := []detStep{{on: true}}
		steps = detPhase(steps, 19, 0, 5)
		steps[19].off = true
		steps = detPhase(steps, 100, 10, 5)
		sums := detRun(t, steps)
		last := sums[len(sums)-1]
		if last.BaselineOK != 0 || last.ServiceRecoveredAfter != nil || last.ServerRecoveredAfter == nil || last.Collapsed {
			t.Errorf("%+v", last)
		}
	})

	t.Run("counts", func(t *testing.T) {
		p := Defaults()
		d := NewDetector(p)
		s := d.Summary(10, 25, 6, 1)
		if s.Requests != 10 || s.Attempts != 25 || s.Succeeded != 6 || s.GaveUp != 1 || s.Open != 3 || s.Amplification != 2.5 {
			t.Errorf("%+v", s)
		}
		if s := d.Summary(0, 0, 0, 0); s.Amplification != 0 || s.Collapsed {
			t.Errorf("empty run: %+v", s)
		}
	})
}

// TestDetectorFaults: a fault that is not an outage (a load spike) is
// judged as an outage is: the baseline is the rate before it, the
// recoveries are measured from its end (from the last end when it
// overlaps an outage), a lane that gets neither back has collapsed, and
// the summary names the fault its recoveries follow.
func TestDetectorFaults(t *testing.T) {
	t.Parallel()
	p := Defaults()
	type ev struct {
		at     time.Duration
		faults int    // faults in effect from at (-1: no change)
		down   int    // 1: an outage starts, 2: it ends, at at
		kind   string // the fault's kind
	}
	for _, c := range []struct {
		name      string
		events    []ev
		ok, maxC  int // per tick after 2 s
		collapsed bool
		service   *float64
		fault     string
	}{
		{"collapses under a spike", []ev{{2 * time.Second, 1, 0, FaultLoadSpike}, {4 * time.Second, 0, 0, FaultLoadSpike}},
			0, 500, true, nil, FaultLoadSpike},
		{"rides a spike out", []ev{{2 * time.Second, 1, 0, FaultLoadSpike}, {4 * time.Second, 0, 0, FaultLoadSpike}},
			10, 5, false, new(0.0), FaultLoadSpike},
		{"a spike that outlasts the outage", []ev{{2 * time.Second, -1, 1, ""}, {3 * time.Second, 1, 0, FaultLatencySpike},
			{4 * time.Second, -1, 2, ""}, {6 * time.Second, 0, 0, FaultLatencySpike}},
			10, 5, false, new(0.0), FaultLatencySpike},
		{"an outage that outlasts the spike", []ev{{2 * time.Second, 1, 0, FaultErrorBurst}, {3 * time.Second, -1, 1, ""},
			{4 * time.Second, 0, 0, FaultErrorBurst}, {6 * time.Second, -1, 2, ""}},
			0, 500, true, nil, ""},
		{"two spikes, the second still on at the end", []ev{{2 * time.Second, 1, 0, FaultLoadSpike}, {3 * time.Second, 0, 0, FaultLoadSpike},
			{10 * time.Second, 1, 0, FaultCapacityDrop}},
			0, 500, false, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := NewDetector(p)
			var last Summary
			k := 0
			for n := 1; n <= 200; n++ {
				at := time.Duration(n) * p.Tick
				ok, maxC := 10, 5
				if at > 2*time.Second {
					ok, maxC = c.ok, c.maxC
				}
				d.Tick(at, int64(ok), 0, maxC)
				for ; k < len(c.events) && c.events[k].at <= at; k++ {
					e := c.events[k]
					switch e.down {
					case 1:
						d.OutageStarted()
					case 2:
						d.OutageEnded(e.at)
					}
					if e.faults >= 0 {
						d.Faults(e.faults, e.kind, e.at)
					}
				}
				last = d.Summary(0, 0, 0, 0)
			}
			if last.Collapsed != c.collapsed {
				t.Errorf("collapsed = %v, want %v: %+v", last.Collapsed, c.collapsed, last)
			}
			if (last.ServiceRecoveredAfter == nil) != (c.service == nil) ||
				c.service != nil && math.Abs(*last.ServiceRecoveredAfter-*c.service) > 1e-9 {
				t.Errorf("service_recovered_after %v, want %v", last.ServiceRecoveredAfter, c.service)
			}
			if last.Fault != c.fault {
				t.Errorf("fault %q, want %q", last.Fault, c.fault)
			}
			if math.Abs(last.BaselineOK-100) > 1e-9 {
				t.Errorf("baseline %v, want 100 ok/s, the rate before the first fault", last.BaselineOK)
			}
		})
	}
}

// TestSetRequests: a lane's figures per request from its histograms, by
// hand: of the requests that ended (1 s, 2 s given up, 40 s) and one open
// past the patience of 30 s, only the 1 s success counts as succeeded
// within it; with none judged, the share is 1.
func TestSetRequests(t *testing.T) {
	var all, ok reqhist.Histogram
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 40 * time.Second} {
		all.Record(d)
	}
	ok.Record(time.Second)
	ok.Record(40 * time.Second)
	tests := []struct {
		name      string
		all, ok   *reqhist.Histogram
		openPast  int64
		within    float64
		p50, p999 float64
	}{
		{"ended and open", &all, &ok, 1, 1.0 / 4, 2, 40},
		{"ended only", &all, &ok, 0, 1.0 / 3, 2, 40},
		{"none", new(reqhist.Histogram), new(reqhist.Histogram), 0, 1, 0, 0},
		{"open only", new(reqhist.Histogram), new(reqhist.Histogram), 3, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Summary
			s.SetRequests(tt.all, tt.ok, tt.openPast, 30*time.Second)
			if s.SucceededWithin != tt.within || s.OpenPastPatience != tt.openPast || s.Patience != 30 {
				t.Errorf("succeeded within %v, open past %d, patience %v: want %v, %d, 30", s.SucceededWithin, s.OpenPastPatience, s.Patience, tt.within, tt.openPast)
			}
			if math.Abs(s.RequestP50-tt.p50) > reqhist.RelativeError*tt.p50 || math.Abs(s.RequestP999-tt.p999) > reqhist.RelativeError*tt.p999 {
				t.Errorf("p50 %v, p99.9 %v: want %v, %v", s.RequestP50, s.RequestP999, tt.p50, tt.p999)
			}
		})
	}
}
