package playground

import (
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/backofflab/backofflab/web/internal/webtest"
	"github.com/backofflab/backofflab/web/kit"
)

// namesRE matches any of webtest.VocabularyNames as a word.
func namesRE() *regexp.Regexp {
	quoted := make([]string, 0)
	for _, n := range webtest.VocabularyNames() {
		quoted = append(quoted, regexp.QuoteMeta(n))
	}
	return regexp.MustCompile(`\b(` + strings.Join(quoted, "|") + `)\b`)
}

// TestNoNameOutsideCode: on the rendered page, every text a reader sees
// (labels, helps, headings, menus, buttons, the presets' notes) names the
// vocabulary only inside a code element; the browser test
// (TestBrowserFirstScreen) checks the same of what the script writes.
func TestNoNameOutsideCode(t *testing.T) {
	re := namesRE()
	for _, q := range []string{"", "a.strategy=think_scaled&b.strategy=full_jitter&lanes=3&c.strategy=decorrelated", "server_model=curve&shed_above=100"} {
		t.Run(q, func(t *testing.T) {
			in := pageFor(t, q)
			in.Presets = newPresets(kit.DefaultLimits).list() // their notes quote the measured verdicts
			doc := render(t, in)
			var skip func(n *html.Node) bool
			skip = func(n *html.Node) bool {
				for ; n != nil; n = n.Parent {
					if n.Type == html.ElementNode && (n.Data == "code" || n.Data == "script" || n.Data == "style" || n.Data == "head") {
						return true
					}
				}
				return false
			}
			walk(doc, func(n *html.Node) {
				if n.Type != html.TextNode || skip(n.Parent) {
					return
				}
				if m := re.FindString(n.Data); m != "" {
					t.Errorf("%q outside a code element, in <%s>: %q", m, n.Parent.Data, strings.TrimSpace(n.Data))
				}
			})
		})
	}
}
