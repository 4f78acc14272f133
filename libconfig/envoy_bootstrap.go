package libconfig

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// parseEnvoyFile reads an Envoy configuration as users have it: a
// fragment (ParseEnvoy), or a whole bootstrap, a listener's route_config
// or its virtual_hosts, in which it finds every route's retry policy.
// Each route that retries (its own retry_policy, or else its virtual
// host's: Envoy takes the route's whole, never merged) is a
// configuration, with its RouteAction's timeout and the circuit_breakers
// of the static cluster it routes to; a route that does not retry is a
// warning. One route that retries is read as ParseEnvoy reads a
// fragment; several are a Found, each named by its route's name, or its
// virtual host's name and the route's match.
func parseEnvoyFile(data []byte) (Config, []Warning, error) {
	top, err := document(data, false)
	if err != nil {
		return nil, nil, err
	}
	if !hasKey(top, "static_resources") && !hasKey(top, "route_config") && !hasKey(top, "virtual_hosts") {
		return typed(ParseEnvoy)(data)
	}
	r := &reader{}
	// The walk visits each node at most once per path to it: document has
	// bounded those, aliases followed, to MaxNodes.
	clusters, hosts := r.envoyHosts(top)
	var f Found
	for _, h := range hosts {
		f.Items = append(f.Items, r.envoyHostRoutes(h, clusters)...)
	}
	if err := r.err(); err != nil {
		return nil, r.warns, err
	}
	switch len(f.Items) {
	case 0:
		return nil, r.warns, &FieldError{Path: "retry_policy", Kind: ErrMissing,
			Allowed: "Envoy retries only with a retry_policy, on a route or its virtual host: the file has no route that retries"}
	case 1:
		return f.Items[0].Config, append(r.warns, f.Items[0].Warnings...), nil
	}
	return f, r.warns, nil
}

// envoyHosts finds in top, a bootstrap, a route_config or its
// virtual_hosts, the virtual hosts with their paths, and the bootstrap's
// static clusters by name.
func (r *reader) envoyHosts(top *yaml.Node) (map[string]envoyNamed, []envoyNamed) {
	clusters := map[string]envoyNamed{}
	var hosts []envoyNamed // the virtual hosts, with their paths
	addHosts := func(rc *yaml.Node, path string) {
		if vh := valueOf(rc, "virtual_hosts"); vh != nil && vh.Kind == yaml.SequenceNode {
			for i, h := range vh.Content {
				hosts = append(hosts, envoyNamed{resolve(h), index(join(path, "virtual_hosts"), i)})
			}
		}
	}
	switch {
	case hasKey(top, "static_resources"):
		sr := valueOf(top, "static_resources")
		if cs := valueOf(sr, "clusters"); cs != nil && cs.Kind == yaml.SequenceNode {
			for i, c := range cs.Content {
				c = resolve(c)
				if c.Kind != yaml.MappingNode {
					continue
				}
				if n := valueOf(c, "name"); n != nil {
					clusters[n.Value] = envoyNamed{c, index("static_resources.clusters", i)}
				}
			}
		}
		r.envoyListeners(valueOf(sr, "listeners"), addHosts)
	case hasKey(top, "route_config"):
		addHosts(valueOf(top, "route_config"), "route_config")
	default:
		addHosts(top, "")
	}
	return clusters, hosts
}

// envoyListeners gives addHosts the route_config of every filter of the
// static listeners ls that has one inline, and warns of one that takes
// its routes from a route discovery service.
func (r *reader) envoyListeners(ls *yaml.Node, addHosts func(rc *yaml.Node, path string)) {
	if ls == nil || ls.Kind != yaml.SequenceNode {
		return
	}
	for li, l := range ls.Content {
		lp := index("static_resources.listeners", li)
		fcs := valueOf(resolve(l), "filter_chains")
		if fcs == nil || fcs.Kind != yaml.SequenceNode {
			continue
		}
		for fi, fc := range fcs.Content {
			fp := index(join(lp, "filter_chains"), fi)
			fs := valueOf(resolve(fc), "filters")
			if fs == nil || fs.Kind != yaml.SequenceNode {
				continue
			}
			for ki, f := range fs.Content {
				tc := valueOf(resolve(f), "typed_config")
				if tc == nil || tc.Kind != yaml.MappingNode {
					continue
				}
				tp := join(index(join(fp, "filters"), ki), "typed_config")
				if rc := valueOf(tc, "route_config"); rc != nil && rc.Kind == yaml.MappingNode {
					addHosts(rc, join(tp, "route_config"))
				} else if hasKey(tc, "rds") {
					r.warn(join(tp, "rds"), "not read: the routes come from a route discovery service; paste its route_config")
				}
			}
		}
	}
}

