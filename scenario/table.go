package scenario

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backofflab/backofflab/strategies"
)

// Type is the type of a parameter's value.
type Type int

// The types of parameter values.
const (
	TypeInt      Type = iota // a whole number
	TypeFloat                // a number
	TypeDuration             // a Go duration such as 100ms or 2s
	TypeEnum                 // one of Choices
	TypeBool                 // true or false
	TypeSeed                 // a 64-bit unsigned number
	TypeFaults               // a list of faults, in FaultSyntax
	TypeTiers                // a lane's inner tiers, in TierSyntax
	// TypeText is text in a syntax that the row's own view reads, as its
	// Help describes: a sweep's axis (a parameter's name, or a value in
	// that parameter's syntax), the contention study's list of Ns. No row
	// of Table has it.
	TypeText
	// TypeChanges is a run's live changes, in ChangesSyntax: the changes
	// parameter's type, which stands apart from Table.
	TypeChanges
)

// Scope is the part of the experiment that reads a parameter. The real
// experiment's commands take their flags from it, and Uses decides by it
// which lane parameters a strategy reads, so that a new row reaches them
// without a list of names to edit.
type Scope int

// The scopes.
const (
	// ScopeRun is the run as a whole: its length, its ticks, its outage and
	// its seed.
	ScopeRun Scope = iota
	// ScopeClients is the client population, whatever its strategy.
	ScopeClients
	// ScopeServer is the server. A lane parameter of this scope is a server
	// behaviour chosen per lane, as cancel_on_timeout is.
	ScopeServer
	// ScopeStrategy is a lane's retry strategy: its name and its formula's
	// parameters, which only some strategies read (strategies.Uses).
	ScopeStrategy
	// ScopeLimiter is a lane's limiters, which every strategy that retries
	// obeys: all but none. They are max_attempts, deadline and the switched
	// ones, each of which is off by default.
	ScopeLimiter
	// ScopeView is a many-run view's own (the phase map's, the seed
	// bands', the contention study's, the advice's): how many runs and how
	// many at once. Its rows are in
	// ViewTable, not Table, since no single run reads them.
	ScopeView
)

// The groups of shared parameters, in the order the page shows them.
const (
	GroupClients = "clients"
	GroupServer  = "server"
	GroupOutage  = "outage"
	GroupRun     = "run"
)

// Param describes one parameter of the vocabulary. It is the one place that
// the command line, the page's labels and the validator read.
type Param struct {
	// Name is the vocabulary name; for a lane parameter it is written with
	// the lane's letter in front, as in a.strategy.
	Name string
	// label is the parameter in plain words, which the page shows beside
	// its name (Label); every row of Table has one.
	label string
	// Lane reports whether each lane has its own value.
	Lane bool
	// Scope is the part of the experiment that reads the parameter.
	Scope Scope
	// Switch names the lane parameter that turns this one's limiter on:
	// while it is off (strategies.LimiterOff) the parameter is not read,
	// and the page hides it.
	Switch string
	// SimOnly marks a parameter that only the simulator implements: the
	// real commands have no flag for it, and a real lane refuses a value
	// other than its default.
	SimOnly bool
	// Group is the section of the page that shows a shared parameter
	// (GroupClients, GroupServer, GroupOutage or GroupRun); each lane's
	// parameters show in the lane's panel.
	Group string
	Type  Type
	// Min and Max bound numeric values, durations in nanoseconds.
	Min, Max float64
	// Choices lists the values of an enum.
	Choices []string
	// choiceLabels are, in words, the Choices that are snake_case names a
	// reader would have to know (ChoiceLabel); the menu shows the words and
	// keeps the value.
	choiceLabels map[string]string
	// Unit is shown beside the value ("s", "req", …); empty for none.
	Unit string
	// Help is the parameter's meaning in one line.
	Help string
	// Default is a many-run row's value when none is given, in the syntax
	// Set reads, as ViewParam gives it for one view; a row of Table takes its
	// default from Defaults instead, and leaves it empty.
	Default string
	// Views lists, for a row of ViewTable, the views that read it, each
	// with its own default and largest value; nil for a row of Table.
	Views map[View]ViewRange

	// field returns a pointer to the value in p (lane i for lane
	// parameters): *int, *float64, *time.Duration, *string, *bool or *uint64.
	field func(p *Params, i int) any
	// where says whose caps narrowed Max (Bounds.Where), or "" for the
	// table's own range.
	where string
}

func d(v time.Duration) float64 { return float64(v) }

