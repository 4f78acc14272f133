package libconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/backofflab/backofflab/strategies"
)

// Found is a file that holds several retry configurations of one library
// where the library's own format nests them: the routes of an Envoy
// bootstrap, the sections of an appsettings.json, the documents of a
// Linkerd file. Each is a Config of its own; ToLanePick takes one by its
// name, and ToLane, which has no name, lists them in an *AmbiguousError.
type Found struct {
	// Items are the configurations found, in the file's order.
	Items []FoundItem
	// JSONSections says how Marshal writes them back: as an
	// appsettings.json object whose sections are the items' paths
	// ("Resilience:Retry"), or, when false, as YAML documents.
	JSONSections bool
}

// FoundItem is one configuration of a Found.
type FoundItem struct {
	// Names are what a pick takes for it; the first is the one a list
	// shows.
	Names []string
	// Path is where it is in the file, in the library's field names.
	Path string
	// Config is the configuration.
	Config Config
	// Warnings are its own settings that were read and left out; the
	// parse's warnings are the file's.
	Warnings []Warning
}

// Marshal writes every item back: YAML documents separated by "---", or
// one JSON object holding each item at its section path.
func (f Found) Marshal() ([]byte, error) {
	if f.JSONSections {
		top := &section{}
		for _, it := range f.Items {
			text, err := it.Config.Marshal()
			if err != nil {
				return nil, err
			}
			top.at(strings.Split(it.Path, ":")).leaf = text
		}
		var b bytes.Buffer
		top.write(&b)
		var out bytes.Buffer
		if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
			return nil, fmt.Errorf("libconfig: writing the sections: %w", err)
		}
		out.WriteByte('\n')
		return out.Bytes(), nil
	}
	if len(f.Items) > 0 {
		if _, ok := f.Items[0].Config.(EnvoyConfig); ok {
			return f.envoyRoutes()
		}
	}
	var b bytes.Buffer
	for i, it := range f.Items {
		text, err := it.Config.Marshal()
		if err != nil {
			return nil, err
		}
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(text)
	}
	return b.Bytes(), nil
}

// toLane maps the item pick names onto a lane, its warnings first.
func (f Found) toLane(pick string) (strategies.Params, []Warning, map[string]string, error) {
	cands := make([]candidate, len(f.Items))
	for i, it := range f.Items {
		cands[i] = candidate{names: it.Names, path: it.Path}
	}
	at, err := choose(cands, pick, "retry configuration found in the file",
		&FieldError{Kind: ErrMissing, Allowed: "a retry configuration"})
	if err != nil {
		return strategies.Params{}, nil, nil, err
	}
	it := f.Items[at]
	w := append([]Warning{{it.Path, fmt.Sprintf("the lane is this one, %s, of %d found in the file", it.Names[0], len(f.Items))}}, it.Warnings...)
	l, more, field, err := toLane(it.Config, "")
	return l, append(w, more...), field, err
}

// maxDocuments bounds the YAML documents of one file: a Kubernetes
// manifest of a service holds a few.
const maxDocuments = 100

// yamlDocument is one document of a multi-document YAML file: its text and
// the line of the file it starts on, less one.
type yamlDocument struct {
	text   []byte
	offset int
}

// splitDocuments splits YAML text at its document markers, lines that are
// "---" or start with "--- ", as kubectl's reader does
// (k8s.io/apimachinery/pkg/util/yaml, YAMLReader); a file without one is
// one document; a file past MaxInput is refused. Documents with nothing but blank lines and comments are
// left out.
func splitDocuments(data []byte) ([]yamlDocument, error) {
	// The file is bounded as a whole, as every other library's is, not
	// only each document that document reads.
	if len(data) > MaxInput {
		return nil, inputTooLarge()
	}
	var docs []yamlDocument
	start, startLine, line := 0, 0, 0
	add := func(end int) {
		text := data[start:end]
		for _, l := range strings.Split(string(text), "\n") {
			if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
				docs = append(docs, yamlDocument{text: text, offset: startLine})
				return
			}
		}
	}
	for i := 0; i <= len(data); {
		end := bytes.IndexByte(data[i:], '\n')
		if end < 0 {
			end = len(data) - i
		}
		l := data[i : i+end]
		if bytes.Equal(bytes.TrimRight(l, " \t\r"), []byte("---")) || bytes.HasPrefix(l, []byte("--- ")) {
			add(i)
			if len(docs) > maxDocuments {
				return nil, &FieldError{Kind: ErrOutOfRange, Line: line + 1, Allowed: fmt.Sprintf("at most %d YAML documents in one file", maxDocuments)}
			}
			start, startLine = i+end+1, line+1
			if start > len(data) {
				start = len(data)
			}
		}
		i += end + 1
		line++
	}
	add(len(data))
	if len(docs) > maxDocuments {
		return nil, &FieldError{Kind: ErrOutOfRange, Allowed: fmt.Sprintf("at most %d YAML documents in one file", maxDocuments)}
	}
	return docs, nil
}

