package kit

import (
	"fmt"
	"time"
)

// PilotCPU is how long the runs that estimate a view's cost may work
// each: a map's corners, a band's first seed. A run that ends within it
// is measured whole; a longer one is extrapolated over its virtual time.
const PilotCPU = 250 * time.Millisecond

// TooDear says why a view whose runs are estimated at est of core time is
// refused under lim, or "" when est is within its budget. what names the
// view ("this map"); whole says whether the runs it was estimated from
// ran to their end or were extrapolated; smaller says how to make it
// smaller.
func TooDear(est time.Duration, whole bool, lim Limits, what, smaller string) string {
	if est <= lim.ViewCPU {
		return ""
	}
	how := "measured on its first runs"
	if !whole {
		how = fmt.Sprintf("extrapolated from its first runs' first %s", Say(PilotCPU))
	}
	return fmt.Sprintf("%s would take about %s of the server's CPU (%s on its %d cores with nothing else running; %s), past the %s one map, band or study may take; %s",
		what, Say(est), Say(est/time.Duration(lim.ViewCores)), lim.ViewCores, how, Say(lim.ViewCPU), smaller)
}

// TimeLeft estimates a view's time left, in seconds, from its work so far:
// done of total (in any unit: estimated core time, runs) in the wall time
// since start; -1 while nothing is done. Under load the view's pace falls
// and its time left grows with it: the estimate is of this view's own
// pace, not of the machine's.
func TimeLeft(start time.Time, done, total float64) float64 {
	if done <= 0 {
		return -1
	}
	left := time.Since(start).Seconds() * (total - done) / done
	return max(left, 0)
}