// Table lists every parameter in the order the user interface shows them.
var Table = []Param{
	{Name: "clients", label: "clients", Scope: ScopeClients, Group: GroupClients, Type: TypeInt, Min: 1, Max: 1_000_000, Unit: "clients",
		Help:  "number of clients, each thinking then making one request at a time",
		field: func(p *Params, _ int) any { return &p.Clients }},
	{Name: "think", label: "think time", Scope: ScopeClients, Group: GroupClients, Type: TypeDuration, Min: d(time.Millisecond), Max: d(time.Hour), Unit: "s",
		Help:  "mean think time between a client's requests (exponential, as in the 2014 experiment)",
		field: func(p *Params, _ int) any { return &p.Think }},
	{Name: "arrival", label: "arrivals", Scope: ScopeClients, Group: GroupClients, SimOnly: true, Type: TypeEnum, Choices: []string{ArrivalClosed, ArrivalOpen},
		Help:  "closed: clients think, then make one request at a time (as in the 2014 experiment); open: requests arrive at rate, each its own retrier",
		field: func(p *Params, _ int) any { return &p.Arrival }},
	{Name: "rate", label: "arrival rate", Scope: ScopeClients, Group: GroupClients, SimOnly: true, Type: TypeFloat, Min: 0.01, Max: 1_000_000, Unit: "req/s",
		Help:  "open arrival: new requests per second (Poisson)",
		field: func(p *Params, _ int) any { return &p.Rate }},
	{Name: "timeout", label: "attempt timeout", Scope: ScopeClients, Group: GroupClients, Type: TypeDuration, Min: d(time.Millisecond), Max: d(time.Hour), Unit: "s",
		Help:  "per-attempt timeout: the client abandons an attempt after it",
		field: func(p *Params, _ int) any { return &p.Timeout }},
	{Name: "server_model", label: "server model", Scope: ScopeServer, Group: GroupServer, Type: TypeEnum, Choices: serverModelNames(),
		Help:  "how the server's latency answers its load (its parameters follow)",
		field: func(p *Params, _ int) any { return &p.ServerModel }},
	{Name: "server_limit", label: "healthy concurrency", Scope: ScopeServer, Group: GroupServer, Type: TypeInt, Min: 1, Max: 1_000_000, Unit: "req",
		Help:  "concurrency up to which the server answers in server_delay",
		field: func(p *Params, _ int) any { return &p.ServerLimit }},
	{Name: "server_delay", label: "base latency", Scope: ScopeServer, Group: GroupServer, Type: TypeDuration, Min: d(time.Millisecond), Max: d(time.Minute), Unit: "s",
		Help:  "the server's latency while concurrency ≤ server_limit",
		field: func(p *Params, _ int) any { return &p.ServerDelay }},
	{Name: "server_factor", label: "latency growth", Scope: ScopeServer, Group: GroupServer, Type: TypeFloat, Min: 1, Max: 10,
		Help:  "latency grows ×server_factor per server_k requests over the limit",
		field: func(p *Params, _ int) any { return &p.ServerFactor }},
	{Name: "server_k", label: "growth step", Scope: ScopeServer, Group: GroupServer, Type: TypeFloat, Min: 0.1, Max: 1_000_000, Unit: "req",
		Help:  "requests over the limit that multiply latency by server_factor",
		field: func(p *Params, _ int) any { return &p.ServerK }},
	{Name: "server_slope", label: "latency per request", Scope: ScopeServer, Group: GroupServer, Type: TypeDuration, Min: 0, Max: d(10 * time.Second), Unit: "s",
		Help:  "linear model: latency added per request inside the server",
		field: func(p *Params, _ int) any { return &p.ServerSlope }},
	{Name: "max_server_delay", label: "latency cap", Scope: ScopeServer, Group: GroupServer, Type: TypeDuration, Min: d(time.Millisecond), Max: d(24 * time.Hour), Unit: "s",
		Help:  "cap on the server's latency (the 2014 experiment's server overflowed instead)",
		field: func(p *Params, _ int) any { return &p.MaxServerDelay }},
	{Name: "workers", label: "workers", Scope: ScopeServer, Group: GroupServer, Type: TypeInt, Min: 1, Max: 100_000, Unit: "workers",
		Help:  "queue model: requests served at once; the others wait in the backlog",
		field: func(p *Params, _ int) any { return &p.Workers }},
	{Name: "service_time", label: "service time", Scope: ScopeServer, Group: GroupServer, Type: TypeDuration, Min: d(time.Millisecond), Max: d(time.Minute), Unit: "s",
		Help:  "queue model: the mean time a worker takes for one request",
		field: func(p *Params, _ int) any { return &p.ServiceTime }},
	{Name: "service_dist", label: "service time distribution", Scope: ScopeServer, Group: GroupServer, Type: TypeEnum, Choices: []string{ServiceExp, ServiceFixed},
		Help:  "queue model: service times exponential (exp) or all equal (fixed)",
		field: func(p *Params, _ int) any { return &p.ServiceDist }},
	{Name: "queue_order", label: "queue order", Scope: ScopeServer, Group: GroupServer, Type: TypeEnum, Choices: []string{QueueFIFO, QueueLIFO},
		Help:  "queue model: which waiting request a free worker takes, the oldest (fifo) or the newest (lifo)",
		field: func(p *Params, _ int) any { return &p.QueueOrder }},
	{Name: "queue_timeout", label: "queue timeout", Scope: ScopeServer, Group: GroupServer, Type: TypeDuration, Min: 0, Max: d(time.Hour), Unit: "s",
		Help:  "queue model: a request that waited longer than this for a worker gets an error at once (SRE book, Addressing Cascading Failures); 0 (default): none",
		field: func(p *Params, _ int) any { return &p.QueueTimeout }},
	{Name: "queue_control", label: "queue control", Scope: ScopeServer, Group: GroupServer, Type: TypeEnum, Choices: []string{QueueControlOff, QueueControlCoDel},
		Help:  "queue model: codel serves fifo while the queue empties every codel_interval, else lifo with a codel_target queue timeout (Facebook, Fail at Scale)",
		field: func(p *Params, _ int) any { return &p.QueueControl }},
	{Name: "codel_target", label: "CoDel target", Scope: ScopeServer, Group: GroupServer, Switch: "queue_control", Type: TypeDuration, Min: d(time.Millisecond), Max: d(time.Minute), Unit: "s",
		Help:  "codel: the queue timeout while the queue has not emptied for codel_interval (Fail at Scale: 5 ms)",
		field: func(p *Params, _ int) any { return &p.CoDelTarget }},
	{Name: "codel_interval", label: "CoDel interval", Scope: ScopeServer, Group: GroupServer, Switch: "queue_control", Type: TypeDuration, Min: d(time.Millisecond), Max: d(time.Hour), Unit: "s",
		Help:  "codel: how long the queue may go without emptying before the server calls itself overloaded, and the queue timeout otherwise (Fail at Scale: 100 ms)",
		field: func(p *Params, _ int) any { return &p.CoDelInterval }},
	{Name: "shed_above", label: "shed load above", Scope: ScopeServer, Group: GroupServer, Type: TypeInt, Min: 0, Max: 1_000_000, Unit: "req",
		Help:  "load shedding (SRE book, Addressing Cascading Failures): a request that finds this many inside gets an error at once; 0 (default): none",
		field: func(p *Params, _ int) any { return &p.ShedAbove }},
	{Name: "backlog", label: "accept backlog", Scope: ScopeServer, Group: GroupServer, Type: TypeInt, Min: 0, Max: 1_000_000, Unit: "conn",
		Help:  "accept backlog while the server is paused (queue model: or every worker busy); connects beyond it are dropped",
		field: func(p *Params, _ int) any { return &p.Backlog }},
	{Name: "outage", label: "outage kind", Scope: ScopeRun, Group: GroupOutage, Type: TypeEnum, Choices: []string{OutageNone, OutagePause, OutageCrash, OutagePartition},
		Help:  "pause: frozen, connects queue (SIGSTOP); crash: refused, work lost; partition: all lost",
		field: func(p *Params, _ int) any { return &p.Outage }},
	{Name: "outage_at", label: "outage starts at", Scope: ScopeRun, Group: GroupOutage, Type: TypeDuration, Min: 0, Max: d(24 * time.Hour), Unit: "s",
		Help:  "when the scheduled outage starts",
		field: func(p *Params, _ int) any { return &p.OutageAt }},
	{Name: "outage_for", label: "outage lasts", Scope: ScopeRun, Group: GroupOutage, Type: TypeDuration, Min: 0, Max: d(24 * time.Hour), Unit: "s",
		Help:  "how long the scheduled outage lasts",
		field: func(p *Params, _ int) any { return &p.OutageFor }},
	{Name: "faults", label: "more faults", Scope: ScopeRun, Group: GroupOutage, SimOnly: true, Type: TypeFaults,
		Help:  "more faults, each kind:at:for[:m]: " + strings.Join(faultKindNames(), ", "),
		field: func(p *Params, _ int) any { return &p.Faults }},
	{Name: "duration", label: "run length", Scope: ScopeRun, Group: GroupRun, Type: TypeDuration, Min: d(time.Second), Max: d(24 * time.Hour), Unit: "s",
		Help:  "virtual time the run lasts",
		field: func(p *Params, _ int) any { return &p.Duration }},
	{Name: "tick", label: "tick", Scope: ScopeRun, Group: GroupRun, Type: TypeDuration, Min: d(10 * time.Millisecond), Max: d(10 * time.Second), Unit: "s",
		Help:  "virtual time between two ticks of the time series",
		field: func(p *Params, _ int) any { return &p.Tick }},
	{Name: "seed", label: "random seed", Scope: ScopeRun, Group: GroupRun, Type: TypeSeed, Min: 0, Max: math.MaxUint64,
		Help:  "random seed: the same seed and parameters give the same run",
		field: func(p *Params, _ int) any { return &p.Seed }},
	{Name: "patience", label: "users' patience", Scope: ScopeRun, Group: GroupRun, Type: TypeDuration, Min: d(time.Millisecond), Max: d(24 * time.Hour), Unit: "s",
		Help:  "the time after which a user or an upstream gives up on a request: one answered later counts as failed; it does not change the simulation, only how its requests are judged",
		field: func(p *Params, _ int) any { return &p.Patience }},
	{Name: "strategy", label: "retry strategy", Lane: true, Scope: ScopeStrategy, Type: TypeEnum, Choices: strategies.Names(),
		Help:  "retry strategy; its defaults fill the parameters not given",
		field: func(p *Params, i int) any { return &p.Lanes[i].Strategy }},
	{Name: "min_delay", label: "minimum delay", Lane: true, Scope: ScopeStrategy, Type: TypeDuration, Min: d(time.Millisecond), Max: d(time.Hour), Unit: "s",
		Help:  "the wait a strategy's formula starts from: before the first retry (before every retry, for fixed)",
		field: func(p *Params, i int) any { return &p.Lanes[i].MinDelay }},
	{Name: "max_delay", label: "longest delay", Lane: true, Scope: ScopeStrategy, Type: TypeDuration, Min: d(time.Millisecond), Max: d(24 * time.Hour), Unit: "s",
		Help:  "cap on the wait between retries (MaxDelay)",
		field: func(p *Params, i int) any { return &p.Lanes[i].MaxDelay }},
	{Name: "factor", label: "delay growth", Lane: true, Scope: ScopeStrategy, Type: TypeFloat, Min: 1, Max: 10,
		Help:  "growth of the wait per retry (Factor)",
		field: func(p *Params, i int) any { return &p.Lanes[i].Factor }},
	{Name: "jitter", label: "jitter", Lane: true, Scope: ScopeStrategy, Type: TypeFloat, Min: 0, Max: 1,
		Help:  "random spread of the wait (Jitter)",
		field: func(p *Params, i int) any { return &p.Lanes[i].Jitter }},
	{Name: "max_attempts", label: "attempts per request", Lane: true, Scope: ScopeLimiter, Type: TypeInt, Min: 0, Max: 1_000_000, Unit: "attempts",
		Help:  "most attempts per request, the first included; 0 for no limit (the default: the 2014 experiment's clients never gave up)",
		field: func(p *Params, i int) any { return &p.Lanes[i].MaxAttempts }},
	{Name: "deadline", label: "request deadline", Lane: true, Scope: ScopeLimiter, Type: TypeDuration, Min: 0, Max: d(24 * time.Hour), Unit: "s",
		Help:  "give up when the next attempt would start this long after the request began; 0 for none (the default, as in the 2014 experiment)",
		field: func(p *Params, i int) any { return &p.Lanes[i].Deadline }},
	{Name: "min_connect_timeout", label: "shortest attempt timeout", Lane: true, Scope: ScopeStrategy, Type: TypeDuration, Min: d(time.Millisecond), Max: d(time.Hour), Unit: "s",
		Help:  "gRPC: the shortest timeout an attempt gets",
		field: func(p *Params, i int) any { return &p.Lanes[i].MinConnectTimeout }},
	{Name: "per_try_timeout", label: "timeout of each attempt", Lane: true, Scope: ScopeStrategy, Type: TypeDuration, Min: 0, Max: d(time.Hour), Unit: "s",
		Help:  "Envoy, Istio: every attempt's timeout, in place of the clients' timeout; 0 for the clients' (Envoy's default: none)",
		field: func(p *Params, i int) any { return &p.Lanes[i].PerTryTimeout }},
	{Name: "backoff_type", label: "growth of the wait", Lane: true, Scope: ScopeStrategy, Type: TypeEnum, Choices: strategies.PollyBackoffTypes(),
		Help:  "Polly: constant, linear or exponential growth of the wait (Polly's default: constant)",
		field: func(p *Params, i int) any { return &p.Lanes[i].BackoffType }},
	{Name: "use_jitter", label: "randomize the wait", Lane: true, Scope: ScopeStrategy, Type: TypeBool,
		Help:  "Polly: randomize the wait, ±25 % or decorrelated for exponential (Polly's default: false)",
		field: func(p *Params, i int) any { return &p.Lanes[i].UseJitter }},
	{Name: "cancel_on_timeout", label: "server drops abandoned requests", Lane: true, Scope: ScopeServer, Type: TypeBool,
		Help:  "the server drops a request when its client times out (deadline propagation, SRE book); off by default",
		field: func(p *Params, i int) any { return &p.Lanes[i].CancelOnTimeout }},
	{Name: "tiers", label: "layered retries: tiers below the client", Lane: true, Scope: ScopeServer, SimOnly: true, Type: TypeTiers,
		Help:  "layered retries: the tiers between the client and the server, each strategy:attempts:timeout[:limiter] with the lane's delays; empty: the client calls the server",
		field: func(p *Params, i int) any { return &p.Lanes[i].Tiers }},

	// The retry limiters, any of them on at once. Each has one switch, the
	// first of its rows: an enum whose default is off and whose other
	// values turn it on (on, or for the breaker the attempts it refuses).
	// Their defaults are the ones the systems they come from ship, with
	// the sources in their files of package strategies.
	{Name: "grpc_throttle", label: "gRPC retry throttling", Lane: true, Scope: ScopeLimiter, Type: TypeEnum, Choices: strategies.LimiterSwitch(),
		Help:  "gRPC retry throttling (gRFC A6): a token bucket; no retry while it is at most half full",
		field: func(p *Params, i int) any { return &p.Lanes[i].GRPCThrottle }},
	{Name: "grpc_max_tokens", label: "bucket size", Lane: true, Scope: ScopeLimiter, Switch: "grpc_throttle", Type: TypeFloat, Min: 0.001, Max: 1000, Unit: "tokens",
		Help:  "gRPC throttling: the bucket's size and start; a failed attempt takes 1 (gRFC A6's example: 10)",
		field: func(p *Params, i int) any { return &p.Lanes[i].GRPCMaxTokens }},
	{Name: "grpc_token_ratio", label: "tokens per success", Lane: true, Scope: ScopeLimiter, Switch: "grpc_throttle", Type: TypeFloat, Min: 0.001, Max: 1000, Unit: "tokens",
		Help:  "gRPC throttling: tokens a success adds, to three decimals, the rest dropped as gRPC drops them (gRFC A6's example: 0.1)",
		field: func(p *Params, i int) any { return &p.Lanes[i].GRPCTokenRatio }},
	{Name: "aws_quota", label: "AWS retry quota", Lane: true, Scope: ScopeLimiter, Type: TypeEnum, Choices: strategies.LimiterSwitch(),
		Help:  "AWS SDK retry quota (standard mode): a retry takes tokens; none left, no retry",
		field: func(p *Params, i int) any { return &p.Lanes[i].AWSQuota }},
	{Name: "aws_quota_tokens", label: "quota size", Lane: true, Scope: ScopeLimiter, Switch: "aws_quota", Type: TypeInt, Min: 1, Max: 1_000_000, Unit: "tokens",
		Help:  "AWS quota: its size and start (the AWS SDKs' 500)",
		field: func(p *Params, i int) any { return &p.Lanes[i].AWSQuotaTokens }},
	{Name: "aws_retry_cost", label: "tokens per retry after an error", Lane: true, Scope: ScopeLimiter, Switch: "aws_quota", Type: TypeInt, Min: 1, Max: 1_000_000, Unit: "tokens",
		Help:  "AWS quota: tokens a retry after an error takes, given back if it succeeds (aws-sdk-go-v2 v1.48.0's 14; 5 before)",
		field: func(p *Params, i int) any { return &p.Lanes[i].AWSRetryCost }},
	{Name: "aws_timeout_cost", label: "tokens per retry after a timeout", Lane: true, Scope: ScopeLimiter, Switch: "aws_quota", Type: TypeInt, Min: 1, Max: 1_000_000, Unit: "tokens",
		Help:  "AWS quota: tokens a retry after a timeout takes, given back if it succeeds (aws-sdk-go-v2 v1.48.0's 14, as after an error; 10 before)",
		field: func(p *Params, i int) any { return &p.Lanes[i].AWSTimeoutCost }},
	{Name: "aws_no_retry_increment", label: "tokens per first-try success", Lane: true, Scope: ScopeLimiter, Switch: "aws_quota", Type: TypeInt, Min: 0, Max: 1_000_000, Unit: "tokens",
		Help:  "AWS quota: tokens a success at the first attempt adds (the AWS SDKs' 1)",
		field: func(p *Params, i int) any { return &p.Lanes[i].AWSNoRetryIncrement }},
	{Name: "aws_adaptive", label: "AWS adaptive rate limiter", Lane: true, Scope: ScopeLimiter, Type: TypeEnum, Choices: strategies.LimiterSwitch(),
		Help:  "AWS SDK adaptive mode's rate limiter (FailOnNoAttemptTokens): on the first error answer, a throttle, every attempt needs a token",
		field: func(p *Params, i int) any { return &p.Lanes[i].AWSAdaptive }},
	{Name: "sre_throttle", label: "adaptive throttling", Lane: true, Scope: ScopeLimiter, Type: TypeEnum, Choices: strategies.LimiterSwitch(),
		Help:  "Google SRE book's adaptive throttling (Handling Overload): refuse any attempt locally with max(0, (requests − K·accepts)/(requests + 1))",
		field: func(p *Params, i int) any { return &p.Lanes[i].SREThrottle }},
	{Name: "sre_k", label: "accepts multiplier K", Lane: true, Scope: ScopeLimiter, Switch: "sre_throttle", Type: TypeFloat, Min: 1, Max: 100,
		Help:  "SRE throttling: K, the accepts' multiplier; lower refuses sooner (the SRE book's 2)",
		field: func(p *Params, i int) any { return &p.Lanes[i].SREK }},
	{Name: "sre_window", label: "history counted", Lane: true, Scope: ScopeLimiter, Switch: "sre_throttle", Type: TypeDuration, Min: d(time.Second), Max: d(time.Hour), Unit: "s",
		Help:  "SRE throttling: the history of requests and accepts counted (the SRE book's 2 min)",
		field: func(p *Params, i int) any { return &p.Lanes[i].SREWindow }},
	{Name: "retry_budget", label: "retry budget", Lane: true, Scope: ScopeLimiter, Type: TypeEnum, Choices: strategies.LimiterSwitch(),
		Help:  "Finagle retry budget: retries at most budget_percent of requests plus budget_min_per_sec",
		field: func(p *Params, i int) any { return &p.Lanes[i].RetryBudget }},
	{Name: "budget_percent", label: "share of requests retried", Lane: true, Scope: ScopeLimiter, Switch: "retry_budget", Type: TypeFloat, Min: 0, Max: 1000, Unit: "%",
		Help:  "retry budget: the share of requests that may be retried (Finagle's 20 %)",
		field: func(p *Params, i int) any { return &p.Lanes[i].BudgetPercent }},
	{Name: "budget_min_per_sec", label: "retries always allowed per second", Lane: true, Scope: ScopeLimiter, Switch: "retry_budget", Type: TypeInt, Min: 0, Max: 1_000_000, Unit: "retries/s",
		Help:  "retry budget: retries per second allowed whatever the requests (Finagle's 10)",
		field: func(p *Params, i int) any { return &p.Lanes[i].BudgetMinPerSec }},
	{Name: "budget_ttl", label: "budget memory", Lane: true, Scope: ScopeLimiter, Switch: "retry_budget", Type: TypeDuration, Min: d(time.Second), Max: d(time.Minute), Unit: "s",
		Help:  "retry budget: how long a request's deposit and a retry's withdrawal count (Finagle's 10 s)",
		field: func(p *Params, i int) any { return &p.Lanes[i].BudgetTTL }},
	{Name: "breaker", label: "circuit breaker", Lane: true, Scope: ScopeLimiter, Type: TypeEnum, Choices: strategies.BreakerModes(),
		Help:  "circuit breaker (Nygard, Release It!; resilience4j's defaults): all refuses every attempt while open, retries refuses retries only",
		field: func(p *Params, i int) any { return &p.Lanes[i].Breaker }},
	{Name: "breaker_threshold", label: "failure rate that opens it", Lane: true, Scope: ScopeLimiter, Switch: "breaker", Type: TypeFloat, Min: 1, Max: 100, Unit: "%",
		Help:  "breaker: the failure rate at or above which it opens (resilience4j's 50 %)",
		field: func(p *Params, i int) any { return &p.Lanes[i].BreakerThreshold }},
	{Name: "breaker_window", label: "outcomes counted", Lane: true, Scope: ScopeLimiter, Switch: "breaker", Type: TypeInt, Min: 1, Max: 100_000, Unit: "calls",
		Help:  "breaker: how many of the last outcomes the failure rate is over (resilience4j's 100)",
		field: func(p *Params, i int) any { return &p.Lanes[i].BreakerWindow }},
	{Name: "breaker_min_calls", label: "outcomes before it counts", Lane: true, Scope: ScopeLimiter, Switch: "breaker", Type: TypeInt, Min: 1, Max: 100_000, Unit: "calls",
		Help:  "breaker: outcomes needed before the rate counts (resilience4j's 100)",
		field: func(p *Params, i int) any { return &p.Lanes[i].BreakerMinCalls }},
	{Name: "breaker_open_for", label: "open for", Lane: true, Scope: ScopeLimiter, Switch: "breaker", Type: TypeDuration, Min: d(time.Millisecond), Max: d(24 * time.Hour), Unit: "s",
		Help:  "breaker: how long it stays open before it lets probes through (resilience4j's 60 s)",
		field: func(p *Params, i int) any { return &p.Lanes[i].BreakerOpenFor }},
	{Name: "breaker_probes", label: "half-open probes", Lane: true, Scope: ScopeLimiter, Switch: "breaker", Type: TypeInt, Min: 1, Max: 100_000, Unit: "calls",
		Help:  "breaker: attempts let through half-open, whose failure rate closes or reopens it (resilience4j's 10)",
		field: func(p *Params, i int) any { return &p.Lanes[i].BreakerProbes }},
	{Name: "envoy_retry_limit", label: "Envoy retry limit", Lane: true, Scope: ScopeLimiter, Type: TypeEnum, Choices: strategies.EnvoyRetryLimitModes(),
		choiceLabels: map[string]string{strategies.EnvoyMaxRetries: "a fixed number at once"},
		Help:         "Envoy cluster's limit on retries outstanding at once: its circuit breaker's max_retries, which every Envoy cluster has, or a retry budget",
		field:        func(p *Params, i int) any { return &p.Lanes[i].EnvoyRetryLimit }},
	{Name: "envoy_max_retries", label: "Envoy retries at once", Lane: true, Scope: ScopeLimiter, Switch: "envoy_retry_limit", Type: TypeInt, Min: 0, Max: 1_000_000, Unit: "req",
		Help:  "Envoy max_retries: retries outstanding at once, read without a budget (Envoy's default: 3)",
		field: func(p *Params, i int) any { return &p.Lanes[i].EnvoyMaxRetries }},
	{Name: "envoy_budget_percent", label: "Envoy budget share", Lane: true, Scope: ScopeLimiter, Switch: "envoy_retry_limit", Type: TypeFloat, Min: 0, Max: 100, Unit: "%",
		Help:  "Envoy retry budget: retries outstanding as a share of the requests in flight (Envoy's default: 20 %)",
		field: func(p *Params, i int) any { return &p.Lanes[i].EnvoyBudgetPercent }},
	{Name: "envoy_min_retry_concurrency", label: "Envoy budget floor", Lane: true, Scope: ScopeLimiter, Switch: "envoy_retry_limit", Type: TypeInt, Min: 0, Max: 1_000_000, Unit: "req",
		Help:  "Envoy retry budget: retries always allowed outstanding (Envoy's default: 3)",
		field: func(p *Params, i int) any { return &p.Lanes[i].EnvoyMinRetryConcurrency }},
}

