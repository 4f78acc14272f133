package scenario

import (
	"strings"
	"testing"
)

// FuzzChanges feeds the changes grammar arbitrary text: it never panics,
// refuses text past MaxChangesText and more than MaxChanges changes, and
// what it reads it writes back (ChangesText) as text it reads again to the
// same changes; and a run of those changes, where Parse accepts it, is
// one that Validate accepts.
func FuzzChanges(f *testing.F) {
	for _, s := range []string{
		"",
		"@48s b.factor=1.1",
		"@10s clients=500 a.jitter=0.5 @12.5s stop @20s resume",
		"@1m faults=load_spike:70s:10s:2",
		"@0.0000000001s stop",
		"@1s a.tiers=fixed:3:1s @2s a.tiers=exponential:2:500ms:retry_budget",
		"@-1s stop @1h resume",
		"@1s b.factor=1.1 b.factor=1.2",
		"@1s stop b.factor=2",
		"@1s seed=3",
		"stop",
		"@1s clients=1000000 @2s server_model=curve",
		"@1.5m stop @0.1h resume",
		strings.Repeat("@1s stop ", 20),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		cs, err := ParseChanges(text)
		if len(text) > MaxChangesText && err == nil {
			t.Fatalf("ParseChanges took %d bytes, past %d", len(text), MaxChangesText)
		}
		if err != nil {
			return
		}
		if len(cs) > MaxChanges {
			t.Fatalf("ParseChanges read %d changes, past %d", len(cs), MaxChanges)
		}
		back := ChangesText(cs)
		again, err := ParseChanges(back)
		if err != nil {
			t.Fatalf("ParseChanges(%q) = %q, which does not read back: %v", text, back, err)
		}
		if again2 := ChangesText(again); again2 != back {
			t.Fatalf("ParseChanges(%q) wrote %q, then %q", text, back, again2)
		}
		// A run that takes them: four lanes, long enough.
		p := Defaults()
		p.Lanes = make([]Lane, MaxLanes)
		for i := range p.Lanes {
			p.Lanes[i] = DefaultLane(i)
		}
		p.Duration = 24 * 3600e9
		p.Changes = cs
		if err := checkChanges(&p, Bounds{}); err == nil {
			if err := p.Validate(); err != nil {
				t.Fatalf("checkChanges accepted %q, Validate did not: %v", back, err)
			}
		}
	})
}
