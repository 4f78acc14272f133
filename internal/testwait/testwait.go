// Package testwait gives tests one way to wait for a state: poll a
// condition with a short backoff until it holds, and fail the test when it
// has not held after a bound generous enough for a loaded machine under the
// race detector. The bound guards against a hang; it is not a measure of
// speed, and a test that passes waits only as long as the state takes.
package testwait

import (
	"testing"
	"time"
)

// Bound is how long Eventually waits before it fails the test. It is far
// past what any state a test awaits takes on a loaded 2-core machine under
// -race, so that reaching it means the state never comes.
const Bound = 60 * time.Second

// The backoff starts short, so that a state reached quickly is seen
// quickly, and grows to a ceiling, so that a long wait does not spin.
const (
	firstPause = time.Millisecond
	maxPause   = 50 * time.Millisecond
)

// Eventually polls cond until it returns true and fails t, naming what was
// awaited, when it has not after Bound. It must be called from the test's
// goroutine, as t.Fatalf requires.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !Within(Bound, cond) {
		t.Fatalf("waiting until %s: not after %v", what, Bound)
	}
}

// Within polls cond until it returns true or d has passed, and reports
// whether cond held. It is for callers that fail with their own message or
// that expect, and check, that a state does not come.
func Within(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	pause := firstPause
	for !cond() {
		if time.Now().After(end) {
			return cond()
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPause)
	}
	return true
}
