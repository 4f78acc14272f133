//go:build !race

package libconfig

const raceEnabled = false
