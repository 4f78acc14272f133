//go:build race

package playground

// raceEnabled reports a -race build, whose tenfold slowdown makes timing
// tests measure the detector rather than the server.
const raceEnabled = true
