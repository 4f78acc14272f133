// Package scenariotest holds the scenarios that the tests of several
// packages start from, so that each is written once.
package scenariotest

import (
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// CurveDefaults returns 001's experiment as published: the defaults with
// 001's curve server and lane b retrying as 001's program did.
func CurveDefaults() scenario.Params {
	p := scenario.Defaults()
	p.ServerModel = "curve"
	b, _ := strategies.Defaults(strategies.NameThinkScaled)
	p.Lanes[1] = scenario.Lane{Params: b}
	return p
}
