package web

// The page's formatters against internal/present's: the browser writes
// what only it knows (an axis tick, the value under the pointer) with
// static/common.js, the server every sentence with internal/present, and
// both follow one rule, pinned by one table of cases that this test and
// present's own tests read. Run it with:
// go test -run TestBrowserFormatters -v ./web

import (
	"fmt"
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

// formatCases is the table internal/present's tests read.
const formatCases = "../internal/present/testdata/formats.json"

func TestBrowserFormatters(t *testing.T) {
	t.Parallel() // its own server and browser context: it runs beside the other browser tests
	ctx := startBrowser(t)
	srv, _, _ := serveShell(t, Options{})
	cases, err := os.ReadFile(formatCases)
	if err != nil {
		t.Fatal(err)
	}
	tb := openTab(t, ctx)
	tb.do("navigate", chromedp.Navigate(srv.URL+"/"))
	tb.waitTrue("the page is up", `!!window.backofflab`)
	// Each case the kit writes otherwise, as "function(args) = got, want want".
	wrong := evalAwait[[]string](tb, fmt.Sprintf(`import('/static/common.js').then(k => (c => {
		const out = [];
		const check = (what, got, want) => { if (got !== want) out.push(what + ' = ' + JSON.stringify(got) + ', want ' + JSON.stringify(want)); };
		for (const d of c.durations) check('dur(' + d.sec + ', ' + d.n + ')', k.dur(d.sec, d.n), d.want);
		for (const d of c.sig) check('sig(' + d.v + ', ' + d.n + ')', k.sig(d.v, d.n), d.want);
		for (const d of c.rates) check('rate(' + d.v + ')', k.rate(d.v), d.want);
		out.push(String(c.durations.length + c.sig.length + c.rates.length));
		return out;
	})(%s))`, cases))
	n := wrong[len(wrong)-1]
	wrong = wrong[:len(wrong)-1]
	if n == "0" {
		t.Fatalf("%s: no case checked", formatCases)
	}
	for _, w := range wrong {
		t.Errorf("common.js: %s (%s)", w, formatCases)
	}
	t.Logf("%s cases checked", n)
}
