package playground

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
)

// TestPictureOf: the picture's view of a run names the server's shape as
// the vocabulary has it (a queue's workers, none for a latency curve), its
// healthy level and backlog, and whether the loop is open; and every
// column it reads is a tick column with its label.
func TestPictureOf(t *testing.T) {
	queue := scenario.Defaults()
	queue.Workers, queue.Backlog = 12, 500
	curve := scenario.Defaults()
	curve.ServerModel, curve.ServerLimit = "curve", 40
	open := scenario.Defaults()
	open.Arrival = scenario.ArrivalOpen
	for _, tc := range []struct {
		name string
		p    scenario.Params
		want pictureView
	}{
		{"queue", queue, pictureView{Workers: 12, Healthy: scenario.HealthyOf(&queue), Backlog: 500}},
		{"curve", curve, pictureView{Workers: 0, Healthy: 40, Backlog: curve.Backlog}},
		{"open", open, pictureView{Workers: open.Workers, Healthy: scenario.HealthyOf(&open), Backlog: open.Backlog, Open: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pictureOf(&tc.p)
			if got.Workers != tc.want.Workers || got.Healthy != tc.want.Healthy || got.Backlog != tc.want.Backlog || got.Open != tc.want.Open {
				t.Errorf("pictureOf = %+v, want %+v", got, tc.want)
			}
			for _, c := range pictureColumns {
				if !slices.Contains(scenario.Columns, c) {
					t.Errorf("the picture reads %q, not a tick column", c)
				}
				if got.Labels[c] == "" || got.Labels[c] != scenario.ColumnLabel(c) {
					t.Errorf("the picture's label of %q is %q, want %q", c, got.Labels[c], scenario.ColumnLabel(c))
				}
			}
		})
	}
}

// TestSocketSendsPicture: hello carries the picture's view of the run, and
// params that of the run as a live change leaves it.
func TestSocketSendsPicture(t *testing.T) {
	srv, _ := newTestServer(t, Limits{})
	p := dialPage(t, srv, "speed=1&duration=600s")
	hello := p.await("hello", nil)
	if got := field[pictureView](t, hello, "picture"); got.Workers != scenario.Defaults().Workers || got.Healthy == 0 || got.Labels["thinking"] == "" {
		t.Errorf("hello's picture %+v, want the default queue's", got)
	}
	q := mustQuery(t, field[string](t, hello, "query"))
	q.Set("workers", "45")
	p.send(inMsg{Type: "set", Query: q.Encode()})
	params := p.await("params", func(m map[string]json.RawMessage) bool { return field[string](t, m, "query") != "" })
	if got := field[pictureView](t, params, "picture"); got.Workers != 45 {
		t.Errorf("params' picture has %d workers, want the 45 set", got.Workers)
	}
}

// BenchmarkPictureTickBytes reports the size of one tick message of four
// lanes of 20 000 clients (one tick per message, as a page that keeps up
// gets them), and what it would be without the columns the picture added
// (thinking, queued).
func BenchmarkPictureTickBytes(b *testing.B) {
	p := scenario.Defaults()
	p.Clients = 20_000
	p.OutageAt, p.OutageFor = 2*time.Second, 3*time.Second
	for _, s := range []string{"fixed", "exponential", "full_jitter", "decorrelated"}[len(p.Lanes):] {
		l := p.Lanes[0]
		l.Strategy = s
		p.Lanes = append(p.Lanes, l)
	}
	e, err := simengine.New(p)
	if err != nil {
		b.Fatal(err)
	}
	var rows [][]float64
	e.AdvanceTo(60*time.Second, func(t scenario.Tick) { rows = append(rows, TickRow(t, nil, e)) })
	added := []int{slices.Index(scenario.Columns, "thinking"), slices.Index(scenario.Columns, "queued")}
	without := make([][]float64, len(rows))
	for r, row := range rows {
		out := []float64{row[0]}
		for i := range len(p.Lanes) {
			for c, v := range row[1+i*len(scenario.Columns):][:len(scenario.Columns)] {
				if !slices.Contains(added, c) {
					out = append(out, v)
				}
			}
		}
		without[r] = out
	}
	var size, less int
	for i := 0; b.Loop(); i++ {
		k := i % len(rows)
		size += len(mustJSON(tickMsg{Type: "tick", Ticks: rows[k : k+1]}))
		less += len(mustJSON(tickMsg{Type: "tick", Ticks: without[k : k+1]}))
	}
	b.ReportMetric(float64(size)/float64(b.N), "B/tick")
	b.ReportMetric(float64(less)/float64(b.N), "B/tick-without-picture-columns")
}
