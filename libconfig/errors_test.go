package libconfig

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// checkPrintable fails when text holds a rune that is not printable other
// than the newlines that join several errors, or is not UTF-8: a control
// byte the file holds must reach no terminal.
func checkPrintable(t *testing.T, what, text string) {
	t.Helper()
	if !utf8.ValidString(text) {
		t.Errorf("%s %q is not UTF-8", what, text)
	}
	for _, line := range strings.Split(text, "\n") {
		for _, r := range line {
			if !unicode.IsPrint(r) {
				t.Errorf("%s %q holds %U", what, text, r)
				return
			}
		}
	}
}

// TestEchoEscaped: a control byte or a bidirectional override in a field's
// name, a section's name or a value reaches the error or warning text
// escaped (\x1b, \u202e), in every library's reader.
func TestEchoEscaped(t *testing.T) {
	tests := []struct {
		name, lib, text string
		want            string // in an error or a warning
	}{
		{"aws key", "aws", "[profile a]\n\x1b[2Jkey = 1\n", `"[profile a].\x1b[2Jkey": not read`},
		{"aws section", "aws", "[profile \x1b]0;pwned\a]\nmax_attempts = x\n", `"[profile \x1b]0;pwned\a].max_attempts": malformed value "x"`},
		{"aws value", "aws", "[default]\nretry_mode = \x1b[31mred\n", `retry_mode: out of range "\x1b[31mred"`},
		{"aws line", "aws", "[default]\n\x1b[2J\n", `"\x1b[2J": syntax error`},
		{"aws invalid UTF-8", "aws", "[default]\n\xff\xfe = 1\n", `"[default].\xff\xfe": not read`},
		{"envoy key", "envoy", "retry_policy:\n  \"\\e[2Jx\": 1\n", `"retry_policy.\x1b[2Jx": unknown field`},
		{"istio key", "istio", "http:\n- retries:\n    \"\\e]2;t\\a\": 1\n", `"http[0].retries.\x1b]2;t\a": unknown field`},
		{"linkerd bidi override", "linkerd", "\"retry.linkerd.io/\u202elimit\": \"3\"\n", `\u202elimit`},
		{"linkerd kind", "linkerd", "kind: \"\\e[2J\"\nspec: {}\n", `\x1b[2J`},
		{"resilience4j instance", "resilience4j", "resilience4j:\n  retry:\n    instances:\n      \"\\e[2J\":\n        maxAttempts: 0\n", `"resilience4j.retry.instances.\x1b[2J.maxAttempts": out of range`},
		{"grpc key", "grpc", `{"\u001b[2J": 1}`, `"\x1b[2J": unknown field`},
		{"polly key", "polly", `{"\u001b[2J": 1}`, `"\x1b[2J": unknown field`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib, _ := Lookup(tt.lib)
			_, warns, err := lib.Parse([]byte(tt.text))
			var all []string
			if err != nil {
				checkPrintable(t, "error", err.Error())
				all = append(all, err.Error())
			}
			for _, w := range warns {
				checkPrintable(t, "warning", w.String())
				all = append(all, w.String())
			}
			if text := strings.Join(all, "\n"); !strings.Contains(text, tt.want) {
				t.Errorf("errors and warnings\n%s\nwant them to hold %s", text, tt.want)
			}
		})
	}
}

// TestDuplicateReportedOnce: a key given twice, or three times, in one
// object is one error, whatever reads the object, however often.
func TestDuplicateReportedOnce(t *testing.T) {
	tests := []struct{ name, lib, text, path string }{
		{"resilience4j default config", "resilience4j", "resilience4j:\n  retry:\n    configs:\n      default:\n        maxAttempts: 3\n        maxAttempts: 4\n    instances:\n      a: {}\n      b: {}\n",
			"resilience4j.retry.configs.default.maxAttempts"},
		{"resilience4j instance, three times", "resilience4j", "resilience4j:\n  retry:\n    instances:\n      a:\n        maxAttempts: 3\n        maxAttempts: 4\n        max-attempts: 5\n",
			"resilience4j.retry.instances.a.max"},
		{"resilience4j dotted and nested", "resilience4j", "resilience4j.retry.instances.a.maxAttempts: 3\nresilience4j:\n  retry:\n    instances:\n      a:\n        maxAttempts: 4\n",
			"resilience4j.retry.instances.a.maxAttempts"},
		{"envoy", "envoy", "retry_policy:\n  num_retries: 1\n  num_retries: 2\n  num_retries: 3\n", "retry_policy.num_retries"},
		{"grpc", "grpc", `{"retryThrottling":{"maxTokens":10,"maxTokens":20,"maxTokens":30,"tokenRatio":1}}`, "retryThrottling.maxTokens"},
		{"aws", "aws", "[default]\nmax_attempts = 2\nmax_attempts = 3\nmax_attempts = 4\n", "[default].max_attempts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib, _ := Lookup(tt.lib)
			_, _, err := lib.Parse([]byte(tt.text))
			if err == nil {
				t.Fatal("no error")
			}
			if n := strings.Count(err.Error(), "given twice"); n != 1 || !strings.HasPrefix(err.Error(), tt.path) {
				t.Errorf("error\n%v\nsays \"given twice\" %d times; want once, for %s", err, n, tt.path)
			}
		})
	}
}
