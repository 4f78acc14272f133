package web

// Helpers of the browser tests (browser_test.go): one headless Chromium for
// the package, a browser context of its own per test, one tab per subtest,
// every console error of a tab turned into a test failure, and polling done
// from Go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

const chromiumPath = "/usr/bin/chromium"

// Time limits: generous, for a loaded 2-core machine under -race. A test
// that passes takes a fraction of them.
const (
	browserStartTimeout = 45 * time.Second
	actionTimeout       = 20 * time.Second // one CDP action (navigate, click, evaluate)
	pollTimeout         = 20 * time.Second // one condition the page must reach
	pollEvery           = 40 * time.Millisecond
)

// startBrowser gives t a browser of its own in the headless Chromium that
// the package's browser tests share: a browser context (a fresh profile's
// cookies, storage and cache, as a browser of its own would have) whose
// tabs t's subtests open. It is closed, with its tabs, when t ends; the
// Chromium is started by the first test that asks and closed after the
// last (TestMain, before goleak's check). Each test starting a Chromium of
// its own cost a second or so of a core, a dozen times over. Without
// Chromium the test is skipped, visibly, unless CI=true, where it fails.
// Asked to (-short, or BACKOFFLAB_NO_BROWSER=1, as make check does), it is
// skipped even with CI=true: the skip is then chosen, not a missing
// browser.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests skipped with -short")
	}
	if os.Getenv("BACKOFFLAB_NO_BROWSER") == "1" {
		t.Skip("browser tests skipped: BACKOFFLAB_NO_BROWSER=1")
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chromium not found at %s (CI=true: the browser tests must run): %v", chromiumPath, err)
		}
		t.Skip("chromium not found at " + chromiumPath + ": browser tests skipped")
	}
	browserCtx, err := chromium.start()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel) // closes the context's tabs and disposes of it
	// The first Run ties its tab's event loop to the context it gets: a
	// watchdog bounds it instead of a timeout on it, which would end the
	// loop as the Run returned.
	watchdog := time.AfterFunc(actionTimeout, cancel)
	err = chromedp.Do(ctx)
	if !watchdog.Stop() {
		t.Fatalf("a browser context in %s: not within %v: %v", chromiumPath, actionTimeout, err)
	}
	if err != nil {
		t.Fatalf("a browser context in %s: %v", chromiumPath, err)
	}
	return ctx
}

// chromium is the headless Chromium the package's browser tests share.
var chromium sharedChromium

// sharedChromium starts one Chromium, once, for every test that asks, and
// closes it when asked to.
type sharedChromium struct {
	once  sync.Once
	ctx   context.Context
	err   error
	close func()
}

// start starts the Chromium the first time it is called and returns its
// context, or the error that stopped it starting, each time.
func (c *sharedChromium) start() (context.Context, error) {
	c.once.Do(func() {
		// A fresh profile: the allocator makes a temporary user-data-dir
		// for this browser and removes it (and kills any leftover child)
		// at the end.
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(chromiumPath),
			chromedp.NoSandbox, // as root in a container
			chromedp.NoFirstRun,
			chromedp.DisableGPU,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("hide-scrollbars", true), // screenshots as a phone shows them
			chromedp.WindowSize(1280, 800),
		)
		// The first Run ties the browser's life to the context it gets; a
		// watchdog on the parent bounds the start instead of a timeout on it.
		parent, stop := context.WithCancel(context.Background())
		allocCtx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
		ctx, cancelBrowser := chromedp.NewContext(allocCtx)
		c.close = func() {
			cancelBrowser() // closes the browser and waits for its process
			cancelAlloc()   // waits for the allocator's goroutines and temp dir
			stop()
		}
		watchdog := time.AfterFunc(browserStartTimeout, stop)
		err := chromedp.Do(ctx)
		if !watchdog.Stop() {
			c.err = fmt.Errorf("starting %s: not within %v: %v", chromiumPath, browserStartTimeout, err)
		} else if err != nil {
			c.err = fmt.Errorf("starting %s: %v", chromiumPath, err)
		}
		c.ctx = ctx
	})
	return c.ctx, c.err
}

// stop closes the Chromium, if it was started, and waits for its process.
func (c *sharedChromium) stop() {
	c.once.Do(func() {}) // none starts after this
	if c.close != nil {
		c.close()
	}
}

// tab is one browser tab of a subtest.
type tab struct {
	t   *testing.T
	ctx context.Context

	mu   sync.Mutex
	errs []string // console errors, exceptions and error log entries
}

// openTab opens a new tab in the shared browser. The tab records its
// console errors from the start; when the test ends they fail it, then the
// tab is closed.
func openTab(t *testing.T, browserCtx context.Context, opts ...chromedp.ContextOption) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx, opts...)
	t.Cleanup(cancel) // runs after the check below (cleanups run last-in first-out)
	tb := &tab{t: t, ctx: ctx}
	if err := chromedp.Listen(ctx, tb.onEvent); err != nil { // creates the tab
		t.Fatalf("opening a tab: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			tb.logDiagnostics()
		}
		tb.checkConsole()
	})
	return tb
}

