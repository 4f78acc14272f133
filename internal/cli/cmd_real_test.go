package cli

import (
	"cmp"
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/scenario"
)

var realListening = regexp.MustCompile(`listening on http://(127\.0\.0\.1:\d+)`)

// startRealServer runs "backofflab server" with args on an ephemeral port
// until the test ends, and returns its address and its stdout.
func startRealServer(t *testing.T, args ...string) (string, *testwait.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr testwait.Buffer
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, append([]string{"server", "-addr", "127.0.0.1:0"}, args...), &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("server: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("server still running 10 s after its context ended")
		}
	})
	var addr string
	if !testwait.Within(testwait.Bound, func() bool {
		m := realListening.FindStringSubmatch(stderr.String())
		if m != nil {
			addr = m[1]
		}
		return m != nil
	}) {
		t.Fatalf("server never said where it listens: %q", stderr.String())
	}
	return addr, &stdout
}

// TestRealServerCommand: "backofflab server -server_model curve" is 001's
// server, by 001's flags and report lines.
func TestRealServerCommand(t *testing.T) {
	addr, stdout := startRealServer(t, "-report", "100ms", "-server_model", "curve", "-limit", "5", "-baseDelay", "20ms")
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	resp, err := hc.Get("http://" + addr + "/api")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "OK" {
		t.Fatalf("GET /api: %s %q", resp.Status, body)
	}
	resp, err = hc.Get("http://" + addr + "/control/stats")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, key := range []string{`"concurrency":`, `"last_delay_seconds":0.02`, `"paused":false`, `"completed":1`, `"abandoned":0`} {
		if !strings.Contains(string(body), key) {
			t.Errorf("stats %s lack %s", body, key)
		}
	}
	line := regexp.MustCompile(`^\w{3} [ \d]\d \d\d:\d\d:\d\d\.\d{3}: concurrency: +\d+, last delay: \S+$`)
	if !testwait.Within(testwait.Bound, func() bool { return strings.Count(stdout.String(), "\n") >= 3 }) {
		t.Fatalf("report: %q", stdout.String())
	}
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if !line.MatchString(l) {
			t.Errorf("report line %q does not match %v", l, line)
		}
	}
}

