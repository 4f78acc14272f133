package web

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"backofflab/scenario"
	"backofflab/simengine"
)

// presetDef is a preset as written: what it sets and why it is worth a look.
// What it shows is measured, not written: see measure.
type presetDef struct {
	name, title, intro string
	query              string // over the defaults
}

var presetDefs = []presetDef{
	{"001-published", "001's experiment as published",
		"001's server (the curve: 100 ms up to 30 requests inside, then ×1.05 per 15 more), 1000 clients, the server paused at 20 s for 15 s. Lane a retries every 100 ms; lane b retries as 001's program really did (think_scaled: e × the last think time, then ×e).",
		"server_model=curve&a.strategy=fixed&b.strategy=think_scaled"},
	{"landing", "Fixed against exponential backoff on a worker queue",
		"The landing view: 30 workers serving 100 ms each on average (300 requests/s) against about 99 requests/s from 1000 clients, the server paused at 20 s for 15 s. Lane a retries every 100 ms; lane b backs off as 001's text describes: 100 ms, ×2 per retry, jitter 0.1, up to 15 min.",
		"server_model=queue&a.strategy=fixed&b.strategy=exponential"},
	{"001-text-on-curve", "001's text backoff on 001's server",
		"001's curve server and outage, as published. Lane a backs off as 001's text describes (exponential: 100 ms, ×2 per retry, jitter 0.1, up to 15 min); lane b as 001's program did, whose first retry waits e × the client's last think time (~27 s on average).",
		"server_model=curve&a.strategy=exponential&b.strategy=think_scaled"},
	{"001-text", "001's text: exponential backoff, its two chart parameter sets",
		"001's curve server and outage; lane a backs off from 100 ms ×2.7 (cap 10 min), lane b from 1 s ×1.5 (cap 5 min), both with jitter 0.1, as the article's charts describe.",
		"server_model=curve&a.strategy=exponential&a.min_delay=100ms&a.factor=2.7&a.max_delay=10m&b.strategy=exponential&b.min_delay=1s&b.factor=1.5&b.max_delay=5m"},
	{"gcs-truncated", "Cloud Storage: truncated exponential backoff",
		"The landing view's server and outage. Lane a retries every 100 ms; lane b waits min(2^n s + U[0,1 s), 32 s) (Google Cloud Storage).",
		"server_model=queue&a.strategy=fixed&b.strategy=truncated"},
	{"grpc", "gRPC connection backoff",
		"The landing view's server and outage. Lane a retries every 100 ms; lane b follows gRPC's connection backoff: 1 s ×1.6 up to 120 s, ±20 %, and 20 s per attempt.",
		"server_model=queue&a.strategy=fixed&b.strategy=grpc"},
	{"aws-jitter", "AWS: full, equal and decorrelated jitter",
		"The landing view's server and outage; three lanes with AWS's jittered backoffs, 100 ms base, 1 min cap.",
		"server_model=queue&a.strategy=full_jitter&b.strategy=equal_jitter&c.strategy=decorrelated"},
	{"cancel-on-timeout", "What if the server learned that clients gave up?",
		"The landing view's server and outage. Both lanes retry every 100 ms; in lane b the server drops a request when its client times out (deadline propagation), so abandoned work does not take its workers.",
		"server_model=queue&a.strategy=fixed&b.strategy=fixed&b.cancel_on_timeout=true"},
	{"load-shedding", "Load shedding on 001's server",
		"001's experiment as published, with a server that sheds load: a request that finds 100 inside is answered at once with an error instead of joining them (shed_above=100), so the flood at the resume cannot push the curve into hour-long latencies. Lane a retries every 100 ms; lane b as 001's program did.",
		"server_model=curve&a.strategy=fixed&b.strategy=think_scaled&shed_above=100"},
	{"queue-timeout", "A queue timeout on the worker queue",
		"The landing view, with a server that answers at once with an error each request that waited more than 500 ms for a worker (queue_timeout=500ms), so its workers do not spend the resume on requests whose clients have given up. Lane a retries every 100 ms; lane b backs off as 001's text describes.",
		"server_model=queue&a.strategy=fixed&b.strategy=exponential&queue_timeout=500ms"},
	{"baseline", "One lane, no outage: the steady state",
		"The landing view's server without its outage: 1000 clients thinking 10 s on average offer 1000 / (10 s + 0.1 s) ≈ 99 requests/s to 30 workers that serve 300.",
		"server_model=queue&lanes=1&a.strategy=fixed&outage=none"},
}

// presets measures each preset once, on first use, so that its description
// says what the engine shows for it.
type presets struct {
	lim  Limits
	once sync.Once
	all  []Preset
}

func newPresets(lim Limits) *presets { return &presets{lim: lim} }

func (ps *presets) list() []Preset {
	ps.once.Do(func() {
		for _, d := range presetDefs {
			ps.all = append(ps.all, measure(d, ps.lim))
		}
	})
	return ps.all
}

// measure runs a preset headless and appends its verdicts to its intro.
func measure(d presetDef, lim Limits) Preset {
	q, _ := url.ParseQuery(d.query)
	st, errs := decode(q, lim)
	if len(errs) > 0 {
		panic(fmt.Sprintf("web: preset %s: %v", d.name, errorText(errs)))
	}
	sums, err := simengine.Run(context.Background(), st.p, nil)
	if err != nil {
		panic(fmt.Sprintf("web: preset %s: %v", d.name, err))
	}
	var b strings.Builder
	b.WriteString(d.intro)
	b.WriteString(" Measured:")
	for i, s := range sums {
		fmt.Fprintf(&b, " lane %c (%s): %s.", scenario.LaneNames[i], st.p.Lanes[i].Strategy, s.Verdict(scenario.Finished).Text)
	}
	return Preset{Name: d.name, Title: d.title, Query: st.encode(), Description: b.String()}
}
