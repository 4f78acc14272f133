package libconfig

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/backofflab/backofflab/strategies"
)

// AmbiguousError is a configuration that holds several retry policies
// (methodConfigs, routes, profiles, instances, sections, documents) where
// a lane takes one, or a pick that names none of them. Candidates are the
// names a pick takes, one per policy, in the file's order; Field says
// where they are and lists them, and is what errors.As finds as a
// *FieldError (its Kind is ErrAmbiguous).
type AmbiguousError struct {
	Field      *FieldError
	Candidates []string
}

// Error is Field's message.
func (e *AmbiguousError) Error() string { return e.Field.Error() }

// Unwrap returns Field, so that errors.As finds the *FieldError and
// errors.Is(err, ErrAmbiguous) holds.
func (e *AmbiguousError) Unwrap() error { return e.Field }

// candidate is one retry policy of a configuration: the names that pick
// it (the first is the one listed) and its path in the file.
type candidate struct {
	names []string
	path  string
}

// choose returns the index of the candidate that pick names, or of the
// only one when pick is empty; missing, the library's words for what is
// missing, when there is none. what is a candidate's kind in the
// library's words ("methodConfig with a retryPolicy", "route").
func choose(cands []candidate, pick, what string, missing *FieldError) (int, error) {
	listed := make([]string, len(cands))
	for i, c := range cands {
		listed[i] = c.names[0]
	}
	quoted := make([]string, len(listed))
	for i, n := range listed {
		quoted[i] = strconv.Quote(n)
	}
	if pick == "" {
		switch len(cands) {
		case 0:
			return -1, missing
		case 1:
			return 0, nil
		}
		return -1, &AmbiguousError{Candidates: listed, Field: &FieldError{Path: cands[1].path, Kind: ErrAmbiguous,
			Allowed: fmt.Sprintf("%d of them, each a %s; one makes a lane: pick one by name: %s", len(cands), what, strings.Join(quoted, ", "))}}
	}
	for i, c := range cands {
		if slices.Contains(c.names, pick) {
			return i, nil
		}
	}
	return -1, &AmbiguousError{Candidates: listed, Field: &FieldError{Path: "pick", Value: pick, Kind: ErrAmbiguous,
		Allowed: fmt.Sprintf("the pick names no %s; pick one of: %s", what, strings.Join(quoted, ", "))}}
}

// ToLanePick is ToLane for the retry policy that pick names, where the
// configuration holds several: a gRPC methodConfig by one of its names
// ("service/method", "service", or its index "methodConfig[1]"), an
// Istio or Envoy route by its name (or its path "http[1]"), an AWS
// profile, a resilience4j instance, a Polly section, a Linkerd document by
// theirs. An empty pick takes the only one; with several it is an
// *AmbiguousError listing them, as is a pick that names none.
func ToLanePick(c Config, pick string) (strategies.Params, []Warning, error) {
	l, w, _, err := toLane(c, pick)
	return l, w, err
}