// TestRealServerQueueCommand: "backofflab server -server_model queue" serves
// by the worker queue: one worker serving in exactly 50 ms answers a
// second request 50 ms after the first, and its last delay is what a new
// request would take.
func TestRealServerQueueCommand(t *testing.T) {
	addr, stdout := startRealServer(t, "-report", "100ms", "-server_model", "queue", "-workers", "1",
		"-service_time", "50ms", "-service_dist", "fixed")
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	start := time.Now()
	var wg sync.WaitGroup
	took := make([]time.Duration, 2)
	for i := range took {
		wg.Go(func() {
			resp, err := hc.Get("http://" + addr + "/api")
			if err != nil {
				t.Error(err)
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != "OK" {
				t.Errorf("GET /api: %s %q", resp.Status, body)
			}
			took[i] = time.Since(start)
		})
	}
	wg.Wait()
	// Both requests left after start, and the one worker serves them one
	// after the other, 50 ms each: by the server's clock the first answer
	// comes 50 ms after start at the earliest and the second 100 ms. The
	// client's own delays only add to both, so the gap between the two as
	// the client sees them proves nothing on a busy machine; these bounds do.
	if first, last := min(took[0], took[1]), max(took[0], took[1]); first < 45*time.Millisecond || last < 95*time.Millisecond {
		t.Errorf("answers after %v and %v: want 50 ms at the earliest, then 100 ms from the one worker", first, last)
	}
	resp, err := hc.Get("http://" + addr + "/control/stats")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, key := range []string{`"concurrency":0`, `"last_delay_seconds":0.05`, `"completed":2`} {
		if !strings.Contains(string(body), key) {
			t.Errorf("stats %s lack %s", body, key)
		}
	}
	if !testwait.Within(testwait.Bound, func() bool { return strings.Contains(stdout.String(), "last delay: 50ms") }) {
		t.Errorf("report: %q", stdout.String())
	}
}

// TestRealClientCommand: the client prints 001's line every -report and
// stops after -duration.
func TestRealClientCommand(t *testing.T) {
	addr, _ := startRealServer(t)
	var stdout, stderr testwait.Buffer
	start := time.Now()
	err := Run(context.Background(), []string{"client", "-addr", addr, "-clients", "20", "-lambda", "0.2",
		"-report", "1s", "-duration", "3s"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("client: %v\n%s", err, stderr.String())
	}
	// That it stopped after its 3 s, by its own clock, is its lines: one
	// a second, and the last at the end; a busy machine may delay the
	// return, but cannot make it come sooner.
	if d := time.Since(start); d < 3*time.Second {
		t.Errorf("client ran %v, want its 3 s", d)
	}
	line := regexp.MustCompile(`^OK: \d+\.\d\d req/sec, errors: \d+\.\d\d req/sec, timedout: \d+\.\d\d req/sec$`)
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) < 2 || len(lines) > 4 {
		t.Errorf("%d lines, want about 3: %q", len(lines), stdout.String())
	}
	for _, l := range lines {
		if !line.MatchString(l) {
			t.Errorf("line %q does not match %v", l, line)
		}
	}
	if strings.HasPrefix(lines[len(lines)-1], "OK: 0.00") {
		t.Errorf("no request succeeded in the last window: %q", stdout.String())
	}
	if !strings.Contains(stderr.String(), "20 clients") || !strings.Contains(stderr.String(), "strategy fixed (min_delay=100ms)") {
		t.Errorf("stderr %q does not describe the run", stderr.String())
	}
}

// TestRealBadFlags: bad input is a usageError (exit status 2) naming the
// flag, the value and what it allows.
func TestRealBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"server", "-limit", "0"}, []string{"limit", `"0"`, "from 1 to 1000000"}},
		{[]string{"server", "-server_limit", "x"}, []string{"server_limit", `"x"`, "whole number"}},
		{[]string{"server", "-factor", "11"}, []string{"factor", `"11"`, "from 1 to 10"}},
		{[]string{"server", "-baseDelay", "2m"}, []string{"baseDelay", `"2m"`, "from 1ms to 1m0s"}},
		{[]string{"server", "-server_k", "0"}, []string{"server_k", `"0"`, "from 0.1"}},
		{[]string{"server", "-max_server_delay", "48h"}, []string{"max_server_delay", `"48h"`, "to 24h0m0s"}},
		{[]string{"server", "-cancel-on-timeout=maybe"}, []string{"cancel-on-timeout", "maybe"}},
		{[]string{"server", "-limit", "5", "-server_limit", "6"}, []string{"-limit", "-server_limit", "same parameter"}},
		{[]string{"server", "-addr", "nowhere"}, []string{"addr", `"nowhere"`, "host:port"}},
		{[]string{"server", "extra"}, []string{`"extra"`}},
		// Another model's parameter; -addr nowhere keeps a server that took
		// it from listening.
		{[]string{"server", "-addr", "nowhere", "-limit", "30"}, []string{"-limit 30", "server_limit", "server_model curve", "not of queue (the default)", "give -server_model curve"}},
		{[]string{"server", "-addr", "nowhere", "-server_model", "linear", "-workers", "3"}, []string{"-workers 3", "server_model queue", "not of linear;"}},
		{[]string{"server", "-addr", "nowhere", "-server_model", "queue", "-server_delay", "1s"}, []string{"-server_delay 1s", "server_model curve or linear", "not of queue;"}},
		{[]string{"client", "-clients", "0"}, []string{"clients", `"0"`, "from 1 to 1000000"}},
		{[]string{"client", "-lambda", "-1"}, []string{"lambda", `"-1"`, "from 1ms to 1h0m0s", "seconds"}},
		{[]string{"client", "-lambda", "soon"}, []string{"lambda", `"soon"`}},
		{[]string{"client", "-timeout", "0s"}, []string{"timeout", `"0s"`, "from 1ms"}},
		{[]string{"client", "-strategy", "bogus"}, []string{"strategy", `"bogus"`, "one of none, fixed"}},
		{[]string{"client", "-strategy", "fixed", "-exponential-backoff"}, []string{"-strategy", "-exponential-backoff", "conflict"}},
		{[]string{"client", "-exponential-backoff", "-simple-backoff-delay", "1s"}, []string{"-simple-backoff-delay", "think_scaled"}},
		{[]string{"client", "-simple-backoff-delay", "0s"}, []string{"simple-backoff-delay", `"0s"`, "from 1ms"}},
		{[]string{"client", "-jitter", "2"}, []string{"jitter", `"2"`, "from 0 to 1"}},
		{[]string{"client", "-strategy", "exponential", "-min_delay", "2m", "-max_delay", "1m"}, []string{"max_delay", "at least min_delay"}},
		{[]string{"client", "-duration", "500ms"}, []string{"duration", `"500ms"`, "0 (until interrupted)", "from 1s"}},
		{[]string{"client", "-addr", "nowhere"}, []string{"addr", `"nowhere"`, "host:port"}},
		{[]string{"client", "-addr", "http://[::1"}, []string{"addr", `"http://[::1"`, "host:port", "http:// or https:// URL"}},
		{[]string{"client", "-addr", "ftp://127.0.0.1:8070"}, []string{"addr", `"ftp://127.0.0.1:8070"`, "http:// or https:// URL"}},
		{[]string{"client", "-addr", "localhost:99999"}, []string{"addr", `"localhost:99999"`, "host:port"}},
		{[]string{"client", "-seed", "-1"}, []string{"seed", `"-1"`, "a whole number from 0 to 18446744073709551615"}},
		{[]string{"client", "-seed", "18446744073709551616"}, []string{"seed", `"18446744073709551616"`, "from 0 to 18446744073709551615"}},
		{[]string{"client", "-lambda", "1", "-think", "2"}, []string{"-lambda", "-think", "same parameter"}},
	} {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			var stdout, stderr testwait.Buffer
			err := Run(context.Background(), tc.args, &stdout, &stderr)
			var ue usageError
			if !errors.As(err, &ue) {
				t.Fatalf("err = %v (%T), want a usageError", err, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if stdout.String() != "" {
				t.Errorf("stdout = %q", stdout.String())
			}
		})
	}
}