// onEvent runs in the tab's event loop: it must return fast.
func (tb *tab) onEvent(ev any) {
	var msg string
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type != runtime.ConsoleAPICalledTypeError && ev.Type != runtime.ConsoleAPICalledTypeAssert {
			return
		}
		parts := make([]string, 0, len(ev.Args))
		for _, a := range ev.Args {
			parts = append(parts, remoteText(a))
		}
		msg = "console." + string(ev.Type) + ": " + strings.Join(parts, " ")
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			text += " " + remoteText(d.Exception)
		}
		msg = fmt.Sprintf("exception at %s:%d:%d: %s", d.URL, d.LineNumber+1, d.ColumnNumber+1, text)
	case *log.EventEntryAdded:
		if ev.Entry.Level != log.EntryLevelError {
			return
		}
		msg = fmt.Sprintf("log %s error: %s (%s:%d)", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL, ev.Entry.LineNumber+1)
	default:
		return
	}
	tb.mu.Lock()
	tb.errs = append(tb.errs, msg)
	tb.mu.Unlock()
}

func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if o.Description != "" {
		return o.Description
	}
	if len(o.Value) > 0 {
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
		return string(o.Value)
	}
	return string(o.UnserializableValue)
}

// checkConsole fails the test for every console error the tab has seen
// (a CSP violation is one: Chromium logs it as an error).
func (tb *tab) checkConsole() {
	tb.t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, e := range tb.errs {
		tb.t.Errorf("browser console: %s", e)
	}
	tb.errs = nil
}

