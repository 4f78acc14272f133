package playground

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// presetDef is a preset as written: what it sets and why it is worth a look.
// What it shows is measured, not written: see measure. Its values are
// read from their text once, when the package starts (values).
type presetDef struct {
	name, title, intro string
	query              url.Values // over the defaults
	// without, for a protection of the server, which every lane shares, is
	// the query's change that turns it off ("shed_above=0"): measure runs
	// the preset a second time with it, on the same seed, and says what
	// that run measured too. A lane's limiter needs none: a lane without
	// it shows the difference beside it.
	without url.Values
}

// values reads a preset's query as written in presetDefs, once, when the
// package starts; a query that does not read is a bug of the table, which
// stops the program (and every test) at once.
func values(query string) url.Values {
	q, err := url.ParseQuery(query)
	if err != nil {
		panic(fmt.Sprintf("web: a preset's query %q: %v", query, err))
	}
	return q
}

// spikeLoop is the open loop of the README's second protection table:
// 250 requests/s for the worker queue's 300 of capacity, no outage, and a
// 5 s load spike to 2× at 20 s; spikeIntro says so.
const (
	spikeLoop  = "server_model=queue&arrival=open&rate=250&outage=none&faults=load_spike:20s:5s:2"
	spikeIntro = "An open loop on the landing view's worker queue: 250 requests/s for 300 of capacity, no outage, and a 5 s load spike to 2× at 20 s. "
)

// spikeLanes returns spikeLoop with lanes of the given letters that each
// try a request up to 3 times with no backoff (fixed, 1 ms), as the
// table's unprotected row does.
func spikeLanes(letters ...string) string {
	q := spikeLoop
	for _, l := range letters {
		q += fmt.Sprintf("&%[1]s.strategy=fixed&%[1]s.min_delay=1ms&%[1]s.max_attempts=3", l)
	}
	return q
}

// The breaker's intro, shared by the presets that use one.
const breakerAbout = "The circuit-breaker pattern (Nygard, Release It!), with resilience4j's defaults: it opens when at least 50 % of the last 100 outcomes failed, stays open 60 s, then lets 10 probes through half-open, whose failure rate closes or reopens it."

