package kit

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/backofflab/backofflab/scenario"
)

// ParseQuery reads a URL's raw query into values, the one place every view
// (the playground and its socket, the map, the bands, the contention study,
// their streams and exports) turns a query into names and values. Unlike
// url.ParseQuery, which drops a pair with a semicolon or a bad escape and
// keeps the last of a repeated name, it refuses each: a pair it cannot read
// is an error naming it, and a name given more than once is an error naming
// it with every value given, and is left out of the values, so that a page
// that reads what it can (the playground's lenient decode) keeps its default.
func ParseQuery(raw string) (url.Values, []*scenario.ParamError) {
	q := url.Values{}
	var errs []*scenario.ParamError
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		name, nerr := url.QueryUnescape(rawName)
		value, verr := url.QueryUnescape(rawValue)
		// The error names the pair's name when it reads, else the query.
		at := name
		if nerr != nil || name == "" || strings.Contains(rawName, ";") {
			at = QueryParam
		}
		switch {
		case strings.Contains(pair, ";"):
			errs = append(errs, &scenario.ParamError{Name: at, Value: pair,
				Allow: "name=value pairs joined by &; a semicolon joins nothing (in a value, write it %3B)"})
		case nerr != nil || verr != nil:
			errs = append(errs, &scenario.ParamError{Name: at, Value: pair,
				Allow: "name=value pairs whose escapes are % and two hex digits (%25 for % itself)"})
		case name == "":
			// No parameter has an empty name: an error naming it would
			// name nothing.
			errs = append(errs, &scenario.ParamError{Name: at, Value: pair,
				Allow: "name=value pairs, each with a name"})
		default:
			q[name] = append(q[name], value)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(q)) {
		if vs := q[name]; len(vs) > 1 {
			errs = append(errs, &scenario.ParamError{Name: name, Value: strings.Join(vs, ","), Allow: "give it once"})
			delete(q, name)
		}
	}
	return q, errs
}

// WithQueryErrors returns qerrs, the errors of reading a query, then those
// of errs, the errors of decoding what it read, that name no parameter
// qerrs names: a value that reading left out is not missing as well.
func WithQueryErrors(qerrs, errs []*scenario.ParamError) []*scenario.ParamError {
	out := slices.Clone(qerrs)
	for _, e := range errs {
		if !slices.ContainsFunc(qerrs, func(q *scenario.ParamError) bool { return q.Name == e.Name }) {
			out = append(out, e)
		}
	}
	return out
}

// QueryParam names a query's error that no parameter's name can: a pair
// whose name does not read.
const QueryParam = "query"

// ErrorText joins errors for a plain-text response.
func ErrorText(errs []*scenario.ParamError) string {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// CloneValues returns a copy of q that shares no slice with it, for a
// view to change without changing its caller's.
func CloneValues(q url.Values) url.Values {
	out := make(url.Values, len(q))
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

// Choice is one option of a menu of a view's form.
type Choice struct {
	Value, Label, Help string
}