// logDiagnostics logs where the page stands, to explain a failure.
func (tb *tab) logDiagnostics() {
	ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({
		url: location.href,
		status: document.querySelector('#status') && document.querySelector('#status').textContent,
		clock: document.querySelector('#clock') && document.querySelector('#clock').textContent,
		rows: window.backofflab ? window.backofflab.rows().length : null,
		state: window.backofflab ? window.backofflab.state() : null,
		errors: [...document.querySelectorAll('[data-error-for]')].map(e => e.textContent.trim()).filter(Boolean),
		map: window.backofflabMap ? {state: window.backofflabMap.state(), status: document.querySelector('#map-status').textContent} : null,
	})`))
	if err != nil {
		tb.t.Logf("page diagnostics: %v", err)
		return
	}
	tb.t.Logf("page diagnostics: %s", s)
}

// do runs actions in the tab, each call bounded by actionTimeout.
func (tb *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, actionTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		tb.t.Fatalf("%s: %v", what, err)
	}
}

// navigate loads url and waits for the page's script to be up.
func (tb *tab) navigate(url string) {
	tb.t.Helper()
	tb.do("navigate to "+url, chromedp.Navigate(url))
	tb.waitTrue("window.backofflab is set", `!!window.backofflab`)
}

// eval evaluates a JavaScript expression in tb's page and decodes its value.
func eval[T any](tb *tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, actionTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("evaluate %.80q: %v", expr, err)
	}
	return v
}

// poll evaluates expr until it gives a truthy value and returns that value.
// The loop runs in Go rather than with chromedp.Poll, so that an exception
// (window.backofflab not there yet) means "not yet" rather than failure,
// and a failure names what was awaited.
func poll[T any](tb *tab, what, expr string) T {
	tb.t.Helper()
	return pollFor[T](tb, what, expr, pollTimeout)
}

func pollFor[T any](tb *tab, what, expr string, timeout time.Duration) T {
	tb.t.Helper()
	deadline := time.Now().Add(timeout)
	wrapped := fmt.Sprintf(`(() => { const v = (%s); return v ? {ok: true, v} : {ok: false, v: null}; })()`, expr)
	for {
		ctx, cancel := context.WithTimeout(tb.ctx, actionTimeout)
		r, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
			OK bool `json:"ok"`
			V  T    `json:"v"`
		}](wrapped))
		cancel()
		var exc *chromedp.ExceptionError
		switch {
		case err == nil && r.OK:
			return r.V
		case err != nil && !errors.As(err, &exc) && !betweenPages(err):
			tb.t.Fatalf("waiting until %s: %v", what, err)
		}
		if time.Now().After(deadline) {
			if err != nil {
				tb.t.Fatalf("waiting until %s: not after %v; last error: %v", what, timeout, err)
			}
			tb.t.Fatalf("waiting until %s: not after %v (%s)", what, timeout, expr)
		}
		time.Sleep(pollEvery)
	}
}

// betweenPages reports whether err is Chromium's answer to an evaluation
// made while the tab changed documents (a click on a link, a page that
// replaced itself): the old page is gone and the new one has no context
// yet. A poll takes it as "not yet", as it takes an exception, and asks the
// new page.
func betweenPages(err error) bool {
	var ce *cdproto.Error
	if !errors.As(err, &ce) {
		return false
	}
	for _, m := range []string{"Inspected target navigated or closed", "Execution context was destroyed", "Cannot find context with specified id"} {
		if strings.Contains(ce.Message, m) {
			return true
		}
	}
	return false
}

// pollProgress is poll for work that advances, such as a map's cells: it
// waits until expr gives a truthy value and returns it, and fails only when
// progress, an expression whose value changes as the work advances, has
// not changed for pollTimeout. A loaded machine's slow work is waited for;
// work that stopped fails.
func pollProgress[T any](tb *tab, what, expr, progress string) T {
	tb.t.Helper()
	wrapped := fmt.Sprintf(`(() => {
		let p = null;
		try { p = JSON.stringify(%s); } catch (e) { p = 'exception: ' + e; }
		try { const v = (%s); return v ? {ok: true, v, p} : {ok: false, v: null, p}; }
		catch (e) { return {ok: false, v: null, p}; }
	})()`, progress, expr)
	last, deadline := "", time.Now().Add(pollTimeout)
	for {
		ctx, cancel := context.WithTimeout(tb.ctx, actionTimeout)
		r, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
			OK bool   `json:"ok"`
			V  T      `json:"v"`
			P  string `json:"p"`
		}](wrapped))
		cancel()
		switch {
		case err != nil && !betweenPages(err):
			tb.t.Fatalf("waiting until %s: %v", what, err)
		case err == nil && r.OK:
			return r.V
		case err == nil && r.P != last:
			last, deadline = r.P, time.Now().Add(pollTimeout)
		case time.Now().After(deadline):
			tb.t.Fatalf("waiting until %s: no progress for %v, at %s (%s)", what, pollTimeout, last, expr)
		}
		time.Sleep(pollEvery)
	}
}

// pollLeft reports whether expr became true within pollTimeout, as poll
// would wait for it, without failing the test when it did not: for a
// test that acts again when its first action had no effect. An exception
// (the page navigating away while asked) counts as not yet.
func pollLeft(tb *tab, expr string) bool {
	tb.t.Helper()
	for deadline := time.Now().Add(pollTimeout); time.Now().Before(deadline); time.Sleep(pollEvery) {
		ctx, cancel := context.WithTimeout(tb.ctx, actionTimeout)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+expr+")"))
		cancel()
		if err == nil && ok {
			return true
		}
	}
	return false
}

func (tb *tab) waitTrue(what, expr string) {
	tb.t.Helper()
	poll[bool](tb, what, "!!("+expr+")")
}

// setBox types value into the [data-param] box of name as the page's own
// listeners see typing: the value, then input and change events.
// (chromedp.SetValue sets the value only and fires no event.)
func (tb *tab) setBox(name, value string) {
	tb.t.Helper()
	eval[chromedp.Void](tb, fmt.Sprintf(`(() => {
		const el = document.querySelector('[data-param=' + CSS.escape(%q) + ']');
		if (!el) throw new Error('no control ' + %q);
		el.value = %q;
		el.dispatchEvent(new Event('input', {bubbles: true}));
		el.dispatchEvent(new Event('change', {bubbles: true}));
	})()`, name, name, value))
}

// controls returns every [data-param] control's value (a checkbox's
// checked state) and every slider's position, by name.
func (tb *tab) controls() map[string]string {
	tb.t.Helper()
	return eval[map[string]string](tb, `(() => {
		const out = {};
		for (const el of document.querySelectorAll('[data-param]'))
			out[el.dataset.param] = el.type === 'checkbox' ? String(el.checked) : el.value;
		for (const el of document.querySelectorAll('[data-slider-for]'))
			out['slider:' + el.dataset.sliderFor] = el.value;
		return out;
	})()`)
}

// rows returns the tick rows the page holds; a null (a percentile with no
// value) is nil.
func (tb *tab) rows() [][]*float64 {
	tb.t.Helper()
	return eval[[][]*float64](tb, `window.backofflab.rows()`)
}

// screenshot returns a PNG of the whole page, beyond the viewport.
func (tb *tab) screenshot() []byte {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, actionTimeout)
	defer cancel()
	buf, err := chromedp.Run(ctx, func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		m, err := cdp.Call(ctx, t, cdppage.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, err
		}
		sz := m.CSSContentSize
		r, err := cdp.Call(ctx, t, cdppage.CaptureScreenshot, cdppage.CaptureScreenshotParams{
			Format:                cdppage.CaptureScreenshotFormatPng,
			CaptureBeyondViewport: new(true),
			FromSurface:           new(true),
			Clip:                  &cdppage.Viewport{X: 0, Y: 0, Width: sz.Width, Height: sz.Height, Scale: 1},
		})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	})
	if err != nil {
		tb.t.Fatalf("screenshot: %v", err)
	}
	return buf
}

// allowDownloads saves the downloads of tb's browser context in dir, under
// their GUIDs, until the test ends. The behaviour is the browser
// context's: the tests beside it, each in its own, keep theirs.
func allowDownloads(t *testing.T, tb *tab, dir string) {
	t.Helper()
	id := chromedp.FromContext(tb.ctx).BrowserContextID
	if _, err := chromedp.CallBrowser(tb.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: new(true), BrowserContextID: id,
	}); err != nil {
		t.Fatalf("setDownloadBehavior: %v", err)
	}
	t.Cleanup(func() {
		chromedp.CallBrowser(tb.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorDefault, BrowserContextID: id})
	})
}
