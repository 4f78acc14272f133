//go:build race

package testrace

// Enabled reports a -race build: it runs several times slower, allocates
// on its own and keeps at most 8128 goroutines alive.
const Enabled = true
