package web

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backofflab/backofflab/libconfig"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/playground"
)

// TestBrowserLibrary: lane b's "Your library" section, opened, takes
// Envoy's defaults and shows Envoy's knobs and measured presets; a real
// Envoy fragment pasted in sets lane b's controls, and the run's verdict
// for lane b becomes the engine's for those settings; a bad fragment gets
// its field named and changes nothing; lane b, set to gRPC's defaults, is
// written as a gRPC service config that libconfig reads back, and Envoy
// says why it cannot express it; axe-core finds nothing serious with the
// section open.
func TestBrowserLibrary(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other browser tests
	env := &browserEnv{ctx: startBrowser(t)}
	srv, _, _ := serveShell(t, Options{Limits: Limits{RunMemory: 32 << 20}})
	env.base = srv.URL
	axe := readAxe(t)
	envoyYAML, err := os.ReadFile(filepath.Join("..", "libconfig", "testdata", "envoy_route.yaml"))
	if err != nil {
		t.Fatal(err)
	}

	tb := openPage(t, env, "speed=max")
	tb.waitTrue("the run is done", `(s => s && s.done && !s.playing)(window.backofflab.state())`)
	if eval[bool](tb, `document.querySelector('[data-lane-library="b"]').open`) {
		t.Fatal("lane b's library section is open before it is opened")
	}
	eval[bool](tb, `(d => { d.querySelector('summary').click(); return d.open; })(document.querySelector('[data-lane-library="b"]'))`)

	// Envoy picked: the lane takes its defaults and the section shows
	// Envoy's knobs alone, under Envoy's names.
	tb.selectValue(`[data-library-pick="b"]`, "envoy")
	tb.waitQuery("b.strategy", "envoy")
	tb.waitQuery("b.envoy_retry_limit", "max_retries")
	shown := eval[[]string](tb, `[...document.querySelectorAll('[data-library-of="b"]')].filter(d => !d.hidden).map(d => d.dataset.libraryName)`)
	if len(shown) != 1 || shown[0] != "envoy" {
		t.Fatalf("libraries shown in lane b's section: %v, want envoy", shown)
	}
	knobs := eval[string](tb, `document.querySelector('[data-library-of="b"][data-library-name="envoy"] .knobs').textContent`)
	for _, want := range []string{"retry_policy.retry_back_off.base_interval — b.min_delay", "retry_policy.num_retries — b.max_attempts", "circuit_breakers.thresholds[0].max_retries — b.envoy_max_retries"} {
		if !strings.Contains(knobs, want) {
			t.Errorf("Envoy's knobs %q lack %q", knobs, want)
		}
	}
	presets := eval[[]string](tb, `[...document.querySelectorAll('[data-library-of="b"][data-library-name="envoy"] .library-presets li')].map(li => li.textContent.replace(/\s+/g, ' ').trim())`)
	if len(presets) != 2 || !strings.HasPrefix(presets[0], "Envoy's defaults on the worker queue") || !strings.Contains(presets[0], "a: ") {
		t.Errorf("Envoy's presets %q: want its defaults on both servers with its lane's outcome", presets)
	}

	// A real Envoy fragment pasted in: lane b's controls take it.
	paste := func(text string) {
		t.Helper()
		eval[bool](tb, fmt.Sprintf(`(t => { t.value = %q; document.querySelector('[data-library-import="b"]').click(); return true; })(document.querySelector('[data-library-text="b"]'))`, text))
	}
	paste(string(envoyYAML))
	tb.waitQuery("b.max_attempts", "4")
	tb.waitQuery("b.envoy_retry_limit", "budget")
	c := tb.controls()
	for k, want := range map[string]string{"b.strategy": "envoy", "b.max_attempts": "4", "b.envoy_retry_limit": "budget", "b.envoy_budget_percent": "25", "b.envoy_min_retry_concurrency": "10"} {
		if c[k] != want {
			t.Errorf("%s = %q after the import, want %q", k, c[k], want)
		}
	}
	notes := poll[string](tb, "the import's notes", `document.querySelector('[data-library-notes="b"]').textContent`)
	if !strings.Contains(notes, "Applied to lane b.") || !strings.Contains(notes, "retry_policy.retry_on: not expressed") {
		t.Errorf("the import's notes %q: want it applied, and retry_on's warning", notes)
	}

	// The run restarts with the import; lane b's verdict is the engine's
	// for the settings the page shows.
	tb.waitTrue("the run is done again", `(s => s && s.done && !s.playing)(window.backofflab.state()) && new URLSearchParams(window.backofflab.settings()).get('b.max_attempts') === '4'`)
	tb.waitTrue("lane b's verdict has a tone", `/\b(good|bad)\b/.test(document.querySelector('[data-verdict="b"]').className)`)
	q, err := url.ParseQuery(eval[string](tb, `window.backofflab.settings()`))
	if err != nil {
		t.Fatal(err)
	}
	sc, errs := playground.DecodeScenario(q, kit.DefaultLimits)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	sums, err := simengine.Run(context.Background(), sc.Params, func(scenario.Tick) {})
	if err != nil {
		t.Fatal(err)
	}
	want := sums[1].Verdict(scenario.Finished).Headline
	poll[bool](tb, "lane b's verdict is the engine's: "+want, fmt.Sprintf(`document.querySelector('[data-verdict="b"]').textContent === %q`, want))

	// A bad fragment: its field is named, and the lane stays as it was.
	paste(strings.Replace(string(envoyYAML), "num_retries:", "num_retrys:", 1))
	bad := poll[string](tb, "the named error", `(t => /num_retrys/.test(t) && t)(document.querySelector('[data-library-notes="b"]').textContent)`)
	if !strings.Contains(bad, "retry_policy.num_retrys: unknown field") || !strings.Contains(bad, "Not applied") {
		t.Errorf("the bad import's notes %q: want retry_policy.num_retrys named as an unknown field, not applied", bad)
	}
	if got := tb.controls()["b.max_attempts"]; got != "4" {
		t.Errorf("b.max_attempts %q after a bad import, want 4 still", got)
	}

	// A whole Envoy bootstrap with two routes that retry: the page lists
	// them and changes nothing until one is chosen, then takes that one.
	boot, err := os.ReadFile(filepath.Join("..", "libconfig", "testdata", "envoy_bootstrap.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	paste(string(boot))
	choices := poll[[]string](tb, "the bootstrap's routes as choices", `(b => b.length > 0 && b.map(e => e.textContent))([...document.querySelectorAll('[data-library-notes="b"] [data-library-choice]')])`)
	if strings.Join(choices, "|") != "orders|shop/prefix:/catalog" {
		t.Errorf("choices %q, want the bootstrap's two routes that retry", choices)
	}
	if got := tb.controls()["b.max_attempts"]; got != "4" {
		t.Errorf("b.max_attempts %q before a route is chosen, want 4 still", got)
	}
	eval[bool](tb, `(document.querySelector('[data-library-notes="b"] [data-library-choice="shop/prefix:/catalog"]').click(), true)`)
	tb.waitQuery("b.max_attempts", "3")
	tb.waitQuery("b.envoy_retry_limit", "max_retries")
	picked := poll[string](tb, "the chosen route applied", `(t => /Applied shop/.test(t) && t)(document.querySelector('[data-library-notes="b"]').textContent)`)
	if !strings.Contains(picked, "Applied shop/prefix:/catalog to lane b.") {
		t.Errorf("the notes %q: want the chosen route named", picked)
	}

	// gRPC's defaults, written as gRPC's service config.
	tb.selectValue(`[data-library-pick="b"]`, "grpc")
	tb.waitQuery("b.strategy", "grpc_retry")
	eval[bool](tb, `(document.querySelector('[data-library-export="b"]').click(), true)`)
	snippet := poll[string](tb, "the gRPC snippet", `(e => e && e.textContent)(document.querySelector('[data-library-snippets="b"] [data-snippet="grpc"] pre code'))`)
	g, _, err := libconfig.ParseGRPC([]byte(snippet))
	if err != nil {
		t.Fatalf("the page's gRPC snippet does not parse: %v\n%s", err, snippet)
	}
	if p := g.MethodConfigs[0].RetryPolicy; p == nil || p.MaxAttempts != 4 {
		t.Errorf("the gRPC snippet's retry policy %+v: want gRPC's defaults, maxAttempts 4", p)
	}
	cannot := eval[string](tb, `document.querySelector('[data-library-snippets="b"] [data-snippet="envoy"].cannot').textContent`)
	if !strings.Contains(cannot, "Envoy cannot express this lane") || !strings.Contains(cannot, "grpc_retry") {
		t.Errorf("Envoy's statement %q: want why it cannot express a grpc_retry lane", cannot)
	}
	if n := eval[int](tb, `document.querySelectorAll('[data-library-snippets="b"] [data-snippet] button').length`); n == 0 {
		t.Error("no copy button beside the snippets")
	}

	// What the section and its script write names the vocabulary only
	// inside code elements.
	texts := eval[[]string](tb, `(() => {
		const out = [];
		const root = document.querySelector('[data-lane-library="b"]');
		const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
		for (let n = walker.nextNode(); n; n = walker.nextNode()) {
			const e = n.parentElement;
			if (!e || e.closest('code, [hidden]') || !n.data.trim()) continue;
			out.push(n.data.trim());
		}
		return out;
	})()`)
	if len(texts) < 20 {
		t.Errorf("%d texts in lane b's library section: %q", len(texts), texts)
	}
	re := vocabularyRE()
	for _, s := range texts {
		if m := re.FindString(s); m != "" {
			t.Errorf("%q outside a code element in lane b's library section: %q", m, s)
		}
	}

	if dir := os.Getenv("BACKOFFLAB_SCREENSHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "library-section.png"), tb.screenshot(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tb.axeCheck(axe, "the playground with lane b's library section open")
}
