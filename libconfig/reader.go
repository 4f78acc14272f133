package libconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MaxInput is the largest configuration a parser reads, 256 KiB: a retry
// configuration is a few hundred bytes and a whole application.yml or
// VirtualService a few KiB, and a bound keeps a pasted file's cost
// bounded (reading 1 MiB of YAML took 1.5 s here, most of it in the YAML
// parser).
const MaxInput = 256 << 10

// MaxDepth is the deepest a configuration's mappings and lists may sit
// inside one another, its aliases followed. An Envoy bootstrap, the
// deepest configuration read here, puts a route's retry_back_off 17
// levels down (static_resources.listeners[].filter_chains[].filters[]
// .typed_config.route_config.virtual_hosts[].routes[].route.retry_policy);
// the bound keeps the walks' recursion short.
const MaxDepth = 64

// MaxNodes is the most nodes (scalars, mappings and lists) a
// configuration may have, its aliases followed. YAML's aliases let a few
// hundred bytes stand for 10⁸ nodes (8 levels of 10 aliases), which a walk
// that follows them would expand, while the YAML decoder's own guard
// against that only protects decoding into Go values, not a walk of its
// nodes. MaxInput bytes written out without aliases hold some tens of
// thousands of nodes, so the bound refuses no file that spells its
// values out.
const MaxNodes = 1 << 16

// MaxNotes is the most errors, and the most warnings, a parser lists; one
// more says how many it left out. A file of MaxInput bytes can hold some
// hundred thousand bad lines, whose errors the command would print (7 MB)
// and the page receive, each one a line of the file again.
const MaxNotes = 100

// inputTooLarge is the error of text past MaxInput. It does not say how
// long the text was: a command reads one byte past the bound, no more.
func inputTooLarge() error {
	return &FieldError{Kind: ErrTooLarge, Allowed: fmt.Sprintf("at most %d bytes, 256 KiB", MaxInput)}
}

// reader walks one parsed document, collecting every error and warning
// with its path, so that one pass reports all that is wrong: the first
// MaxNotes of each, and how many more there were.
type reader struct {
	errs  []error
	warns []Warning
	// moreErrs and moreWarns count the errors and warnings past MaxNotes;
	// the last of warns says how many once there are some.
	moreErrs, moreWarns int
}

// fail records a FieldError for the value at n.
func (r *reader) fail(n *yaml.Node, path string, kind error, value, allowed string) {
	line := 0
	if n != nil {
		line = n.Line
	}
	r.add(&FieldError{Path: path, Line: line, Value: value, Kind: kind, Allowed: allowed})
}

// add records an error, or counts it past MaxNotes.
func (r *reader) add(err error) {
	if len(r.errs) >= MaxNotes {
		r.moreErrs++
		return
	}
	r.errs = append(r.errs, err)
}

// warn records a warning, or counts it past MaxNotes.
func (r *reader) warn(path, format string, args ...any) {
	if len(r.warns) < MaxNotes {
		r.warns = append(r.warns, Warning{Path: path, Message: fmt.Sprintf(format, args...)})
		return
	}
	if r.moreWarns++; r.moreWarns == 1 {
		r.warns = append(r.warns, Warning{})
	}
	r.warns[MaxNotes].Message = fmt.Sprintf("and %d more warnings, not listed (at most %d are)", r.moreWarns, MaxNotes)
}

// err is every error recorded, joined, or nil.
func (r *reader) err() error {
	if r.moreErrs > 0 {
		return errors.Join(append(r.errs, fmt.Errorf("and %d more errors, not listed (at most %d are)", r.moreErrs, MaxNotes))...)
	}
	return errors.Join(r.errs...)
}

