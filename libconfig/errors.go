package libconfig

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The kinds of problem a FieldError reports; errors.Is(err, ErrUnknownField)
// and the like tell them apart.
var (
	// ErrSyntax is text that is not the syntax the library reads (JSON,
	// YAML, INI) at all.
	ErrSyntax = errors.New("syntax error")
	// ErrUnknownField is a field the library does not have: a typo, or a
	// field of another library or version.
	ErrUnknownField = errors.New("unknown field")
	// ErrDuplicate is a field given twice in one object.
	ErrDuplicate = errors.New("given twice")
	// ErrType is a value of the wrong type or format (a string where the
	// library reads a number, a duration without its unit).
	ErrType = errors.New("malformed value")
	// ErrOutOfRange is a value of the right type outside the range the
	// library accepts.
	ErrOutOfRange = errors.New("out of range")
	// ErrMissing is a field the library requires that is absent.
	ErrMissing = errors.New("required field missing")
	// ErrUnsupported is a setting the library has but backofflab cannot
	// represent, where dropping it would change what the configuration
	// does (gRPC's hedging policy, resilience4j's custom interval
	// function).
	ErrUnsupported = errors.New("cannot be represented")
	// ErrAmbiguous is a file that holds several retry configurations
	// where one lane takes one.
	ErrAmbiguous = errors.New("ambiguous")
	// ErrTooLarge is a document beyond a bound that keeps reading it
	// cheap: more than MaxInput bytes, more than MaxNodes nodes with its
	// aliases followed, or nested more than MaxDepth deep.
	ErrTooLarge = errors.New("too large")
	// ErrRecursive is a YAML alias inside the node it refers to
	// ("a: &r {b: *r}"): followed, it never ends.
	ErrRecursive = errors.New("recursive alias")
)

// FieldError is a problem with one field of a configuration: its path in
// the document, in the library's own field names (methodConfig[0].retryPolicy.maxAttempts),
// the value as written, what is wrong (Kind, one of the Err variables) and
// what the library allows.
type FieldError struct {
	Path    string // the field's path; empty for the whole document
	Line    int    // 1-based line of the value, 0 when unknown
	Value   string // the value as written, empty for an unknown or missing field
	Kind    error  // ErrUnknownField, ErrOutOfRange, …
	Allowed string // what the library accepts, in words; may be empty
}

// Error says the path first, then what is wrong, the value, what the
// library allows and the line: "retryThrottling.maxTokens: out of range
// "1001" (an integer in (0, 1000]) at line 3".
func (e *FieldError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(quotePath(e.Path))
		b.WriteString(": ")
	}
	b.WriteString(e.Kind.Error())
	if e.Value != "" {
		fmt.Fprintf(&b, " %q", e.Value)
	}
	if e.Allowed != "" {
		b.WriteString(" (")
		b.WriteString(escape(e.Allowed))
		b.WriteString(")")
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, " at line %d", e.Line)
	}
	return b.String()
}

// Unwrap returns the error's Kind, so that errors.Is(err, ErrOutOfRange)
// works on a FieldError.
func (e *FieldError) Unwrap() error { return e.Kind }

// Warning is a setting that a configuration holds and the typed model does
// not: a field that does not bear on retries (a load-balancing policy, a
// header matcher), read and left out, or a value the library itself
// changes (gRPC's maxAttempts above 5). A warning is never silent: the
// command prints every one.
type Warning struct {
	Path    string // the field's path, in the library's own names
	Message string // what happened to it, in words
}

// String is the warning as the command prints it: "path: message".
func (w Warning) String() string {
	if w.Path == "" {
		return escape(w.Message)
	}
	return quotePath(w.Path) + ": " + escape(w.Message)
}

// The texts an error or a warning echoes come from the file: a field's or
// a section's name in its path, a value in its message. Written as they
// are, a control byte among them (an ESC starting a terminal escape, a
// bidirectional override) would reach the user's terminal or page. So a
// path that holds one is quoted whole, strconv.Quote's way, and the rest
// of the text has each such rune escaped in place; printable text,
// Unicode's included, is written as it is.

// quotePath is path as an error or warning shows it: as it is when every
// rune is printable, else quoted.
func quotePath(path string) string {
	if printable(path) {
		return path
	}
	return strconv.Quote(path)
}

// escape is s with each rune that is not printable, and each byte that is
// not UTF-8, written as Go writes it in a quoted string (\x1b, \u202e).
func escape(s string) string {
	if printable(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				fmt.Fprintf(&b, "\\x%02x", s[i])
				continue
			}
		}
		if unicode.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// printable reports whether s is valid UTF-8 made of printable runes.
func printable(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}
