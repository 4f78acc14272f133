package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/url"
	"testing"

	"github.com/backofflab/backofflab/contention"
)

// TestContentionStreamWorkAndConclusion: the stream's share of work done,
// from which its time left is reckoned, weighs each point by its cost (N²
// a run), not one point as another; its last line says the study's
// finding in one sentence, contention.Conclusion's of the same study.
func TestContentionStreamWorkAndConclusion(t *testing.T) {
	srv, s, _ := serveShell(t, Options{})
	const study = "n=10,100&seeds=2&strategies=full_jitter"
	resp, body := get(t, srv.URL+"/contention/stream?"+study, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("%d: %s", resp.StatusCode, body)
	}
	type line struct {
		Type       string            `json:"type"`
		Point      *contention.Point `json:"point"`
		Work       float64           `json:"work"`
		Conclusion string            `json:"conclusion"`
	}
	var lines []line
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		lines = append(lines, l)
	}
	q, _ := url.ParseQuery(study)
	spec, err := contention.Parse(q, contention.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := contention.Run(context.Background(), spec, contention.Options{Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 4 || lines[1].Point == nil || lines[3].Type != "done" {
		t.Fatalf("lines %+v", lines)
	}
	// N = 10 is a hundredth of the work, N = 100 the rest, whichever
	// ends first.
	if w := lines[1].Point.Work() / spec.Work(); math.Abs(lines[1].Work-w) > 1e-9 || lines[2].Work != 1 {
		t.Errorf("work done after N = %d: %v, then %v; want %.4f (its N² of the whole), then 1", lines[1].Point.Clients, lines[1].Work, lines[2].Work, w)
	}
	if c := contention.Conclusion(want); c == "" || lines[3].Conclusion != c {
		t.Errorf("the last line's conclusion %q, want %q", lines[3].Conclusion, c)
	}
	waitIdle(t, s)
}
