//go:build race

package simengine

// raceEnabled reports a -race build, tenfold slower: the long statistical
// runs leave it to the pass without the detector.
const raceEnabled = true
