package playground

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// presetParts splits a preset's description into what its run measured and
// what its run without its protection measured ("" for none).
func presetParts(t *testing.T, p Preset) (measured, without string) {
	t.Helper()
	_, rest, ok := strings.Cut(p.Description, " Measured:")
	if !ok {
		t.Fatalf("%s: no measured verdict: %q", p.Name, p.Description)
	}
	measured, without, _ = strings.Cut(rest, " "+withoutMark+" (")
	return measured, without
}

// laneVerdict returns lane's sentence in part, a part of a description:
// from "lane x (" to the next lane's, or the part's end; "" for none.
func laneVerdict(part string, lane int) string {
	start := strings.Index(part, " lane "+scenario.LaneNames[lane:lane+1]+" (")
	if start < 0 {
		return ""
	}
	s := part[start+1:]
	if end := strings.Index(s, ". lane "); end >= 0 {
		s = s[:end+1]
	}
	return withoutHeadline(s)
}

// headlineBefore is a lane's plain headline in a description, which comes
// before its figures ("): Never recovered — a retry storm. baseline …").
var headlineBefore = regexp.MustCompile(`\): [A-Z][^;]*?\. baseline `)

// withoutHeadline drops the plain headlines of the lanes' verdicts in s,
// which then read from their figures on.
func withoutHeadline(s string) string { return headlineBefore.ReplaceAllString(s, "): baseline ") }

