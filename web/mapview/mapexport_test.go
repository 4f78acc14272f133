package mapview

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/sweep"
)

// TestPostedCellFits: the longest cell a page may post, every lane's
// summary with every field at its longest (numbers of the most digits,
// the most tiers, the longest fault kind and a stop's words at
// sweep.MaxStoppedBytes), fits maxMapCellBytes: a legal map's export is
// never refused for its size.
func TestPostedCellFits(t *testing.T) {
	f := -2.2250738585072014e-308 // the longest float64 JSON writes
	n := int64(math.MinInt64)
	fault := ""
	for _, k := range scenario.FaultKinds {
		if len(k.Name) > len(fault) {
			fault = k.Name
		}
	}
	s := scenario.Summary{BaselineOK: f, ServerRecoveredAfter: &f, ServiceRecoveredAfter: &f, Collapsed: true, Recovering: true,
		EarlierAttempts: f, RecentAttempts: f, EarlierLoad: f, RecentLoad: f, Fault: fault, Stopped: strings.Repeat("x", sweep.MaxStoppedBytes),
		PeakConcurrency: math.MinInt, Attempts: n, Requests: n, Amplification: f, BottomAmplification: f, Succeeded: n, GaveUp: n, Open: n,
		PeakAttemptRate: f, RequestP50: f, RequestP99: f, RequestP999: f, Patience: f, OpenPastPatience: n, SucceededWithin: f}
	for range scenario.MaxTiers {
		s.TierAttempts = append(s.TierAttempts, n)
	}
	c := postedCell{Index: math.MinInt}
	for range scenario.MaxLanes {
		c.Summaries = append(c.Summaries, s)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > maxMapCellBytes {
		t.Errorf("the longest posted cell is %d bytes, over maxMapCellBytes = %d", len(b), maxMapCellBytes)
	}
	t.Logf("the longest posted cell: %d bytes of %d", len(b), maxMapCellBytes)
}
