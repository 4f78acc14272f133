//go:build race

package main

// raceEnabled reports a -race build, tenfold slower: the long known-answer
// runs of the advise command leave it to make test's pass without the
// detector.
const raceEnabled = true
