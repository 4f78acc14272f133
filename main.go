// Command backofflab shows why retry intervals matter: it simulates many
// clients retrying against one overloaded server and compares retry
// strategies side by side.
//
// Usage:
//
//	backofflab [-addr localhost:8080]  serve the playground
//	backofflab run [flags]             simulate and print the time series and verdicts
//	backofflab bands -seeds K [flags]  the same with K seeds: collapses and bands
//	backofflab contention [flags]      the AWS blog's contention study
//	backofflab map [flags]             a phase map: one run per cell of a grid, as CSV or JSON
//	backofflab map merge PART...       join the CSV parts of a sharded map
//	backofflab config import|export    a library's retry configuration as a lane, and back
//	backofflab delays [flags] [FILE]    a lane's wait before each retry, and where it gives up
//	backofflab advise [flags]          the retry settings that meet your goals, with their margin
//
// Run "backofflab run -h" for the flags: they are the parameter vocabulary.
package main

import "github.com/backofflab/backofflab/internal/cli"

// main is the program; its commands are in internal/cli.
func main() { cli.Main() }
