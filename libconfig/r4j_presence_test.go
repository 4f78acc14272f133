package libconfig

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestR4jPresenceRules: resilience4j chooses a retry's interval function by
// which properties are present (configureRetryIntervalFunction): no
// waitDuration keeps the base's interval, a cap or a factor without its
// companion is ignored, and an instance inherits its base's flags and
// multiplier but not its factor. The lane is what resilience4j runs, and
// every setting it ignores is a warning at its path.
func TestR4jPresenceRules(t *testing.T) {
	const a = "resilience4j.retry.instances.a."
	tests := []struct {
		file, query string
		warned      []string // paths that must carry an "ignored" warning
	}{
		// A constant 500 ms, resilience4j's default: not 0.5/0.75/1.1 s.
		{"no_wait.yml", "a.strategy=resilience4j", []string{a + "enableExponentialBackoff"}},
		// ofExponentialBackoff(wait): multiplier 1.5, no cap.
		{"cap_without_multiplier.yml", "a.factor=1.5&a.strategy=resilience4j", []string{a + "exponentialMaxWaitDuration"}},
		// ofExponentialRandomBackoff(wait, 2): factor 0.5, no cap.
		{"cap_without_factor.yml", "a.factor=2&a.jitter=0.5&a.strategy=resilience4j", []string{a + "exponentialMaxWaitDuration"}},
		// ofExponentialRandomBackoff(wait): multiplier 1.5, factor 0.5.
		{"factor_without_multiplier.yml", "a.factor=1.5&a.jitter=0.5&a.min_delay=100ms&a.strategy=resilience4j", []string{a + "randomizedWaitFactor"}},
		// The flags and the multiplier merge in from default; the factor does not.
		{"inherits_flags_not_factor.yml", "a.factor=2&a.jitter=0.5&a.min_delay=100ms&a.strategy=resilience4j", nil},
		// No waitDuration of its own: default's constant 200 ms.
		{"base_interval_kept.yml", "a.max_attempts=5&a.min_delay=200ms&a.strategy=resilience4j", []string{a + "enableRandomizedWait"}},
		{"multiplier_without_backoff.yml", "a.min_delay=300ms&a.strategy=resilience4j", []string{a + "exponentialBackoffMultiplier"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "r4j_presence", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			c, warns, err := ParseResilience4j(data)
			if err != nil {
				t.Fatal(err)
			}
			l, more, err := ToLane(c)
			if err != nil {
				t.Fatalf("ToLane: %v", err)
			}
			if got := Query(l, "a").Encode(); got != tt.query {
				t.Errorf("lane %s, want %s (warnings %v)", got, tt.query, warns)
			}
			var paths []string
			for _, w := range append(warns, more...) {
				paths = append(paths, w.Path)
			}
			for _, p := range tt.warned {
				if !slices.Contains(paths, p) {
					t.Errorf("no warning at %s; warnings: %v", p, warns)
				}
			}
		})
	}
}
