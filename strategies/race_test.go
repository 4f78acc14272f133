//go:build race

package strategies

// raceEnabled reports a -race build, tenfold slower: the oracle tests'
// long samples, drawn on one goroutine where the detector has nothing to
// watch, leave it to make test's pass without the detector.
const raceEnabled = true
