//go:build race

package libconfig

// raceEnabled reports a -race build, tenfold slower: the round trips of
// thousands of random models, on one goroutine where the detector has
// nothing to watch, leave it to make test's pass without the detector.
const raceEnabled = true