var presetDefs = []presetDef{
	{"001-published", "The 2014 experiment as published",
		"The 2014 experiment's server (the curve: 100 ms up to 30 requests inside, then ×1.05 per 15 more), 1000 clients, the server paused at 20 s for 15 s. Lane a retries every 100 ms; lane b retries as the 2014 program really did (think_scaled: e × the last think time, then ×e).",
		values("server_model=curve&a.strategy=fixed&b.strategy=think_scaled"), nil},
	{"landing", "Fixed against exponential backoff on a worker queue",
		"The landing view: 30 workers serving 100 ms each on average (300 requests/s) against about 99 requests/s from 1000 clients, the server paused at 20 s for 15 s. Lane a retries every 100 ms; lane b backs off as the 2014 article describes: 100 ms, ×2 per retry, jitter 0.1, up to 15 min.",
		values("server_model=queue&a.strategy=fixed&b.strategy=exponential"), nil},
	{"001-text-on-curve", "The 2014 article's backoff on its own server",
		"The 2014 experiment's curve server and outage, as published. Lane a backs off as the 2014 article describes (exponential: 100 ms, ×2 per retry, jitter 0.1, up to 15 min); lane b as the 2014 program did, whose first retry waits e × the client's last think time (~27 s on average).",
		values("server_model=curve&a.strategy=exponential&b.strategy=think_scaled"), nil},
	{"001-text", "The 2014 article's exponential backoff, its two chart parameter sets",
		"The 2014 experiment's curve server and outage; lane a backs off from 100 ms ×2.7 (cap 10 min), lane b from 1 s ×1.5 (cap 5 min), both with jitter 0.1, as the article's charts describe.",
		values("server_model=curve&a.strategy=exponential&a.min_delay=100ms&a.factor=2.7&a.max_delay=10m&b.strategy=exponential&b.min_delay=1s&b.factor=1.5&b.max_delay=5m"), nil},
	{"gcs-truncated", "Cloud Storage: truncated exponential backoff",
		"The landing view's server and outage. Lane a retries every 100 ms; lane b waits min(2^n s + U[0,1 s), 32 s) (Google Cloud Storage).",
		values("server_model=queue&a.strategy=fixed&b.strategy=truncated"), nil},
	{"grpc", "gRPC connection backoff",
		"The landing view's server and outage. Lane a retries every 100 ms; lane b follows gRPC's connection backoff: 1 s ×1.6 up to 120 s, ±20 %, and 20 s per attempt.",
		values("server_model=queue&a.strategy=fixed&b.strategy=grpc"), nil},
	{"aws-jitter", "AWS: full, equal and decorrelated jitter",
		"The landing view's server and outage; three lanes with AWS's jittered backoffs, a minimum delay of 100 ms, capped at 1 min.",
		values("server_model=queue&a.strategy=full_jitter&b.strategy=equal_jitter&c.strategy=decorrelated"), nil},
	{"cancel-on-timeout", "What if the server learned that clients gave up?",
		"The landing view's server and outage. Both lanes retry every 100 ms; in lane b the server drops a request when its client times out (deadline propagation), so abandoned work does not take its workers.",
		values("server_model=queue&a.strategy=fixed&b.strategy=fixed&b.cancel_on_timeout=true"), nil},
	{"load-shedding", "Load shedding on the 2014 experiment's server",
		"The 2014 experiment as published, with a server that sheds load: a request that finds 100 inside is answered at once with an error instead of joining them (shed_above=100), so the flood at the resume cannot push the curve into hour-long latencies. Lane a retries every 100 ms; lane b as the 2014 program did. The same run without shedding follows.",
		values("server_model=curve&a.strategy=fixed&b.strategy=think_scaled&shed_above=100"), values("shed_above=0")},
	{"curve-breaker", "Circuit breakers on the 2014 experiment's server",
		"The 2014 experiment's curve server after its 15 s outage; the three lanes back off as the 2014 article describes (exponential: 100 ms, ×2 per retry, jitter 0.1, up to 15 min). Lane a has no breaker; lane b's refuses retries while open (breaker=retries), lane c's every attempt, first attempts too (breaker=all). " + breakerAbout,
		values("server_model=curve&lanes=3&a.strategy=exponential&b.strategy=exponential&b.breaker=retries&c.strategy=exponential&c.breaker=all"), nil},
	{"queue-timeout", "A queue timeout on the worker queue",
		"The landing view, with a server that answers at once with an error each request that waited more than 500 ms for a worker (queue_timeout=500ms), so its workers do not spend the resume on requests whose clients have given up. Lane a retries every 100 ms; lane b backs off as the 2014 article describes.",
		values("server_model=queue&a.strategy=fixed&b.strategy=exponential&queue_timeout=500ms"), nil},
	{"spike-queue-timeout", "Load spike: a queue timeout",
		spikeIntro + "Lane a tries each request up to 3 times with no backoff (fixed, 1 ms); lane b backs off from 100 ms, ×2, with the same 3 attempts. The server answers at once with an error each request that waited more than 500 ms for a worker (queue_timeout=500ms; off by default), so that no worker serves a request its client has given up on: the Google SRE book's advice against work whose deadline has passed (\"Addressing Cascading Failures\"). The same run without the timeout follows.",
		values(spikeLanes("a") + "&b.strategy=exponential&b.min_delay=100ms&b.max_attempts=3&queue_timeout=500ms"), values("queue_timeout=0s")},
	{"spike-codel", "Load spike: CoDel, adaptive LIFO",
		spikeIntro + "Lane a tries each request up to 3 times with no backoff (fixed, 1 ms); lane b backs off from 100 ms, ×2, with the same 3 attempts. The server controls its queue as Facebook's \"Fail at Scale\" (2015) describes (queue_control=codel): while its queue has been empty within the last codel_interval, it serves the oldest request first and lets a new one wait up to codel_interval for a worker; when it has not, it calls itself overloaded, serves the newest first (adaptive LIFO) and lets a new one wait only codel_target; a request that waited longer is answered at once with an error. codel_target 5 ms and codel_interval 100 ms are the paper's. The same run without it follows.",
		values(spikeLanes("a") + "&b.strategy=exponential&b.min_delay=100ms&b.max_attempts=3&queue_control=codel"), values("queue_control=off")},
	{"spike-grpc-throttle", "Load spike: gRPC retry throttling",
		spikeIntro + "Both lanes try each request up to 3 times with no backoff (fixed, 1 ms); lane b throttles its retries as gRPC does (gRFC A6): a bucket of 10 tokens that a failed attempt takes one from and a success adds 0.1 to, and no retry while it is at most half full. Those are gRFC A6's example values: gRPC throttles only when a service config sets them.",
		values(spikeLanes("a", "b") + "&b.grpc_throttle=on"), nil},
	{"spike-aws-quota", "Load spike: the AWS retry quota",
		spikeIntro + "Both lanes try each request up to 3 times with no backoff (fixed, 1 ms); lane b spends a retry quota as the AWS SDKs' standard retry mode does: 500 tokens; a retry takes 5, or 10 after a timeout, and a successful one gives them back; a success at the first attempt adds 1; no retry when the quota cannot pay. Those are the SDKs' standard-mode defaults.",
		values(spikeLanes("a", "b") + "&b.aws_quota=on"), nil},
	{"spike-sre-throttle", "Load spike: SRE adaptive throttling",
		spikeIntro + "Both lanes try each request up to 3 times with no backoff (fixed, 1 ms); lane b throttles itself as Google's SRE book describes (\"Handling Overload\"): it refuses each attempt, first attempts too, before sending it, with probability max(0, (requests − K·accepts)/(requests + 1)) over the last 2 minutes, K = 2, the book's values.",
		values(spikeLanes("a", "b") + "&b.sre_throttle=on"), nil},
	{"spike-retry-budget", "Load spike: a Finagle retry budget",
		spikeIntro + "The three lanes try each request up to 3 times with no backoff (fixed, 1 ms). Lanes b and c retry within a budget, as Finagle's RetryBudget does: over the last budget_ttl (10 s), retries may be budget_percent of the requests plus budget_min_per_sec per second. Lane b has Finagle's defaults, 20 % and 10 retries/s; lane c a tighter budget, 5 % and none per second.",
		values(spikeLanes("a", "b", "c") + "&b.retry_budget=on&c.retry_budget=on&c.budget_percent=5&c.budget_min_per_sec=0"), nil},
	{"herd", "A herd: every client at once, with and without jitter",
		"The landing view's worker queue cut to 20 workers (100 ms each) that answer with an error each request beyond 20 inside (shed_above=20), and no outage: at 20 s every client that is thinking, some 990 of the 1000, sends at once (faults=herd:20s:0s:1), as after a cache expiry or a deploy of the clients. Both lanes retry each failed attempt after 1 s (cenkalti/backoff with factor 1): lane a with no jitter, so the requests the server turned away retry together, a wave every second; lane b with full jitter (±100 %), which spreads each retry over 0 to 2 s.",
		values("server_model=queue&workers=20&shed_above=20&outage=none&faults=herd:20s:0s:1&a.strategy=cenkalti&a.factor=1&a.min_delay=1s&a.max_delay=1s&a.jitter=0&b.strategy=cenkalti&b.factor=1&b.min_delay=1s&b.max_delay=1s&b.jitter=1"), nil},
	{"baseline", "One lane, no outage: the steady state",
		"The landing view's server without its outage: 1000 clients thinking 10 s on average offer 1000 / (10 s + 0.1 s) ≈ 99 requests/s to 30 workers that serve 300.",
		values("server_model=queue&lanes=1&a.strategy=fixed&outage=none"), nil},
}