// offsetLines adds offset to the line of every FieldError in err, and
// returns err: a document's errors then name the file's lines.
func offsetLines(err error, offset int) error {
	var walk func(error)
	walk = func(e error) {
		var fe *FieldError
		switch x := e.(type) {
		case interface{ Unwrap() []error }:
			for _, y := range x.Unwrap() {
				walk(y)
			}
		default:
			if errors.As(e, &fe) && fe.Line > 0 {
				fe.Line += offset
			}
		}
	}
	if err != nil && offset > 0 {
		walk(err)
	}
	return err
}

// section is a JSON object of configuration sections, its keys in the
// order they were added, or a leaf's JSON.
type section struct {
	keys []string
	kids map[string]*section
	leaf []byte
}

// at returns the section at path, made where it is missing.
func (s *section) at(path []string) *section {
	for _, k := range path {
		if s.kids == nil {
			s.kids = map[string]*section{}
		}
		next, ok := s.kids[k]
		if !ok {
			next = &section{}
			s.kids[k] = next
			s.keys = append(s.keys, k)
		}
		s = next
	}
	return s
}

// write writes s as compact JSON.
func (s *section) write(b *bytes.Buffer) {
	if s.leaf != nil {
		b.Write(bytes.TrimSpace(s.leaf))
		return
	}
	b.WriteByte('{')
	for i, k := range s.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		q, _ := json.Marshal(k)
		b.Write(q)
		b.WriteByte(':')
		s.kids[k].write(b)
	}
	b.WriteByte('}')
}

// envoyRoutes writes Envoy routes as a bootstrap's static resources: one
// virtual host with every route, each named by its name and routing to a
// cluster of its own that holds its circuit_breakers.
func (f Found) envoyRoutes() ([]byte, error) {
	type action struct {
		Cluster     string          `yaml:"cluster"`
		Timeout     string          `yaml:"timeout,omitempty"`
		RetryPolicy *envoyRetryWire `yaml:"retry_policy,omitempty"`
	}
	type route struct {
		Name  string            `yaml:"name"`
		Match map[string]string `yaml:"match"`
		Route action            `yaml:"route"`
	}
	type cluster struct {
		Name            string             `yaml:"name"`
		CircuitBreakers *envoyBreakersWire `yaml:"circuit_breakers"`
	}
	var routes []route
	var clusters []cluster
	for i, it := range f.Items {
		c, ok := it.Config.(EnvoyConfig)
		if !ok {
			return nil, fmt.Errorf("libconfig: an Envoy file holds a %T", it.Config)
		}
		w := c.wire()
		name := fmt.Sprintf("c%d", i)
		routes = append(routes, route{Name: it.Names[0], Match: map[string]string{"prefix": "/"},
			Route: action{Cluster: name, Timeout: w.Timeout, RetryPolicy: w.RetryPolicy}})
		if w.CircuitBreakers != nil {
			clusters = append(clusters, cluster{Name: name, CircuitBreakers: w.CircuitBreakers})
		}
	}
	hc := map[string]any{"route_config": map[string]any{"virtual_hosts": []any{map[string]any{"name": "routes", "routes": routes}}}}
	sr := map[string]any{"listeners": []any{map[string]any{"filter_chains": []any{map[string]any{"filters": []any{map[string]any{"typed_config": hc}}}}}}}
	if len(clusters) > 0 {
		sr["clusters"] = clusters
	}
	return marshalYAML(map[string]any{"static_resources": sr})
}
