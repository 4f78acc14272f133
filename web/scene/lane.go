package scene

import (
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// Box is what a parameter's number box shows for a value: its text in
// the box's unit (seconds for a duration) and its slider's position. The
// playground's page computes it (its controls' rule); a view that answers
// that page with a lane's values (the library import) answers its boxes
// too, so that the page parses and formats no value itself.
type Box struct {
	Text string `json:"text"`
	Pos  int    `json:"pos"` // 0 when the box has no slider
}

// LaneValues is lane l's value of every strategy and limiter parameter,
// as the vocabulary's table writes them (named without the lane's letter).
func LaneValues(l strategies.Params) map[string]string {
	p := scenario.Defaults()
	p.Lanes[0].Params = l
	out := map[string]string{}
	for _, row := range scenario.Table {
		if row.Lane && (row.Scope == scenario.ScopeStrategy || row.Scope == scenario.ScopeLimiter) {
			out[row.Name] = row.Value(&p, 0)
		}
	}
	return out
}
