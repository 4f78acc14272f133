//go:build !race

package realexp

const raceEnabled = false
