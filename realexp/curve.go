package realexp

import "backofflab/simengine"

// Curve is 001's latency curve, the same the simulator's server answers by:
// see simengine.Curve.
type Curve = simengine.Curve
