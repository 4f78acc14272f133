package libconfig

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/backofflab/backofflab/strategies"
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
		key, value, ok := awsKeyValue(text)
		if !ok {
			r.add(&FieldError{Path: text, Line: line, Kind: ErrSyntax, Allowed: "a line \"key = value\""})
			continue
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
		r.awsSetting(cur, key, value, path, line)
	}
	if err := sc.Err(); err != nil {
		return c, r.warns, &FieldError{Kind: ErrSyntax, Allowed: err.Error()}
	}
	flush()
	return c, r.warns, r.err()
}

// awsKeyValue splits text, a line "key = value" with a comment after the
// value or not, into its key and value; false for a line that is not one.
func awsKeyValue(text string) (key, value string, ok bool) {
	key, value, ok = strings.Cut(text, "=")
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if !ok || key == "" {
		return "", "", false
	}
	if i := strings.IndexAny(value, "#;"); i > 0 && (value[i-1] == ' ' || value[i-1] == '\t') {
		value = strings.TrimSpace(value[:i]) // an inline comment
	}
	return key, value, true
}

// awsSetting reads key = value, at path and line, into profile cur: a
// retry setting, or a warning for any other key.
func (r *reader) awsSetting(cur *AWSProfile, key, value, path string, line int) {
	switch key {
	case "retry_mode":
		m := strings.ToLower(value)
		if !slicesContains(awsModes, m) {
			r.add(&FieldError{Path: path, Line: line, Value: value, Kind: ErrOutOfRange, Allowed: "standard, adaptive or legacy"})
			return
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

func (c AWSConfig) toLane(pick string) (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameFullJitter)
	sectionOf := func(name string) string {
		if name == "default" {
			return "[default]"
		}
		return "[profile " + name + "]"
	}
	cands := make([]candidate, len(c.Profiles))
	for i, p := range c.Profiles {
		cands[i] = candidate{names: []string{p.Name, sectionOf(p.Name)}, path: sectionOf(p.Name)}
	}
	at, err := choose(cands, pick, "profile that sets retry settings",
		&FieldError{Path: "retry_mode", Kind: ErrMissing, Allowed: "a profile that sets retry_mode or max_attempts"})
	if err != nil {
		return l, nil, nil, err
	}
	p := c.Profiles[at]
	section := sectionOf(p.Name)
	var w []Warning
	switch p.RetryMode {
	case "legacy":
		return l, nil, nil, &FieldError{Path: section + ".retry_mode", Value: p.RetryMode, Kind: ErrUnsupported,
			Allowed: "legacy is each SDK's own behaviour from before standard mode (botocore's, for one), not a row; standard or adaptive (the row aws_legacy is aws-sdk-go-v2's standard mode before v1.48.0, not this)"}
	case "adaptive":
		// Adaptive mode is standard mode's retries and quota with the
		// client rate limiter in front of every attempt. The lane takes
		// error answers for throttling errors, and so does all the SDK
		// does with one: its rate limiter backs off, its back-off starts
		// from 1 s, its quota charges 5.
		l = laneOf(strategies.NameAWSThrottled)
		l.AWSAdaptive = strategies.LimiterOn
		w = append(w, Warning{section + ".retry_mode", "adaptive: its client rate limiter is the lane's aws_adaptive, with two choices of the model: an attempt that finds no token fails at once (the SDK's FailOnNoAttemptTokens; by default the SDK waits for a token), and an error answer is a throttling error, a timeout is not"})
		w = append(w, Warning{section + ".retry_mode", "adaptive mode's back-off and quota as aws-sdk-go-v2 v1.48.0 runs them with error answers as throttling errors (the row aws_throttled: base 1s after an error answer, 50ms after a timeout, cap 20s; retry cost 5 after an error answer, 14 after a timeout)"})
	case "":
		w = append(w, Warning{section + ".retry_mode", "unset: the SDKs' default, standard"})
	}
	l.MinDelay, l.MaxDelay = awsBaseDelay, awsMaxBackoff
	l.MaxAttempts = AWSDefaultMaxAttempts
	if p.MaxAttempts != 0 {
		l.MaxAttempts = p.MaxAttempts
	}
	l.AWSQuota, l.AWSRetryCost, l.AWSTimeoutCost = strategies.LimiterOn, awsRetryCost2026, awsRetryCost2026
	if l.AWSAdaptive == strategies.LimiterOn {
		l.AWSRetryCost = awsThrottlingRetryCost
	} else {
		w = append(w, Warning{section + ".retry_mode", "standard mode's back-off and quota as aws-sdk-go-v2 v1.48.0 runs them (base 50ms, cap 20s, retry cost 14), no error answer taken for a throttling error; before v1.48.0 the back-off is the row aws_legacy"})
	}
	return l, w, map[string]string{"max_attempts": section + ".max_attempts"}, nil
}

func awsFromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	adaptive := l.AWSAdaptive == strategies.LimiterOn
	row, retryCost := strategies.NameFullJitter, awsRetryCost2026
	if adaptive {
		row, retryCost = strategies.NameAWSThrottled, awsThrottlingRetryCost
	}
	switch {
	case l.Strategy == strategies.NameAWSLegacy:
		why = append(why, "the row aws_legacy is aws-sdk-go-v2's standard mode before v1.48.0, and the shared config cannot choose an SDK's version: v1.48.0's standard mode is full_jitter with min_delay 50ms and max_delay 20s")
	case l.Strategy != row || l.MinDelay != awsBaseDelay || l.MaxDelay != awsMaxBackoff:
		why = append(why, fmt.Sprintf("the shared config sets no delays: standard mode is full_jitter, adaptive mode (aws_adaptive on) aws_throttled, with min_delay 50ms and max_delay 20s (the lane: %s, %v, %v, aws_adaptive %s)", l.Strategy, l.MinDelay, l.MaxDelay, l.AWSAdaptive))
	}
	why = append(why, noCount(l, "max_attempts")...)
	why = append(why, noDeadline(l, "the AWS SDKs' retryer")...)
	if l.AWSQuota != strategies.LimiterOn || l.AWSQuotaTokens != strategies.DefaultAWSQuotaTokens || l.AWSRetryCost != retryCost ||
		l.AWSTimeoutCost != awsRetryCost2026 || l.AWSNoRetryIncrement != strategies.DefaultAWSNoRetryIncrement {
		why = append(why, fmt.Sprintf("the SDKs' retry quota is always on, with 500 tokens and a retry cost of 14, 5 after a throttling error, which adaptive mode's lane takes every error answer for (aws-sdk-go-v2 v1.48.0): the lane's aws_quota should be on with aws_retry_cost %d and aws_timeout_cost 14", retryCost))
	}
	why = append(why, noLimiters(l, "the AWS shared config", "aws_quota", "aws_adaptive")...)
	mode := "standard"
	if l.AWSAdaptive == strategies.LimiterOn {
		mode = "adaptive"
	}
	return AWSConfig{Profiles: []AWSProfile{{Name: "default", RetryMode: mode, MaxAttempts: l.MaxAttempts}}}, nil, cannot("aws", why)
}
