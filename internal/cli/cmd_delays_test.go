package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// delaysGolden are the flag sets whose "delays" output testdata/delays
// keeps: the held-in example files of three libraries, as text and CSV,
// and lanes that give up each way (max_attempts, a deadline, a limiter,
// the strategy itself). The numbers are RetryDelays', which
// strategies' TestRetryDelaysLaneMatchesFormula checks against each
// formula; these keep the command's layout and its choice of lane.
var delaysGolden = []struct{ name, args string }{
	{"envoy_route.txt", "-lib envoy libconfig/testdata/envoy_route.yaml"},
	{"envoy_route.csv", "-format csv -lib envoy libconfig/testdata/envoy_route.yaml"},
	{"aws_config.txt", "-lib aws libconfig/testdata/aws_config.ini"},
	{"aws_config.csv", "-format csv -lib aws libconfig/testdata/aws_config.ini"},
	{"resilience4j_application.txt", "-lib resilience4j libconfig/testdata/resilience4j_application.yml"},
	{"resilience4j_application.csv", "-format csv -lib resilience4j libconfig/testdata/resilience4j_application.yml"},
	{"default_lane_b.txt", "-lane b"},
	{"deadline.txt", "-a.strategy full_jitter -a.max_attempts 0 -a.deadline 2s"},
	{"grpc_throttle.txt", "-a.strategy exponential -a.grpc_throttle on"},
	{"none.txt", "-a.strategy none"},
	{"open_ended.csv", "-format csv -a.strategy decorrelated -seed 7 -a.max_attempts 0"},
}

// TestDelaysGolden: "delays" writes, byte for byte, what testdata/delays
// holds (go test -run TestDelaysGolden -update rewrites it).
func TestDelaysGolden(t *testing.T) {
	for _, g := range delaysGolden {
		t.Run(g.name, func(t *testing.T) {
			got := mustRun(t, append([]string{"delays"}, strings.Fields(g.args)...)...)
			path := filepath.Join("testdata", "delays", g.name)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test -run TestDelaysGolden -update writes it)", err)
			}
			if got != string(want) {
				t.Fatalf("delays %s:\n got %s\nwant %s", g.args, got, want)
			}
		})
	}
}

func Example_delays() {
	_ = Run(context.Background(), strings.Fields("delays -format csv -a.strategy fixed -a.min_delay 250ms -a.max_attempts 3"), os.Stdout, os.Stderr)
	// Output:
	// retry,p5,p50,p95,max
	// 1,0.25,0.25,0.25,0.25
	// 2,0.25,0.25,0.25,0.25
}

// TestDelaysCSV: the CSV has the columns retry,p5,p50,p95,max, one row per
// retry from 1, in seconds, each row's quantiles in order.
func TestDelaysCSV(t *testing.T) {
	out := mustRun(t, "delays", "-format", "csv", "-a.strategy", "full_jitter", "-a.max_attempts", "6")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "retry,p5,p50,p95,max" {
		t.Fatalf("header %q", got)
	}
	if len(recs) != 6 {
		t.Fatalf("%d rows, want the header and 5 retries:\n%s", len(recs), out)
	}
	for i, r := range recs[1:] {
		if r[0] != strconv.Itoa(i+1) {
			t.Errorf("row %d: retry %s", i+1, r[0])
		}
		prev := 0.0
		for j, cell := range r[1:] {
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil || v < prev {
				t.Errorf("retry %d: %s = %q, want seconds, no less than the column before", i+1, recs[0][j+1], cell)
			}
			prev = v
		}
	}
}

// TestDelaysBadFlags: every bad flag is a usage error that names it.
func TestDelaysBadFlags(t *testing.T) {
	envoy := filepath.Join("libconfig", "testdata", "envoy_route.yaml")
	bootstrap := filepath.Join("libconfig", "testdata", "envoy_bootstrap.yaml")
	cases := []struct {
		name string
		args string
		want string
	}{
		{"format", "-format json", `format: "json" is not allowed (allowed: one of text, csv)`},
		{"lane_letter", "-lane z", `-lane "z": a lane letter`},
		{"lane_beyond_lanes", "-lanes 1 -lane b", "-lane b: the flags give 1 lanes"},
		{"lane_value", "-a.factor abc", `a.factor: "abc" is not allowed`},
		{"lane_range", "-a.strategy exponential -a.factor 0.5", `a.factor: "0.5" is not allowed`},
		{"unknown_flag", "-nope", "flag provided but not defined: -nope"},
		{"stray_argument", "stray", `unexpected argument "stray" (a FILE goes with -lib NAME)`},
		{"unknown_library", "-lib nope x", `-lib "nope": one of grpc, envoy`},
		{"no_file", "-lib envoy", "one FILE, the configuration (- for standard input), got 0"},
		{"two_files", "-lib envoy " + envoy + " " + envoy, "got 2 arguments"},
		{"lane_flag_and_file", "-lib envoy -a.min_delay 1s " + envoy, "-lib envoy sets lane a from " + envoy + ": drop -a.min_delay"},
		{"wrong_syntax", "-lib aws " + envoy, "delays: " + envoy + " (an AWS shared config file (INI)"},
		{"several_policies", "-lib envoy " + bootstrap, "delays: " + bootstrap + " as a lane: choose one with -pick NAME, one of: orders, shop/prefix:/catalog"},
		{"pick_names_none", "-lib envoy -pick nope " + bootstrap, `the pick names no retry configuration found in the file`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := runArgs(t, append([]string{"delays"}, strings.Fields(c.args)...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("delays %s: %v, want an error containing %q", c.args, err, c.want)
			}
			if ExitCode(err) != exitUsage {
				t.Errorf("delays %s: exit status %d, want %d (usage)", c.args, ExitCode(err), exitUsage)
			}
		})
	}
}

