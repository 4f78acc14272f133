package sweep_test

import (
	"context"
	"fmt"
	"net/url"

	"github.com/backofflab/backofflab/sweep"
)

// A map of the landing view over the outage's length and the clients, one
// minute of virtual time per run, on two cores.
func ExampleRun() {
	q, _ := url.ParseQuery("x=outage_for&x_from=1s&x_to=30s&x_steps=3&y=clients&y_from=100&y_to=1000&y_steps=2&duration=1m")
	spec, err := sweep.ParseSpec(q, sweep.CLILimits)
	if err != nil {
		fmt.Println(err)
		return
	}
	cells := make([]sweep.Cell, spec.Cells())
	err = sweep.Run(context.Background(), spec, sweep.Options{Parallel: 2}, func(c sweep.Cell) {
		cells[c.Index] = c // cells end in any order
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cells {
		fmt.Printf("outage_for=%s clients=%s: a %s, b %s\n", c.XValue, c.YValue, c.Lanes[0].Outcome, c.Lanes[1].Outcome)
	}
	// Output:
	// outage_for=1s clients=100: a recovered, b recovered
	// outage_for=15.5s clients=100: a recovered, b recovered
	// outage_for=30s clients=100: a recovered, b recovered
	// outage_for=1s clients=1000: a recovered, b recovered
	// outage_for=15.5s clients=1000: a collapsed, b collapsed
	// outage_for=30s clients=1000: a collapsed, b collapsed
}