// TestRealServerDefaultModel: the server command starts the model that run
// and the playground start, the worker queue, and its help says so; its
// flags are accepted without -server_model.
func TestRealServerDefaultModel(t *testing.T) {
	defaultOf := func(cmd string) string {
		t.Helper()
		var stdout, stderr strings.Builder
		if err := Run(context.Background(), []string{cmd, "-h"}, &stdout, &stderr); err != nil {
			t.Fatalf("%s -h: %v", cmd, err)
		}
		m := regexp.MustCompile(`(?m)^  -server_model value\n.*default (\w+)\)`).FindStringSubmatch(stdout.String() + stderr.String())
		if m == nil {
			t.Fatalf("%s -h shows no default for -server_model", cmd)
		}
		return m[1]
	}
	if s, r := defaultOf("server"), defaultOf("run"); s != scenario.QueueModel || r != scenario.QueueModel {
		t.Errorf("default server_model: server %s, run %s; want both %s", s, r, scenario.QueueModel)
	}
	addr, _ := startRealServer(t, "-workers", "1", "-service_time", "50ms", "-service_dist", "fixed")
	// An idle worker queue's new request would take its one service time.
	if body := realStats(t, addr); !strings.Contains(body, `"last_delay_seconds":0.05`) {
		t.Errorf("stats %s: want the idle queue's last delay, one 50 ms service", body)
	}
}

