package strategies

import (
	"testing"
	"time"
)

// TestWindowMatchesBruteForce: a window's sum is the sum of the events in
// the current slice and the n−1 before it, the slices aligned on multiples
// of their length, however the events and the queries fall.
func TestWindowMatchesBruteForce(t *testing.T) {
	const span, n = 10 * time.Second, 10
	slice := span / n
	type event struct {
		at time.Duration
		v  int64
	}
	rng := newRNG(990)
	w := newWindow(span, n, 1)
	var events []event
	now := time.Duration(0)
	for i := range 5000 {
		// Mostly small steps, now and then a long silence.
		step := time.Duration(rng.Int64N(int64(300 * time.Millisecond)))
		if i%500 == 499 {
			step = time.Duration(rng.Int64N(int64(3 * span)))
		}
		now += step
		if rng.IntN(3) > 0 {
			v := rng.Int64N(11) - 5
			w.add(now, 0, v)
			events = append(events, event{now, v})
		}
		from := (now/slice - (n - 1)) * slice // the oldest slice's start
		var want int64
		for _, e := range events {
			if e.at >= from {
				want += e.v
			}
		}
		if got := w.sum(now, 0); got != want {
			t.Fatalf("at %v: sum %d, want %d", now, got, want)
		}
	}
}

// TestWindowClockStepsBack: an event dated before the current slice, as a
// real client's goroutine may bring, counts in it.
func TestWindowClockStepsBack(t *testing.T) {
	w := newWindow(10*time.Second, 10, 2)
	w.add(25*time.Second, 0, 3)
	w.add(21*time.Second, 1, 4) // a goroutine that read the clock earlier
	if a, b := w.sum(25*time.Second, 0), w.sum(25*time.Second, 1); a != 3 || b != 4 {
		t.Errorf("sums %d, %d; want 3, 4", a, b)
	}
	if a, b := w.sum(35*time.Second, 0), w.sum(35*time.Second, 1); a != 0 || b != 0 {
		t.Errorf("sums %d, %d a window later; want 0, 0", a, b)
	}
}
