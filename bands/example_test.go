package bands_test

import (
	"context"
	"fmt"
	"net/url"

	"github.com/backofflab/backofflab/bands"
	"github.com/backofflab/backofflab/scenario"
)

// Run the landing view's scenario with 10 seeds,
// and tell per lane how many collapsed and the median concurrency at the
// end.
func ExampleRun() {
	p, err := scenario.Parse(url.Values{})
	if err != nil {
		panic(err)
	}
	r, err := bands.Run(context.Background(), p, 10, bands.Options{})
	if err != nil {
		panic(err)
	}
	last := len(r.T) - 1
	for _, ln := range r.Lanes {
		conc := ln.Columns[6] // scenario.Columns[6]
		fmt.Printf("lane %s (%s): %d of %d seeds collapsed; %s at %gs: median %g, 5–95 %%: %g–%g\n",
			ln.Name, ln.Strategy, ln.Collapsed, r.Seeds, conc.Name, r.T[last],
			conc.Q[1][last], conc.Q[0][last], conc.Q[2][last])
	}
	// Output:
	// lane a (fixed): 10 of 10 seeds collapsed; concurrency at 120s: median 4125, 5–95 %: 4123–4126
	// lane b (exponential): 0 of 10 seeds collapsed; concurrency at 120s: median 9, 5–95 %: 5–14
}
