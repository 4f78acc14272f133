package playground

import "github.com/backofflab/backofflab/scenario"

// pictureView is what the live picture of each lane's system (beside its
// charts) needs to know of the run, besides the ticks: the shape of the
// server its lanes share and the words for what it draws. hello and params
// carry it, so a live change of the server reaches the picture.
type pictureView struct {
	// Workers is a queue server's workers (0 for a latency curve's, which
	// serves every request inside at once): the picture draws a slot for
	// each, the requests in service filling them (concurrency less queued).
	Workers int `json:"workers"`
	// Healthy is the concurrency the server is healthy at or under
	// (scenario.HealthyOf): a latency curve's gauge marks it.
	Healthy int `json:"healthy"`
	// Backlog is the room of the accept backlog, which a queue server's
	// waiting requests share with the connections a paused server leaves
	// there: the queue's scale.
	Backlog int `json:"backlog"`
	// Open is an open loop's: its requests arrive whatever the server
	// does, and no client thinks between them.
	Open bool `json:"open"`
	// Labels are the tick columns the picture reads, in words.
	Labels map[string]string `json:"labels"`
}

// pictureColumns are the tick columns the picture of a lane reads.
var pictureColumns = []string{"thinking", "alive", "in_backoff", "concurrency", "queued", "backlog",
	"attempts", "retries", "ok", "errors", "timeouts", "server_latency"}

// pictureOf returns the picture's view of p's run.
func pictureOf(p *scenario.Params) pictureView {
	v := pictureView{Healthy: scenario.HealthyOf(p), Backlog: p.Backlog, Open: p.Arrival == scenario.ArrivalOpen,
		Labels: map[string]string{}}
	if p.ServerModel == scenario.QueueModel {
		v.Workers = p.Workers
	}
	for _, c := range pictureColumns {
		v.Labels[c] = scenario.ColumnLabel(c)
	}
	return v
}
