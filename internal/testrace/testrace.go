// Package testrace tells a test whether it runs under the race detector,
// and lets a test that is too slow under it say so in one call. The
// Makefile finds the tests that call SkipUnder and runs them again
// without -race, so no list of their names is kept by hand.
package testrace

import "testing"

// SkipUnder skips the test under -race, saying why. It is called in the
// test's own body, not in a helper: the Makefile's no-race line finds the
// test by the name of the function the call is in, and
// TestRaceSkipsRunElsewhere (makefile_test.go) fails on a call elsewhere.
func SkipUnder(t testing.TB, why string) {
	t.Helper()
	if Enabled {
		t.Skip(why + ": make test runs it again without -race")
	}
}
