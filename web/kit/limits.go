package kit

import (
	"cmp"
	"runtime"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
)

// Limits are the caps that protect the machine from one page's run. A zero
// field means DefaultLimits' value.
type Limits struct {
	MaxSessions int           // simultaneous WebSocket sessions
	MaxClients  int           // clients per run
	MaxDuration time.Duration // virtual time per run
	// MaxRealSessions caps the sessions that run a real lane at once (a
	// real HTTP server and up to maxRealClients clients each); a negative
	// value allows none.
	MaxRealSessions int
	// RunMemory is the memory budget of one run, a page's or an export's,
	// in bytes, shared equally by its lanes: a lane whose queues outgrow
	// its share stops with a verdict that says so
	// (simengine.NewWithBudget).
	RunMemory int64
	// MaxMemory is the server-wide budget, in bytes, that every run draws
	// on: when it is taken, a new page or export is refused as busy, and a
	// growing lane stops.
	MaxMemory int64
	// MaxExports caps the exports that run at once: each is a whole run
	// on a core of its own.
	MaxExports int
	// MaxViews caps the many-run views (a phase map, seed bands, the
	// contention study) that run at once, and ViewCores the
	// simulations they run at once together: each is a whole run on a
	// core of its own. ViewCores is the server's pool of cores, shared
	// by its views; each view runs with it as its Options.Parallel (a
	// command's -parallel), and the pool lends the cores out.
	MaxViews  int
	ViewCores int
	// ViewCPU is the core time one many-run view may take: a view
	// whose estimate (its corners' or its first seed's runs, measured for
	// up to PilotCPU each) is past it is refused before it starts, and one
	// whose runs take more than estimated is stopped when it has held the
	// cores for twice as long.
	// The default, 20 minutes, is 10 minutes of a 2-core machine; a map of
	// the landing view's b.min_delay × b.factor of 64 × 64 cells takes
	// about 1 (sweep's BenchmarkEstimate).
	ViewCPU time.Duration
	// MapMaxSteps caps each axis of a phase map, MapMaxSeeds the runs per
	// cell and MapMaxCells the runs of a map in all (x steps × y steps ×
	// seeds); their defaults are defaultMapMax….
	MapMaxSteps, MapMaxSeeds, MapMaxCells int
	// MaxBandCells caps the lane-ticks a seed band keeps, (seeds + 3) ×
	// lanes × ticks (bands.Cells): until its last byte is sent, the band
	// keeps every seed's 16 columns as float32, 64 bytes a lane-tick, and
	// its three quantiles of each; the default's 1 000 000 keep 61 MiB,
	// within one run's memory (RunMemory), which the band is charged. The
	// landing view with 100 seeds keeps 247 200.
	MaxBandCells int64
	// ContentionMaxClients, ContentionMaxSeeds and ContentionMaxPoints
	// bound a contention study (/contention): its largest N, its runs at
	// each point and its points (Ns × strategies). The defaults are the
	// blog's study, 10 to 190 clients, 100 runs, 19 Ns × 5 strategies:
	// about 4 s of one core (the user CPU time of backofflab contention
	// -parallel 1). The dearest study they allow, 19 Ns from 172 to 190,
	// takes 9.4 s of one core; a run holds about 30 KiB, a study its
	// points' 3 numbers a run (about 250 KiB at most, Spec.Memory).
	ContentionMaxClients int
	ContentionMaxSeeds   int
	ContentionMaxPoints  int
}

// The phase map's default caps: a grid of 64 × 64 cells, and up to 10
// seeds per cell on a smaller grid. 1024 two-minute runs of the landing
// view took 19 s to 33 s of both cores of a 2-core machine
// (TestBrowserMapPictures, README), so 4096 take a minute or two; runs of
// more clients, or longer, cost more, each within a page's bounds, and a
// map holds one run per core at a time.
const defaultMapMaxSteps, defaultMapMaxSeeds, defaultMapMaxCells = 64, 10, 64 * 64

