package realexp

import (
	"backofflab/scenario"
	"backofflab/strategies"
)

// curveDefaults returns 001's experiment as published: the defaults with
// 001's curve server and lane b retrying as 001's program did.
func curveDefaults() scenario.Params {
	p := scenario.Defaults()
	p.ServerModel = "curve"
	b, _ := strategies.Defaults(strategies.NameThinkScaled)
	p.Lanes[1] = scenario.Lane{Params: b}
	return p
}
