package simengine

import "github.com/backofflab/backofflab/scenario"

// failure is what an outage kind does to a lane's server while it lasts:
// the seam for a failure kind. A new kind is one row of failures.
type failure struct {
	// admit is what a new attempt meets.
	admit admission
	// serves: the requests inside complete.
	serves bool
	// answers: their answers reach the clients.
	answers bool
	// drops: at its start the requests inside are lost, and their clients
	// get an error (the process died and its connections were reset).
	drops bool
}

// admission is what a new attempt meets at the server.
type admission uint8

const (
	// admitted: the request is inside at once.
	admitted admission = iota
	// backlogged: the connection waits in the accept backlog (while it has
	// room: beyond it the connect is dropped and the attempt times out),
	// and the backlog enters the server at once when the failure ends.
	backlogged
	// refused: the attempt fails at once with an error.
	refused
	// lost: the request never arrives; the attempt times out.
	lost
)

// failures are the outage kinds by their vocabulary name.
var failures = map[string]*failure{
	// 001's SIGSTOP: nothing completes, requests inside keep ageing, new
	// connections wait in the backlog and flood in on resume.
	scenario.OutagePause: {admit: backlogged},
	// The process dies: connections are refused, in-flight work is lost,
	// and the server restarts empty.
	scenario.OutageCrash: {admit: refused, drops: true},
	// The network drops everything: the server works on, idle, and its
	// answers are lost.
	scenario.OutagePartition: {admit: lost, serves: true},
}

// failureOf returns the failure of outage kind name, a pause for none (an
// outage started by hand when none is scheduled).
func failureOf(name string) *failure {
	if f, ok := failures[name]; ok {
		return f
	}
	return failures[scenario.OutagePause]
}
