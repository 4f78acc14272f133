package kit

import (
	"sync"
	"time"
)

// Forward runs work on a goroutine of its own and hands what it reports
// to send on the calling goroutine, which alone writes the view's stream:
// a page slow to read holds up its own progress, never a core. work may
// report from any goroutine. Reports are coalesced: send gets the latest,
// once, and only when it differs from the last one sent (at first, the
// zero T, which the stream's first line has said). hold, when not nil,
// paces the lines: after a report it says how long to wait before sending
// next in place of sent, the wait cut short when work returns. Forward
// returns when work has, its last report sent: what work set before it
// returned is the caller's to read.
func Forward[T comparable](work func(report func(T)), send func(T), hold func(sent, next T) time.Duration) {
	var mu sync.Mutex
	var last T
	latest := func() T {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
	changed, finished := make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(finished)
		work(func(v T) {
			mu.Lock()
			last = v
			mu.Unlock()
			select {
			case changed <- struct{}{}:
			default:
			}
		})
	}()
	var sent T
	for over := false; !over; {
		select {
		case <-changed:
		case <-finished:
			over = true
		}
		if !over && hold != nil {
			if d := hold(sent, latest()); d > 0 {
				select {
				case <-time.After(d):
				case <-finished:
					over = true
				}
			}
		}
		if v := latest(); v != sent {
			send(v)
			sent = v
		}
	}
}
