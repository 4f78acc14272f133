package libconfig

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// AWSConfig is the retry part of an AWS shared config file (~/.aws/config;
// the AWS SDKs and Tools Reference Guide, "Retry behavior": retry_mode and
// max_attempts; aws-sdk-go-v2 v1.48.0's config package reads them).
type AWSConfig struct {
	// Profiles are the sections that set a retry setting, in file order.
	Profiles []AWSProfile
}

// AWSProfile is one section's retry settings.
type AWSProfile struct {
	// Name is the section's name: "default" for [default], "foo" for
	// [profile foo].
	Name string
	// RetryMode is retry_mode: standard, adaptive or legacy (read in any
	// case, kept in lower case); "" when unset (the SDK's default:
	// standard in the current SDKs).
	RetryMode string
	// MaxAttempts is max_attempts, the first attempt included: 1 or more;
	// 0 when unset (the mode's default, 3 in standard and adaptive).
	MaxAttempts int
}

// AWSDefaultMaxAttempts is max_attempts in standard and adaptive mode when
// unset.
const AWSDefaultMaxAttempts = 3

var awsModes = []string{"standard", "adaptive", "legacy"}

// ParseAWS reads an AWS shared config file: INI sections [default] and
// [profile name], keys "name = value", comments after # or ;. Every key
// other than retry_mode and max_attempts is a warning (named, never with
// its value, which may be a secret); a section that sets neither is left
// out.
func ParseAWS(data []byte) (AWSConfig, []Warning, error) {
	var c AWSConfig
	if len(data) > MaxInput {
		return c, nil, inputTooLarge()
	}
	r := &reader{}
	var cur *AWSProfile
	section := ""
	seen := map[string]int{}     // how often each key was given, to report a repeat once
	sections := map[string]int{} // the same of each section
	flush := func() {
		if cur != nil && (cur.RetryMode != "" || cur.MaxAttempts != 0) {
			c.Profiles = append(c.Profiles, *cur)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), MaxInput)
	lastKey := ""
	for line := 1; sc.Scan(); line++ {
		raw := sc.Text()
		text := strings.TrimSpace(raw)
		if text == "" || text[0] == '#' || text[0] == ';' {
			continue
		}
		if text[0] == '[' {
			if !strings.HasSuffix(text, "]") {
				r.add(&FieldError{Path: text, Line: line, Kind: ErrSyntax, Allowed: "a section header [name]"})
				continue
			}
			flush()
			name := strings.TrimSpace(text[1 : len(text)-1])
			section = name
			if n, ok := strings.CutPrefix(name, "profile "); ok {
				name = strings.TrimSpace(n)
			}
			if sections[section]++; sections[section] == 2 {
				r.add(&FieldError{Path: "[" + section + "]", Line: line, Kind: ErrDuplicate, Allowed: "each section once"})
			}
			cur, lastKey = nil, ""
			if name == "default" || strings.HasPrefix(section, "profile ") {
				cur = &AWSProfile{Name: name}
			}
			continue
		}
		if raw[0] == ' ' || raw[0] == '\t' {
			// A nested sub-setting of the key above (s3 =\n  max_concurrent_requests = 10).
			if lastKey == "" {
				r.add(&FieldError{Path: text, Line: line, Kind: ErrSyntax, Allowed: "an indented line continues a key's sub-settings"})
			}
			continue
		}
		key, value, ok := strings.Cut(text, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if !ok || key == "" {
			r.add(&FieldError{Path: text, Line: line, Kind: ErrSyntax, Allowed: "a line \"key = value\""})
			continue
		}
		if i := strings.IndexAny(value, "#;"); i > 0 && (value[i-1] == ' ' || value[i-1] == '\t') {
			value = strings.TrimSpace(value[:i]) // an inline comment
		}
		lastKey = key
		path := "[" + section + "]." + key
		if section == "" {
			r.add(&FieldError{Path: key, Line: line, Kind: ErrSyntax, Allowed: "a key inside a section such as [default]"})
			continue
		}
		if cur == nil {
			if key == "retry_mode" || key == "max_attempts" {
				r.warn(path, "not read: retry settings count only in [default] and [profile …] sections")
			}
			continue
		}
		if seen[path]++; seen[path] > 1 {
			if seen[path] == 2 {
				r.add(&FieldError{Path: path, Line: line, Kind: ErrDuplicate, Allowed: "each key once in a section"})
			}
			continue
		}
		switch key {
		case "retry_mode":
			m := strings.ToLower(value)
			if !slicesContains(awsModes, m) {
				r.add(&FieldError{Path: path, Line: line, Value: value, Kind: ErrOutOfRange, Allowed: "standard, adaptive or legacy"})
				continue
			}
			cur.RetryMode = m
		case "max_attempts":
			n, err := strconv.ParseInt(value, 10, 64)
			switch {
			case err != nil && !isDigits(value):
				r.add(&FieldError{Path: path, Line: line, Value: value, Kind: ErrType, Allowed: "a whole number of attempts, 1 or more"})
			case err != nil || n < 1 || n > math.MaxInt32:
				r.add(&FieldError{Path: path, Line: line, Value: value, Kind: ErrOutOfRange, Allowed: "a whole number of attempts, 1 or more"})
			default:
				cur.MaxAttempts = int(n)
			}
		default:
			r.warn(path, "not read: not a retry setting")
		}
	}
	if err := sc.Err(); err != nil {
		return c, r.warns, &FieldError{Kind: ErrSyntax, Allowed: err.Error()}
	}
	flush()
	return c, r.warns, r.err()
}

// isDigits reports whether s is a run of digits, with an optional sign.
func isDigits(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Marshal writes c as a shared config file, one section per profile.
func (c AWSConfig) Marshal() ([]byte, error) {
	var b bytes.Buffer
	for i, p := range c.Profiles {
		if i > 0 {
			b.WriteByte('\n')
		}
		if p.Name == "default" {
			b.WriteString("[default]\n")
		} else {
			fmt.Fprintf(&b, "[profile %s]\n", p.Name)
		}
		if p.RetryMode != "" {
			fmt.Fprintf(&b, "retry_mode = %s\n", p.RetryMode)
		}
		if p.MaxAttempts != 0 {
			fmt.Fprintf(&b, "max_attempts = %d\n", p.MaxAttempts)
		}
	}
	return b.Bytes(), nil
}
