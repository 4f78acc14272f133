//go:build race

package sweep

// raceEnabled reports a -race build, tenfold slower: a slice of events
// between two looks at the context takes ten times as long.
const raceEnabled = true