// document parses data as one YAML document (JSON when json is true, which
// is then checked to be JSON, not merely YAML) and returns its top node,
// which must be a mapping.
func document(data []byte, isJSON bool) (*yaml.Node, error) {
	if len(data) > MaxInput {
		return nil, inputTooLarge()
	}
	if isJSON && !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
			return nil, &FieldError{Kind: ErrSyntax, Line: line, Allowed: "JSON: " + se.Error()}
		}
		return nil, &FieldError{Kind: ErrSyntax, Allowed: "JSON: " + err.Error()}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err.Error() == "EOF" {
			return nil, &FieldError{Kind: ErrMissing, Allowed: "the document is empty"}
		}
		return nil, &FieldError{Kind: ErrSyntax, Allowed: err.Error()}
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		return nil, &FieldError{Kind: ErrAmbiguous, Line: more.Line, Allowed: "one YAML document, found a second after ---"}
	}
	if err := bound(&doc); err != nil {
		return nil, err
	}
	top := resolve(&doc)
	if top.Kind == yaml.DocumentNode && len(top.Content) == 1 {
		top = resolve(top.Content[0])
	}
	if top.Kind != yaml.MappingNode {
		return nil, &FieldError{Kind: ErrType, Line: top.Line, Allowed: "the document must be an object (a mapping of field names to values)"}
	}
	return top, nil
}

// bound checks that the tree under doc, its aliases followed, holds at
// most MaxNodes nodes nested at most MaxDepth deep, and that no alias sits
// inside the node it refers to. Every walk of a checked tree ends, and
// costs at most MaxNodes nodes' work however it follows the aliases; the
// check itself stops at the first node past a bound, so a bomb costs no
// more than MaxNodes steps to refuse.
func bound(doc *yaml.Node) error {
	b := bounds{open: map[*yaml.Node]bool{}}
	return b.walk(doc, 0)
}

// bounds is bound's walk: the nodes counted so far, the collections being
// walked (an alias to one of them is recursive), the path to the node
// walked, and the outermost alias on that path, whose expansion a bound's
// error names: the place in the text that costs.
type bounds struct {
	nodes int
	open  map[*yaml.Node]bool
	path  []string // segments: ".key" or "[i]"
	via   *yaml.Node
	viaAt int // len(path) at via
}

// walk checks n at depth collections down.
func (b *bounds) walk(n *yaml.Node, depth int) error {
	var alias *yaml.Node
	for n != nil && n.Kind == yaml.AliasNode {
		alias, n = n, n.Alias
	}
	if n == nil {
		return nil
	}
	if alias != nil && b.via == nil {
		b.via, b.viaAt = alias, len(b.path)
		defer func() { b.via = nil }()
	}
	if b.open[n] && alias != nil { // only an alias leads back into a node being walked
		return b.fail(alias, len(b.path), ErrRecursive, "*"+alias.Value,
			fmt.Sprintf("an alias may not refer to a node that holds it: &%s at line %d holds it", n.Anchor, n.Line))
	}
	b.nodes++
	if b.nodes > MaxNodes {
		return b.over(n, fmt.Sprintf("at most %d nodes, aliases followed", MaxNodes))
	}
	if n.Kind != yaml.MappingNode && n.Kind != yaml.SequenceNode && n.Kind != yaml.DocumentNode {
		return nil
	}
	if n.Kind != yaml.DocumentNode {
		depth++
	}
	if depth > MaxDepth {
		return b.over(n, fmt.Sprintf("at most %d levels of mappings and lists inside one another, aliases followed", MaxDepth))
	}
	b.open[n] = true
	defer delete(b.open, n)
	for i, c := range n.Content {
		switch {
		case n.Kind == yaml.SequenceNode:
			b.path = append(b.path, fmt.Sprintf("[%d]", i))
		case n.Kind == yaml.MappingNode && i%2 == 1:
			b.path = append(b.path, "."+resolve(n.Content[i-1]).Value)
		default: // a key, or the document's one node
			b.path = append(b.path, "")
		}
		err := b.walk(c, depth)
		b.path = b.path[:len(b.path)-1]
		if err != nil {
			return err
		}
	}
	return nil
}

// over is the ErrTooLarge of a bound that n passes: at the outermost alias
// being followed, when there is one, whose expansion passes it.
func (b *bounds) over(n *yaml.Node, allowed string) error {
	if b.via != nil {
		return b.fail(b.via, b.viaAt, ErrTooLarge, "*"+b.via.Value, allowed)
	}
	return b.fail(n, len(b.path), ErrTooLarge, "", allowed)
}

