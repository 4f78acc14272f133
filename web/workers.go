package web

import (
	"context"
	"fmt"
	"sync/atomic"
)

// analyses bounds what the many-run views (the phase map, the seed bands,
// the contention study) may cost the server together: at most maxViews of
// them run at once, a newcomer past that is told the server is busy; and
// all of them share cores simulation goroutines, so that two maps on a
// 2-core machine take turns rather than 4 goroutines fighting for 2 cores
// and starving the live pages. running counts the simulations in progress,
// which a view's end (its page left, its map changed) brings back to 0.
type analyses struct {
	views   chan struct{} // one token per running view
	cores   chan struct{} // one token per running simulation
	running atomic.Int64
}

func newAnalyses(maxViews, cores int) *analyses {
	return &analyses{views: make(chan struct{}, maxViews), cores: make(chan struct{}, cores)}
}

// begin takes a view's slot, or says why it cannot: the caller calls the
// returned end when the view's work is over.
func (a *analyses) begin() (end func(), err error) {
	select {
	case a.views <- struct{}{}:
		return func() { <-a.views }, nil
	default:
		return nil, fmt.Errorf("server busy: %d maps, bands or studies are running, as many as run at once; try again when one ends", cap(a.views))
	}
}

// simulate runs job, one simulation, once a core is free, or returns ctx's
// error if ctx ends first.
func (a *analyses) simulate(ctx context.Context, job func() error) error {
	select {
	case a.cores <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	a.running.Add(1)
	defer func() {
		a.running.Add(-1)
		<-a.cores
	}()
	return job()
}

// Running returns how many simulations of the many-run views are in
// progress on the server.
func (s *Server) Running() int64 { return s.analyses.running.Load() }