// presets measures each preset once, on first use, so that its description
// says what the engine shows for it.
type presets struct {
	lim  Limits
	once sync.Once
	all  []Preset
	libs []Preset // libraryPresetDefs', measured with the others
	// keyed are presetDefs' keys, for the sessions, which need not
	// measure them (keys).
	keyOnce sync.Once
	keyed   []presetKey
}

// measuredPresets holds the presets of this process by the limits they
// are measured under: their runs are on fixed seeds, so every server of
// the same limits (the tests start many) reads the first one's instead
// of running them all again.
var measuredPresets sync.Map // Limits → *presets

func newPresets(lim Limits) *presets {
	ps, _ := measuredPresets.LoadOrStore(lim, &presets{lim: lim})
	return ps.(*presets)
}

func (ps *presets) list() []Preset {
	ps.once.Do(func() {
		// The presets' runs are independent: measured side by side, so
		// that the first page view waits for the longest of them, not
		// for their sum, on every core there is.
		defs := append(slices.Clone(presetDefs), libraryPresetDefs()...)
		all := make([]Preset, len(defs))
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		var wg sync.WaitGroup
		for i, d := range defs {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				all[i] = measure(d, ps.lim)
			})
		}
		wg.Wait()
		ps.all, ps.libs = all[:len(presetDefs)], all[len(presetDefs):]
	})
	return ps.all
}

