package libconfig

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/strategies"
	"go.yaml.in/yaml/v3"
)

// Resilience4jConfig is the retry and circuit-breaker part of a Spring Boot
// application.yml for resilience4j (resilience4j 2.x's Spring Boot
// starter: resilience4j.retry and resilience4j.circuitbreaker, each with
// configs and instances; the property names of RetryConfigurationProperties
// and CircuitBreakerConfigurationProperties, in camelCase or Spring's
// relaxed kebab-case). Each instance's settings are resolved: an instance
// inherits its baseConfig, or configs.default when it names none.
type Resilience4jConfig struct {
	// Instances are the named instances, in the order they first appear:
	// the retry instances as written, then the circuit breakers that no
	// retry instance shares a name with.
	Instances []R4jInstance
}

// R4jInstance is one instance name's retry and circuit breaker.
type R4jInstance struct {
	Name           string
	Retry          *R4jRetry          // resilience4j.retry.instances.<name>, or nil
	CircuitBreaker *R4jCircuitBreaker // resilience4j.circuitbreaker.instances.<name>, or nil
}

// R4jRetry is a retry instance's settings as resilience4j resolves them
// (RetryConfig, built by CommonRetryConfigurationProperties.createRetryConfig;
// the intervals of IntervalFunction, resilience4j-core 2.x
// IntervalFunction.java, whose checkInterval wants at least 1 ms): each
// field is what the instance runs with, its base config's and
// resilience4j's presence rules applied, not what the file writes. A
// field the interval does not read holds its default (the multiplier and
// cap without exponential back-off, the factor without a randomized
// wait).
type R4jRetry struct {
	// MaxAttempts is maxAttempts, the first call included: 1 or more; 3 by
	// default.
	MaxAttempts int
	// WaitDuration is waitDuration, the wait before the first retry (and
	// every retry without back-off): 0 or more, at least 1 ms with
	// back-off or a randomized wait; 500 ms by default.
	WaitDuration time.Duration
	// EnableExponentialBackoff is enableExponentialBackoff: each wait is
	// the previous one × ExponentialBackoffMultiplier.
	EnableExponentialBackoff bool
	// ExponentialBackoffMultiplier is exponentialBackoffMultiplier,
	// greater than 0; 1.5 by default. (resilience4j 2.x's IntervalFunction
	// checks no multiplier; 1.x required at least 1.)
	ExponentialBackoffMultiplier float64
	// ExponentialMaxWaitDuration is exponentialMaxWaitDuration, the cap on
	// a wait; 0 when unset (no cap).
	ExponentialMaxWaitDuration time.Duration
	// EnableRandomizedWait is enableRandomizedWait: each wait is drawn
	// from [w×(1−f), w×(1+f)].
	EnableRandomizedWait bool
	// RandomizedWaitFactor is randomizedWaitFactor f: in [0, 1)
	// (InstanceProperties.setRandomizedWaitFactor); 0.5 by default.
	RandomizedWaitFactor float64
}

// R4jCircuitBreaker is a circuit-breaker instance's settings
// (CircuitBreakerConfig).
type R4jCircuitBreaker struct {
	// FailureRateThreshold is failureRateThreshold, a percentage in
	// (0, 100]; 50 by default.
	FailureRateThreshold float64
	// SlidingWindowType is slidingWindowType: COUNT_BASED (the default)
	// or TIME_BASED.
	SlidingWindowType string
	// SlidingWindowSize is slidingWindowSize: calls, or seconds for
	// TIME_BASED; 1 or more; 100 by default.
	SlidingWindowSize int
	// MinimumNumberOfCalls is minimumNumberOfCalls: 1 or more; 100 by
	// default.
	MinimumNumberOfCalls int
	// WaitDurationInOpenState is waitDurationInOpenState: at least 1 ms;
	// 60 s by default.
	WaitDurationInOpenState time.Duration
	// PermittedNumberOfCallsInHalfOpenState is
	// permittedNumberOfCallsInHalfOpenState: 1 or more; 10 by default.
	PermittedNumberOfCallsInHalfOpenState int
	// SlowCallRateThreshold is slowCallRateThreshold, a percentage in
	// (0, 100]; 100 by default.
	SlowCallRateThreshold float64
	// SlowCallDurationThreshold is slowCallDurationThreshold: at least
	// 1 ns; 60 s by default.
	SlowCallDurationThreshold time.Duration
	// AutomaticTransitionFromOpenToHalfOpenEnabled is
	// automaticTransitionFromOpenToHalfOpenEnabled; false by default.
	AutomaticTransitionFromOpenToHalfOpenEnabled bool
}

// R4jRetryDefaults are RetryConfig's defaults.
func R4jRetryDefaults() R4jRetry {
	return R4jRetry{MaxAttempts: 3, WaitDuration: 500 * time.Millisecond, ExponentialBackoffMultiplier: 1.5, RandomizedWaitFactor: 0.5}
}

