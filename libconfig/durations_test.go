package libconfig

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

// TestHugeDurations: a duration written in its library's syntax but
// longer than the longest a lane holds (time.Duration's 292 years) is out
// of range, with the bound named in the syntax and unit the value was
// written in, not malformed; one the library's own range already refuses
// is named by that range alone. The longest duration there is, and a
// duration that time.Duration holds to the nanosecond, are read.
func TestHugeDurations(t *testing.T) {
	grpc := func(backoff string) string {
		return `{"methodConfig":[{"name":[{}],"retryPolicy":{"maxAttempts":2,"initialBackoff":"` + backoff +
			`","maxBackoff":"1s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}]}`
	}
	r4j := func(wait string) string {
		return "resilience4j:\n  retry:\n    instances:\n      a:\n        waitDuration: " + wait + "\n"
	}
	tests := []struct {
		name, lib, text string
		path            string
		allowed         string // in FieldError.Allowed
	}{
		{"proto past int64 ns", "grpc", grpc("9223372037s"), "methodConfig[0].retryPolicy.initialBackoff", "at most 9223372036.854775807s"},
		{"protobuf's maximum", "grpc", grpc("315576000000s"), "methodConfig[0].retryPolicy.initialBackoff", "at most 9223372036.854775807s"},
		{"proto past int64 seconds", "envoy", "retry_policy:\n  per_try_timeout: 99999999999999999999s\n", "retry_policy.per_try_timeout", "at most 9223372036.854775807s"},
		{"spring ms past int64", "resilience4j", r4j("9999999999999999999ms"), "resilience4j.retry.instances.a.waitDuration", "at most 9223372036854ms"},
		{"spring days", "resilience4j", r4j("106752d"), "resilience4j.retry.instances.a.waitDuration", "at most 106751d"},
		{"spring bare number", "resilience4j", r4j("9223372036855"), "resilience4j.retry.instances.a.waitDuration", "at most 9223372036854ms"},
		{"spring ISO hours", "resilience4j", r4j("PT2562048H"), "resilience4j.retry.instances.a.waitDuration", "at most PT2562047H47M16.854775807S"},
		{"spring ISO past int64", "resilience4j", r4j("PT99999999999999999999S"), "resilience4j.retry.instances.a.waitDuration", "at most PT2562047H47M16.854775807S"},
		{"go duration", "istio", "http:\n- timeout: 2562048h\n", "http[0].timeout", "at most 2562047h47m16.854775807s"},
		{"linkerd", "linkerd", "retry.linkerd.io/timeout: 9999999999999s\n", `["retry.linkerd.io/timeout"]`, "at most 9223372036s"},
		{"timespan days past int64", "polly", `{"Delay": "99999999999999999999.00:00:00"}`, "Delay", "from 00:00:00 to 1.00:00:00"},
		{"timespan bare days", "polly", `{"Delay": "106752"}`, "Delay", "from 00:00:00 to 1.00:00:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lib, _ := Lookup(tt.lib)
			_, _, err := lib.Parse([]byte(tt.text))
			var fe *FieldError
			if !errors.As(err, &fe) || !errors.Is(fe, ErrOutOfRange) || fe.Path != tt.path || !strings.Contains(fe.Allowed, tt.allowed) {
				t.Fatalf("Parse = %v; want %s out of range, allowed holding %q", err, tt.path, tt.allowed)
			}
			if strings.Count(fe.Allowed, "at most") > 1 {
				t.Errorf("allowed %q names two upper bounds", fe.Allowed)
			}
		})
	}
	for _, tt := range []struct {
		format string
		parse  func(string) (time.Duration, error)
		in     string
	}{
		{"proto", parseProtoDuration, "9223372036.854775807s"},
		{"spring", parseSpringDuration, "9223372036854775807ns"},
		{"spring", parseSpringDuration, "PT2562047H47M16.854775807S"},
		{"go", parseGoDuration, "2562047h47m16.854775807s"},
	} {
		if d, err := tt.parse(tt.in); err != nil || d != math.MaxInt64 {
			t.Errorf("%s %q = %v, %v; want the longest duration", tt.format, tt.in, d, err)
		}
	}
}
