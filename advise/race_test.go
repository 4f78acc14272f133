//go:build race

package advise

// raceEnabled reports a -race build, tenfold slower: the long known-answer
// searches leave it to make test's pass without the detector.
const raceEnabled = true
