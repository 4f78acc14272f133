package kit

import (
	"slices"
	"testing"
	"time"
)

// TestForward: what work reports reaches send on the calling goroutine,
// coalesced but never repeated nor out of order, the last report always
// sent before Forward returns, and a hold never keeping it past work's
// end.
func TestForward(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reports []int
		hold    func(sent, next int) time.Duration
		last    int // the last line sent; 0 for none
	}{
		{"nothing reported, nothing sent", nil, nil, 0},
		{"only the zero, which the first line said", []int{0}, nil, 0},
		{"the last report is sent", []int{1, 2, 3, 4, 5}, nil, 5},
		{"a hold is cut short by the work's end", []int{1, 2, 3}, func(int, int) time.Duration { return time.Hour }, 3},
		{"a hold of nothing sends at once", []int{1, 2, 3}, func(int, int) time.Duration { return 0 }, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sent []int
			began := time.Now()
			Forward(func(report func(int)) {
				for _, n := range tc.reports {
					report(n)
				}
			}, func(n int) { sent = append(sent, n) }, tc.hold)
			if d := time.Since(began); d > time.Minute {
				t.Errorf("Forward took %s: a hold outlived the work", d)
			}
			if !slices.IsSorted(sent) || len(slices.Compact(slices.Clone(sent))) != len(sent) {
				t.Errorf("sent %v: repeated or out of order", sent)
			}
			if slices.Contains(sent, 0) {
				t.Errorf("sent %v: the zero, which the stream's first line says", sent)
			}
			last := 0
			if len(sent) > 0 {
				last = sent[len(sent)-1]
			}
			if last != tc.last {
				t.Errorf("sent %v, want the last %d", sent, tc.last)
			}
		})
	}
}
