package libconfig

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// pollyKeys are RetryStrategyOptions' properties that a JSON section
// binds, folded as the binder folds them: a section that holds one is a
// retry strategy's options.
var pollyKeys = []string{"maxretryattempts", "delay", "maxdelay", "backofftype", "usejitter"}

// maxSectionDepth bounds how deep parsePollyFile looks for a section: an
// appsettings.json nests a pipeline's strategies a few levels down.
const maxSectionDepth = 16

// parsePollyFile reads Polly's options as users have them: the
// RetryStrategyOptions object itself (ParsePolly), or a whole
// appsettings.json in which every section that holds one of its
// properties is a retry strategy's options, named by its configuration
// path ("Resilience:Orders:Retry", as IConfiguration.GetSection takes
// it). One such section is read as ParsePolly reads the object; several
// are a Found.
func parsePollyFile(data []byte) (Config, []Warning, error) {
	top, err := document(data, true)
	if err != nil {
		return nil, nil, err
	}
	if hasPollyKey(top) {
		return typed(ParsePolly)(data)
	}
	r := &reader{}
	f := Found{JSONSections: true}
	var walk func(n *yaml.Node, path string, depth int)
	walk = func(n *yaml.Node, path string, depth int) {
		n = resolve(n)
		if n.Kind != yaml.MappingNode || depth > maxSectionDepth {
			return
		}
		// The configuration's keys are case-insensitive, and its JSON
		// provider refuses one given twice in an object: two sections
		// of one path would be one. A repeat is reported once.
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := resolve(n.Content[i]).Value, resolve(n.Content[i+1])
			p := k
			if path != "" {
				p = path + ":" + k
			}
			if v.Kind != yaml.MappingNode {
				continue
			}
			folded := strings.ToLower(k)
			if seen[folded]++; seen[folded] > 1 {
				if seen[folded] == 2 {
					r.fail(resolve(n.Content[i]), p, ErrDuplicate, "", "each section once")
				}
				continue
			}
			if !hasPollyKey(v) {
				walk(v, p, depth+1)
				continue
			}
			item := &reader{}
			opts := item.pollyOptions(v, p)
			r.errs = append(r.errs, item.errs...)
			// A pick takes the whole path, or its last two sections or
			// the one before the last ("Orders:Retry", "Orders").
			names := []string{p}
			if seg := strings.Split(p, ":"); len(seg) > 2 {
				names = append(names, seg[len(seg)-2]+":"+seg[len(seg)-1], seg[len(seg)-2])
			} else if len(seg) == 2 {
				names = append(names, seg[0])
			}
			f.Items = append(f.Items, FoundItem{Names: names, Path: p, Config: opts, Warnings: item.warns})
		}
	}
	walk(top, "", 0)
	if err := r.err(); err != nil {
		return nil, r.warns, err
	}
	switch len(f.Items) {
	case 0:
		// No section holds the options: the object is the options, all
		// defaults ({}), or what ParsePolly says is wrong with it.
		return typed(ParsePolly)(data)
	case 1:
		return f.Items[0].Config, f.Items[0].Warnings, nil
	}
	return f, nil, nil
}

// hasPollyKey reports whether mapping n holds one of pollyKeys.
func hasPollyKey(n *yaml.Node) bool {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if slices.Contains(pollyKeys, strings.ToLower(resolve(n.Content[i]).Value)) {
			return true
		}
	}
	return false
}