// lanesParam is the parameter that sets the number of lanes. It stands apart
// from Table because it decides how the lane parameters are read.
var lanesParam = Param{Name: "lanes", label: "lanes", Scope: ScopeRun, Type: TypeInt, Min: 1, Max: MaxLanes, Unit: "lanes",
	Help: "number of lanes, each with its own strategy (default: the highest lane letter given, else 2)"}

// Lookup returns the parameter with the given name, with or without a lane
// letter ("clients", "a.factor" or "factor"), and the lane index or -1.
func Lookup(name string) (Param, int, bool) {
	switch name {
	case lanesParam.Name:
		return lanesParam, -1, true
	case changesParam.Name:
		return changesParam, -1, true
	}
	lane := -1
	if len(name) > 2 && name[1] == '.' {
		lane = strings.IndexByte(LaneNames, name[0])
		if lane < 0 {
			return Param{}, -1, false
		}
		name = name[2:]
	}
	for _, p := range Table {
		if p.Name == name && (p.Lane == (lane >= 0) || lane < 0) {
			return p, lane, true
		}
	}
	return Param{}, -1, false
}

// MustLookup is Lookup for a name written in the code, without a lane
// letter ("seed", "lanes"): it returns the parameter and panics when there
// is none, so that a package that keeps it in a variable fails at its
// start, and any caller in its first test.
func MustLookup(name string) Param {
	p, lane, ok := Lookup(name)
	if !ok || lane >= 0 {
		panic(fmt.Sprintf("scenario: no parameter %s", name))
	}
	return p
}

