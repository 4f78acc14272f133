package web

// The live picture of each lane's system (play-picture.js), in the headless
// Chromium of browser_test.go: it draws (pixels of more than the
// background), its sentence names the lane's numbers of the last row, it
// does not move with reduced motion (and does without), axe finds nothing
// serious with it mid-storm, and its frame time at 4× with 20 000 clients
// on four lanes is measured and logged. Run them with:
// go test -count=1 -run BrowserPicture -v ./web
//
// With BACKOFFLAB_PICTURE_SHOTS=dir the test also writes screenshots of
// the landing run's storm (lane a) and recovery (lane b), desktop and
// phone, light and dark, into dir, to be looked at.

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

func TestBrowserPicture(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other long browser tests
	env := &browserEnv{ctx: startBrowser(t)}
	srv, _, _ := serveShell(t, Options{Limits: Limits{RunMemory: 64 << 20}})
	env.base = srv.URL
	axe := readAxe(t)
	for _, st := range []struct {
		name string
		fn   func(*testing.T, *browserEnv, string)
	}{
		{"Draws", pictureDraws},
		{"Words", pictureWords},
		{"ReducedMotion", pictureReducedMotion},
		{"Axe", pictureAxe},
		{"Export", pictureExport},
		{"FrameTime", pictureFrameTime},
		{"Screenshots", pictureScreenshots},
	} {
		t.Run(st.name, func(t *testing.T) { st.fn(t, env, axe) })
	}
}

// reducedMotion emulates the reader's wish for reduced motion, or not.
func reducedMotion(on bool) chromedp.Action[chromedp.Void] {
	v := "no-preference"
	if on {
		v = "reduce"
	}
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: v}}})
		return err
	})
}

// pictureInk counts the pixels of lane letter's canvas that differ from
// its corner's (the background): what the picture drew.
const pictureInk = `(letter => {
	const c = document.querySelector('canvas[data-picture="' + letter + '"]');
	const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
	let n = 0;
	for (let k = 0; k < d.length; k += 4) if (d[k] !== d[0] || d[k + 1] !== d[1] || d[k + 2] !== d[2]) n++;
	return n;
})`

// pictureDrawn waits until the picture has drawn the page's last row.
func (tb *tab) pictureDrawn() {
	tb.t.Helper()
	tb.waitTrue("the picture drew the last row", `(p => p.seenRows === window.backofflab.rows().length && !p.dirty)(window.backofflab.picture())`)
	evalAwait[bool](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
}

// evalAwait evaluates a JavaScript expression whose value is a promise in
// tb's page, and decodes what the promise resolves to.
func evalAwait[T any](tb *tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("evaluate %.80q: %v", expr, err)
	}
	return v
}

