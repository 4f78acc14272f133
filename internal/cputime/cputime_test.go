package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestMeasureCountsWork: busy work counts; a sleep, which holds no core,
// counts next to nothing where the system tells a thread's CPU time.
func TestMeasureCountsWork(t *testing.T) {
	busy := Measure(func() {
		for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
		}
	})
	if busy <= 0 {
		t.Errorf("50 ms of busy work measured %v", busy)
	}
	if runtime.GOOS != "linux" {
		t.Skip("this system does not tell a thread's CPU time: Measure is wall time")
	}
	idle := Measure(func() { time.Sleep(50 * time.Millisecond) }) // wall time without CPU time: the thing measured
	if idle >= busy/2 {
		t.Errorf("a 50 ms sleep measured %v, busy work %v: want the sleep far below", idle, busy)
	}
}

// TestMeasureFine: a few microseconds of work measure above nothing: the
// clock is the thread's CPU time in nanoseconds, not in clock ticks.
func TestMeasureFine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("this system does not tell a thread's CPU time: Measure is wall time")
	}
	for range 100 {
		n := 0
		if d := Measure(func() {
			for i := range 10_000 {
				n += i
			}
		}); d <= 0 {
			t.Fatalf("10 000 additions measured %v", d)
		}
		_ = n
	}
}