// R4jCircuitBreakerDefaults are CircuitBreakerConfig's defaults.
func R4jCircuitBreakerDefaults() R4jCircuitBreaker {
	return R4jCircuitBreaker{FailureRateThreshold: 50, SlidingWindowType: "COUNT_BASED", SlidingWindowSize: 100,
		MinimumNumberOfCalls: 100, WaitDurationInOpenState: time.Minute, PermittedNumberOfCallsInHalfOpenState: 10,
		SlowCallRateThreshold: 100, SlowCallDurationThreshold: time.Minute}
}

const springDurationRule = `a duration such as "500ms", "10s" or "PT0.5S" (a bare number is milliseconds)`

// springKey folds a property name as Spring's relaxed binding does:
// maxAttempts, max-attempts and max_attempts are one property.
func springKey(s string) string {
	return strings.ToLower(springSeparators.Replace(s))
}

// springSeparators drops the separators relaxed binding ignores; built
// once, as a Replacer's tables cost some kilobytes, which every key read
// paid.
var springSeparators = strings.NewReplacer("-", "", "_", "")

// springTree rewrites mapping n as Spring Boot reads YAML properties: a
// key with dots ("resilience4j.retry:") is a path of nested keys, merged
// with its siblings that share a prefix; a segment in brackets
// ("[backend.a]") keeps its dots.
func springTree(n *yaml.Node) *yaml.Node {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return n
	}
	type entry struct {
		key, value *yaml.Node
		rest       string
	}
	var order []string
	groups := map[string][]entry{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		head, rest := splitSpring(k.Value)
		if k.ShortTag() == "!!merge" {
			head, rest = "<<", ""
		}
		if _, ok := groups[head]; !ok {
			order = append(order, head)
		}
		groups[head] = append(groups[head], entry{k, n.Content[i+1], rest})
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Line: n.Line, Column: n.Column}
	keyOf := func(k *yaml.Node, name string) *yaml.Node {
		c := *k
		c.Value = name
		return &c
	}
	for _, head := range order {
		g := groups[head]
		if len(g) == 1 && g[0].rest == "" {
			out.Content = append(out.Content, keyOf(g[0].key, head), springTree(g[0].value))
			continue
		}
		// The paths and mappings under head merge into one child; a value
		// that is neither is kept beside it, so that the reader names a
		// clash once, as it names a key given twice.
		var child, childKey *yaml.Node
		for _, e := range g {
			v := resolve(e.value)
			if e.rest == "" && v.Kind != yaml.MappingNode {
				out.Content = append(out.Content, keyOf(e.key, head), e.value)
				continue
			}
			if child == nil {
				child, childKey = &yaml.Node{Kind: yaml.MappingNode, Line: e.key.Line, Column: e.key.Column}, e.key
			}
			if e.rest != "" {
				child.Content = append(child.Content, keyOf(e.key, e.rest), e.value)
			} else {
				child.Content = append(child.Content, v.Content...)
			}
		}
		if child != nil {
			out.Content = append(out.Content, keyOf(childKey, head), springTree(child))
		}
	}
	return out
}

// splitSpring splits a Spring property key at its first dot outside
// brackets, and takes the brackets off the first segment.
func splitSpring(key string) (head, rest string) {
	depth := 0
	for i, c := range key {
		switch {
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == '.' && depth == 0:
			return unbracket(key[:i]), key[i+1:]
		}
	}
	return unbracket(key), ""
}

func unbracket(s string) string {
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		return s[1 : len(s)-1]
	}
	return s
}

// r4jSection is one of resilience4j.retry or resilience4j.circuitbreaker:
// its configs and instances as written, by name, with their paths.
type r4jSection struct {
	configs   map[string]*yaml.Node
	instances []r4jNamed
}

type r4jNamed struct {
	name, path string
	node       *yaml.Node
}

// ParseResilience4j reads a resilience4j block of a Spring Boot
// application.yml (the document's top level holds resilience4j; other
// top-level keys are warnings).
func ParseResilience4j(data []byte) (Resilience4jConfig, []Warning, error) {
	var c Resilience4jConfig
	top, err := document(data, false)
	if err != nil {
		return c, nil, err
	}
	r := &reader{}
	retry, breaker := r.r4jSections(springTree(top))
	retryProps := r.r4jConfigs(retry, breaker)
	byName := map[string]int{}
	instance := func(name string) *R4jInstance {
		i, ok := byName[name]
		if !ok {
			i = len(c.Instances)
			byName[name] = i
			c.Instances = append(c.Instances, R4jInstance{Name: name})
		}
		return &c.Instances[i]
	}
	budget := r4jBudget{sizes: map[*yaml.Node]int{}}
	for _, in := range retry.instances {
		// The chain is checked (a missing or looping baseConfig is an
		// error) before the instance is resolved through it.
		bases := r.r4jBases(retry.configs, in, "resilience4j.retry.configs")
		if bases == nil && hasBaseConfig(in.node) {
			continue
		}
		if err := budget.spend(in, bases); err != nil {
			return c, r.warns, err
		}
		p := r.r4jRetry(in.node, in.path)
		t := r.r4jResolve(retryProps, p, in.name, 0)
		instance(in.name).Retry = &t
	}
	for _, in := range breaker.instances {
		t := R4jCircuitBreakerDefaults()
		bases := r.r4jBases(breaker.configs, in, "resilience4j.circuitbreaker.configs")
		if err := budget.spend(in, bases); err != nil {
			return c, r.warns, err
		}
		for _, base := range bases {
			(&reader{}).r4jBreaker(base, "", &t)
		}
		r.r4jBreaker(in.node, in.path, &t)
		instance(in.name).CircuitBreaker = &t
	}
	return c, r.warns, r.err()
}

