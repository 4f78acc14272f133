package playground

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// marksOf runs query's run to its end as a session does, feeding its rows
// and summaries to a marker, and returns the marks it finds.
func marksOf(t *testing.T, query string) (*marksMsg, scenario.Params) {
	t.Helper()
	q, _ := url.ParseQuery(query)
	sc, errs := scene.Decode(q, kit.DefaultLimits)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	e, err := simengine.New(sc.Params)
	if err != nil {
		t.Fatal(err)
	}
	m := newMarker(&sc.Params)
	e.AdvanceTo(sc.Params.Duration, func(tk scenario.Tick) {
		m.observe(TickRow(tk, nil, e), e)
		m.summaries(e.Summaries(), phaseOf(e, sc.Params))
	})
	msg := m.take()
	if msg == nil {
		t.Fatal("no marks")
	}
	return msg, sc.Params
}

// find returns lane's mark of kind, or fails.
func find(t *testing.T, msg *marksMsg, lane int, kind string) mark {
	t.Helper()
	for _, mk := range msg.Marks {
		if mk.Lane == lane && mk.Kind == kind {
			return mk
		}
	}
	t.Fatalf("lane %d has no %s mark in %+v", lane, kind, msg.Marks)
	return mark{}
}

// TestMarksOfTheLandingView: the moments that decide the landing view,
// as its CSV shows them (go run . run -format csv, seed 1): both lanes'
// retries land 2.0 s into the pause (the 2 s timeout, then 100 ms: at
// t = 22.0 s lane a and b have 14 failed attempts since 20 s and 8
// retries); at the resume (35 s) lane a's backlog holds 3774 connections,
// lane b's 3266; lane b's service is back 21.8 s after the resume and its
// server 25.1 s after (its verdict); lane a never.
func TestMarksOfTheLandingView(t *testing.T) {
	msg, p := marksOf(t, "")
	for lane, want := range map[int]struct {
		flood string
	}{0: {"resume: 3 774 flood in"}, 1: {"resume: 3 266 flood in"}} {
		r := find(t, msg, lane, markRetries)
		if math.Abs(r.T-22) > 1e-9 || r.Label != "retries land: 2.0 s into the outage" || r.Chart != "backoff" {
			t.Errorf("lane %d: retries %+v", lane, r)
		}
		f := find(t, msg, lane, markFlood)
		if f.T != 35 || f.Label != want.flood || f.Chart != "server" {
			t.Errorf("lane %d: flood %+v, want %q at 35", lane, f, want.flood)
		}
	}
	if s := find(t, msg, 1, markService); math.Abs(s.T-(35+21.8)) > 0.05 || s.Chart != "throughput" {
		t.Errorf("lane b: service %+v, want at 56.8 s", s)
	}
	if s := find(t, msg, 1, markServer); math.Abs(s.T-(35+25.1)) > 0.05 || !strings.Contains(s.Text, "at most 30 requests inside") {
		t.Errorf("lane b: server %+v, want at 60.1 s", s)
	}
	for _, mk := range msg.Marks {
		if mk.Lane == 0 && (mk.Kind == markService || mk.Kind == markServer) {
			t.Errorf("lane a collapsed, yet %+v", mk)
		}
	}
	// The levels: 30 healthy inside, 30 workers / 100 ms = 300/s, and 90 %
	// of each lane's baseline (95.3 ok/s at seed 1).
	got := map[string]bool{}
	for _, l := range msg.Levels {
		got[fmt.Sprintf("%d %s %s %.2f", l.Lane, l.Chart, l.Label, l.Value)] = true
	}
	sums, _ := simengine.Run(t.Context(), p, nil)
	for _, w := range []string{
		"0 server healthy: ≤ 30 inside 30.00", "1 server healthy: ≤ 30 inside 30.00",
		"0 throughput workers serve 300/s 300.00",
		fmt.Sprintf("1 throughput 90 %% of baseline %.2f", 0.9*sums[1].BaselineOK),
	} {
		if !got[w] {
			t.Errorf("no level %q in %v", w, got)
		}
	}
}