// fail is a FieldError at n, whose path is the first segments of the
// path walked.
func (b *bounds) fail(n *yaml.Node, segments int, kind error, value, allowed string) error {
	path := ""
	for _, s := range b.path[:segments] {
		if key, ok := strings.CutPrefix(s, "."); ok {
			path = join(path, key)
		} else {
			path += s
		}
	}
	return &FieldError{Path: path, Line: n.Line, Value: value, Kind: kind, Allowed: allowed}
}

// treeSize is the number of nodes of the tree at n, its aliases followed:
// finite, and at most MaxNodes, in a tree that bound has checked.
func treeSize(n *yaml.Node) int {
	n = resolve(n)
	size := 1
	for _, c := range n.Content {
		size += treeSize(c)
	}
	return size
}

// resolve follows a YAML alias to its anchor.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// join is the path of field key inside path: a.b, or a["k.x/y"] for a key
// that holds dots or slashes (Kubernetes annotations).
func join(path, key string) string {
	if strings.ContainsAny(key, "./ ") {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// index is the path of element i of the list at path.
func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// fields maps a field's name to the function that reads its value.
type fields map[string]func(v *yaml.Node, path string)

// object reads the mapping n at path: each key that fields holds is read by
// its function; each key that ignored holds is a warning with the reason
// given there; any other key is an ErrUnknownField. fold, when not nil,
// normalises a key before the look-up (for libraries whose keys are
// case-insensitive or relaxed). It reports whether n was a mapping.
func (r *reader) object(n *yaml.Node, path string, f fields, ignored map[string]string, fold func(string) string) bool {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		r.fail(n, path, ErrType, short(n), "an object")
		return false
	}
	seen, repeated := make(map[string]bool, len(n.Content)/2), map[string]bool{}
	pairs, explicit := mergedPairs(n)
	own := make(map[string]bool, (len(pairs)-explicit)/2)
	for i := explicit; i+1 < len(pairs); i += 2 {
		own[resolve(pairs[i]).Value] = true
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		k, v := resolve(pairs[i]), resolve(pairs[i+1])
		key := k.Value
		if i < explicit && own[key] {
			continue // a key written in the mapping overrides the one merged in
		}
		p := join(path, key)
		name := key
		if fold != nil {
			name = fold(key)
		}
		if seen[name] {
			if !repeated[name] { // once, however many times it is repeated
				r.fail(k, p, ErrDuplicate, "", "each field once")
			}
			repeated[name] = true
			continue
		}
		seen[name] = true
		if read, ok := f[name]; ok {
			read(v, p)
		} else if why, ok := ignored[name]; ok {
			r.warn(p, "not read: %s", why)
		} else {
			r.fail(k, p, ErrUnknownField, "", "")
		}
	}
	return true
}

// mergedPairs lists the key-value pairs of mapping n with YAML merge keys
// ("<<: *defaults") expanded: the merged pairs first, then from index
// explicit on the pairs written in n itself.
func mergedPairs(n *yaml.Node) (pairs []*yaml.Node, explicit int) {
	var own []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.ShortTag() != "!!merge" {
			own = append(own, n.Content[i], n.Content[i+1])
			continue
		}
		from := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			from = v.Content
		}
		for _, m := range from {
			if m = resolve(m); m.Kind == yaml.MappingNode {
				pairs = append(pairs, m.Content...)
			}
		}
	}
	return append(pairs, own...), len(pairs)
}

// list reads the sequence n at path, calling each with every element.
func (r *reader) list(n *yaml.Node, path string, each func(i int, v *yaml.Node, path string)) {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		r.fail(n, path, ErrType, short(n), "a list")
		return
	}
	for i, v := range n.Content {
		each(i, resolve(v), index(path, i))
	}
}

// short is a scalar's text, or the kind of a node that is not a scalar.
func short(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value
	case yaml.MappingNode:
		return "{…}"
	case yaml.SequenceNode:
		return "[…]"
	}
	return ""
}

// scalar reports whether n is a scalar, recording an error if not.
func (r *reader) scalar(n *yaml.Node, path, want string) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		r.fail(n, path, ErrType, short(n), want)
		return false
	}
	return true
}