// TestPresetsSayWhatTheyShow pins what the engine measures for the presets
// whose verdict the page's landing view, the README and the presets' intros
// rely on, and checks that every description carries its measured verdict
// for every lane: of its run, and of its run without its protection for a
// preset that has one.
func TestPresetsSayWhatTheyShow(t *testing.T) {
	all := newPresets(kit.DefaultLimits).list()
	if len(all) != len(presetDefs) {
		t.Fatalf("%d presets, want %d", len(all), len(presetDefs))
	}
	byName := map[string]Preset{}
	for i, p := range all {
		byName[p.Name] = p
		q, err := url.ParseQuery(p.Query)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		sc, errs := scene.Decode(q, kit.DefaultLimits)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", p.Name, errs)
		}
		d := presetDefs[i]
		// An intro says what the preset sets; what it shows comes from
		// measure.
		for _, outcome := range []string{"COLLAPSED", "recovered", "ok/s", "amplification"} {
			if strings.Contains(d.intro, outcome) {
				t.Errorf("%s: the intro words an outcome (%q) by hand", p.Name, outcome)
			}
		}
		measured, without := presetParts(t, p)
		if (without != "") != (len(d.without) > 0) {
			t.Errorf("%s: without %q, and its description's part without it %q", p.Name, d.without.Encode(), without)
		}
		outage := false
		for _, f := range scenario.AllFaults(&sc.Params) {
			outage = outage || scenario.IsOutage(f.Kind)
		}
		for _, part := range []string{measured, without} {
			if part == "" {
				continue
			}
			for i, l := range sc.Params.Lanes {
				v := laneVerdict(part, i)
				if want := "lane " + scenario.LaneNames[i:i+1] + " (" + l.Strategy + "): baseline "; !strings.HasPrefix(v, want) {
					t.Errorf("%s: lane %c's verdict %q does not begin %q", p.Name, scenario.LaneNames[i], v, want)
				}
				// With no outage, the last minute's ok rate says whether
				// the service came back.
				if last := strings.Contains(v, " ok/s over the last 60 s."); last == outage {
					t.Errorf("%s: an outage %v, and lane %c's verdict %q", p.Name, outage, scenario.LaneNames[i], v)
				}
			}
		}
	}
	for _, tc := range []struct {
		preset  string
		without bool // in the run without its protection
		lane    string
		want    string // a regular expression on the lane's verdict
	}{
		{"001-published", false, "a", `\(fixed\): baseline 95\.4 ok/s; COLLAPSED`},
		{"001-published", false, "b", `\(think_scaled\): baseline 95\.4 ok/s; server back 1\.6s after the outage`},
		{"landing", false, "a", `\(fixed\): baseline 95\.3 ok/s; COLLAPSED`},
		{"landing", false, "b", `\(exponential\): baseline 95\.3 ok/s; service back 21\.8s after the outage \(ok/s at 90 % of baseline\), then server 25\.1s after`},
		// 001's text backoff storms on 001's server too; its program's
		// backoff recovers there (its first retries come tens of seconds
		// later).
		{"001-text-on-curve", false, "a", `\(exponential\): baseline 95\.4 ok/s; COLLAPSED`},
		{"001-text-on-curve", false, "b", `\(think_scaled\): baseline 95\.4 ok/s; server back 1\.6s after the outage`},
		{"001-text", false, "a", `\(exponential\): baseline 95\.4 ok/s; COLLAPSED`},
		{"001-text", false, "b", `\(exponential\): baseline 95\.4 ok/s; COLLAPSED`},
		{"grpc", false, "b", `\(grpc\): baseline [0-9.]+ ok/s; (server|service) back [0-9.]+s after the outage`},
		{"cancel-on-timeout", false, "a", `\(fixed\): baseline [0-9.]+ ok/s; COLLAPSED`},
		{"cancel-on-timeout", false, "b", `\(fixed\): baseline [0-9.]+ ok/s; (server|service) back [0-9.]+s after the outage`},
		{"baseline", false, "a", `\(fixed\): baseline 97\.0 ok/s; no outage ended`},
		{"queue-timeout", false, "a", `\(fixed\): baseline 95\.3 ok/s; service back 0\.0s after the outage \(ok/s at 90 % of baseline\), then server 4\.0s after`},
		// Shedding turns fixed's storm on 001's curve into a recovery.
		{"load-shedding", false, "a", `\(fixed\): baseline 95\.4 ok/s; service back 0\.0s after the outage \(ok/s at 90 % of baseline\), then server 1\.8s after \(concurrency at its healthy level\); peak concurrency 100;`},
		{"load-shedding", true, "a", `\(fixed\): baseline 95\.4 ok/s; COLLAPSED: neither server nor service recovered; peak concurrency 43170;`},
		// On 001's curve only a breaker that refuses first attempts too
		// saves the server: one on retries cuts them and still collapses.
		{"curve-breaker", false, "a", `\(exponential\): baseline 95\.4 ok/s; COLLAPSED: neither server nor service recovered; peak concurrency 9993; .*\(amplification 4\.09\)`},
		{"curve-breaker", false, "b", `\(exponential\): baseline 95\.4 ok/s; COLLAPSED: neither server nor service recovered; peak concurrency 8141; .*\(amplification 1\.00\)`},
		{"curve-breaker", false, "c", `\(exponential\): baseline 95\.4 ok/s; server back 0\.2s after the outage \(concurrency at its healthy level\), then service 46\.7s after \(ok/s at 90 % of baseline\); peak concurrency 256; .*\(amplification 0\.50\)`},
		// After the load spike, retries without backoff keep the queue
		// full for good; the server's protections bring the service back
		// for both lanes, and without them neither comes back.
		// A herd's shed requests retry together without jitter, a wave a
		// second that lets some 20 through each time; jitter spreads them.
		{"herd", false, "a", `\(cenkalti\): baseline 95\.3 ok/s; server back 0\.0s after the herd \(concurrency at its healthy level\), then service 44\.3s after \(ok/s at 90 % of baseline\); peak concurrency 20; .*\(amplification 4\.01\)`},
		{"herd", false, "b", `\(cenkalti\): baseline 95\.2 ok/s; service back 0\.0s after the herd \(ok/s at 90 % of baseline\), then server 0\.0s after .*\(amplification 1\.27\)`},
		{"spike-queue-timeout", false, "a", `\(amplification 1\.08\).*; 249 ok/s over the last 60 s\.$`},
		{"spike-queue-timeout", false, "b", `\(amplification 1\.09\).*; 249 ok/s over the last 60 s\.$`},
		{"spike-queue-timeout", true, "a", `\(amplification 2\.54\).*; 0 ok/s over the last 60 s\.$`},
		{"spike-queue-timeout", true, "b", `\(amplification 2\.54\).*; 0 ok/s over the last 60 s\.$`},
		{"spike-codel", false, "a", `peak concurrency 234; .*\(amplification 1\.12\).*; 248 ok/s over the last 60 s\.$`},
		{"spike-codel", false, "b", `\(amplification 1\.10\).*; 249 ok/s over the last 60 s\.$`},
		{"spike-codel", true, "a", `peak concurrency 4126; .*\(amplification 2\.54\).*; 0 ok/s over the last 60 s\.$`},
		{"spike-codel", true, "b", `\(amplification 2\.54\).*; 0 ok/s over the last 60 s\.$`},
		// The limiters that stop failing retries bring it back; adaptive
		// throttling partly; Finagle's default budget does not, a
		// tighter one does.
		{"spike-grpc-throttle", false, "a", `\(fixed\): baseline 246\.6 ok/s; COLLAPSED: neither server nor service recovered; peak concurrency 4126; .*\(amplification 2\.54\).*; 0 ok/s over the last 60 s\.$`},
		{"spike-grpc-throttle", false, "b", `\(amplification 1\.00\).*; 249 ok/s over the last 60 s\.$`},
		{"spike-aws-quota", false, "a", `\(amplification 2\.54\).*; 0 ok/s over the last 60 s\.$`},
		{"spike-aws-quota", false, "b", `\(amplification 1\.00\).*; 249 ok/s over the last 60 s\.$`},
		{"spike-sre-throttle", false, "a", `\(amplification 2\.54\).*; 0 ok/s over the last 60 s\.$`},
		{"spike-sre-throttle", false, "b", `\(amplification 0\.99\).*; 69 ok/s over the last 60 s\.$`},
		{"spike-retry-budget", false, "a", `\(amplification 2\.54\).*; 0 ok/s over the last 60 s\.$`},
		{"spike-retry-budget", false, "b", `\(amplification 1\.20\).*; 0 ok/s over the last 60 s\.$`},
		{"spike-retry-budget", false, "c", `\(amplification 1\.01\).*; 249 ok/s over the last 60 s\.$`},
	} {
		p, ok := byName[tc.preset]
		if !ok {
			t.Errorf("no preset %s", tc.preset)
			continue
		}
		measured, without := presetParts(t, p)
		part := measured
		if tc.without {
			part = without
		}
		lane := strings.IndexByte(scenario.LaneNames, tc.lane[0])
		if v := laneVerdict(part, lane); !regexp.MustCompile(tc.want).MatchString(v) {
			t.Errorf("%s (without %v): lane %s's verdict %q does not match %q", tc.preset, tc.without, tc.lane, v, tc.want)
		}
	}
	// The landing page (no query) shows the storm next to the recovery,
	// and is a preset too.
	if byName["landing"].Query != (scene.Scenario{Params: scenario.Defaults(), Speed: scene.SpeedOf(scene.DefaultSpeed)}).Query() {
		t.Error("the landing preset is not the default view")
	}
	// 001's experiment as published is one click away: the first preset;
	// the landing view is the second.
	if all[0].Name != "001-published" || all[1].Name != "landing" {
		t.Errorf("first presets %s, %s; want 001-published, landing", all[0].Name, all[1].Name)
	}
}