// TestMarksOf001: on 001's curve, lane b (001's program) retries late: half
// of its failed attempts are retried only 27.5 s after the resume (at
// 62.5 s, 408 of 815), where lane a's are 2.1 s into the pause; at the
// resume its backlog holds 817 connections against lane a's 3782.
func TestMarksOf001(t *testing.T) {
	msg, _ := marksOf(t, "server_model=curve&b.strategy=think_scaled")
	if r := find(t, msg, 0, markRetries); math.Abs(r.T-22.1) > 1e-9 {
		t.Errorf("lane a: retries %+v, want at 22.1 s", r)
	}
	if r := find(t, msg, 1, markRetries); math.Abs(r.T-62.5) > 1e-9 || r.Label != "retries land: 27.5 s after the resume" {
		t.Errorf("lane b: retries %+v, want at 62.5 s", r)
	}
	if f := find(t, msg, 1, markFlood); f.Label != "resume: 817 flood in" {
		t.Errorf("lane b: flood %+v", f)
	}
	if f := find(t, msg, 0, markFlood); f.Label != "resume: 3 782 flood in" {
		t.Errorf("lane a: flood %+v", f)
	}
	for _, l := range msg.Levels {
		if l.Chart == "throughput" && strings.HasPrefix(l.Label, "workers") {
			t.Errorf("a curve server has no workers' rate: %+v", l)
		}
	}
}

// TestMarkerKeepsTheLatestOutage: a new outage drops the marks of the
// previous one, and take says nothing when nothing changed.
func TestMarkerKeepsTheLatestOutage(t *testing.T) {
	p := scenario.Defaults()
	p.Lanes = p.Lanes[:1]
	m := newMarker(&p)
	nc := len(scenario.Columns)
	row := func(t0, retries, timeouts, backlog float64) []float64 {
		r := make([]float64, 1+nc)
		r[0] = t0
		r[1+columnIndex("retries")], r[1+columnIndex("timeouts")], r[1+columnIndex("backlog")] = retries, timeouts, backlog
		return r
	}
	m.take()
	if m.take() != nil {
		t.Fatal("take twice: a message with nothing new")
	}
	m.edge(true, 10)
	m.row(row(10.1, 0, 100, 50)) // 10 failed
	m.row(row(10.2, 40, 0, 80))  // 4 retried: not yet half of 10
	if msg := m.take(); msg == nil || len(msg.Marks) != 0 {
		t.Fatalf("before the retries land: %+v", msg)
	}
	m.row(row(10.3, 20, 0, 90)) // 6 retried: half of 10 and more
	m.edge(false, 12)
	msg := m.take()
	if len(msg.Marks) != 2 || msg.Marks[0].Kind != markRetries || msg.Marks[0].T != 10.3 || msg.Marks[1].Kind != markFlood || msg.Marks[1].Label != "resume: 90 flood in" {
		t.Fatalf("marks %+v", msg.Marks)
	}
	m.edge(true, 20)
	if msg := m.take(); msg == nil || len(msg.Marks) != 0 {
		t.Fatalf("a new outage kept %+v", msg)
	}
}

// BenchmarkMarker measures what the marker adds to a session per tick row
// of the landing view's two lanes (ns/row).
func BenchmarkMarker(b *testing.B) {
	p := scenario.Defaults()
	e, err := simengine.New(p)
	if err != nil {
		b.Fatal(err)
	}
	type step struct {
		row  []float64
		down bool
		at   float64
	}
	var steps []step
	e.AdvanceTo(p.Duration, func(tk scenario.Tick) {
		steps = append(steps, step{TickRow(tk, nil, e), e.Down(), outageEdge(e, e.Down())})
	})
	b.ResetTimer()
	for b.Loop() {
		m := newMarker(&p)
		for _, s := range steps {
			if s.down != m.down {
				m.edge(s.down, s.at)
			}
			m.row(s.row)
		}
		m.take()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(steps)), "ns/row")
}

// TestChangeMarks: a live change is a mark on every chart of each lane it
// changed, at its virtual time, in that lane's words.
func TestChangeMarks(t *testing.T) {
	p := scenario.Defaults()
	m := newMarker(&p)
	m.take()
	m.setChanges([]scenario.Change{
		{At: 48 * time.Second, Set: []scenario.Assign{{Name: "b.factor", Value: 1.1}}},
		{At: 60 * time.Second, Outage: scenario.ChangeStop},
	})
	msg := m.take()
	if msg == nil {
		t.Fatal("no marks message after the changes")
	}
	var got []string
	for _, mk := range msg.Marks {
		if mk.Kind == markChange {
			got = append(got, fmt.Sprintf("%g %d %s %s | %s", mk.T, mk.Lane, mk.Chart, mk.Label, mk.Text))
		}
	}
	want := []string{
		"48 1 * b.factor=1.1 | Changed live: b.factor changed to 1.1 at 48 s; the rest of the run is judged with it.",
		"60 0 * stop by hand | Changed live: the server stopped by hand at 60 s; the rest of the run is judged with it.",
		"60 1 * stop by hand | Changed live: the server stopped by hand at 60 s; the rest of the run is judged with it.",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("change marks:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
