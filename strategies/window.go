package strategies

import "time"

// window sums counters over the recent past in slices, as Finagle's
// WindowedAdder does: a ring of n slices, each span/n long and aligned on
// multiples of its length from the clock's origin, the newest being the
// current one. Its sums cover the current slice and the n−1 before it:
// between span−span/n and span of the past. A window costs the same memory
// however many events it counts, which an exact sliding window, one entry
// per event, would not: a lane of 100 000 clients sends thousands of
// attempts a second.
//
// Its clock may step back a little, as the real client's goroutines read
// it in one order and lock in another: an event dated before the current
// slice counts in it.
type window struct {
	slice time.Duration // the length of a slice
	width int           // counters per slice
	ring  []int64       // n slices of width counters
	sums  []int64       // the width sums over the ring
	head  int           // the current slice
	start time.Duration // when the current slice began
}

// newWindow returns a window of width counters over span in n slices.
func newWindow(span time.Duration, n, width int) window {
	return window{slice: max(span/time.Duration(n), 1), width: width,
		ring: make([]int64, n*width), sums: make([]int64, width)}
}

// advance makes the slice that holds now current, forgetting the slices
// that fall out of the window.
func (w *window) advance(now time.Duration) {
	if now < w.start+w.slice {
		return
	}
	n := len(w.ring) / w.width
	k := int64((now - w.start) / w.slice)
	w.start += time.Duration(k) * w.slice
	if k >= int64(n) {
		clear(w.ring)
		clear(w.sums)
		return
	}
	for range k {
		w.head = (w.head + 1) % n
		old := w.ring[w.head*w.width : (w.head+1)*w.width]
		for j, v := range old {
			w.sums[j] -= v
		}
		clear(old)
	}
}

// add adds v to counter j at now.
func (w *window) add(now time.Duration, j int, v int64) {
	w.advance(now)
	w.ring[w.head*w.width+j] += v
	w.sums[j] += v
}

// sum returns counter j's sum over the window at now.
func (w *window) sum(now time.Duration, j int) int64 {
	w.advance(now)
	return w.sums[j]
}
