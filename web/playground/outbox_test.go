package playground

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/backofflab/backofflab/scenario"
)

// outboxRow returns a tick row of lanes lanes at t whose every column is v.
func outboxRow(t float64, lanes int, v float64) []float64 {
	r := make([]float64, 1+lanes*len(scenario.Columns))
	r[0] = t
	for i := 1; i < len(r); i++ {
		r[i] = v
	}
	return r
}

func newTestOutbox(lanes int) *outbox {
	return &outbox{lanes: lanes, wake: make(chan struct{}, 1)}
}

// TestOutboxOrder: control messages come out in order, then one tick
// message with every row; take empties the outbox.
func TestOutboxOrder(t *testing.T) {
	o := newTestOutbox(1)
	o.send(paramsMsg{Type: "params", Query: "a"}, false)
	o.push([][]float64{outboxRow(0.1, 1, 1), outboxRow(0.2, 1, 2)})
	o.send(paramsMsg{Type: "params", Query: "b"}, false)
	select {
	case <-o.wake:
	default:
		t.Fatal("no wake-up after send and push")
	}
	msgs := o.take()
	if len(msgs) != 3 {
		t.Fatalf("%d messages, want 3", len(msgs))
	}
	var p paramsMsg
	for i, want := range []string{"a", "b"} {
		if err := json.Unmarshal(msgs[i], &p); err != nil || p.Query != want {
			t.Errorf("message %d: %s", i, msgs[i])
		}
	}
	var tk struct{ Ticks [][]float64 }
	if err := json.Unmarshal(msgs[2], &tk); err != nil || len(tk.Ticks) != 2 {
		t.Errorf("tick message: %s", msgs[2])
	}
	if o.pending() != 0 || len(o.take()) != 0 {
		t.Error("take left something behind")
	}
}

// TestOutboxReset: a hello drops what was queued before it.
func TestOutboxReset(t *testing.T) {
	o := newTestOutbox(1)
	o.send(paramsMsg{Type: "params"}, false)
	o.push([][]float64{outboxRow(0.1, 1, 1)})
	o.send(helloMsg{Type: "hello"}, true)
	msgs := o.take()
	if len(msgs) != 1 || !json.Valid(msgs[0]) {
		t.Fatalf("after a reset: %q", msgs)
	}
	var h helloMsg
	if json.Unmarshal(msgs[0], &h); h.Type != "hello" {
		t.Errorf("after a reset: %s", msgs[0])
	}
}

// TestOutboxBounded: a page that never reads holds at most maxMsgs control
// messages (the newest) and maxRows rows.
func TestOutboxBounded(t *testing.T) {
	o := newTestOutbox(2)
	for i := range maxMsgs + 10 {
		o.send(stateMsg{Type: "state", T: float64(i)}, false)
	}
	for i := range 5 * maxRows {
		o.push([][]float64{outboxRow(float64(i), 2, float64(i))})
	}
	if n := o.pending(); n > maxRows {
		t.Errorf("%d rows pending, at most %d", n, maxRows)
	}
	msgs := o.take()
	if len(msgs) != maxMsgs+1 {
		t.Fatalf("%d messages, want %d and a tick", len(msgs), maxMsgs)
	}
	var s stateMsg
	if json.Unmarshal(msgs[0], &s); s.T != 10 {
		t.Errorf("the oldest kept state is at %v, want 10", s.T)
	}
}

// TestCoalesce: rates are averaged, levels and t are the later row's, and a
// missing percentile keeps the earlier one.
func TestCoalesce(t *testing.T) {
	col := map[string]int{}
	for i, c := range scenario.Columns {
		col[c] = 1 + len(scenario.Columns) + i // lane b
	}
	a, b, c := outboxRow(1, 2, 2), outboxRow(2, 2, 4), outboxRow(3, 2, 8)
	b[col["p99"]] = math.NaN()
	got := coalesce([][]float64{a, b, c}, 2)
	if len(got) != 2 {
		t.Fatalf("%d rows, want 2", len(got))
	}
	m := got[0]
	if m[0] != 2 || m[col["ok"]] != 3 || m[col["concurrency"]] != 4 || m[col["p99"]] != 2 {
		t.Errorf("merged row: t %v ok %v concurrency %v p99 %v", m[0], m[col["ok"]], m[col["concurrency"]], m[col["p99"]])
	}
	if got[1][0] != 3 {
		t.Errorf("the odd row out: %v", got[1])
	}
}