// TestLaneVerdict: laneVerdict finds each lane's sentence in a part of a
// description, the last one included, and none for a lane not there.
func TestLaneVerdict(t *testing.T) {
	part := " lane a (fixed): baseline 1.5 ok/s; x. lane b (exponential): baseline 2.0 ok/s; 3 ok/s over the last 60 s."
	for _, tc := range []struct {
		lane int
		want string
	}{
		{0, "lane a (fixed): baseline 1.5 ok/s; x."},
		{1, "lane b (exponential): baseline 2.0 ok/s; 3 ok/s over the last 60 s."},
		{2, ""},
	} {
		if got := laneVerdict(part, tc.lane); got != tc.want {
			t.Errorf("laneVerdict(lane %d) = %q, want %q", tc.lane, got, tc.want)
		}
	}
}

// spikePresets are the presets whose faults are none of them outages (the
// load-spike presets), with their decoded states.
func spikePresets(t *testing.T) map[string]scene.Scenario {
	t.Helper()
	out := map[string]scene.Scenario{}
	for _, d := range presetDefs {
		sc := presetState(d, d.query, kit.DefaultLimits)
		all := scenario.AllFaults(&sc.Params)
		if len(all) > 0 && !slices.ContainsFunc(all, func(f scenario.Fault) bool { return scenario.IsOutage(f.Kind) }) {
			out[d.name] = sc
		}
	}
	if len(out) == 0 {
		t.Fatal("no preset has a fault that is not an outage")
	}
	return out
}