// Uses reports whether a lane whose strategy is strategy reads the parameter
// param (a name without a lane letter): the formula's parameters that
// strategies.Uses names, the limits unless the strategy is none (which never
// retries), the strategy itself, and every parameter of the other scopes,
// which no strategy decides. It is false for an unknown strategy or
// parameter.
func Uses(strategy, param string) bool {
	i := slices.IndexFunc(Table, func(p Param) bool { return p.Name == param })
	if _, ok := strategies.Defaults(strategy); !ok || i < 0 {
		return false
	}
	switch p := Table[i]; {
	case p.Name == "strategy":
		return true
	case p.Scope == ScopeStrategy:
		return strategies.Uses(strategy, param)
	case p.Scope == ScopeLimiter:
		return strategy != strategies.NameNone
	}
	return true
}

// ParamError reports a bad value for one parameter.
type ParamError struct {
	Name  string // the vocabulary name, with its lane letter
	Value string // the value as given
	Allow string // what the parameter accepts
	// Other is, for an error between two parameters (a lane's max_delay
	// below its min_delay), the same error from the other parameter's
	// side, so that a caller that knows which one the user set can name
	// that one; nil for an error of one parameter.
	Other *ParamError
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("%s: %q is not allowed (allowed: %s)", e.Name, e.Value, e.Allow)
}