// realStats returns the body of the server's GET /control/stats.
func realStats(t *testing.T, addr string) string {
	t.Helper()
	tr := &http.Transport{Proxy: nil}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 5 * time.Second}).Get("http://" + addr + "/control/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// TestRealHelp: -h lists 001's flags and the vocabulary's.
func TestRealHelp(t *testing.T) {
	for cmd, flags := range map[string][]string{
		"server": {"-addr", "-limit", "-factor", "-baseDelay", "-server_limit", "-server_factor", "-server_delay",
			"-server_k", "-max_server_delay", "-backlog", "-cancel-on-timeout", "-report",
			"-server_model", "-server_slope", "-workers", "-service_time", "-service_dist", "-queue_order"},
		"client": {"-addr", "-clients", "-lambda", "-timeout", "-exponential-backoff", "-simple-backoff-delay",
			"-strategy", "-min_delay", "-max_delay", "-factor", "-jitter", "-max_attempts", "-deadline",
			"-min_connect_timeout", "-duration", "-seed", "-report"},
	} {
		var stdout, stderr testwait.Buffer
		if err := Run(context.Background(), []string{cmd, "-h"}, &stdout, &stderr); err != nil {
			t.Fatalf("%s -h: %v", cmd, err)
		}
		for _, f := range flags {
			if !strings.Contains(stderr.String(), "  "+f+" ") && !strings.Contains(stderr.String(), "  "+f+"\n") {
				t.Errorf("%s -h lacks %s", cmd, f)
			}
		}
	}
}

// realCommands are the commands that read each scope's rows of the table.
var realCommands = map[scenario.Scope]string{
	scenario.ScopeServer:   "server",
	scenario.ScopeClients:  "client",
	scenario.ScopeStrategy: "client",
	scenario.ScopeLimiter:  "client",
}

// realBadValue returns a value that row r refuses.
func realBadValue(r scenario.Param) string {
	switch r.Type {
	case scenario.TypeInt:
		return strconv.FormatInt(int64(r.Max)+1, 10)
	case scenario.TypeFloat:
		return strconv.FormatFloat(r.Max*2+1, 'g', -1, 64)
	case scenario.TypeDuration:
		return (time.Duration(r.Max) + time.Second).String()
	case scenario.TypeBool:
		return "maybe"
	case scenario.TypeSeed:
		return "-1"
	}
	return "bogus"
}

// realRunBounded runs command cmd with args on an ephemeral port (the
// server) or a dead one (the client), and stops it as soon as it says what
// it runs; it returns its stderr and error.
func realRunBounded(cmd string, args ...string) (string, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr testwait.Buffer
	base, started := []string{cmd, "-addr", "127.0.0.1:0"}, "listening on"
	if cmd == "client" {
		base, started = []string{cmd, "-addr", "127.0.0.1:1", "-clients", "1", "-duration", "5s"}, " → "
	}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, append(base, args...), &stdout, &stderr) }()
	for {
		select {
		case err := <-done:
			return stderr.String(), err
		case <-time.After(10 * time.Millisecond):
			if strings.Contains(stderr.String(), started) {
				cancel()
			}
		}
	}
}

