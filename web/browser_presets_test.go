package web

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/strategies"
	"github.com/backofflab/backofflab/web/playground"
	"github.com/backofflab/backofflab/web/scene"
)

// browserPresets clicks the chip of every preset that turns a protection
// on, in turn, each on the page the previous one opened (every chip's link
// is its preset's query), and checks that the page it opens is the
// preset's: the URL holds its query, its lanes' panels show and no other,
// every menu and checkbox holds the query's value, a parameter shows
// exactly where the run reads it (a limiter's where its switch is on,
// codel's with queue_control=codel on the worker queue), and the run ticks
// and gives each lane a verdict, with no console error (openTab's check).
// The other chips are links of the same kind; a page load costs seconds.
func browserPresets(t *testing.T, env *browserEnv) {
	// At max speed, which every chip's link carries (presetSpeed), each
	// preset's run reaches its verdicts at once instead of after its
	// outage's seconds of real time, a core of the browser's drawing
	// every tick meanwhile: the same run, the same verdicts.
	tb := openPage(t, env, "speed=max")
	type chip struct{ Name, Href string }
	chips := eval[[]chip](tb, `[...document.querySelectorAll('a[data-preset]')].map(a => ({name: a.dataset.preset, href: a.getAttribute('href')}))`)
	names := playground.PresetNames()
	if len(chips) != len(names) {
		t.Fatalf("%d preset chips, want %d", len(chips), len(names))
	}
	clicked := 0
	for i, c := range chips {
		if c.Name != names[i] {
			t.Fatalf("chip %d is %s, want %s", i, c.Name, names[i])
		}
		if !strings.HasPrefix(c.Href, "?") {
			t.Fatalf("%s: href %q is not a query", c.Name, c.Href)
		}
		want, err := url.ParseQuery(c.Href[1:])
		if err != nil {
			t.Fatalf("%s: href %q: %v", c.Name, c.Href, err)
		}
		p, err := scenario.Parse(withoutSpeed(want))
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if !protects(&p) {
			continue
		}
		clicked++
		eval[chromedp.Void](tb, `window.presetFrom = true`)
		tb.do("click the chip "+c.Name, chromedp.Click(chromedp.CSS(fmt.Sprintf(`a[data-preset=%q]`, c.Name))))
		tb.waitTrue(c.Name+": its page is up", `!window.presetFrom && !!window.backofflab`)
		tb.waitTrue(c.Name+": connected", `document.querySelector('#status').textContent === 'connected'`)
		tb.waitTrue(c.Name+": ticks arrive", `window.backofflab.rows().length > 0`)
		got, err := url.ParseQuery(strings.TrimPrefix(eval[string](tb, `location.search`), "?"))
		if err != nil {
			t.Fatalf("%s: the page's URL: %v", c.Name, err)
		}
		if g, w := got.Encode(), want.Encode(); g != w {
			t.Errorf("%s: the page's URL\n%s\nwant the preset's\n%s", c.Name, g, w)
		}
		browserCheckPreset(t, tb, c.Name, &p)
	}
	// A limiter of each kind, and the server's protections: most presets
	// that follow 001's landing are about them.
	if clicked < len(names)/2 {
		t.Errorf("clicked %d chips of %d: protects finds too few", clicked, len(names))
	}
}

// protects reports whether p turns a protection on: a lane's limiter (a
// switch whose choices include off), queue_control, cancel_on_timeout, a
// shed_above or a queue_timeout.
func protects(p *scenario.Params) bool {
	for _, sw := range scenario.Switches() {
		row, _, _ := scenario.Lookup(sw)
		if !slices.Contains(row.Choices, strategies.LimiterOff) {
			continue // arrival, server_model
		}
		for i := range p.Lanes {
			if row.Value(p, i) != strategies.LimiterOff {
				return true
			}
		}
	}
	for _, l := range p.Lanes {
		if l.CancelOnTimeout {
			return true
		}
	}
	return p.ShedAbove > 0 || p.QueueTimeout > 0
}

// browserCheckPreset checks the page tb shows against the preset name's
// parameters p: its active lanes, its menus and checkboxes, which parameters
// show, and the lanes' verdicts.
func browserCheckPreset(t *testing.T, tb *tab, name string, p *scenario.Params) {
	t.Helper()
	letters := scenario.LaneNames[:len(p.Lanes)]
	if got := eval[string](tb, `[...document.querySelectorAll('[data-lane-panel]')].filter(e => !e.hidden).map(e => e.dataset.lanePanel).join('')`); got != letters {
		t.Errorf("%s: lane panels %q shown, want %q", name, got, letters)
	}
	ctl := tb.controls()
	type state struct {
		Kind   string `json:"kind"`
		Hidden bool   `json:"hidden"`
	}
	states := eval[map[string]state](tb, `(() => {
		const out = {};
		for (const el of document.querySelectorAll('[data-ctl]')) {
			const input = el.querySelector('[data-param]');
			out[el.dataset.ctl] = {kind: input ? input.dataset.type : '', hidden: el.hidden};
		}
		return out;
	})()`)
	for _, param := range scenario.Table {
		for i := range p.Lanes {
			full, lane := param.Name, -1
			if param.Lane {
				full, lane = letters[i:i+1]+"."+param.Name, i
			} else if i > 0 {
				break
			}
			st, ok := states[full]
			if !ok {
				t.Errorf("%s: no control %s", name, full)
				continue
			}
			value := param.Value(p, max(lane, 0))
			if (st.Kind == "enum" || st.Kind == "bool") && ctl[full] != value {
				t.Errorf("%s: %s shows %q, want %q", name, full, ctl[full], value)
			}
			// The page shows what the run reads: the switches' choices
			// (a limiter, codel, the server model, the arrival), and a
			// lane's strategy's parameters.
			reads := scenario.ReadsParam(p, param.Name)
			if lane >= 0 {
				reads = scenario.Uses(p.Lanes[i].Strategy, param.Name) && scenario.ReadsLaneParam(p, i, param.Name)
			}
			if st.Hidden == reads {
				t.Errorf("%s: %s hidden %v, read %v", name, full, st.Hidden, reads)
			}
		}
	}
	poll[bool](tb, name+": every lane's verdict shows a summary", fmt.Sprintf(
		`[...%q].every(L => /^(Before the [a-z ]+, t|T)he server answered /.test(document.querySelector('[data-verdict-details="' + L + '"]').textContent))`, letters))
}

// withoutSpeed returns q without the page's speed, which is not a
// parameter of the run.
func withoutSpeed(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		if k != scene.SpeedParam {
			out[k] = v
		}
	}
	return out
}