// DefaultLimits suit a 2-core machine serving a few hundred pages. The
// worst run they allow, four lanes of 20 000 clients storming for an hour,
// stops at RunMemory: at 8 bytes per queued request, 16 million abandoned
// requests, and a page of it peaks at about 220 MiB of the process (the Go
// heap holds up to twice what it keeps alive). MaxMemory is a quarter of
// the machine's memory (DefaultMaxMemory).
var DefaultLimits = Limits{MaxSessions: 256, MaxClients: 20_000, MaxDuration: time.Hour, MaxRealSessions: 2,
	RunMemory: 128 << 20, MaxMemory: DefaultMaxMemory(), MaxExports: 2,
	MaxViews: 4, ViewCores: runtime.GOMAXPROCS(0), ViewCPU: 20 * time.Minute, MaxBandCells: 1_000_000,
	ContentionMaxClients: 190, ContentionMaxSeeds: 100, ContentionMaxPoints: 95}

// WithDefaults fills lim's zero fields from DefaultLimits.
func (lim Limits) WithDefaults() Limits {
	d := DefaultLimits
	lim.MaxSessions = cmp.Or(lim.MaxSessions, d.MaxSessions)
	lim.MaxClients = cmp.Or(lim.MaxClients, d.MaxClients)
	lim.MaxDuration = cmp.Or(lim.MaxDuration, d.MaxDuration)
	lim.MaxRealSessions = cmp.Or(lim.MaxRealSessions, d.MaxRealSessions)
	lim.RunMemory = cmp.Or(lim.RunMemory, d.RunMemory)
	lim.MaxMemory = cmp.Or(lim.MaxMemory, d.MaxMemory)
	lim.MaxExports = cmp.Or(lim.MaxExports, d.MaxExports)
	lim.MaxViews = cmp.Or(lim.MaxViews, d.MaxViews)
	lim.ViewCores = cmp.Or(lim.ViewCores, d.ViewCores)
	lim.ViewCPU = cmp.Or(lim.ViewCPU, d.ViewCPU)
	lim.MapMaxSteps = cmp.Or(lim.MapMaxSteps, defaultMapMaxSteps)
	lim.MapMaxSeeds = cmp.Or(lim.MapMaxSeeds, defaultMapMaxSeeds)
	lim.MapMaxCells = cmp.Or(lim.MapMaxCells, defaultMapMaxCells)
	lim.MaxBandCells = cmp.Or(lim.MaxBandCells, d.MaxBandCells)
	lim.ContentionMaxClients = cmp.Or(lim.ContentionMaxClients, d.ContentionMaxClients)
	lim.ContentionMaxSeeds = cmp.Or(lim.ContentionMaxSeeds, d.ContentionMaxSeeds)
	lim.ContentionMaxPoints = cmp.Or(lim.ContentionMaxPoints, d.ContentionMaxPoints)
	return lim
}

// DefaultMaxMemory is a quarter of the machine's memory, or 2 GiB where
// the machine does not say (budget.MachineMemory).
func DefaultMaxMemory() int64 {
	if n := budget.MachineMemory(); n > 0 {
		return n / 4
	}
	return 2 << 30
}

// Bounds are the server's bounds on a run as the vocabulary reads them
// (scenario.Bounds): MaxClients and MaxDuration, whose errors say "on this
// server". A run's values at t = 0 and every value its live changes set
// are held to them.
func (lim Limits) Bounds() scenario.Bounds {
	return scenario.Bounds{Where: "on this server", Max: map[string]float64{
		"clients": float64(lim.MaxClients), "duration": float64(lim.MaxDuration)}}
}

// RunBoundErrors checks one run against the server's bounds on a run
// (Bounds: MaxClients, MaxDuration), at t = 0 and in every live change,
// naming each value at fault: the playground's decode, the phase map's
// cells and the advice's runs are held to the same.
func (lim Limits) RunBoundErrors(p scenario.Params) []*scenario.ParamError {
	return lim.Bounds().Errors(&p)
}

// RunBounds is RunBoundErrors' first error, or nil: for a check that
// stops at one.
func (lim Limits) RunBounds(p scenario.Params) error {
	if errs := lim.RunBoundErrors(p); len(errs) > 0 {
		return errs[0]
	}
	return nil
}