// r4jSections reads top, the document's tree with Spring's keys
// normalised, into its resilience4j.retry and resilience4j.circuitbreaker
// sections, and warns of every other key.
func (r *reader) r4jSections(top *yaml.Node) (retry, breaker r4jSection) {
	section := func(s *r4jSection, other map[string]string) func(v *yaml.Node, p string) {
		return func(v *yaml.Node, p string) {
			s.configs = map[string]*yaml.Node{}
			named := func(each func(name, path string, v *yaml.Node)) func(v *yaml.Node, p string) {
				return func(v *yaml.Node, p string) {
					v = resolve(v)
					if v.Kind != yaml.MappingNode {
						r.fail(v, p, ErrType, short(v), "a mapping of names to settings")
						return
					}
					for i := 0; i+1 < len(v.Content); i += 2 {
						name := resolve(v.Content[i]).Value
						each(name, join(p, name), resolve(v.Content[i+1]))
					}
				}
			}
			r.object(v, p, fields{
				"configs": named(func(name, path string, v *yaml.Node) { s.configs[name] = v }),
				"instances": named(func(name, path string, v *yaml.Node) {
					s.instances = append(s.instances, r4jNamed{name, path, v})
				}),
			}, other, springKey)
		}
	}
	r.object(top, "", fields{
		"resilience4j": func(v *yaml.Node, p string) {
			other := "not a retry or circuit-breaker setting"
			r.object(v, p, fields{
				"retry":          section(&retry, map[string]string{"retryaspectorder": "aspect order is not a retry setting", "metrics": other}),
				"circuitbreaker": section(&breaker, map[string]string{"circuitbreakeraspectorder": "aspect order is not a retry setting", "metrics": other}),
			}, map[string]string{"bulkhead": other, "threadpoolbulkhead": other, "ratelimiter": other, "timelimiter": other}, springKey)
		},
	}, map[string]string{"spring": "not resilience4j", "server": "not resilience4j", "management": "not resilience4j", "logging": "not resilience4j"}, nil)
	return retry, breaker
}

// r4jConfigs checks each config of retry and breaker once, with its own
// path, and returns the retry configs' properties by name; an instance's
// values are then resolved through its base configs without reporting
// their errors again.
func (r *reader) r4jConfigs(retry, breaker r4jSection) map[string]*r4jRetryProps {
	retryProps := map[string]*r4jRetryProps{}
	for _, name := range slices.Sorted(maps.Keys(retry.configs)) {
		retryProps[name] = r.r4jRetry(retry.configs[name], join("resilience4j.retry.configs", name))
	}
	for _, name := range slices.Sorted(maps.Keys(retryProps)) {
		// A config's own interval is checked once here, its warnings
		// left to the instances that use it.
		check := &reader{}
		check.r4jResolve(retryProps, retryProps[name], name, 0)
		r.errs = append(r.errs, check.errs...)
	}
	for _, name := range slices.Sorted(maps.Keys(breaker.configs)) {
		t := R4jCircuitBreakerDefaults()
		r.r4jBreaker(breaker.configs[name], join("resilience4j.circuitbreaker.configs", name), &t)
	}
	return retryProps
}

// r4jBudget bounds the nodes the instances read: each instance reads again
// the configs it inherits, an expansion as an alias's is, bounded as
// aliases are: many instances of a large default would cost their
// product. A config counts its whole tree, what merge keys bring in
// included.
type r4jBudget struct {
	read  int
	sizes map[*yaml.Node]int
}

// spend counts the configs bases that instance in inherits, and reports
// an error once the instances have read more than MaxNodes.
func (b *r4jBudget) spend(in r4jNamed, bases []*yaml.Node) error {
	for _, n := range bases {
		if _, ok := b.sizes[n]; !ok {
			b.sizes[n] = treeSize(n)
		}
		b.read += b.sizes[n]
	}
	if b.read <= MaxNodes {
		return nil
	}
	return &FieldError{Path: in.path, Line: in.node.Line, Kind: ErrTooLarge,
		Allowed: fmt.Sprintf("at most %d nodes, each instance's inherited configs read for it", MaxNodes)}
}