// text reads a string. With loose, a number or boolean written without
// quotes is read as its text too (YAML annotations, Spring properties).
func (r *reader) text(n *yaml.Node, path string, loose bool) (string, bool) {
	if !r.scalar(n, path, "a string") {
		return "", false
	}
	if n.ShortTag() != "!!str" && !loose {
		r.fail(n, path, ErrType, n.Value, "a string")
		return "", false
	}
	return n.Value, true
}

// integer reads a whole number in [lo, hi]; allowed says the range in the
// library's words. With loose, a quoted number is read too (libraries whose
// configuration binders read every value from text).
func (r *reader) integer(n *yaml.Node, path string, lo, hi int64, allowed string, loose bool) (int64, bool) {
	if !r.scalar(n, path, "a whole number") {
		return 0, false
	}
	var v int64
	switch {
	case n.ShortTag() == "!!int":
		if err := n.Decode(&v); err != nil {
			r.fail(n, path, ErrOutOfRange, n.Value, allowed)
			return 0, false
		}
	case loose && n.ShortTag() == "!!str":
		var err error
		if v, err = strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64); err != nil {
			r.fail(n, path, ErrType, n.Value, "a whole number")
			return 0, false
		}
	default:
		r.fail(n, path, ErrType, n.Value, "a whole number")
		return 0, false
	}
	if v < lo || v > hi {
		r.fail(n, path, ErrOutOfRange, n.Value, allowed)
		return 0, false
	}
	return v, true
}

// number reads a finite number that ok accepts; allowed says the range in
// the library's words.
func (r *reader) number(n *yaml.Node, path string, ok func(float64) bool, allowed string, loose bool) (float64, bool) {
	if !r.scalar(n, path, "a number") {
		return 0, false
	}
	var v float64
	switch tag := n.ShortTag(); {
	case tag == "!!int" || tag == "!!float":
		if err := n.Decode(&v); err != nil {
			r.fail(n, path, ErrType, n.Value, "a number")
			return 0, false
		}
	case loose && tag == "!!str":
		var err error
		if v, err = strconv.ParseFloat(strings.TrimSpace(n.Value), 64); err != nil {
			r.fail(n, path, ErrType, n.Value, "a number")
			return 0, false
		}
	default:
		r.fail(n, path, ErrType, n.Value, "a number")
		return 0, false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		r.fail(n, path, ErrType, n.Value, "a finite number")
		return 0, false
	}
	if !ok(v) {
		r.fail(n, path, ErrOutOfRange, n.Value, allowed)
		return 0, false
	}
	return v, true
}

// boolean reads true or false. With loose, the quoted words are read too,
// in any case (the .NET and Spring binders).
func (r *reader) boolean(n *yaml.Node, path string, loose bool) (bool, bool) {
	if !r.scalar(n, path, "true or false") {
		return false, false
	}
	if n.ShortTag() == "!!bool" && (n.Value == "true" || n.Value == "false") {
		return n.Value == "true", true
	}
	if loose {
		switch strings.ToLower(strings.TrimSpace(n.Value)) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	r.fail(n, path, ErrType, n.Value, "true or false")
	return false, false
}

// duration reads a duration in a library's own format with parse, and
// checks it with ok; allowed says both in the library's words. A duration
// too long for time.Duration is out of range, its bound named unless the
// library's own range, which ok checks, is narrower.
func (r *reader) duration(n *yaml.Node, path string, parse func(string) (time.Duration, error), ok func(time.Duration) bool, allowed string) (time.Duration, bool) {
	if !r.scalar(n, path, allowed) {
		return 0, false
	}
	d, err := parse(n.Value)
	if tooLong, isRange := errors.AsType[rangeError](err); isRange {
		if ok(maxDuration) { // the library's range has no upper bound of its own: name backofflab's
			allowed += ", at most " + tooLong.Max
		}
		r.fail(n, path, ErrOutOfRange, n.Value, allowed)
		return 0, false
	}
	if err != nil {
		r.fail(n, path, ErrType, n.Value, allowed)
		return 0, false
	}
	if !ok(d) {
		r.fail(n, path, ErrOutOfRange, n.Value, allowed)
		return 0, false
	}
	return d, true
}
