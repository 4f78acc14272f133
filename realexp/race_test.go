//go:build race

package realexp

// raceEnabled reports a -race build: it runs several times slower and keeps
// at most 8128 goroutines alive, so the experiment test watches less long.
const raceEnabled = true
