package contention

import (
	"fmt"
	"strconv"
)

// Work is what p cost to run, in Spec.Work's unit: its runs × N². A
// study's points, summed, make its Work; a stream's time left is
// reckoned in it, since a point of many clients costs far more than one of
// few.
func (p Point) Work() float64 { return float64(p.Clients) * float64(p.Clients) * float64(p.Runs) }

// Conclusion says in one sentence what points found at their largest N:
// the strategy whose clients made the fewest calls (the blog's work), the
// one that finished first, and how many times the fewest calls the
// strategy with the most made. It is "" for no points.
func Conclusion(points []Point) string {
	top := 0
	for _, p := range points {
		top = max(top, p.Clients)
	}
	var at []Point
	for _, p := range points {
		if p.Clients == top {
			at = append(at, p)
		}
	}
	if len(at) == 0 {
		return ""
	}
	least, first, most := at[0], at[0], at[0]
	for _, p := range at[1:] {
		if p.Calls.Mean < least.Calls.Mean {
			least = p
		}
		if p.Time.Mean < first.Time.Mean {
			first = p
		}
		if p.Calls.Mean > most.Calls.Mean {
			most = p
		}
	}
	runs := "1 run"
	if least.Runs != 1 {
		runs = strconv.Itoa(least.Runs) + " runs"
	}
	s := fmt.Sprintf("At %d clients (means over %s), %s did the least work, %.0f calls", top, runs, lineLabel(least.Strategy), least.Calls.Mean)
	ratio := func(p Point) string { return fmt.Sprintf("%.1f×", p.Calls.Mean/least.Calls.Mean) }
	switch {
	case first.Strategy == least.Strategy:
		s += fmt.Sprintf(", and finished first, in %s", seconds(first.Time.Mean))
	case first.Strategy == most.Strategy && least.Calls.Mean > 0:
		// One clause, lest "its calls" read as the fastest one's own.
		return s + fmt.Sprintf("; %s finished first, in %s, but made %s as many calls.", lineLabel(first.Strategy), seconds(first.Time.Mean), ratio(most))
	default:
		s += fmt.Sprintf("; %s finished first, in %s", lineLabel(first.Strategy), seconds(first.Time.Mean))
	}
	if most.Strategy != least.Strategy && least.Calls.Mean > 0 {
		s += fmt.Sprintf("; %s made %s as many calls", lineLabel(most.Strategy), ratio(most))
	}
	return s + "."
}

// lineLabel is the words of the study's line name.
func lineLabel(name string) string {
	if l, err := LineOf(name); err == nil {
		return l.Label()
	}
	return name
}

// seconds writes a time in seconds as a reader says it: 0.012 s, 3.4 s.
func seconds(s float64) string {
	if s >= 10 {
		return fmt.Sprintf("%.0f s", s)
	}
	return strconv.FormatFloat(s, 'g', 2, 64) + " s"
}
