package playground

import (
	"math"
	"slices"
	"sync"

	"github.com/backofflab/backofflab/scenario"
)

// The outbox is the only thing the simulation and the page's writer share:
// the simulation queues into it and never waits, the writer drains it. A
// page that reads slowly makes it coalesce tick rows, never grow without
// bound, and never slows the simulation.

const (
	// maxRows is how many tick rows wait for a slow page before they are
	// coalesced pairwise: the simulation never waits for the page.
	maxRows = 1024
	// maxMsgs is how many control messages wait for a slow page.
	maxMsgs = 256
)

// outbox holds what waits for the writer: control messages in order, and
// tick rows, coalesced when too many wait.
type outbox struct {
	mu    sync.Mutex
	msgs  [][]byte
	rows  [][]float64
	lanes int
	wake  chan struct{}
}

func (o *outbox) signal() {
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// send queues a control message. A hello drops everything queued before it:
// the page is about to clear its charts.
func (o *outbox) send(v any, reset bool) {
	b := mustJSON(v)
	o.mu.Lock()
	if reset {
		o.msgs, o.rows = o.msgs[:0], o.rows[:0]
	}
	if len(o.msgs) >= maxMsgs { // a page that never reads: keep the newest
		o.msgs = slices.Delete(o.msgs, 0, 1)
	}
	o.msgs = append(o.msgs, b)
	o.mu.Unlock()
	o.signal()
}

// push queues tick rows.
func (o *outbox) push(rows [][]float64) {
	if len(rows) == 0 {
		return
	}
	o.mu.Lock()
	o.rows = append(o.rows, rows...)
	for len(o.rows) > maxRows {
		o.rows = coalesce(o.rows, o.lanes)
	}
	o.mu.Unlock()
	o.signal()
}

// pending returns how many tick rows wait for the writer.
func (o *outbox) pending() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.rows)
}

// take returns what is queued: control messages first, then one tick message.
func (o *outbox) take() [][]byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	msgs := o.msgs
	o.msgs = nil
	if len(o.rows) > 0 {
		msgs = append(msgs, mustJSON(tickMsg{Type: "tick", Ticks: o.rows}))
		o.rows = nil
	}
	return msgs
}

// levels marks the Columns that are levels at a tick's end, not rates.
var levels = func() map[int]bool {
	m := map[int]bool{}
	for i, c := range scenario.Columns {
		switch c {
		case "concurrency", "server_latency", "backlog", "in_backoff", "p50", "p99", "alive", "thinking", "queued":
			m[i] = true
		}
	}
	return m
}()

// coalesce merges neighbouring rows pairwise: rates are averaged, levels and
// t are the later row's, a percentile is the later one's when it has one.
func coalesce(rows [][]float64, lanes int) [][]float64 {
	n := len(scenario.Columns)
	out := rows[:0]
	for i := 0; i < len(rows); i += 2 {
		if i+1 == len(rows) {
			out = append(out, rows[i])
			break
		}
		a, b := rows[i], rows[i+1]
		m := make([]float64, len(b))
		m[0] = b[0]
		for l := range lanes {
			for c := range n {
				j := 1 + l*n + c
				switch {
				case !levels[c]:
					m[j] = (a[j] + b[j]) / 2
				case math.IsNaN(b[j]):
					m[j] = a[j]
				default:
					m[j] = b[j]
				}
			}
		}
		out = append(out, m)
	}
	return out
}
