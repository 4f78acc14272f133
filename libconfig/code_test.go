package libconfig

import (
	"go/parser"
	"go/token"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCodeWriters checks the lines of code written for the libraries
// configured in code: the Go ones parse as Go, and each says what its
// model holds.
func TestCodeWriters(t *testing.T) {
	d := 30 * time.Second
	tests := []struct {
		name   string
		c      Config
		goCode bool
		want   string
	}{
		{"cenkalti", CenkaltiBackoff{InitialInterval: 500 * time.Millisecond, RandomizationFactor: 0.5, Multiplier: 1.5,
			MaxInterval: time.Minute, MaxTries: 5, MaxElapsedTime: 15 * time.Minute}, true,
			"b := backoff.NewExponentialBackOff()\nb.InitialInterval = 500 * time.Millisecond\nb.RandomizationFactor = 0.5\n" +
				"b.Multiplier = 1.5\nb.MaxInterval = time.Minute\n" +
				"result, err := backoff.Retry(ctx, operation, backoff.WithBackOff(b), backoff.WithMaxTries(5), backoff.WithMaxElapsedTime(15 * time.Minute))\n"},
		{"cenkalti without a limit", CenkaltiBackoff{InitialInterval: 1500 * time.Microsecond, Multiplier: 2, MaxInterval: 90 * time.Second}, true,
			"b := backoff.NewExponentialBackOff()\nb.InitialInterval = 1500 * time.Microsecond\nb.RandomizationFactor = 0.0\n" +
				"b.Multiplier = 2.0\nb.MaxInterval = 90 * time.Second\n" +
				"result, err := backoff.Retry(ctx, operation, backoff.WithBackOff(b), backoff.WithMaxElapsedTime(0))\n"},
		{"client-go", ClientGoBackoff{Duration: 10 * time.Millisecond, Factor: 5, Jitter: 0.1, Steps: 4}, true,
			"backoff := wait.Backoff{\n\tDuration: 10 * time.Millisecond,\n\tFactor:   5.0,\n\tJitter:   0.1,\n\tSteps:    4,\n}\n" +
				"err := retry.OnError(backoff, func(error) bool { return true }, operation)\n"},
		{"client-go with a cap", ClientGoBackoff{Duration: time.Second, Factor: 2, Steps: 6, Cap: time.Minute}, true,
			"\tCap:      time.Minute,\n"},
		{"tenacity", Tenacity{Multiplier: time.Second, ExpBase: 2, Max: 10 * time.Second, StopAfterAttempt: 5, StopAfterDelay: 30 * time.Second}, false,
			"from tenacity import retry, wait_exponential, stop_after_attempt, stop_after_delay\n\n" +
				"@retry(wait=wait_exponential(multiplier=1, exp_base=2, max=10, min=0), stop=stop_after_attempt(5) | stop_after_delay(30))\ndef call():\n    ...\n"},
		{"tenacity random", Tenacity{Random: true, Multiplier: 250 * time.Millisecond, ExpBase: 3}, false,
			"@retry(wait=wait_random_exponential(multiplier=0.25, exp_base=3, min=0))\n"},
		// Only total counts, every method and error answer is retried,
		// no jitter is drawn: what the lane does, whatever urllib3's
		// defaults.
		{"urllib3", Urllib3Retry{Total: 10, BackoffFactor: 100 * time.Millisecond, BackoffMax: 120 * time.Second}, false,
			"from urllib3.util import Retry\n\nretry = Retry(\n    total=10, connect=None, read=None, redirect=None, status=None, other=None,\n" +
				"    allowed_methods=None, status_forcelist=[500, 502, 503, 504],\n    backoff_factor=0.1, backoff_max=120, backoff_jitter=0.0,\n)\n"},
		{"polly in C#", PollyCode{PollyRetry{MaxRetryAttempts: 3, Delay: 200 * time.Millisecond, MaxDelay: &d, BackoffType: "Exponential", UseJitter: true}}, false,
			"var pipeline = new ResiliencePipelineBuilder()\n    .AddRetry(new RetryStrategyOptions\n    {\n        MaxRetryAttempts = 3,\n" +
				"        Delay = TimeSpan.FromMilliseconds(200),\n        MaxDelay = TimeSpan.FromSeconds(30),\n" +
				"        BackoffType = DelayBackoffType.Exponential,\n        UseJitter = true,\n    })\n    .Build();\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.c.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), tt.want) {
				t.Errorf("wrote\n%s\nwant it to hold\n%s", b, tt.want)
			}
			if tt.goCode {
				src := "package p\n\nfunc f() {\n" + string(b) + "}\n"
				if _, err := parser.ParseFile(token.NewFileSet(), "snippet.go", src, 0); err != nil {
					t.Errorf("not Go: %v\n%s", err, b)
				}
			}
		})
	}
}

// TestCodeExportsSayWhatTheyAssume: the code written for urllib3 and
// tenacity sets each setting whose default would make the library do
// other than the lane, and the export says each one, by name, beside it.
func TestCodeExportsSayWhatTheyAssume(t *testing.T) {
	tests := []struct {
		lib   string
		paths []string
	}{
		{"urllib3", []string{"status_forcelist", "connect, read, redirect, status, other", "allowed_methods", "backoff_jitter"}},
		{"tenacity", []string{"min"}},
	}
	for _, tt := range tests {
		t.Run(tt.lib, func(t *testing.T) {
			e, ok := LookupExporter(tt.lib)
			if !ok {
				t.Fatalf("no exporter %s", tt.lib)
			}
			gen := laneGenerators[tt.lib]
			l := gen(rand.New(rand.NewPCG(1, 2)))
			c, warns, err := e.Export(l)
			if err != nil {
				t.Fatal(err)
			}
			text, err := c.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tt.paths {
				if !slices.ContainsFunc(warns, func(w Warning) bool { return w.Path == p }) {
					t.Errorf("no warning at %s; warnings %v", p, warns)
				}
				for _, name := range strings.Split(p, ", ") {
					if !strings.Contains(string(text), name+"=") {
						t.Errorf("the code does not set %s:\n%s", name, text)
					}
				}
			}
		})
	}
}