// envoyHostRoutes reads the routes of virtual host h: a FoundItem for each
// route that retries, a warning for each that does not, and the errors of
// each into r.
func (r *reader) envoyHostRoutes(h envoyNamed, clusters map[string]envoyNamed) []FoundItem {
	if h.node.Kind != yaml.MappingNode {
		return nil
	}
	hostName := ""
	if n := valueOf(h.node, "name"); n != nil {
		hostName = n.Value
	}
	hostPolicy := valueOf(h.node, "retry_policy")
	routes := valueOf(h.node, "routes")
	if routes == nil || routes.Kind != yaml.SequenceNode {
		return nil
	}
	var items []FoundItem
	for ri, rt := range routes.Content {
		rt = resolve(rt)
		rp := index(join(h.path, "routes"), ri)
		action := valueOf(rt, "route")
		label := envoyRouteLabel(rt, hostName, ri)
		if action == nil || action.Kind != yaml.MappingNode {
			r.warn(rp, "not read: the route %s forwards nowhere (a redirect or a direct response) and retries nothing", label)
			continue
		}
		item := &reader{}
		var c EnvoyConfig
		ap := join(rp, "route")
		policy, pp := valueOf(action, "retry_policy"), join(ap, "retry_policy")
		if policy == nil && hostPolicy != nil {
			policy, pp = hostPolicy, join(h.path, "retry_policy")
			item.warn(pp, "the route %s has no retry_policy of its own: Envoy takes its virtual host's", label)
		}
		if policy == nil {
			r.warn(rp, "not read: the route %s has no retry_policy, nor has its virtual host: Envoy does not retry it", label)
			continue
		}
		c.RetryPolicy = item.envoyRetry(policy, pp)
		item.envoyAction(&c, action, ap, clusters)
		if len(item.errs) > 0 {
			r.errs = append(r.errs, item.errs...)
			continue
		}
		names := []string{label, rp}
		if n := valueOf(rt, "name"); n != nil && n.Value != label {
			names = append([]string{n.Value}, names...)
		}
		items = append(items, FoundItem{Names: names, Path: rp, Config: c, Warnings: item.warns})
	}
	return items
}

// envoyAction reads into c the timeout of a route's action, at path ap,
// and the circuit_breakers of the static cluster it routes to.
func (r *reader) envoyAction(c *EnvoyConfig, action *yaml.Node, ap string, clusters map[string]envoyNamed) {
	if t := valueOf(action, "timeout"); t != nil {
		if d, ok := r.duration(t, join(ap, "timeout"), parseProtoDuration, func(d time.Duration) bool { return d >= 0 }, envoyDurationRule+", 0s or more"); ok {
			c.Timeout = &d
		}
	}
	if cl := valueOf(action, "cluster"); cl != nil {
		if cn, ok := clusters[cl.Value]; ok {
			if cb := valueOf(cn.node, "circuit_breakers"); cb != nil {
				c.CircuitBreakers = r.envoyBreakers(cb, join(cn.path, "circuit_breakers"))
			}
		} else if len(clusters) > 0 {
			r.warn(join(ap, "cluster"), "no static cluster %q: its circuit_breakers are unknown", cl.Value)
		}
	}
}

// envoyNamed is a node with its path.
type envoyNamed struct {
	node *yaml.Node
	path string
}

// envoyRouteLabel names route i of a virtual host: its name, or the
// virtual host's name and the route's match ("backend/prefix:/api").
func envoyRouteLabel(rt *yaml.Node, host string, i int) string {
	if n := valueOf(rt, "name"); n != nil && n.Value != "" {
		return n.Value
	}
	match := fmt.Sprintf("route %d", i)
	if m := valueOf(rt, "match"); m != nil && m.Kind == yaml.MappingNode {
		for _, k := range []string{"prefix", "path", "safe_regex", "path_separated_prefix", "path_match_policy"} {
			if v := valueOf(m, k); v != nil {
				if v.Kind == yaml.ScalarNode {
					match = k + ":" + v.Value
				} else {
					match = k
				}
				break
			}
		}
	}
	if host == "" {
		return match
	}
	return strings.Join([]string{host, match}, "/")
}
