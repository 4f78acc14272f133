package scene

import "regexp"

// prose.go writes the pages' sentences so that a vocabulary name in them
// (min_delay, a.max_delay, think_scaled) shows as code, set apart from the
// plain words around it: a reader sees at a glance which words are names
// to type into a URL or a flag, and which are English.

// ProsePart is a piece of a sentence: plain words, or a name shown as code.
type ProsePart struct {
	Text string `json:"t"`
	Code bool   `json:"code,omitempty"`
}

// nameRE matches a vocabulary name in a sentence: a snake_case identifier,
// with a lane's letter before it or not. Names of one plain word (clients,
// jitter, outage) read as English and stay words.
var nameRE = regexp.MustCompile(`\b(?:[a-d]\.)?[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b`)

// ProseOf splits s into its plain words and the vocabulary names in it.
func ProseOf(s string) []ProsePart {
	var out []ProsePart
	last := 0
	for _, m := range nameRE.FindAllStringIndex(s, -1) {
		if m[0] > last {
			out = append(out, ProsePart{Text: s[last:m[0]]})
		}
		out = append(out, ProsePart{Text: s[m[0]:m[1]], Code: true})
		last = m[1]
	}
	if last < len(s) {
		out = append(out, ProsePart{Text: s[last:]})
	}
	return out
}

// ProseOfAll is ProseOf each of ss.
func ProseOfAll(ss []string) [][]ProsePart {
	out := make([][]ProsePart, len(ss))
	for i, s := range ss {
		out[i] = ProseOf(s)
	}
	return out
}