// hasBaseConfig reports whether mapping n names a baseConfig.
func hasBaseConfig(n *yaml.Node) bool {
	name, _ := baseConfigOf(n)
	return name != ""
}

// maxBaseDepth bounds a chain of base configs, which also stops a loop.
const maxBaseDepth = 8

// r4jBases lists the configs an instance inherits, the most distant first:
// its baseConfig and that config's own baseConfig, or configs.default when
// it names none.
func (r *reader) r4jBases(configs map[string]*yaml.Node, in r4jNamed, configsPath string) []*yaml.Node {
	var chain []*yaml.Node
	node, path := in.node, in.path
	for depth := 0; ; depth++ {
		base, bp := baseConfigOf(node)
		if base == "" {
			if _, ok := configs["default"]; ok && depth == 0 {
				chain = append([]*yaml.Node{configs["default"]}, chain...)
			}
			return chain
		}
		next, ok := configs[base]
		if !ok || depth >= maxBaseDepth {
			allowed := "the name of one of " + configsPath
			if ok {
				allowed = fmt.Sprintf("base configs that do not loop, at most %d deep", maxBaseDepth)
			}
			r.fail(bp, join(path, "baseConfig"), ErrOutOfRange, base, allowed)
			return nil
		}
		chain = append([]*yaml.Node{next}, chain...)
		node, path = next, join(configsPath, base)
	}
}

// baseConfigOf is the baseConfig a mapping names, and its node.
func baseConfigOf(n *yaml.Node) (string, *yaml.Node) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		return "", nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if springKey(resolve(n.Content[i]).Value) == "baseconfig" {
			v := resolve(n.Content[i+1])
			return v.Value, v
		}
	}
	return "", nil
}

// r4jSet is one retry property as written: its value and its path, or
// nil where the properties leave it unset (Spring's null).
type r4jSet[T any] struct {
	v    T
	path string
}

// r4jRetryProps are a retry config's or instance's properties as Spring
// binds them (CommonRetryConfigurationProperties.InstanceProperties): each
// one nil when unset, since resilience4j decides by which are present.
type r4jRetryProps struct {
	path                   string
	base                   string
	wait, maxWait          *r4jSet[time.Duration]
	attempts               *r4jSet[int]
	exp, random            *r4jSet[bool]
	multiplier, randFactor *r4jSet[float64]
}

// r4jMerge is ConfigUtils.mergePropertiesIfAny for retry properties: the
// instance takes its base's enableExponentialBackoff,
// enableRandomizedWait, exponentialBackoffMultiplier and
// exponentialMaxWaitDuration where it sets none of its own, and nothing
// else (not waitDuration, not randomizedWaitFactor).
func r4jMerge(base, in *r4jRetryProps) {
	if in.exp == nil {
		in.exp = base.exp
	}
	if in.random == nil {
		in.random = base.random
	}
	if in.multiplier == nil {
		in.multiplier = base.multiplier
	}
	if in.maxWait == nil {
		in.maxWait = base.maxWait
	}
}

// r4jResolve is CommonRetryConfigurationProperties.createRetryConfig
// (resilience4j 2.x, resilience4j-framework-common): the config of
// properties p named name starts from its baseConfig's config (merged as
// r4jMerge says), or configs.default's for any name but default, or
// RetryConfig's defaults; then configureRetryIntervalFunction replaces
// the interval only when p sets waitDuration, and maxAttempts replaces
// the count when p sets it. Each setting resilience4j then ignores is a
// warning at the path where it is written.
func (r *reader) r4jResolve(configs map[string]*r4jRetryProps, p *r4jRetryProps, name string, depth int) R4jRetry {
	t := R4jRetryDefaults()
	own := *p // the merge writes into the properties; the configs stay as written
	p = &own
	if depth <= maxBaseDepth {
		switch base, ok := configs[p.base]; {
		case p.base != "" && ok:
			r4jMerge(base, p)
			t = (&reader{}).r4jResolve(configs, base, p.base, depth+1)
		case p.base == "" && name != "default" && configs["default"] != nil:
			r4jMerge(configs["default"], p)
			t = (&reader{}).r4jResolve(configs, configs["default"], "default", depth+1)
		}
	}
	if p.wait != nil {
		r.r4jInterval(p, &t, depth == 0)
	} else if depth == 0 {
		for _, s := range []struct {
			set  bool
			path string
		}{{p.exp != nil, pathOf(p.exp)}, {p.random != nil, pathOf(p.random)}, {p.multiplier != nil, pathOf(p.multiplier)},
			{p.maxWait != nil, pathOf(p.maxWait)}, {p.randFactor != nil, pathOf(p.randFactor)}} {
			if s.set && strings.HasPrefix(s.path, p.path+".") {
				r.warn(s.path, "ignored: without its own waitDuration an instance keeps the interval of its base config or resilience4j's default (%s)", r4jIntervalWords(t))
			}
		}
	}
	if p.attempts != nil {
		t.MaxAttempts = p.attempts.v
	}
	return t
}

