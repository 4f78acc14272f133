package simengine

import (
	"bytes"
	"context"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// TestParallelWritersMatch: WriteCSVParallel and WriteJSONParallel, whose
// lanes advance in parallel, write the same bytes as WriteCSV and
// WriteJSON, whose lanes go one after the other (the JSON's one lane's
// whole run after the other's), for runs with faults, live changes, tiers
// and four lanes. It sets GOMAXPROCS, so it is not parallel.
func TestParallelWritersMatch(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	faults := simSmall()
	faults.Faults = mustFaults("latency_spike:4s:3s:3,error_burst:8s:2s:0.5,crash:18s:2s,load_spike:25s:5s:2")
	faults.Lanes = append(faults.Lanes, simLane(strategies.NameFixed), simLane(strategies.NameDecorrelated))
	changes := simSmall()
	cs, err := scenario.ParseChanges("@3s clients=500 @5s stop @8s resume @9s faults=load_spike:9s:4s:2 @12s b.factor=1.5")
	if err != nil {
		t.Fatal(err)
	}
	changes.Changes = cs
	tiers := simSmall()
	tiers.Lanes[1].Tiers = mustTiers("fixed:3:1s,fixed:3:500ms:retry_budget")
	storm := simStorm()
	storm.Duration = 10 * time.Second
	for _, tc := range []struct {
		name string
		p    scenario.Params
	}{
		{"four lanes and faults", faults},
		{"live changes", changes},
		{"tiers", tiers},
		{"storm", storm},
	} {
		for _, w := range []struct {
			format       string
			serial, para func(context.Context, io.Writer, scenario.Params, *budget.Account) error
		}{
			{"csv", WriteCSV, WriteCSVParallel},
			{"json", WriteJSON, WriteJSONParallel},
		} {
			t.Run(tc.name+"/"+w.format, func(t *testing.T) {
				var serial, para bytes.Buffer
				if err := w.serial(t.Context(), &serial, tc.p, nil); err != nil {
					t.Fatal(err)
				}
				before := RoundsApart()
				if err := w.para(t.Context(), &para, tc.p, nil); err != nil {
					t.Fatal(err)
				}
				if RoundsApart() == before {
					t.Errorf("the lanes never ran apart")
				}
				if !bytes.Equal(serial.Bytes(), para.Bytes()) {
					n := 0
					for n < min(serial.Len(), para.Len()) && serial.Bytes()[n] == para.Bytes()[n] {
						n++
					}
					t.Errorf("the outputs differ from byte %d (%d and %d bytes):\none after the other %.120q\nin parallel        %.120q",
						n, serial.Len(), para.Len(), serial.Bytes()[n:], para.Bytes()[n:])
				}
			})
		}
	}
}
