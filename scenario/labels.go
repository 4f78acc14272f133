package scenario

import "github.com/backofflab/backofflab/strategies"

// Plain-language labels of the vocabulary, for the page: it shows each
// beside its vocabulary name (a legend "clients waiting to retry
// in_backoff", a control "minimum delay a.min_delay"), so that a reader who
// does not know the names can follow and one who does can still find them.
// Every column and every parameter has one (TestEveryNameHasALabel).

// columnLabels are the Columns in words.
var columnLabels = map[string]string{
	"ok":             "succeeded",
	"errors":         "failed with an error",
	"timeouts":       "timed out",
	"attempts":       "attempts sent",
	"retries":        "retries sent",
	"gave_up":        "requests given up",
	"concurrency":    "requests inside the server",
	"server_latency": "server latency",
	"backlog":        "waiting in the accept backlog",
	"in_backoff":     "clients waiting to retry",
	"p50":            "median latency",
	"p99":            "99th percentile latency",
	"alive":          "requests under way",
	"thinking":       "clients thinking",
	"queued":         "waiting for a worker",
	"t2_attempts":    "tier 2's attempts",
	"t3_attempts":    "tier 3's attempts",
	"t4_attempts":    "tier 4's attempts",
}

// ColumnLabel returns the column name's label, or the name itself for a
// name that is not a column.
func ColumnLabel(name string) string {
	if l, ok := columnLabels[name]; ok {
		return l
	}
	return name
}

// paramLabels are the Table's parameters in words.
var paramLabels = map[string]string{
	"clients":                     "clients",
	"think":                       "think time",
	"arrival":                     "arrivals",
	"rate":                        "arrival rate",
	"timeout":                     "attempt timeout",
	"server_model":                "server model",
	"server_limit":                "healthy concurrency",
	"server_delay":                "base latency",
	"server_factor":               "latency growth",
	"server_k":                    "growth step",
	"server_slope":                "latency per request",
	"max_server_delay":            "latency cap",
	"workers":                     "workers",
	"service_time":                "service time",
	"service_dist":                "service time distribution",
	"queue_order":                 "queue order",
	"queue_timeout":               "queue timeout",
	"queue_control":               "queue control",
	"codel_target":                "CoDel target",
	"codel_interval":              "CoDel interval",
	"shed_above":                  "shed load above",
	"backlog":                     "accept backlog",
	"outage":                      "outage kind",
	"outage_at":                   "outage starts at",
	"outage_for":                  "outage lasts",
	"faults":                      "more faults",
	"duration":                    "run length",
	"tick":                        "tick",
	"seed":                        "random seed",
	"strategy":                    "retry strategy",
	"min_delay":                   "minimum delay",
	"max_delay":                   "longest delay",
	"factor":                      "delay growth",
	"jitter":                      "jitter",
	"max_attempts":                "attempts per request",
	"tiers":                       "layered retries: tiers below the client",
	"deadline":                    "request deadline",
	"min_connect_timeout":         "shortest attempt timeout",
	"per_try_timeout":             "timeout of each attempt",
	"backoff_type":                "growth of the wait",
	"use_jitter":                  "randomize the wait",
	"cancel_on_timeout":           "server drops abandoned requests",
	"grpc_throttle":               "gRPC retry throttling",
	"grpc_max_tokens":             "bucket size",
	"grpc_token_ratio":            "tokens per success",
	"aws_quota":                   "AWS retry quota",
	"aws_quota_tokens":            "quota size",
	"aws_retry_cost":              "tokens per retry after an error",
	"aws_timeout_cost":            "tokens per retry after a timeout",
	"aws_no_retry_increment":      "tokens per first-try success",
	"sre_throttle":                "adaptive throttling",
	"sre_k":                       "accepts multiplier K",
	"sre_window":                  "history counted",
	"retry_budget":                "retry budget",
	"budget_percent":              "share of requests retried",
	"budget_min_per_sec":          "retries always allowed per second",
	"budget_ttl":                  "budget memory",
	"breaker":                     "circuit breaker",
	"breaker_threshold":           "failure rate that opens it",
	"breaker_window":              "outcomes counted",
	"breaker_min_calls":           "outcomes before it counts",
	"breaker_open_for":            "open for",
	"breaker_probes":              "half-open probes",
	"aws_adaptive":                "AWS adaptive rate limiter",
	"envoy_retry_limit":           "Envoy retry limit",
	"envoy_max_retries":           "Envoy retries at once",
	"envoy_budget_percent":        "Envoy budget share",
	"envoy_min_retry_concurrency": "Envoy budget floor",
	"lanes":                       "lanes",
}

// Label returns the parameter's label, or its name when it has none.
func (p Param) Label() string {
	if l, ok := paramLabels[p.Name]; ok {
		return l
	}
	return p.Name
}

// choiceLabels are, in words, the choices of an enum parameter whose value
// is a snake_case name a reader would have to know (keyed by parameter,
// then value); the menu shows the words and keeps the value.
var choiceLabels = map[string]map[string]string{
	"envoy_retry_limit": {strategies.EnvoyMaxRetries: "a fixed number at once"},
}

// ChoiceLabel returns the words for value of enum parameter param: its
// label where the value is a name a reader would have to know, else the
// value itself, which is a plain word.
func ChoiceLabel(param, value string) string {
	if l, ok := choiceLabels[param][value]; ok {
		return l
	}
	return value
}