// headlineOf finds lane i's plain headline in a part of a description.
func headlineOf(part string, i int) string {
	m := regexp.MustCompile(` lane ` + scenario.LaneNames[i:i+1] + ` \([a-z_]+\): ([^.;]*)\. baseline `).FindStringSubmatch(part)
	if m == nil {
		return ""
	}
	return m[1]
}

// TestSpikeVerdictsMatchTheirRows: a run whose only fault is a load spike
// is judged on what it did. From the run's own rows: a lane that serves
// under a tenth of its rate before the spike over the run's last minute
// collapsed (a bad verdict, "Never recovered"); a lane back at 90 % of it
// recovered (a good one). Neither is "No outage to recover from".
func TestSpikeVerdictsMatchTheirRows(t *testing.T) {
	all := newPresets(kit.DefaultLimits).list()
	for name, sc := range spikePresets(t) {
		t.Run(name, func(t *testing.T) {
			i := slices.IndexFunc(all, func(p Preset) bool { return p.Name == name })
			measured, _ := presetParts(t, all[i])
			p := sc.Params
			spike := scenario.AllFaults(&p)[0].At.Seconds()
			from := (p.Duration - time.Minute).Seconds()
			before, last := make([]float64, len(p.Lanes)), make([]float64, len(p.Lanes))
			var nBefore, nLast float64
			if _, err := simengine.Run(t.Context(), p, func(tk scenario.Tick) {
				switch {
				case tk.T <= spike:
					nBefore++
					for k, l := range tk.Lanes {
						before[k] += l.OK
					}
				case tk.T > from:
					nLast++
					for k, l := range tk.Lanes {
						last[k] += l.OK
					}
				}
			}); err != nil {
				t.Fatal(err)
			}
			for k := range p.Lanes {
				b, l := before[k]/nBefore, last[k]/nLast
				o, head := all[i].Outcomes[k], headlineOf(measured, k)
				if head == "" || strings.HasPrefix(head, "No outage") {
					t.Errorf("lane %c (%.0f ok/s before the spike, %.0f at the end): headline %q", scenario.LaneNames[k], b, l, head)
				}
				switch {
				case l < 0.1*b && (o.Tone != scenario.ToneBad || !strings.HasPrefix(head, "Never recovered")):
					t.Errorf("lane %c serves %.0f ok/s at the end, %.0f before the spike, yet reads %q (tone %q, chip %q)",
						scenario.LaneNames[k], l, b, head, o.Tone, o.Brief)
				case l >= 0.9*b && (o.Tone != scenario.ToneGood || !strings.HasPrefix(head, "Recovered")):
					t.Errorf("lane %c serves %.0f ok/s at the end, %.0f before the spike, yet reads %q (tone %q, chip %q)",
						scenario.LaneNames[k], l, b, head, o.Tone, o.Brief)
				}
			}
		})
	}
}

// laneHeadOnPage matches a lane's heading in the page's HTML: the words
// after its letter.
var laneHeadOnPage = regexp.MustCompile(`<span data-lane-strategy="([a-d])">([^<]*)</span>`)

// TestLaneHeadsTellLimitersApart: lanes that differ, if only by a
// limiter, have different headings on the page, for every preset.
func TestLaneHeadsTellLimitersApart(t *testing.T) {
	for _, d := range presetDefs {
		sc := presetState(d, d.query, kit.DefaultLimits)
		t.Run(d.name, func(t *testing.T) {
			var b strings.Builder
			if err := playground(pageInput{Scenario: sc}).Render(t.Context(), &b); err != nil {
				t.Fatal(err)
			}
			heads := map[string]string{}
			for _, m := range laneHeadOnPage.FindAllStringSubmatch(b.String(), -1) {
				heads[m[1]] = m[2]
			}
			seen := map[string]int{}
			for k := range sc.Params.Lanes {
				head := heads[scenario.LaneNames[k:k+1]]
				if j, ok := seen[head]; ok {
					for _, param := range scenario.Table {
						if param.Lane && param.Value(&sc.Params, j) != param.Value(&sc.Params, k) {
							t.Errorf("lanes %c and %c differ (%s %s and %s) but both read %q", scenario.LaneNames[j], scenario.LaneNames[k],
								param.Name, param.Value(&sc.Params, j), param.Value(&sc.Params, k), head)
						}
					}
				}
				seen[head] = k
			}
		})
	}
}