// keys returns the keys of the presets (presetDefs') that decode within
// the limits: what a session needs to name the preset it runs, without
// running them. A preset beyond this server's limits is no session's.
func (ps *presets) keys() []presetKey {
	ps.keyOnce.Do(func() {
		for _, d := range presetDefs {
			if sc, errs := scene.Decode(d.query, ps.lim); len(errs) == 0 {
				ps.keyed = append(ps.keyed, presetKey{d.name, runKey(sc)})
			}
		}
	})
	return ps.keyed
}

// library returns the presets of each library's defaults
// (libraryPresetDefs), measured.
func (ps *presets) library() []Preset {
	ps.list()
	return ps.libs
}

// measure runs a preset headless and appends its verdicts to its intro,
// and, for a preset with a without, the verdicts of its run without its
// protection.
func measure(d presetDef, lim Limits) Preset {
	sc := presetState(d, d.query, lim)
	var b strings.Builder
	b.WriteString(d.intro)
	b.WriteString(" Measured:")
	outs := writeVerdicts(&b, d, sc.Params)
	if len(d.without) > 0 {
		on := kit.CloneValues(d.query)
		maps.Copy(on, d.without)
		fmt.Fprintf(&b, " "+withoutMark+" (%s), on the same seed:", d.without.Encode())
		writeVerdicts(&b, d, presetState(d, on, lim).Params)
	}
	return Preset{Name: d.name, Title: d.title, Query: sc.Query(), Description: b.String(), Outcomes: outs, key: runKey(sc)}
}

// withoutMark begins the part of a description that a preset's run
// without its protection measured.
const withoutMark = "Without it"

// presetState decodes q, a preset's values; a preset that does not decode
// is a bug of presetDefs, which its test catches.
func presetState(d presetDef, q url.Values, lim Limits) scene.Scenario {
	sc, errs := scene.Decode(q, lim)
	if len(errs) > 0 {
		panic(fmt.Sprintf("web: preset %s: %v", d.name, kit.ErrorText(errs)))
	}
	return sc
}

// lastSpan is how much of a run's end writeVerdicts averages the ok rate
// over when no outage ends in it: the README's open-loop table's last
// minute.
const lastSpan = time.Minute

// writeVerdicts runs p, writes each lane's verdict to b and returns each
// lane's outcome in a few words, for the preset's chip. A run with no
// outage is judged after its other faults (a load spike: the lanes that
// collapse under it collapsed), and each lane's mean ok rate over the
// run's last minute follows its verdict, the figure that shows it; a run
// with no fault at all has nothing to recover from, and its chip says that
// rate.
func writeVerdicts(b *strings.Builder, d presetDef, p scenario.Params) []PresetOutcome {
	faults := scenario.AllFaults(&p)
	outage := slices.ContainsFunc(faults, func(f scenario.Fault) bool { return scenario.IsOutage(f.Kind) })
	span := min(lastSpan, p.Duration)
	from := (p.Duration - span).Seconds()
	oks := make([]float64, len(p.Lanes))
	ticks := 0
	sums, err := simengine.Run(context.Background(), p, func(t scenario.Tick) {
		if t.T <= from {
			return
		}
		ticks++
		for i, l := range t.Lanes {
			oks[i] += l.OK
		}
	})
	if err != nil {
		panic(fmt.Sprintf("web: preset %s: %v", d.name, err))
	}
	outs := make([]PresetOutcome, 0, len(sums))
	for i, s := range sums {
		v := s.Verdict(scenario.Finished)
		o := PresetOutcome{Lane: scenario.LaneNames[i : i+1], Strategy: p.Lanes[i].Strategy, Brief: v.Brief, Tone: v.Tone}
		fmt.Fprintf(b, " lane %c (%s): %s", scenario.LaneNames[i], p.Lanes[i].Strategy, v.Text)
		if !outage && ticks > 0 {
			last := fmt.Sprintf("%.0f ok/s over the last %.0f s", oks[i]/float64(ticks), span.Seconds())
			fmt.Fprintf(b, "; %s", last)
			if len(faults) == 0 {
				// With nothing to recover from, what the chip can say
				// is the service's rate at the end.
				o.Brief = last
			}
		}
		outs = append(outs, o)
		b.WriteString(".")
	}
	return outs
}

// PresetNames are the presets' names, in the order the page lists their
// chips.
func PresetNames() []string {
	out := make([]string, len(presetDefs))
	for i, d := range presetDefs {
		out[i] = d.name
	}
	return out
}
