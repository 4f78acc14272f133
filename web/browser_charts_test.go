package web

// The playground's charts compared honestly and read on a phone, in the
// headless Chromium of browser_test.go. Run them with:
// go test -run BrowserCharts -v ./web
//
// BACKOFFLAB_SCREENSHOTS=/some/dir keeps the screenshots of the Shots
// subtest there (else they go to a temporary directory).

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestBrowserCharts(t *testing.T) {
	env := &browserEnv{ctx: startBrowser(t)}
	srv, _ := newTestServer(t, Limits{RunMemory: 32 << 20})
	env.base = srv.URL
	for _, st := range []struct {
		name string
		fn   func(*testing.T, *browserEnv)
	}{
		{"Shots", chartsShots},
	} {
		t.Run(st.name, func(t *testing.T) { st.fn(t, env) })
	}
}

// chartsShots takes screenshots of the landing run mid-storm and at its
// end, on a desktop in the light scheme and on a phone in the dark one.
func chartsShots(t *testing.T, env *browserEnv) {
	dir := os.Getenv("BACKOFFLAB_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []struct {
		name   string
		scheme string
		vp     chromedp.Action[chromedp.Void]
	}{
		{"1280x800-light", "light", chromedp.EmulateViewport(1280, 800)},
		{"390x844-dark", "dark", phone()},
	} {
		t.Run(v.name, func(t *testing.T) {
			tb := openPage(t, env, "speed=10", v.vp, scheme(v.scheme))
			tb.waitRowsT(50)
			eval[chromedp.Void](tb, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r())))`)
			shot := func(file string) {
				b, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatalf("screenshot: %v", err)
				}
				p := filepath.Join(dir, file)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s", p)
			}
			shot(fmt.Sprintf("charts-%s-storm.png", v.name))
			tb.waitFinished()
			shot(fmt.Sprintf("charts-%s-end.png", v.name))
		})
	}
}