// TestRealFlagsFromTable: each row of the table that the server reads is a
// flag of the server, and each that the clients read one of the client,
// under its name and its 001 alias, which refuse a bad value naming the
// flag, the value and the range. A new row needs no edit to the commands.
func TestRealFlagsFromTable(t *testing.T) {
	help := map[string]string{}
	for _, cmd := range []string{"server", "client"} {
		var stdout, stderr testwait.Buffer
		if err := Run(context.Background(), []string{cmd, "-h"}, &stdout, &stderr); err != nil {
			t.Fatalf("%s -h: %v", cmd, err)
		}
		help[cmd] = stderr.String()
	}
	seed, _, _ := scenario.Lookup("seed")
	rows := []scenario.Param{seed} // the clients draw from it
	for _, r := range scenario.Table {
		if _, ok := realCommands[r.Scope]; ok && !r.SimOnly {
			rows = append(rows, r)
		}
	}
	for _, r := range rows {
		cmd := cmp.Or(realCommands[r.Scope], "client")
		names := []string{r.Name}
		for alias, param := range flagAliases {
			if param == r.Name {
				names = append(names, alias)
			}
		}
		for _, name := range names {
			t.Run(cmd+"_"+name, func(t *testing.T) {
				if h := help[cmd]; !strings.Contains(h, "  -"+name+" ") && !strings.Contains(h, "  -"+name+"\n") {
					t.Errorf("%s -h lacks -%s", cmd, name)
				}
				bad := realBadValue(r)
				_, err := realRunBounded(cmd, "-"+name+"="+bad)
				if !errors.As(err, new(usageError)) {
					t.Fatalf("-%s=%s: err = %v, want a usageError", name, bad, err)
				}
				for _, w := range []string{name + ":", strconv.Quote(bad), r.Allowed()} {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				if name != r.Name { // an alias and its name together
					_, err := realRunBounded(cmd, "-"+r.Name+"="+bad, "-"+name+"="+bad)
					if err == nil || !strings.Contains(err.Error(), "-"+r.Name) || !strings.Contains(err.Error(), "-"+name) ||
						!strings.Contains(err.Error(), "same parameter") {
						t.Errorf("-%s and -%s together: %v", r.Name, name, err)
					}
				}
			})
		}
		// The other command has no such flag, unless it is one of its aliases.
		other := map[string]string{"server": "client", "client": "server"}[cmd]
		if _, alias := flagAliases[r.Name]; !alias {
			if _, err := realRunBounded(other, "-"+r.Name+"=1"); err == nil || !strings.Contains(err.Error(), "not defined") {
				t.Errorf("%s -%s: %v, want no such flag", other, r.Name, err)
			}
		}
	}
}

// TestRealClientSaysWhatItRuns: the client names the parameters its
// strategy reads, the limits set, and the flags given that the strategy
// does not read.
func TestRealClientSaysWhatItRuns(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		note, line string
	}{
		{nil, "", "strategy fixed (min_delay=100ms) →"},
		{[]string{"-strategy", "none", "-max_attempts", "3", "-factor", "2"},
			"note: strategy none does not use -factor, -max_attempts", "strategy none (max_attempts=3) →"},
		{[]string{"-strategy", "grpc", "-max_attempts", "3", "-deadline", "1m"}, "",
			"strategy grpc (min_delay=1s max_delay=2m0s factor=1.6 jitter=0.2 min_connect_timeout=20s max_attempts=3 deadline=1m0s) →"},
		{[]string{"-exponential-backoff"}, "", "strategy think_scaled (max_delay=5m0s factor=2.718281828459045 jitter=0.1) →"},
		{[]string{"-simple-backoff-delay", "1s", "-jitter", "0.5"}, "note: strategy fixed does not use -jitter",
			"strategy fixed (min_delay=1s) →"},
		{[]string{"-strategy", "fixed", "-min_delay", "2m"}, "", "strategy fixed (min_delay=2m0s) →"},
		{[]string{"-lambda", "0.5"}, "", "1 clients, think 500ms, timeout 2s, strategy fixed"},
		{[]string{"-grpc_throttle", "on", "-breaker", "retries", "-breaker_probes", "3", "-sre_k", "2"}, "",
			"strategy fixed (min_delay=100ms grpc_throttle=on breaker=retries breaker_probes=3) →"},
	} {
		t.Run(strings.Join(tc.args, "_"), func(t *testing.T) {
			stderr, err := realRunBounded("client", tc.args...)
			if err != nil {
				t.Fatalf("client %v: %v", tc.args, err)
			}
			if !strings.Contains(stderr, tc.line) {
				t.Errorf("stderr %q lacks %q", stderr, tc.line)
			}
			if got := strings.Contains(stderr, "note:"); got != (tc.note != "") || !strings.Contains(stderr, tc.note) {
				t.Errorf("stderr %q: want the note %q", stderr, tc.note)
			}
		})
	}
}