// pathOf is the path a property was written at, or "" when unset.
func pathOf[T any](s *r4jSet[T]) string {
	if s == nil {
		return ""
	}
	return s.path
}

// r4jIntervalWords says a resolved interval in words.
func r4jIntervalWords(t R4jRetry) string {
	switch {
	case t.EnableExponentialBackoff:
		return fmt.Sprintf("exponential from %v", t.WaitDuration)
	case t.EnableRandomizedWait:
		return fmt.Sprintf("randomized around %v", t.WaitDuration)
	}
	return fmt.Sprintf("a constant %v", t.WaitDuration)
}

// r4jInterval is configureRetryIntervalFunction: with waitDuration set,
// the interval function is chosen by which of the other properties are
// present, each overload taking IntervalFunction's defaults (multiplier
// 1.5, randomization 0.5, no cap) for what it does not take. With warn,
// each property present that the chosen overload does not read is a
// warning.
func (r *reader) r4jInterval(p *r4jRetryProps, t *R4jRetry, warn bool) {
	d := R4jRetryDefaults()
	t.WaitDuration = p.wait.v
	t.EnableExponentialBackoff = p.exp != nil && p.exp.v
	t.EnableRandomizedWait = p.random != nil && p.random.v
	t.ExponentialBackoffMultiplier, t.RandomizedWaitFactor, t.ExponentialMaxWaitDuration = d.ExponentialBackoffMultiplier, d.RandomizedWaitFactor, 0
	var used []string
	switch {
	case t.EnableExponentialBackoff && t.EnableRandomizedWait:
		// configureExponentialBackoffAndRandomizedWait
		switch {
		case p.maxWait != nil && p.randFactor != nil && p.multiplier != nil:
			used = []string{"multiplier", "factor", "max"}
		case p.randFactor != nil && p.multiplier != nil:
			used = []string{"multiplier", "factor"}
		case p.multiplier != nil:
			used = []string{"multiplier"}
		}
	case t.EnableExponentialBackoff:
		// configureExponentialBackoff
		switch {
		case p.maxWait != nil && p.multiplier != nil:
			used = []string{"multiplier", "max"}
		case p.multiplier != nil:
			used = []string{"multiplier"}
		}
	case t.EnableRandomizedWait:
		// configureRandomizedWait
		if p.randFactor != nil {
			used = []string{"factor"}
		}
	}
	if slices.Contains(used, "multiplier") {
		t.ExponentialBackoffMultiplier = p.multiplier.v
	}
	if slices.Contains(used, "factor") {
		t.RandomizedWaitFactor = p.randFactor.v
	}
	if slices.Contains(used, "max") {
		t.ExponentialMaxWaitDuration = p.maxWait.v
		if t.ExponentialMaxWaitDuration < time.Millisecond {
			r.fail(nil, p.maxWait.path, ErrOutOfRange, formatSpringDuration(t.ExponentialMaxWaitDuration),
				"at least 1ms (IntervalFunction's checkInterval)")
		}
	}
	if (t.EnableExponentialBackoff || t.EnableRandomizedWait) && t.WaitDuration < time.Millisecond {
		r.fail(nil, p.wait.path, ErrOutOfRange, formatSpringDuration(t.WaitDuration),
			"at least 1ms with exponential back-off or a randomized wait (IntervalFunction)")
	}
	if !warn {
		return
	}
	why := func(name string) string {
		switch {
		case name == "multiplier" && !t.EnableExponentialBackoff:
			return "resilience4j reads exponentialBackoffMultiplier only with enableExponentialBackoff: true"
		case name == "factor" && !t.EnableRandomizedWait:
			return "resilience4j reads randomizedWaitFactor only with enableRandomizedWait: true"
		case name == "factor":
			return "with exponential back-off, resilience4j reads randomizedWaitFactor only beside exponentialBackoffMultiplier; it randomizes by its default, 0.5"
		case name == "max" && !t.EnableExponentialBackoff:
			return "resilience4j reads exponentialMaxWaitDuration only with enableExponentialBackoff: true"
		case name == "max" && t.EnableRandomizedWait && p.multiplier != nil:
			return "with a randomized wait, resilience4j reads exponentialMaxWaitDuration only beside randomizedWaitFactor: the waits have no cap"
		case name == "max":
			return "resilience4j reads exponentialMaxWaitDuration only beside exponentialBackoffMultiplier: the waits have no cap"
		}
		return ""
	}
	for _, s := range []struct {
		name, path string
	}{{"multiplier", pathOf(p.multiplier)}, {"factor", pathOf(p.randFactor)}, {"max", pathOf(p.maxWait)}} {
		if s.path != "" && !slices.Contains(used, s.name) {
			r.warn(s.path, "ignored: %s", why(s.name))
		}
	}
}