// Allowed describes the values p accepts, for error messages and help.
func (p Param) Allowed() string {
	switch p.Type {
	case TypeEnum:
		return "one of " + strings.Join(p.Choices, ", ")
	case TypeBool:
		return "true or false"
	case TypeFaults:
		return FaultSyntax
	case TypeTiers:
		return TierSyntax
	case TypeChanges:
		return ChangesSyntax
	case TypeText:
		return "text: " + p.Help
	case TypeSeed:
		return fmt.Sprintf("a whole number from 0 to %d", uint64(math.MaxUint64))
	case TypeDuration:
		return fmt.Sprintf("a duration from %v to %v", time.Duration(p.Min), time.Duration(p.Max))
	case TypeInt:
		return fmt.Sprintf("a whole number from %d to %d", int64(p.Min), int64(p.Max))
	}
	return fmt.Sprintf("a number from %s to %s", fmtFloat(p.Min), fmtFloat(p.Max))
}

// Set parses raw, the value given for the parameter (or flag) called name,
// and stores it in ptr (*int, *float64, *time.Duration, *string, *bool,
// *uint64, *[]Fault or *[]Tier), checking p's range or choices. A bad value is a *ParamError
// naming name, raw and what p allows, and leaves ptr as it was.
func (p Param) Set(ptr any, name, raw string) error {
	var ok bool
	switch dst := ptr.(type) {
	case *int:
		n, err := strconv.ParseInt(raw, 10, 0)
		ok = setChecked(p, dst, int(n), err)
	case *float64:
		f, err := strconv.ParseFloat(raw, 64)
		ok = setChecked(p, dst, f, err)
	case *time.Duration:
		t, err := parseDuration(raw)
		if errors.Is(err, errFiner) {
			return &ParamError{Name: name, Value: raw, Allow: p.allowedWhere() + ", " + err.Error()}
		}
		ok = setChecked(p, dst, t, err)
	case *string:
		ok = setChecked(p, dst, raw, nil)
	case *bool:
		b, err := strconv.ParseBool(raw)
		ok = setChecked(p, dst, b, err)
	case *uint64:
		n, err := strconv.ParseUint(raw, 10, 64)
		ok = setChecked(p, dst, n, err)
	case *[]Fault:
		fs, err := ParseFaults(raw)
		if err != nil {
			return &ParamError{Name: name, Value: raw, Allow: err.Error() + "; " + FaultSyntax}
		}
		*dst = fs
		return nil
	case *[]Tier:
		ts, err := ParseTiers(raw)
		if err != nil {
			return &ParamError{Name: name, Value: raw, Allow: err.Error() + "; " + TierSyntax}
		}
		*dst = ts
		return nil
	case *[]Change:
		cs, err := ParseChanges(raw)
		if err != nil {
			return &ParamError{Name: name, Value: raw, Allow: err.Error() + "; " + ChangesSyntax}
		}
		*dst = cs
		return nil
	default:
		panic(fmt.Sprintf("scenario: Param.Set into %T", ptr))
	}
	if !ok {
		return &ParamError{Name: name, Value: raw, Allow: p.allowedWhere()}
	}
	return nil
}

