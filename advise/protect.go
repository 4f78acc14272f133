package advise

import (
	"fmt"
	"math"
	"slices"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
)

// The tiers of protections, in the order a suggestion prefers them when
// several meet the goals: what the user's library can set, then a client
// limiter it cannot, then a change of the server's behaviour, then more
// capacity.
const (
	tierLibrary = iota
	tierClient
	tierServer
	tierCapacity
)

// label is the protection in a few words with its parameter and what it
// does: "load shedding (shed_above=60: the server answers …)".
func (pr *protection) label() string {
	return fmt.Sprintf("%s (%s=%s: %s)", pr.short, pr.name, pr.value, pr.words)
}

// protection is a change beside a library's setting that could meet the
// goals where no setting alone does.
type protection struct {
	name   string // the parameter it sets (retry_budget, shed_above, workers)
	value  string // its value, as the vocabulary writes it
	tier   int
	short  string // its name in a few words, with its parameter
	words  string // what it does
	server bool   // the server's: in a run of two lanes it is both lanes'
	apply  func(p *scenario.Params)
}

// protectionsFor lists the protections a search tries on p (one lane, a
// setting of library): the retry limiters every library shares (a retry
// budget, gRPC's throttling, the SRE book's adaptive throttling, each
// with its source's defaults), deadline propagation, load shedding at 2
// and 4 times the server's healthy level, and more capacity (1.5 and 2
// times the workers of a queue, 2 times the healthy concurrency of a
// latency curve), each only where p's run reads it, and none whose switch
// is among searched, the knobs the search varied (it tried that limiter
// as a setting of the library).
func protectionsFor(p scenario.Params, library string, searched []knob) []protection {
	var out []protection
	lane := p.Lanes[0].Params
	if lane.Strategy != strategies.NameNone {
		for _, l := range []struct {
			name, short, words string
			set                func(l *strategies.Params)
		}{
			{"retry_budget", "a retry budget", "Finagle's: retries at most 20 % of requests plus 10 a second",
				func(l *strategies.Params) { l.RetryBudget = strategies.LimiterOn }},
			{"grpc_throttle", "gRPC's retry throttling", "gRFC A6: a bucket of 10 tokens, 0.1 back per success, no retry while it is half empty",
				func(l *strategies.Params) { l.GRPCThrottle = strategies.LimiterOn }},
			{"sre_throttle", "the SRE book's adaptive throttling", "each client refuses attempts locally as its accepts fall behind its requests (K = 2 over 2 min)",
				func(l *strategies.Params) { l.SREThrottle = strategies.LimiterOn }},
		} {
			with := lane
			l.set(&with)
			if with == lane || slices.ContainsFunc(searched, func(k knob) bool { return k.param == l.name }) {
				continue // already on, or searched
			}
			tier := tierLibrary
			if library != OwnLibrary {
				if e, ok := libconfig.LookupExporter(library); !ok {
					tier = tierClient
				} else if _, _, err := e.Export(with); err != nil {
					tier = tierClient
				}
			}
			out = append(out, protection{name: l.name, value: strategies.LimiterOn, tier: tier, short: l.short, words: l.words,
				apply: func(p *scenario.Params) { l.set(&p.Lanes[0].Params) }})
		}
	}
	if !p.Lanes[0].CancelOnTimeout {
		out = append(out, protection{name: "cancel_on_timeout", value: "true", tier: tierServer, short: "deadline propagation",
			words: "the server drops a request once its client has given up on it",
			apply: func(p *scenario.Params) { p.Lanes[0].CancelOnTimeout = true }})
	}
	healthy := scenario.HealthyOf(&p)
	if scenario.ReadsParam(&p, "shed_above") && p.ShedAbove == 0 {
		for _, k := range []int{2, 4} {
			n := k * healthy
			out = append(out, protection{name: "shed_above", value: fmt.Sprint(n), tier: tierServer, server: true, short: "load shedding",
				words: fmt.Sprintf("the server answers an error at once when %d requests are inside (%d× its healthy level)", n, k),
				apply: func(p *scenario.Params) { p.ShedAbove = n }})
		}
	}
	switch {
	case scenario.ReadsParam(&p, "workers"):
		for _, k := range []float64{1.5, 2} {
			n := int(math.Round(float64(p.Workers) * k))
			if n > 100_000 {
				continue
			}
			out = append(out, protection{name: "workers", value: fmt.Sprint(n), tier: tierCapacity, server: true, short: "more capacity",
				words: fmt.Sprintf("%d workers instead of %d", n, p.Workers),
				apply: func(p *scenario.Params) { p.Workers = n }})
		}
	case scenario.ReadsParam(&p, "server_limit"):
		n := 2 * p.ServerLimit
		out = append(out, protection{name: "server_limit", value: fmt.Sprint(n), tier: tierCapacity, server: true, short: "more capacity",
			words: fmt.Sprintf("a healthy concurrency of %d instead of %d", n, p.ServerLimit),
			apply: func(p *scenario.Params) { p.ServerLimit = n }})
	}
	return out
}