// r4jRetry reads a retry config's or instance's properties at path.
func (r *reader) r4jRetry(v *yaml.Node, path string) *r4jRetryProps {
	what := "decides which failures are retried, not when"
	p := &r4jRetryProps{path: path}
	r.object(v, path, fields{
		"baseconfig": func(v *yaml.Node, _ string) { p.base = resolve(v).Value },
		"maxattempts": func(v *yaml.Node, path string) {
			if n, ok := r.integer(v, path, 1, math.MaxInt32, "a whole number of attempts, 1 or more", true); ok {
				p.attempts = &r4jSet[int]{int(n), path}
			}
		},
		"waitduration": func(v *yaml.Node, path string) {
			if d, ok := r.duration(v, path, parseSpringDuration, func(d time.Duration) bool { return d >= 0 }, springDurationRule+", 0 or more"); ok {
				p.wait = &r4jSet[time.Duration]{d, path}
			}
		},
		"enableexponentialbackoff": func(v *yaml.Node, path string) {
			if b, ok := r.boolean(v, path, true); ok {
				p.exp = &r4jSet[bool]{b, path}
			}
		},
		"exponentialbackoffmultiplier": func(v *yaml.Node, path string) {
			if x, ok := r.number(v, path, func(x float64) bool { return x > 0 }, "a number greater than 0", true); ok {
				p.multiplier = &r4jSet[float64]{x, path}
			}
		},
		"exponentialmaxwaitduration": func(v *yaml.Node, path string) {
			if d, ok := r.duration(v, path, parseSpringDuration, func(d time.Duration) bool { return d >= 0 }, springDurationRule+", 0 or more (at least 1ms where it is read)"); ok {
				p.maxWait = &r4jSet[time.Duration]{d, path}
			}
		},
		"enablerandomizedwait": func(v *yaml.Node, path string) {
			if b, ok := r.boolean(v, path, true); ok {
				p.random = &r4jSet[bool]{b, path}
			}
		},
		"randomizedwaitfactor": func(v *yaml.Node, path string) {
			// InstanceProperties.setRandomizedWaitFactor refuses 1, which
			// IntervalFunction itself would take.
			if x, ok := r.number(v, path, func(x float64) bool { return x >= 0 && x < 1 }, "a number in [0, 1)", true); ok {
				p.randFactor = &r4jSet[float64]{x, path}
			}
		},
		"intervalbifunction": func(v *yaml.Node, path string) {
			r.fail(v, path, ErrUnsupported, "", "a class that computes the waits in code")
		},
	}, map[string]string{
		"retryexceptions": what, "ignoreexceptions": what, "retryexceptionpredicate": what,
		"resultpredicate": what, "retryonresultpredicate": what,
		"failaftermaxattempts":      "how exhaustion is reported, not when",
		"writablestacktraceenabled": "not a retry setting", "eventconsumerbuffersize": "not a retry setting",
	}, springKey)
	return p
}

func (r *reader) r4jBreaker(v *yaml.Node, path string, t *R4jCircuitBreaker) {
	what := "decides which calls count as failures"
	percent := func(dst *float64) func(v *yaml.Node, p string) {
		return func(v *yaml.Node, p string) {
			if x, ok := r.number(v, p, func(x float64) bool { return x > 0 && x <= 100 }, "a percentage in (0, 100]", true); ok {
				*dst = x
			}
		}
	}
	count := func(dst *int) func(v *yaml.Node, p string) {
		return func(v *yaml.Node, p string) {
			if n, ok := r.integer(v, p, 1, math.MaxInt32, "a whole number, 1 or more", true); ok {
				*dst = int(n)
			}
		}
	}
	openWait := "the open state's back-off: backofflab's breaker stays open breaker_open_for"
	r.object(v, path, fields{
		"baseconfig":           func(*yaml.Node, string) {},
		"failureratethreshold": percent(&t.FailureRateThreshold),
		"slidingwindowtype": func(v *yaml.Node, p string) {
			if s, ok := r.text(v, p, false); ok {
				k := strings.ToUpper(strings.ReplaceAll(s, "-", "_"))
				if k != "COUNT_BASED" && k != "TIME_BASED" {
					r.fail(v, p, ErrOutOfRange, s, "COUNT_BASED or TIME_BASED")
					return
				}
				t.SlidingWindowType = k
			}
		},
		"slidingwindowsize":    count(&t.SlidingWindowSize),
		"minimumnumberofcalls": count(&t.MinimumNumberOfCalls),
		"waitdurationinopenstate": func(v *yaml.Node, p string) {
			if d, ok := r.duration(v, p, parseSpringDuration, func(d time.Duration) bool { return d >= time.Millisecond }, springDurationRule+", at least 1ms"); ok {
				t.WaitDurationInOpenState = d
			}
		},
		"permittednumberofcallsinhalfopenstate": count(&t.PermittedNumberOfCallsInHalfOpenState),
		"slowcallratethreshold":                 percent(&t.SlowCallRateThreshold),
		"slowcalldurationthreshold": func(v *yaml.Node, p string) {
			if d, ok := r.duration(v, p, parseSpringDuration, func(d time.Duration) bool { return d >= 1 }, springDurationRule+", at least 1ns"); ok {
				t.SlowCallDurationThreshold = d
			}
		},
		"automatictransitionfromopentohalfopenenabled": func(v *yaml.Node, p string) {
			if b, ok := r.boolean(v, p, true); ok {
				t.AutomaticTransitionFromOpenToHalfOpenEnabled = b
			}
		},
	}, map[string]string{
		"recordexceptions": what, "ignoreexceptions": what, "recordfailurepredicate": what,
		"ignoreexceptionpredicate": what, "recordresultpredicate": what,
		"maxwaitdurationinhalfopenstate": "backofflab's half-open state ends with its probes",
		"enableexponentialbackoff":       openWait, "exponentialbackoffmultiplier": openWait,
		"exponentialmaxwaitdurationinopenstate": openWait, "enablerandomizedwait": openWait, "randomizedwaitfactor": openWait,
		"registerhealthindicator": "not a breaker setting", "allowhealthindicatortofail": "not a breaker setting",
		"eventconsumerbuffersize": "not a breaker setting", "writablestacktraceenabled": "not a breaker setting",
	}, springKey)
}

