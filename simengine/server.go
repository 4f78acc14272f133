package simengine

import (
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
)

// serverModel is how a lane's server serves the requests inside it: the
// seam for a server model. A model keeps what is inside and decides when
// each request completes; the lane keeps the rest of the server, which is
// the same for every model: its accept backlog, and the failure in effect
// (see failure), which decides whether requests get in, complete and are
// answered. A new model is one type in a file of its own and one row of
// serverModels.
type serverModel interface {
	// admit takes client c's attempt in at now and returns the request's
	// slot (by which the client finds it), or, having taken nothing,
	// errFull when the model has no room (the connect is dropped) or mem's
	// error.
	admit(now time.Duration, c int32, mem *budget.Account) (uint64, error)
	// next returns when the next request completes, no earlier than now,
	// or never while none is inside.
	next(now time.Duration) time.Duration
	// complete removes the request that completes at the time next gave,
	// and returns its slot and client.
	complete() (slot uint64, c int32)
	// cancel removes client c's request at slot and reports whether it
	// did (the server learns the client left). The lane calls it only for
	// a request it has not seen leave.
	cancel(slot uint64, c int32) bool
	// abandon tells the model that client c no longer waits on its
	// request at slot (it timed out without cancelling, or left): the
	// request stays inside, to be served to nobody. The lane calls it
	// only for a request it has not seen leave.
	abandon(slot uint64, c int32)
	// drop removes every request inside, calling lost with the slot and
	// client of each one not cancelled (the process died).
	drop(lost func(slot uint64, c int32))
	// concurrency returns the requests inside, abandoned or not, that are
	// not cancelled; latency is the server's latency at that level.
	concurrency() int
	latency() time.Duration
	// queued returns the requests inside that wait in the accept backlog
	// for the server to take them, which share the backlog's room with
	// the connections a paused server leaves there.
	queued() int
	// rejected calls f with the slot and client of each request the model
	// has answered with an error since the last call (a queue timeout),
	// and forgets them.
	rejected(f func(slot uint64, c int32))
	// freeze stops the server's work at now (the process is stopped) and
	// thaw resumes it at now.
	freeze(now time.Duration)
	thaw(now time.Duration)
	// held returns how many requests the model keeps in memory, and free
	// gives their memory back to mem.
	held() int
	free(mem *budget.Account)
	// setParams applies changed parameters from now on.
	setParams(p *scenario.Params)
}

// serverModels are the engine's server models by the name of their row of
// scenario.ServerModels, each with its constructor. A model of scenario's
// table that is not here is a latency as a function of the concurrency,
// which curveModel serves whatever its formula.
var serverModels = []struct {
	name string
	make func(p *scenario.Params) serverModel
}{
	{scenario.QueueModel, newQueueModel},
}

// newServerModel returns the model of p's lanes.
func newServerModel(p *scenario.Params) serverModel {
	for _, m := range serverModels {
		if m.name == p.ServerModel {
			return m.make(p)
		}
	}
	return newCurveModel(p)
}