// setChecked stores v, which parsing gave with err, in dst if p accepts it.
func setChecked[T any](p Param, dst *T, v T, err error) bool {
	if err != nil || !p.accepts(&v) {
		return false
	}
	*dst = v
	return true
}

// Check reports whether the value at ptr (as Set takes it) is one p
// accepts, without the text round trip of Encode and Parse. A bad value is a
// *ParamError naming name, the value as Encode writes it, and what p allows.
func (p Param) Check(ptr any, name string) error {
	if p.accepts(ptr) {
		return nil
	}
	allow := p.allowedWhere()
	// Which fault or tier, which field and why, as Set says it.
	switch v := ptr.(type) {
	case *[]Fault:
		allow = checkFaults(*v).Error() + "; " + allow
	case *[]Tier:
		allow = checkTiers(*v).Error() + "; " + allow
	}
	return &ParamError{Name: name, Value: format(ptr), Allow: allow}
}

// accepts reports whether the value at ptr is within p's range or among its
// choices; the comparisons are false for NaN.
func (p Param) accepts(ptr any) bool {
	in := func(v float64) bool { return v >= p.Min && v <= p.Max }
	switch v := ptr.(type) {
	case *int:
		return in(float64(*v))
	case *float64:
		return in(*v)
	case *time.Duration:
		return in(float64(*v))
	case *string:
		return p.Type == TypeText || slices.Contains(p.Choices, *v)
	case *bool:
		return true
	case *uint64:
		return in(float64(*v))
	case *[]Fault:
		return checkFaults(*v) == nil
	case *[]Tier:
		return checkTiers(*v) == nil
	}
	panic(fmt.Sprintf("scenario: Param.Check of %T", ptr))
}