// Marshal writes c as an application.yml block, every setting of every
// instance written out (none inherited).
func (c Resilience4jConfig) Marshal() ([]byte, error) {
	retries, breakers := mapping(), mapping()
	for _, in := range c.Instances {
		if t := in.Retry; t != nil {
			// Only what resilience4j reads is written: the multiplier and
			// cap with exponential back-off, the factor with a randomized
			// wait (the parser warns of the rest as ignored).
			m := mapping("maxAttempts", intNode(t.MaxAttempts), "waitDuration", strNode(formatSpringDuration(t.WaitDuration)),
				"enableExponentialBackoff", boolNode(t.EnableExponentialBackoff))
			if t.EnableExponentialBackoff {
				m.Content = append(m.Content, mapping("exponentialBackoffMultiplier", floatNode(t.ExponentialBackoffMultiplier)).Content...)
				if t.ExponentialMaxWaitDuration != 0 {
					m.Content = append(m.Content, mapping("exponentialMaxWaitDuration", strNode(formatSpringDuration(t.ExponentialMaxWaitDuration))).Content...)
				}
			}
			m.Content = append(m.Content, mapping("enableRandomizedWait", boolNode(t.EnableRandomizedWait)).Content...)
			if t.EnableRandomizedWait {
				m.Content = append(m.Content, mapping("randomizedWaitFactor", floatNode(t.RandomizedWaitFactor)).Content...)
			}
			retries.Content = append(retries.Content, strNode(in.Name), m)
		}
		if t := in.CircuitBreaker; t != nil {
			m := mapping("failureRateThreshold", floatNode(t.FailureRateThreshold), "slidingWindowType", strNode(t.SlidingWindowType),
				"slidingWindowSize", intNode(t.SlidingWindowSize), "minimumNumberOfCalls", intNode(t.MinimumNumberOfCalls),
				"waitDurationInOpenState", strNode(formatSpringDuration(t.WaitDurationInOpenState)),
				"permittedNumberOfCallsInHalfOpenState", intNode(t.PermittedNumberOfCallsInHalfOpenState),
				"slowCallRateThreshold", floatNode(t.SlowCallRateThreshold),
				"slowCallDurationThreshold", strNode(formatSpringDuration(t.SlowCallDurationThreshold)),
				"automaticTransitionFromOpenToHalfOpenEnabled", boolNode(t.AutomaticTransitionFromOpenToHalfOpenEnabled))
			breakers.Content = append(breakers.Content, strNode(in.Name), m)
		}
	}
	r4j := mapping()
	if len(retries.Content) > 0 {
		r4j.Content = append(r4j.Content, mapping("retry", mapping("instances", retries)).Content...)
	}
	if len(breakers.Content) > 0 {
		r4j.Content = append(r4j.Content, mapping("circuitbreaker", mapping("instances", breakers)).Content...)
	}
	return marshalYAML(mapping("resilience4j", r4j))
}

// mapping builds a YAML mapping from keys and value nodes, in order.
func mapping(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv[i].(string)}, kv[i+1].(*yaml.Node))
	}
	return m
}

func strNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: styleFor(s)}
}
func intNode(n int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(n)}
}
func boolNode(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(b)}
}
func floatNode(x float64) *yaml.Node {
	// No tag: a whole number is written as one ("85"), which every
	// reader of a number takes.
	return &yaml.Node{Kind: yaml.ScalarNode, Value: strconv.FormatFloat(x, 'g', -1, 64)}
}

