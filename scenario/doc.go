// Package scenario is backofflab's vocabulary: the parameters of a run with
// their one snake_case name, range, unit and meaning (Table), read alike by
// the command line, the URL, the WebSocket, the CSV and the JSON; the
// outage kinds; 001's latency curve; the time series' columns (Tick); and
// the outcome of a lane (Summary) with the rules that judge it (Detector).
// The simulator (simengine), the real experiment (realexp) and the
// playground (web) all speak it; it knows none of them.
package scenario
