package realexp

import "backofflab/scenario"

// Curve is 001's latency curve, the same the simulator's server answers by:
// see scenario.Curve.
type Curve = scenario.Curve