func (c Resilience4jConfig) toLane(pick string) (strategies.Params, []Warning, map[string]string, error) {
	l := laneOf(strategies.NameResilience4j)
	cands := make([]candidate, len(c.Instances))
	for i, in := range c.Instances {
		cands[i] = candidate{names: []string{in.Name}, path: "resilience4j.retry.instances"}
	}
	at, err := choose(cands, pick, "instance",
		&FieldError{Path: "resilience4j.retry.instances", Kind: ErrMissing, Allowed: "a retry or circuit-breaker instance"})
	if err != nil {
		return l, nil, nil, err
	}
	in := c.Instances[at]
	var w []Warning
	rp := "resilience4j.retry.instances." + in.Name
	cp := "resilience4j.circuitbreaker.instances." + in.Name
	field := map[string]string{"min_delay": rp + ".waitDuration", "max_delay": rp + ".exponentialMaxWaitDuration",
		"factor": rp + ".exponentialBackoffMultiplier", "jitter": rp + ".randomizedWaitFactor", "max_attempts": rp + ".maxAttempts",
		"breaker_threshold": cp + ".failureRateThreshold", "breaker_window": cp + ".slidingWindowSize",
		"breaker_min_calls": cp + ".minimumNumberOfCalls", "breaker_open_for": cp + ".waitDurationInOpenState",
		"breaker_probes": cp + ".permittedNumberOfCallsInHalfOpenState"}
	if t := in.Retry; t != nil {
		l.MaxAttempts, l.MinDelay = t.MaxAttempts, t.WaitDuration
		if t.EnableExponentialBackoff {
			l.Factor = t.ExponentialBackoffMultiplier
			if t.ExponentialMaxWaitDuration != 0 {
				l.MaxDelay = t.ExponentialMaxWaitDuration
			}
		}
		if t.EnableRandomizedWait {
			l.Jitter = t.RandomizedWaitFactor
		}
	} else {
		// Not strategy none, which reads no limiter: the breaker must still
		// judge the one attempt.
		l.MaxAttempts = 1
		w = append(w, Warning{rp, "unset: the lane makes one attempt per request (max_attempts 1)"})
	}
	if b := in.CircuitBreaker; b != nil {
		if b.SlidingWindowType != "COUNT_BASED" {
			return l, nil, nil, &FieldError{Path: cp + ".slidingWindowType", Value: b.SlidingWindowType, Kind: ErrUnsupported,
				Allowed: "COUNT_BASED: backofflab's breaker counts calls"}
		}
		l.Breaker = strategies.BreakerAll
		l.BreakerThreshold, l.BreakerWindow, l.BreakerMinCalls = b.FailureRateThreshold, b.SlidingWindowSize, b.MinimumNumberOfCalls
		l.BreakerOpenFor, l.BreakerProbes = b.WaitDurationInOpenState, b.PermittedNumberOfCallsInHalfOpenState
		w = append(w, Warning{cp, "every attempt passes the breaker (resilience4j's default aspect order: Retry around CircuitBreaker)"})
		if b.SlowCallRateThreshold < 100 {
			w = append(w, Warning{cp + ".slowCallRateThreshold", "not expressed: the breaker counts failures, not slow calls"})
		}
	}
	return l, w, field, nil
}

func r4jFromLane(l strategies.Params) (Config, []Warning, error) {
	var why []string
	in := R4jInstance{Name: "backend"}
	switch l.Strategy {
	case strategies.NameResilience4j:
		why = append(why, noCount(l, "maxAttempts")...)
		t := R4jRetryDefaults()
		t.MaxAttempts, t.WaitDuration = l.MaxAttempts, l.MinDelay
		if l.Factor != 1 || l.MaxDelay != strategies.DefaultNoCap {
			t.EnableExponentialBackoff, t.ExponentialBackoffMultiplier = true, l.Factor
			if l.MaxDelay != strategies.DefaultNoCap {
				t.ExponentialMaxWaitDuration = l.MaxDelay
			}
		}
		if l.Jitter > 0 {
			t.EnableRandomizedWait, t.RandomizedWaitFactor = true, l.Jitter
			if l.Jitter >= 1 {
				why = append(why, fmt.Sprintf("resilience4j's randomizedWaitFactor is under 1 (InstanceProperties refuses 1); the lane's jitter is %g", l.Jitter))
			}
		}
		in.Retry = &t
	default:
		why = append(why, otherRow("resilience4j", l, strategies.NameResilience4j)...)
	}
	switch l.Breaker {
	case strategies.BreakerAll:
		b := R4jCircuitBreakerDefaults()
		b.FailureRateThreshold, b.SlidingWindowSize, b.MinimumNumberOfCalls = l.BreakerThreshold, l.BreakerWindow, l.BreakerMinCalls
		b.WaitDurationInOpenState, b.PermittedNumberOfCallsInHalfOpenState = l.BreakerOpenFor, l.BreakerProbes
		in.CircuitBreaker = &b
	case strategies.BreakerRetries:
		why = append(why, "resilience4j's CircuitBreaker sees every call; the lane's breaker refuses retries only")
	}
	why = append(why, noDeadline(l, "resilience4j's Retry")...)
	why = append(why, noLimiters(l, "resilience4j", "breaker")...)
	return Resilience4jConfig{Instances: []R4jInstance{in}}, nil, cannot("resilience4j", why)
}