// pictureDraws: each shown lane's canvas has ink, and its size follows its
// box, for each shape of server and of load: a queue, 001's latency curve,
// an open loop, layered retries.
func pictureDraws(t *testing.T, env *browserEnv, _ string) {
	for _, v := range []struct{ name, query string }{
		{"queue", "duration=30s"},
		{"curve", "duration=40s&server_model=curve"},
		{"open loop", "duration=30s&arrival=open&rate=150"},
		{"tiers", "duration=30s&b.tiers=fixed:3:1s"},
	} {
		t.Run(v.name, func(t *testing.T) {
			tb := openPage(t, env, "speed=max&"+v.query)
			tb.waitDone()
			tb.pictureDrawn()
			for _, l := range []string{"a", "b"} {
				ink := eval[int](tb, pictureInk+`('`+l+`')`)
				size := eval[[]float64](tb, `(c => [c.width, c.height, c.getBoundingClientRect().width])(document.querySelector('canvas[data-picture="`+l+`"]'))`)
				t.Logf("lane %s: %d pixels of ink on a %v×%v canvas; %s", l, ink, size[0], size[1],
					eval[string](tb, `document.querySelector('[data-picture-text="`+l+`"]').textContent`))
				if ink < 2000 {
					t.Errorf("lane %s's picture has %d pixels of ink, want a drawing", l, ink)
				}
				if size[0] < size[2] {
					t.Errorf("lane %s's canvas is %v px wide in a box of %v px", l, size[0], size[2])
				}
			}
			if n := eval[int](tb, `document.querySelectorAll('[data-lane-col]:not([hidden]) canvas[data-picture]').length`); n != 2 {
				t.Errorf("%d pictures shown, want one per lane (2)", n)
			}
			if d := os.Getenv("BACKOFFLAB_PICTURE_SHOTS"); d != "" {
				tb.do("scroll to the pictures", chromedp.ScrollIntoView(`canvas[data-picture="a"]`))
				if err := os.WriteFile(filepath.Join(d, "picture-draws-"+strings.ReplaceAll(v.name, " ", "-")+".png"), tb.screenshot(), 0o644); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// pictureExport: the picture's PNG button downloads the picture at twice
// its size with its caption under it.
func pictureExport(t *testing.T, env *browserEnv, _ string) {
	dir := t.TempDir()
	tb := openPage(t, env, "speed=max&duration=30s")
	allowDownloads(t, tb, dir)
	tb.waitDone()
	tb.pictureDrawn()
	size := eval[[]float64](tb, `(r => [r.width, r.height])(document.querySelector('canvas[data-picture="b"]').getBoundingClientRect())`)
	png, name := tb.download(dir, chromedp.Click(`[data-picture-png="b"]`))
	if name != "backofflab-b-exponential-picture.png" {
		t.Errorf("the picture's PNG is named %q", name)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(png))
	if err != nil || format != "png" {
		t.Fatalf("the picture's PNG does not decode: %v (%s)", err, format)
	}
	t.Logf("the picture's PNG: %d bytes, %d×%d; the canvas is %v×%v", len(png), cfg.Width, cfg.Height, size[0], size[1])
	if math.Abs(float64(cfg.Width)-2*size[0]) > 2 || float64(cfg.Height) < 2*size[1]+40 {
		t.Errorf("the picture's PNG is %d×%d, want twice the canvas (%v×%v) and a caption under it", cfg.Width, cfg.Height, size[0], size[1])
	}
	if d := os.Getenv("BACKOFFLAB_PICTURE_SHOTS"); d != "" {
		if err := os.WriteFile(filepath.Join(d, name), png, 0o644); err != nil {
			t.Error(err)
		}
	}
}

// pictureWords: once the run is over, each lane's sentence names its
// numbers of the last row: the clients, thinking, waiting for an answer,
// waiting to retry, and the requests inside the server with those queued.
func pictureWords(t *testing.T, env *browserEnv, _ string) {
	tb := openPage(t, env, "speed=max")
	tb.waitDone()
	rows := tb.rows()
	last := rows[len(rows)-1]
	for i, l := range []string{"a", "b"} {
		v := func(name string) int { return int(math.Round(*last[col(t, i, name)])) }
		alive, backoff := v("alive"), v("in_backoff")
		want := []string{
			fmt.Sprintf("Lane %s: %s clients: %s thinking, %s waiting for an answer, %s waiting to retry", l,
				thin(v("thinking")+alive), thin(v("thinking")), thin(alive-backoff), thin(backoff)),
			fmt.Sprintf("%s requests inside the server (%s in service, %s queued)", thin(v("concurrency")),
				thin(v("concurrency")-v("queued")), thin(v("queued"))),
		}
		sel := `document.querySelector('[data-picture-text="` + l + `"]').textContent`
		got := pollFor[string](tb, "lane "+l+"'s sentence names its last row", `(s => `+jsHas(want)+` ? s : null)(`+sel+`)`, 2*pollTimeout)
		t.Logf("lane %s: %s", l, got)
		if live := eval[string](tb, `document.querySelector('[data-picture-live="`+l+`"]').getAttribute('aria-live')`); live != "polite" {
			t.Errorf("lane %s's live region is aria-live=%q, want polite", l, live)
		}
		pollFor[string](tb, "lane "+l+"'s live region says it too", `(s => `+jsHas(want)+` ? s : null)(document.querySelector('[data-picture-live="`+l+`"]').textContent)`, 2*pollTimeout)
	}
}

// thin writes n as the page does: thousands grouped by thin spaces.
func thin(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "\u2009" + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// jsHas is a JavaScript condition on s: it holds every one of want.
func jsHas(want []string) string {
	var parts []string
	for _, w := range want {
		parts = append(parts, fmt.Sprintf("s.includes(%q)", w))
	}
	return strings.Join(parts, " && ")
}

// pictureReducedMotion: with reduced motion the picture's marks do not
// move while the run plays (its clock stays at 0, and what it shows is the
// picture at rest); without, they do.
func pictureReducedMotion(t *testing.T, env *browserEnv, _ string) {
	t.Run("reduce", func(t *testing.T) {
		tb := openPage(t, env, "speed=1", chromedp.EmulateViewport(1280, 800), reducedMotion(true))
		tb.waitTrue("the run plays and rows arrive", `window.backofflab.rows().length >= 20 && window.backofflab.state().playing`)
		if clock := eval[float64](tb, `window.backofflab.picture().clock`); clock != 0 {
			t.Errorf("with reduced motion the picture's clock moved to %v s", clock)
		}
		tb.do("pause", chromedp.Click(chromedp.ID("play")))
		tb.waitTrue("paused", `!window.backofflab.state().playing`)
		tb.pictureDrawn()
		if !eval[bool](tb, `(c => { const a = c.toDataURL(); window.backofflab.picDrawAll(true); return a === c.toDataURL(); })(document.querySelector('canvas[data-picture="a"]'))`) {
			t.Error("with reduced motion the picture shown is not the picture at rest")
		}
		if ink := eval[int](tb, pictureInk+`('a')`); ink < 2000 {
			t.Errorf("with reduced motion lane a's picture has %d pixels of ink, want a drawing", ink)
		}
	})
	t.Run("motion", func(t *testing.T) {
		tb := openPage(t, env, "speed=1", chromedp.EmulateViewport(1280, 800), reducedMotion(false))
		tb.waitTrue("the marks move while the run plays", `window.backofflab.picture().clock > 0.2`)
	})
}

// pictureAxe: axe finds nothing serious or critical on the landing run
// mid-storm with the pictures drawn, light and dark, desktop and phone.
func pictureAxe(t *testing.T, env *browserEnv, axe string) {
	for _, v := range []struct {
		name string
		vp   chromedp.Action[chromedp.Void]
		sch  string
	}{
		{"desktop light", chromedp.EmulateViewport(1280, 800), "light"},
		{"phone dark", phone(), "dark"},
	} {
		t.Run(v.name, func(t *testing.T) {
			tb := openPage(t, env, "speed=max&duration=50s", v.vp, scheme(v.sch))
			tb.waitDone()
			tb.pictureDrawn()
			tb.axeCheck(axe, "the pictures mid-storm, "+v.name)
		})
	}
}

// pictureFrameTime measures the picture's drawing at 4× with 20 000
// clients on four lanes: the mean and worst time of the frames it drew
// while the run played, and of 100 frames drawn back to back. Speed is a
// benchmark's matter: the test logs it and asserts only that frames were
// drawn.
func pictureFrameTime(t *testing.T, env *browserEnv, _ string) {
	tb := openPage(t, env, "speed=4&lanes=4&clients=20000&c.strategy=full_jitter&d.strategy=decorrelated&outage_at=2s&outage_for=3s&duration=10m")
	tb.waitTrue("ten seconds of the run", `window.backofflab.rows().length && window.backofflab.rows().at(-1)[0] >= 10`)
	eval[chromedp.Void](tb, `Object.assign(window.backofflab.picStats, {frames: 0, total: 0, worst: 0, since: performance.now()}) && null`)
	// The page as a whole draws slowly here (four lanes of six charts on
	// a shared machine): its frames are waited for, however long they take.
	pollFor[bool](tb, "60 frames drawn", `window.backofflab.picStats.frames >= 60`, 4*pollTimeout)
	live := eval[map[string]float64](tb, `(() => {
		const picStats = window.backofflab.picStats;
		const ts = Array.from(picStats.times.slice(0, Math.min(picStats.frames, picStats.times.length))).sort((a, b) => a - b);
		return {frames: picStats.frames, mean: picStats.total / picStats.frames, worst: picStats.worst,
			median: ts[Math.floor(ts.length / 2)], p95: ts[Math.min(ts.length - 1, Math.ceil(ts.length * 0.95) - 1)],
			fps: picStats.frames / (performance.now() - picStats.since) * 1000};
	})()`)
	if halted := eval[int](tb, `[0, 1, 2, 3].filter(i => window.backofflab.rows().at(-1)[1 + i * window.backofflab.NC + window.backofflab.COL.concurrency] === null).length`); halted > 0 {
		t.Errorf("%d lanes stopped during the measurement: the frames drew less than four lanes", halted)
	}
	back := eval[float64](tb, `(() => { const t0 = performance.now(); for (let k = 0; k < 100; k++) window.backofflab.picDrawAll(false); return (performance.now() - t0) / 100; })()`)
	t.Logf("picture frame time, 4 lanes, 20 000 clients, 4×, over %v frames while the run played: median %.2f ms, 95 %% %.2f ms, mean %.2f ms, worst %.2f ms (the page drew %.1f frames/s); back to back %.2f ms a frame (a frame is 16.7 ms at 60 Hz)",
		live["frames"], live["median"], live["p95"], live["mean"], live["worst"], live["fps"], back)
}

// pictureScreenshots writes the landing run's pictures as screenshots
// when BACKOFFLAB_PICTURE_SHOTS names a directory.
func pictureScreenshots(t *testing.T, env *browserEnv, _ string) {
	dir := os.Getenv("BACKOFFLAB_PICTURE_SHOTS")
	if dir == "" {
		t.Skip("BACKOFFLAB_PICTURE_SHOTS is not set")
	}
	for _, v := range []struct {
		name, query string
		vp          chromedp.Action[chromedp.Void]
		sch         string
	}{
		// Mid-storm (50 s): lane a's queue is full, lane b's drains.
		{"desktop-light", "duration=50s", chromedp.EmulateViewport(1280, 800), "light"},
		{"desktop-dark", "duration=50s", chromedp.EmulateViewport(1280, 800), "dark"},
		{"phone-light", "duration=50s", phone(), "light"},
		{"phone-dark", "duration=50s", phone(), "dark"},
		// The whole landing run: lane a still storms, lane b recovered.
		{"desktop-light-finished", "", chromedp.EmulateViewport(1280, 800), "light"},
	} {
		t.Run(v.name, func(t *testing.T) {
			tb := openPage(t, env, "speed=max&"+v.query, v.vp, scheme(v.sch))
			tb.waitDone()
			tb.pictureDrawn()
			tb.do("scroll to the pictures", chromedp.ScrollIntoView(`canvas[data-picture="a"]`))
			ctx, cancel := context.WithTimeout(tb.ctx, actionTimeout)
			defer cancel()
			png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatalf("screenshot: %v", err)
			}
			if err := os.WriteFile(filepath.Join(dir, "picture-"+v.name+".png"), png, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}
