package simengine

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
)

// This file tests live changes: a run changed by hand while it runs, in
// slices that stop short wherever their budget ends, is replayed tick for
// tick by its Record.

func TestChangeReplaysTickForTick(t *testing.T) {
	t.Parallel()
	fast := func(p *scenario.Params) { p.Lanes[1].Factor = 1.1 }
	for _, tc := range []struct {
		name    string
		slice   int // events per Step
		changes []func(e *Engine, emit func(scenario.Tick))
		at      []time.Duration // when each change is made, roughly
	}{
		{"set in slices that stop short", 997, []func(*Engine, func(scenario.Tick)){setChange(fast)}, []time.Duration{12 * time.Second}},
		// The resume lets the backlog in at one time: slices of a few
		// events stop among them, and a change then comes a nanosecond
		// after, as its replay can take it.
		{"set in the resume's flood", 7, []func(*Engine, func(scenario.Tick)){setChange(func(p *scenario.Params) { p.ShedAbove = 20 })}, []time.Duration{15 * time.Second}},
		{"set after whole steps", 1 << 30, []func(*Engine, func(scenario.Tick)){setChange(fast)}, []time.Duration{12 * time.Second}},
		{"stop, set, resume", 1501, []func(*Engine, func(scenario.Tick)){
			outageChange(scenario.ChangeStop),
			setChange(func(p *scenario.Params) { p.Clients = 200; p.Lanes[0].Jitter = 0.5 }),
			outageChange(scenario.ChangeResume)},
			[]time.Duration{3 * time.Second, 4 * time.Second, 7 * time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := simSmall()
			e := simNew(t, p)
			var live []scenario.Tick
			emit := func(tk scenario.Tick) { live = append(live, tk) }
			next := 0
			for target := 50 * time.Millisecond; e.Now() < p.Duration; target = min(p.Duration, target+50*time.Millisecond) {
				for !e.Step(target, tc.slice, emit) {
					if next < len(tc.at) && e.Now() >= tc.at[next] {
						tc.changes[next](e, emit)
						next++
					}
				}
				if next < len(tc.at) && e.Now() >= tc.at[next] {
					tc.changes[next](e, emit)
					next++
				}
			}
			if next != len(tc.at) {
				t.Fatalf("made %d changes of %d", next, len(tc.at))
			}
			rec := e.Record()
			if len(rec.Changes) != len(tc.at) {
				t.Fatalf("Record: %d changes, want %d: %s", len(rec.Changes), len(tc.at), scenario.ChangesText(rec.Changes))
			}
			// The record goes through its text, as a link carries it.
			q := rec.Canonical()
			back, err := scenario.Parse(q)
			if err != nil {
				t.Fatalf("Parse(%s): %v", scenario.EncodeQuery(q), err)
			}
			re, replay := simRun(t, back)
			simSameTicks(t, "replay", live, replay)
			if !reflect.DeepEqual(e.Summaries(), re.Summaries()) {
				t.Errorf("summaries differ:\nlive   %+v\nreplay %+v", e.Summaries(), re.Summaries())
			}
		})
	}
}

// setChange returns a change of the engine's parameters by f.
func setChange(f func(*scenario.Params)) func(*Engine, func(scenario.Tick)) {
	return func(e *Engine, emit func(scenario.Tick)) {
		old, p := e.Params(), e.Params()
		f(&p)
		if _, err := e.Change(scenario.Change{Set: scenario.Diff(&old, &p)}, old.Duration, emit); err != nil {
			panic(err)
		}
	}
}

// outageChange returns a change of the server by hand.
func outageChange(what string) func(*Engine, func(scenario.Tick)) {
	return func(e *Engine, emit func(scenario.Tick)) {
		if _, err := e.Change(scenario.Change{Outage: what}, e.Params().Duration, emit); err != nil {
			panic(err)
		}
	}
}

// TestChangeAtWholeMillisecond: a live change made at any time of a
// slice's end comes at the first whole millisecond from there, and its
// link's text carries no more digits.
func TestChangeAtWholeMillisecond(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		now   time.Duration // where the run's last Step ends
		slice int           // events per Step
		want  time.Duration // the change's time
		text  string
	}{
		{"between milliseconds", 17600006652 * time.Nanosecond, 1 << 30, 17601 * time.Millisecond, "@17.601s"},
		{"on a millisecond", 12 * time.Second, 1 << 30, 12 * time.Second, "@12s"},
		{"a nanosecond past one", 3*time.Second + 1, 1 << 30, 3001 * time.Millisecond, "@3.001s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := simSmall()
			e := simNew(t, p)
			for !e.Step(tc.now, tc.slice, nil) {
			}
			old, next := e.Params(), e.Params()
			next.Lanes[1].Factor = 1.1
			c, err := e.Change(scenario.Change{Set: scenario.Diff(&old, &next)}, p.Duration, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.At != tc.want {
				t.Errorf("stepped to %v, the change comes at %v, want %v", tc.now, c.At, tc.want)
			}
			if got := scenario.ChangesText(e.Record().Changes); !strings.HasPrefix(got, tc.text+" ") {
				t.Errorf("the record's changes %q, want them to start %q", got, tc.text)
			}
		})
	}
}
