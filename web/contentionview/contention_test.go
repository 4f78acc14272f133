package contentionview

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/backofflab/backofflab/contention"
	"github.com/backofflab/backofflab/web/kit"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestDecodeContention: a study's URL within the server's bounds reads
// into its spec; a bad one is an error naming the parameter at fault.
func TestDecodeContention(t *testing.T) {
	lim := kit.Limits{}.WithDefaults()
	for _, tc := range []struct {
		name, raw, bad string
	}{
		{"the defaults", "", ""},
		{"a small study", "n=10:30:10&runs=5&seed=2", ""},
		{"a name given twice", "runs=5&runs=6", "runs"},
		{"too many clients", "n=10:5000:10", "n"},
		{"an unknown strategy", "strategies=nope", "strategies"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec, _, err := decodeContention(tc.raw, lim)
			if tc.bad == "" {
				if err != nil || spec.Points() == 0 {
					t.Fatalf("%d points, %v", spec.Points(), err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.bad+": ") {
				t.Fatalf("err %v, want one naming %s", err, tc.bad)
			}
		})
	}
}

// TestContentionInput: a bad URL keeps what it gave in the form and runs
// nothing; a good one's query sets every parameter and checks its lines.
func TestContentionInput(t *testing.T) {
	lim := kit.Limits{}.WithDefaults()
	in, st := newContentionInput("runs=0&strategies=full_jitter", lim)
	if in.Error == "" || in.Query != "" || st.Query != "" {
		t.Fatalf("a bad URL: error %q, query %q", in.Error, in.Query)
	}
	for _, p := range in.Params {
		if p.Name == "runs" && p.Value != "0" {
			t.Errorf("runs shows %q, want the URL's 0", p.Value)
		}
	}
	in, st = newContentionInput("strategies=full_jitter", lim)
	if in.Error != "" || in.Query == "" || st.Query != in.Query {
		t.Fatalf("a good URL: error %q, query %q, state's %q", in.Error, in.Query, st.Query)
	}
	if len(in.Lines) != len(contention.Lines()) {
		t.Fatalf("%d lines, want %d", len(in.Lines), len(contention.Lines()))
	}
	for _, l := range in.Lines {
		if l.On != (l.Strategy == "full_jitter") {
			t.Errorf("line %s on: %v", l.Strategy, l.On)
		}
	}
}

// TestMountServesScript: the view's own script is served under
// /static/, as the page's head names it, from the package's embed.
func TestMountServesScript(t *testing.T) {
	want, err := os.ReadFile("contention.js")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	Mount(mux, kit.New(context.Background(), nil, kit.Limits{}, nil))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/static/contention.js")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || string(got) != string(want) || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("%s %s, %d bytes, want %d", resp.Status, resp.Header.Get("Content-Type"), len(got), len(want))
	}
}