// format writes the value at ptr the way Set reads it back.
func format(ptr any) string {
	switch v := ptr.(type) {
	case *int:
		return strconv.Itoa(*v)
	case *float64:
		return fmtFloat(*v)
	case *time.Duration:
		return v.String()
	case *string:
		return *v
	case *bool:
		return strconv.FormatBool(*v)
	case *uint64:
		return strconv.FormatUint(*v, 10)
	case *[]Fault:
		return FaultsText(*v)
	case *[]Tier:
		return TiersText(*v)
	case *[]Change:
		return ChangesText(*v)
	}
	panic(fmt.Sprintf("scenario: no format for %T", ptr))
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// Field returns a pointer to p's value in ps (lane i's for a lane
// parameter), for Set and Check: a program that reads some parameters its
// own way stores them where Parse would. p must be a row of Table, and ps
// must have lane i.
func (p Param) Field(ps *Params, i int) any { return p.field(ps, i) }

// Value returns p's value in ps (lane i for a lane parameter) as text. It
// takes every row Lookup returns: lanes, which no field of Params holds,
// is the number of ps's lanes.
func (p Param) Value(ps *Params, i int) string {
	if p.Name == lanesParam.Name {
		return strconv.Itoa(len(ps.Lanes))
	}
	return format(p.field(ps, i))
}

// Parse reads parameters from query values (a URL's query, or flags gathered
// by name). Values not given keep their defaults; a lane whose strategy is
// given starts from that strategy's defaults. The number of lanes is the
// value of lanes, else the highest lane letter given, else 2. Every bad value
// is reported, each as a *ParamError joined into the returned error.
func Parse(q url.Values) (Params, error) { return parse(q, Bounds{}) }

// parse is Parse within b (ParseWithin).
func parse(q url.Values, b Bounds) (Params, error) {
	p := Defaults()
	var errs []error
	lanes, highest := 0, -1
	for name, vals := range q {
		param, lane, ok := Lookup(name)
		switch {
		case !ok:
			errs = append(errs, &ParamError{Name: name, Value: strings.Join(vals, ","), Allow: "no such parameter"})
		case param.Name == lanesParam.Name:
			if err := param.Set(&lanes, name, last(vals)); err != nil {
				errs = append(errs, err)
			}
		case param.Lane && lane < 0:
			errs = append(errs, &ParamError{Name: name, Value: last(vals),
				Allow: "a lane letter in front, as in a." + name})
		default:
			highest = max(highest, lane)
		}
	}
	if lanes == 0 {
		lanes = len(p.Lanes)
		if highest >= 0 {
			lanes = highest + 1
		}
	}
	p.Lanes = make([]Lane, lanes)
	for i := range p.Lanes {
		p.Lanes[i] = DefaultLane(i)
		name := laneName(i, "strategy")
		if raw, ok := q[name]; ok {
			var s string
			if err := Table[indexOf("strategy")].Set(&s, name, last(raw)); err != nil {
				errs = append(errs, err)
				continue
			}
			def, _ := strategies.Defaults(s)
			p.Lanes[i].Params = def
		}
	}
	for name, vals := range q {
		param, lane, ok := Lookup(name)
		if !ok || param.Name == lanesParam.Name || (param.Lane && lane < 0) {
			continue
		}
		if lane >= len(p.Lanes) {
			errs = append(errs, &ParamError{Name: name, Value: last(vals),
				Allow: fmt.Sprintf("lanes a to %c only (lanes=%d)", LaneNames[len(p.Lanes)-1], len(p.Lanes))})
			continue
		}
		if param.Name == "strategy" { // read above, before the lane's defaults
			continue
		}
		if err := b.set(param, param.field(&p, lane), name, last(vals)); err != nil {
			errs = append(errs, err)
		}
	}
	for i := range p.Lanes {
		errs = delayOrder(errs, &p.Lanes[i], laneName(i, ""))
	}
	errs = faultsApart(errs, &p)
	if len(errs) == 0 && len(p.Changes) > 0 {
		if err := checkChanges(&p, b); err != nil {
			errs = append(errs, changesError(&p, err))
		}
	}
	if len(errs) > 0 {
		return Params{}, joinSorted(errs)
	}
	return p, nil
}

// faultsApart appends to errs an error if the scheduled outage (outage,
// outage_at, outage_for) overlaps an outage of faults, or if a herd of
// faults lasts 0s in an open loop (arrival), where its wave would be
// empty. It adds nothing when errs already reports one of them, as
// delayOrder does.
func faultsApart(errs []error, p *Params) []error {
	if slices.ContainsFunc(errs, func(e error) bool {
		switch e.(*ParamError).Name {
		case "faults", "outage", "outage_at", "outage_for":
			return true
		}
		return false
	}) {
		return errs
	}
	if err := outagesApart(AllFaults(p)); err != nil {
		errs = append(errs, &ParamError{Name: "faults", Value: FaultsText(p.Faults),
			Allow: err.Error() + " (the scheduled outage included)"})
	}
	if p.Arrival == ArrivalOpen {
		if err := herdsOpen(p.Faults); err != nil {
			errs = append(errs, &ParamError{Name: "faults", Value: FaultsText(p.Faults), Allow: err.Error()})
		}
	}
	return errs
}

// laneName returns the vocabulary name of lane i's parameter param.
func laneName(i int, param string) string { return LaneNames[i:i+1] + "." + param }

// delayOrder appends to errs an error if lane l's max_delay is below its
// min_delay, naming both with prefix in front ("a.", or "" for a program
// that runs one lane). It adds nothing when errs already reports either
// delay: the comparison would be with a bad value, or with the default that
// Parse kept in a bad one's place, and say a second time what is wrong.
func delayOrder(errs []error, l *Lane, prefix string) []error {
	minName, maxName := prefix+"min_delay", prefix+"max_delay"
	if l.MaxDelay >= l.MinDelay || slices.ContainsFunc(errs, func(e error) bool {
		n := e.(*ParamError).Name
		return n == minName || n == maxName
	}) {
		return errs
	}
	low := Table[indexOf("min_delay")].Min
	return append(errs, &ParamError{Name: maxName, Value: l.MaxDelay.String(),
		Allow: fmt.Sprintf("at least %s (%v)", minName, l.MinDelay),
		Other: &ParamError{Name: minName, Value: l.MinDelay.String(),
			Allow: fmt.Sprintf("a duration from %v to %s (%v)", time.Duration(low), maxName, l.MaxDelay)}})
}

// Encode writes every parameter of p, so that Parse(p.Encode()) equals p.
func (p Params) Encode() url.Values {
	q := url.Values{}
	q.Set(lanesParam.Name, strconv.Itoa(len(p.Lanes)))
	for _, param := range Table {
		if !param.Lane {
			q.Set(param.Name, param.Value(&p, 0))
			continue
		}
		for i := range p.Lanes {
			q.Set(laneName(i, param.Name), param.Value(&p, i))
		}
	}
	if len(p.Changes) > 0 {
		q.Set(changesParam.Name, ChangesText(p.Changes))
	}
	return q
}

// Validate checks every value of p against the table, and reports what
// Parse would of p's values written as text: every bad value, each as a
// *ParamError named as Encode names it, joined in the order of their names.
// Past MaxLanes lanes it reports the number of lanes, and checks the lanes
// that have a letter.
func (p Params) Validate() error {
	var errs []error
	n := len(p.Lanes)
	if n < 1 || n > MaxLanes {
		errs = append(errs, &ParamError{Name: lanesParam.Name, Value: strconv.Itoa(n), Allow: lanesParam.Allowed()})
	}
	lanes := make([]int, min(n, MaxLanes))
	for i := range lanes {
		lanes[i] = i
	}
	errs = p.check(errs, func(Param) bool { return true }, lanes, func(i int) string { return laneName(i, "") })
	if len(errs) == 0 && len(p.Changes) > 0 {
		if err := checkChanges(&p, Bounds{}); err != nil {
			errs = append(errs, changesError(&p, err))
		}
	}
	return joinSorted(errs)
}

// ValidateChanged reports what Validate would of p, whose values are ones
// Validate accepts but for those of the parameters named (vocabulary names,
// as Lookup reads them, with a lane letter for a lane's): it checks the
// named values against their rows, then the checks between parameters (a
// lane's delays, the faults' spacing), at a fraction of Validate's cost. It
// is for a program that sets a few typed values of parameters parsed once,
// such as a sweep's cells. A name that is not a parameter of one of p's
// lanes, or the number of lanes, is itself an error; the number of lanes is
// not checked (Validate does).
func (p Params) ValidateChanged(names ...string) error {
	var errs []error
	for _, name := range names {
		row, lane, ok := Lookup(name)
		switch {
		case !ok || row.Name == lanesParam.Name || (row.Lane && lane < 0) || lane >= len(p.Lanes):
			errs = append(errs, &ParamError{Name: name, Value: name,
				Allow: fmt.Sprintf("a parameter of Table, a lane's with the letter of one of the %d lanes", len(p.Lanes))})
		default:
			if err := row.Check(row.field(&p, max(lane, 0)), name); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for i := range min(len(p.Lanes), MaxLanes) {
		errs = delayOrder(errs, &p.Lanes[i], laneName(i, ""))
	}
	return joinSorted(faultsApart(errs, &p))
}

// ValidateLane checks, as Validate does, the values of p's rows of the given
// scopes for a program that runs lane alone, such as the real client or
// server: a lane row's value is lane's, and each error names its row
// without a lane letter, as that program's flags are named. max_delay is
// checked against min_delay when ScopeStrategy is among scopes.
func (p Params) ValidateLane(lane int, scopes ...Scope) error {
	in := func(param Param) bool { return slices.Contains(scopes, param.Scope) }
	return joinSorted(p.check(nil, in, []int{lane}, func(int) string { return "" }))
}

// check appends to errs an error for every value of p outside its row's
// range or choices, among the rows that keep accepts: a shared row's value,
// and a lane row's on each lane of lanes, named with prefix(lane) in front.
// When keep accepts both delays, it checks their order on those lanes too.
func (p *Params) check(errs []error, keep func(Param) bool, lanes []int, prefix func(int) string) []error {
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, param := range Table {
		switch {
		case !keep(param):
		case !param.Lane:
			add(param.Check(param.field(p, 0), param.Name))
		default:
			for _, i := range lanes {
				add(param.Check(param.field(p, i), prefix(i)+param.Name))
			}
		}
	}
	if keep(Table[indexOf("min_delay")]) && keep(Table[indexOf("max_delay")]) {
		for _, i := range lanes {
			errs = delayOrder(errs, &p.Lanes[i], prefix(i))
		}
	}
	if keep(Table[indexOf("faults")]) && keep(Table[indexOf("outage")]) {
		errs = faultsApart(errs, p)
	}
	return errs
}

func last(vals []string) string {
	if len(vals) == 0 {
		return ""
	}
	return vals[len(vals)-1]
}

func indexOf(name string) int {
	for i, p := range Table {
		if p.Name == name {
			return i
		}
	}
	panic("scenario: no parameter " + name)
}

// joinSorted joins parameter errors ordered by name, so messages are stable
// whatever the order of the map they came from; nil for none.
func joinSorted(errs []error) error {
	slices.SortStableFunc(errs, func(a, b error) int {
		return strings.Compare(a.(*ParamError).Name, b.(*ParamError).Name)
	})
	return errors.Join(errs...)
}

// Errors returns the parameter errors inside err, which Parse returned.
func Errors(err error) []*ParamError {
	var out []*ParamError
	var walk func(error)
	walk = func(e error) {
		switch e := e.(type) {
		case *ParamError:
			out = append(out, e)
		case interface{ Unwrap() []error }:
			for _, e := range e.Unwrap() {
				walk(e)
			}
		case interface{ Unwrap() error }:
			walk(e.Unwrap())
		}
	}
	walk(err)
	return out
}