// TestDelaysMatchThePage: for a library's configuration, the playground's
// delay chart gets, through its own path (the file posted to
// /config/import, the lane's query opened as a page's WebSocket, the
// delays message), exactly the numbers "delays -lib" prints.
func TestDelaysMatchThePage(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done := startServe(t, ctx)
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	for _, c := range []struct{ lib, file string }{
		{"envoy", "envoy_route.yaml"},
		{"aws", "aws_config.ini"},
		{"resilience4j", "resilience4j_application.yml"},
	} {
		t.Run(c.lib, func(t *testing.T) {
			path := filepath.Join("libconfig", "testdata", c.file)
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			query := importQuery(t, url, c.lib, string(text))
			page := pageDelays(t, ctx, url, "lanes=1&"+query)

			out := mustRun(t, "delays", "-format", "csv", "-lib", c.lib, path)
			recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(recs)-1 != len(page.Retry) {
				t.Fatalf("the page charts %d retries, the command %d:\n%s", len(page.Retry), len(recs)-1, out)
			}
			// The page's seconds are a Duration's Seconds(), the command's
			// its exact decimal: the same nanoseconds.
			ns := func(sec float64) int64 { return int64(math.Round(sec * 1e9)) }
			for i, r := range recs[1:] {
				want := []float64{float64(page.Retry[i]), page.P5[i], page.P50[i], page.P95[i], page.Max[i]}
				for j, cell := range r {
					v, err := strconv.ParseFloat(cell, 64)
					if err != nil || ns(v) != ns(want[j]) {
						t.Errorf("retry %d: %s %q, the page's %v", i+1, recs[0][j], cell, want[j])
					}
				}
			}
		})
	}
}

// importQuery posts a configuration to the playground's /config/import as
// the page does and returns the lane's query.
func importQuery(t *testing.T, url, lib, text string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"lib": lib, "lane": "a", "text": text})
	req, err := http.NewRequest("POST", url+"config/import", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ans struct {
		Query  string            `json:"query"`
		Errors []json.RawMessage `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil || resp.StatusCode != 200 || len(ans.Errors) > 0 || ans.Query == "" {
		t.Fatalf("import %s: status %d, %v, errors %s", lib, resp.StatusCode, err, ans.Errors)
	}
	return ans.Query
}

// pageDelaysMsg is the part of the playground's delays message the chart
// draws.
type pageDelaysMsg struct {
	Type  string    `json:"type"`
	Lane  int       `json:"lane"`
	Retry []int     `json:"retry"`
	P5    []float64 `json:"p5"`
	P50   []float64 `json:"p50"`
	P95   []float64 `json:"p95"`
	Max   []float64 `json:"max"`
}

// pageDelays opens a page's WebSocket on query and returns lane a's first
// delays message.
func pageDelays(t *testing.T, ctx context.Context, url, query string) pageDelaysMsg {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"ws?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 24)
	for {
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("no delays message: %v", err)
		}
		var ty struct{ Type string }
		if err := json.Unmarshal(data, &ty); err != nil {
			t.Fatal(err)
		}
		switch ty.Type {
		case "error":
			t.Fatalf("the page's session answered %s", data)
		case "delays":
			var m pageDelaysMsg
			if err := json.Unmarshal(data, &m); err != nil {
				t.Fatal(err)
			}
			if m.Lane == 0 {
				return m
			}
		}
	}
}

// TestDelaysDoc: every command docs/delays.md quotes prints, on standard
// output and in the error line main adds, what the page says (the
// warnings of an import, on standard error, are config import's and left
// out of the page).
func TestDelaysDoc(t *testing.T) {
	cmds := docCommands(t, "docs/delays.md")
	if len(cmds) < 3 {
		t.Fatalf("docs/delays.md quotes %d commands, want its three", len(cmds))
	}
	for _, c := range cmds {
		t.Run(fmt.Sprintf("line_%d", c.line), func(t *testing.T) {
			args := strings.Fields(c.command)
			if len(args) < 2 || args[0] != "backofflab" || args[1] != "delays" {
				t.Fatalf("%q: want a backofflab delays command", c.command)
			}
			var out bytes.Buffer
			if err := Run(context.Background(), args[1:], &out, io.Discard); err != nil {
				fmt.Fprintln(&out, "backofflab:", err)
			}
			if out.String() != c.output {
				t.Errorf("%s prints\n%s\nthe page says\n%s", c.command, out.String(), c.output)
			}
		})
	}
}

// TestDelaysPick: -pick takes one policy of a file that holds several, as
// config import's does: the route's lane, the same as config import gives.
func TestDelaysPick(t *testing.T) {
	file := filepath.Join("libconfig", "testdata", "envoy_bootstrap.yaml")
	out := mustRun(t, "delays", "-lib", "envoy", "-pick", "orders", file)
	imported := mustRun(t, "config", "import", "-lib", "envoy", "-pick", "orders", file)
	flags, _, _ := strings.Cut(strings.TrimPrefix(imported, "flags: "), "\n")
	if want := "lane a: " + flags + "\n"; !strings.HasPrefix(out, want) {
		t.Errorf("delays -pick orders begins %q, want %q", strings.SplitN(out, "\n", 2)[0], want)
	}
	// A file that cannot be read is the command's own failure, named as
	// its.
	if _, _, err := runArgs(t, "delays", "-lib", "envoy", "nope.yaml"); err == nil || !strings.HasPrefix(err.Error(), "delays: open nope.yaml") || ExitCode(err) != exitFailure {
		t.Errorf("delays of a missing file: %v, want \"delays: open nope.yaml…\", exit %d", err, exitFailure)
	}
}
