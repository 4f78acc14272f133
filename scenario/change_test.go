package scenario

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

func TestChangesParse(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		want        string // the changes as ChangesText writes them back
	}{
		{"one value", "changes=@48s b.factor=1.1", "@48s b.factor=1.1"},
		{"several, stop and resume", "changes=@10s clients=500 a.jitter=0.5 @12.5s stop @20s resume", "@10s clients=500 a.jitter=0.5 @12.5s stop @20s resume"},
		{"two at one time", "changes=@10s stop @10s resume", "@10s stop @10s resume"},
		{"a fault list", "changes=@1m faults=load_spike:70s:10s:2", "@1m0s faults=load_spike:1m10s:10s:2"},
		{"at zero", "changes=@0s b.strategy=none", "@0s b.strategy=none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := url.ParseQuery(strings.ReplaceAll(tc.query, " ", "+"))
			p, err := Parse(q)
			if err != nil {
				t.Fatal(err)
			}
			if got := ChangesText(p.Changes); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			back, err := Parse(p.Canonical())
			if err != nil || ChangesText(back.Changes) != tc.want {
				t.Errorf("the canonical query gives %q (%v)", ChangesText(back.Changes), err)
			}
		})
	}
}

// TestChangesRejects: every bad change is an error of the changes
// parameter that says which change and why.
func TestChangesRejects(t *testing.T) {
	for _, tc := range []struct {
		name, changes, more string
		want                string
	}{
		{"time out of range", "@3m stop", "", "time 3m0s out of range (from 0 to below duration, 2m0s)"},
		{"time at the end", "@2m stop", "", "out of range"},
		{"negative time", "@-1s stop", "", "out of range"},
		{"time not a duration", "@soon stop", "", `time "soon" is not a duration`},
		{"times going back", "@48s b.factor=1.1 @40s stop", "", "change 2: time 40s before the previous change's (48s): times must not go back"},
		{"unknown parameter", "@48s b.factr=1.1", "", `change 1: unknown parameter "b.factr"`},
		{"lanes", "@48s lanes=3", "", `unknown parameter "lanes"`},
		{"no lane letter", "@48s factor=1.1", "", "factor needs a lane letter"},
		{"lane beyond the lanes", "@48s c.factor=1.1", "", "c.factor: lanes a to b only"},
		{"seed", "@48s seed=2", "", "seed cannot change on the fly"},
		{"duration", "@48s duration=3m", "", "duration cannot change on the fly"},
		{"arrival", "@48s arrival=open", "", "arrival cannot change on the fly"},
		{"server model of another shape", "@48s server_model=curve", "", "server_model cannot change on the fly between queue and curve"},
		{"tiers' number", "@48s a.tiers=fixed:3:1s", "", "a.tiers cannot change its number of tiers on the fly"},
		{"bad value", "@48s b.factor=11", "", `b.factor: "11" is not allowed (allowed: a number from 1 to 10)`},
		{"bad order after the change", "@48s b.max_delay=10ms", "", "change 1 leads to bad values: b.max_delay"},
		{"stop with values", "@48s stop b.factor=1.1", "", "stop stands alone"},
		{"nothing", "@48s", "", "changes nothing"},
		{"no time first", "b.factor=1.1", "", "before the first change's @time"},
		{"not name=value", "@48s b.factor", "", `"b.factor" is not name=value, stop or resume`},
		{"a value twice", "@48s b.factor=1.1 b.factor=1.2", "", "b.factor twice"},
		{"too many", strings.Repeat("@1s stop ", MaxChanges+1), "", "at most 1000 changes (change 1001 is one too many)"},
		{"text too long", "@1s stop" + strings.Repeat(" ", MaxChangesText), "", "65544 bytes of changes, at most 65536"},
		{"time finer than the engine's", "@0.0000000001s stop", "", `time "0.0000000001s" is not a whole number of nanoseconds (the engine's resolution is 1ns)`},
		{"time finer in minutes", "@0.0000000000001m stop", "", "the engine's resolution is 1ns"},
		{"a value finer than the engine's", "@1s b.min_delay=1.5ns", "", `b.min_delay: "1.5ns" is not allowed (allowed: a duration from`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := url.Values{"changes": {tc.changes}}
			_, err := Parse(q)
			errs := Errors(err)
			if len(errs) != 1 || errs[0].Name != "changes" || !strings.Contains(errs[0].Allow, tc.want) {
				t.Errorf("Parse: %v, want one error of changes saying %q", err, tc.want)
			}
		})
	}
}

// TestValidateChecksChanges: changes built in code are checked as parsed
// ones are.
func TestValidateChecksChanges(t *testing.T) {
	p := Defaults()
	p.Changes = []Change{{At: time.Minute, Set: []Assign{{Name: "b.factor", Value: 1.1}}}, {At: 30 * time.Second, Outage: ChangeStop}}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "times must not go back") {
		t.Errorf("Validate: %v", err)
	}
	p.Changes = []Change{{At: time.Minute, Set: []Assign{{Name: "b.factor", Value: "fast"}}}}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "b.factor: a value of type string") {
		t.Errorf("Validate: %v", err)
	}
}

// TestCanonical: a link holds what differs from the defaults and is read,
// and the changes; nothing of a limiter that is off, of another server
// model, or of a formula the lane's strategy does not use.
func TestCanonical(t *testing.T) {
	for _, tc := range []struct {
		name, query, want string
	}{
		{"the landing view", "", ""},
		{"every default given", Defaults().Encode().Encode(), ""},
		{"one value", "b.factor=1.1", "b.factor=1.1"},
		{"a limiter off keeps its values out", "a.breaker_threshold=20&a.breaker=off&lanes=2", ""},
		{"a limiter on", "a.breaker=all&a.breaker_threshold=20", "a.breaker=all&a.breaker_threshold=20"},
		{"another model's parameters", "server_limit=5&server_factor=2", ""},
		{"a strategy's unused parameters", "a.factor=3&a.jitter=0.5&lanes=2", ""}, // fixed reads neither
		{"one lane", "a.factor=3", "lanes=1"},
		{"strategy none reads no limiter", "b.strategy=none&b.retry_budget=on&b.max_attempts=3", "b.strategy=none"},
		{"another strategy's defaults", "a.strategy=exponential", "a.strategy=exponential"},
		{"lanes", "lanes=3", "lanes=3"},
		{"changes", "changes=@48s+b.factor=1.1", "changes=@48s+b.factor=1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := url.ParseQuery(tc.query)
			p, err := Parse(q)
			if err != nil {
				t.Fatal(err)
			}
			if got := EncodeQuery(p.Canonical()); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDiff: a live change's assignments are the values the new run reads
// that the old one did not read, or read with another value.
func TestDiff(t *testing.T) {
	old := Defaults()
	next := old.Clone()
	next.Lanes[1].Factor = 1.1
	next.Lanes[0].Factor = 3 // fixed does not read it
	next.Duration = time.Hour
	if got := ChangesText([]Change{{Set: Diff(&old, &next)}}); got != "@0s b.factor=1.1" {
		t.Errorf("Diff: %q", got)
	}
	old.Lanes[1].BreakerThreshold = 20 // not read while the breaker is off
	next = old.Clone()
	next.Lanes[1].Breaker = strategies.BreakerAll
	got := ChangesText([]Change{{Set: Diff(&old, &next)}})
	if !strings.Contains(got, "b.breaker=all") || !strings.Contains(got, "b.breaker_threshold=20") {
		t.Errorf("Diff of a breaker switched on: %q, want its switch and its threshold, now read", got)
	}
}
