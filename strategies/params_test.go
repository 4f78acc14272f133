package strategies

import (
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name                 string
		minDelay, maxDelay   time.Duration
		factor, jitter       float64
		minConnect           time.Duration
		checkMax, checkShape bool
	}{
		{NameFixed, 100 * ms, 0, 0, 0, 0, false, false},
		{NameExponential, 100 * ms, 15 * time.Minute, 2, 0.1, 0, true, true},
		{NameTruncated, time.Second, 32 * time.Second, 0, 0, 0, true, false},
		{NameGRPC, time.Second, 120 * time.Second, 1.6, 0.2, 20 * time.Second, true, true},
		{NameThinkScaled, 0, 5 * time.Minute, math.E, 0.1, 0, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustDefaults(t, c.name)
			if p.Strategy != c.name {
				t.Errorf("Strategy = %q", p.Strategy)
			}
			if c.minDelay != 0 && p.MinDelay != c.minDelay {
				t.Errorf("min_delay = %v, want %v", p.MinDelay, c.minDelay)
			}
			if c.checkMax && p.MaxDelay != c.maxDelay {
				t.Errorf("max_delay = %v, want %v", p.MaxDelay, c.maxDelay)
			}
			if c.checkShape && (p.Factor != c.factor || p.Jitter != c.jitter) {
				t.Errorf("factor, jitter = %v, %v; want %v, %v", p.Factor, p.Jitter, c.factor, c.jitter)
			}
			if c.minConnect != 0 && p.MinConnectTimeout != c.minConnect {
				t.Errorf("min_connect_timeout = %v, want %v", p.MinConnectTimeout, c.minConnect)
			}
			if p.MaxAttempts != 0 || p.Deadline != 0 {
				t.Errorf("limits max_attempts %d deadline %v, want none by default", p.MaxAttempts, p.Deadline)
			}
		})
	}
	for _, name := range Names() {
		p := mustDefaults(t, name)
		if p.Strategy != name || p.MinDelay <= 0 || p.MaxDelay < p.MinDelay {
			t.Errorf("Defaults(%q) = %+v: want its own name and 0 < min_delay <= max_delay", name, p)
		}
	}
	if p, ok := Defaults("linear"); ok || p != (Params{}) {
		t.Errorf("Defaults(linear) = %+v, %v; want zero, false", p, ok)
	}
}

func TestNewBuildsTheNamedStrategy(t *testing.T) {
	p := Params{MinDelay: 3 * time.Second, MaxDelay: 40 * time.Second, Factor: 1.7, Jitter: 0.25,
		MaxAttempts: 6, Deadline: time.Minute, MinConnectTimeout: 9 * time.Second}
	want := map[string]Strategy{
		NameNone:         None{},
		NameFixed:        Fixed{Delay: 3 * time.Second},
		NameExponential:  Exponential{Base: 3 * time.Second, Cap: 40 * time.Second, Factor: 1.7, Jitter: 0.25},
		NameTruncated:    Truncated{Base: 3 * time.Second, Cap: 40 * time.Second},
		NameGRPC:         GRPC{Initial: 3 * time.Second, Max: 40 * time.Second, Factor: 1.7, Jitter: 0.25, MinConnect: 9 * time.Second},
		NameFullJitter:   FullJitter{Base: 3 * time.Second, Cap: 40 * time.Second},
		NameEqualJitter:  EqualJitter{Base: 3 * time.Second, Cap: 40 * time.Second},
		NameDecorrelated: Decorrelated{Base: 3 * time.Second, Cap: 40 * time.Second},
		NameThinkScaled:  ThinkScaled{Cap: 40 * time.Second, Factor: 1.7, Jitter: 0.25},
	}
	if len(want) != len(Names()) {
		t.Fatalf("test covers %d strategies, Names() has %d", len(want), len(Names()))
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			p.Strategy = name
			pol := mustPolicy(t, p)
			if !reflect.DeepEqual(pol.Strategy, want[name]) {
				t.Errorf("Strategy = %#v, want %#v", pol.Strategy, want[name])
			}
			want := []Limit{&MaxAttemptsLimit{N: 6}, &DeadlineLimit{D: time.Minute}}
			if got := pol.Limits(); !reflect.DeepEqual(got, want) {
				t.Errorf("limits = %#v, want %#v", got, want)
			}
		})
	}
}

func TestNewRejectsUnknownName(t *testing.T) {
	for _, name := range []string{"", "Fixed", "linear", "full-jitter"} {
		pol, err := New(Params{Strategy: name})
		if err == nil || pol != nil {
			t.Errorf("New(%q) = %v, %v; want an error", name, pol, err)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "strategy") || !strings.Contains(msg, `"`+name+`"`) {
			t.Errorf("New(%q) error %q: want it to name the parameter strategy and the value", name, msg)
		}
	}
}

// TestUses: a strategy uses its formula's parameters, not the limits, which
// the Policy applies around every formula.
func TestUses(t *testing.T) {
	params := []string{"min_delay", "max_delay", "factor", "jitter", "min_connect_timeout", "max_attempts", "deadline"}
	want := map[string][]string{
		NameNone:         {},
		NameFixed:        {"min_delay"},
		NameExponential:  {"min_delay", "max_delay", "factor", "jitter"},
		NameTruncated:    {"min_delay", "max_delay"},
		NameGRPC:         {"min_delay", "max_delay", "factor", "jitter", "min_connect_timeout"},
		NameFullJitter:   {"min_delay", "max_delay"},
		NameEqualJitter:  {"min_delay", "max_delay"},
		NameDecorrelated: {"min_delay", "max_delay"},
		NameThinkScaled:  {"max_delay", "factor", "jitter"},
	}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			uses, ok := want[name]
			if !ok {
				t.Fatalf("no expectation for %q", name)
			}
			for _, param := range params {
				w := false
				for _, u := range uses {
					w = w || u == param
				}
				if got := Uses(name, param); got != w {
					t.Errorf("Uses(%q, %q) = %v, want %v", name, param, got, w)
				}
			}
			for _, other := range []string{"strategy", "clients", "think", "seed", ""} {
				if Uses(name, other) {
					t.Errorf("Uses(%q, %q) = true", name, other)
				}
			}
		})
	}
	if Uses("linear", "min_delay") || Uses("linear", "max_attempts") {
		t.Error("an unknown strategy uses nothing")
	}
}

func TestAbout(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range Names() {
		a := About(name)
		if a == "" || seen[a] {
			t.Errorf("About(%q) = %q: want a distinct, non-empty line", name, a)
		}
		seen[a] = true
	}
	if About("linear") != "" {
		t.Errorf("About(linear) = %q, want empty", About("linear"))
	}
}
