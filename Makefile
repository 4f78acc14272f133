# The README's commands: `make run` serves the playground, `make test` runs the
# whole suite as CI does, `make check` is the quick loop while editing (no
# race detector, no browser, no long statistical or rate runs), `make bench`
# measures speed and memory.
GO ?= go

.PHONY: run check test generate bench fuzz

run:
	$(GO) run .

# -short skips the browser tests (even with CI=true) and the long runs;
# make test runs them all.
check:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo 'gofmt: the files above need formatting'; exit 1; }
	$(GO) vet ./...
	$(GO) tool templ generate -check
	$(GO) test -short -count=1 ./...

# Generated templ files are committed; the check fails when they are stale.
# The rate test of 200 sessions, the long statistical runs of the queue,
# the long known-answer searches of the advice (the package's and the
# command's) and the checks that an event allocates nothing skip under
# -race, whose slowdown the first would measure, the second and third
# would wait for and whose own allocations the fourth would count: they
# run without it, the first in a line of its own, the others in the last
# (the advice's goroutines still run under the detector in its shorter
# tests). So do the browser tests: what they
# check is the pages, in Chromium, which the detector does not watch, and
# under it they spent minutes waiting for the server's simulations; the
# handlers they drive run under -race in the web package's other tests.
# With CI=true a missing Chromium still fails the second run. The browser
# tests run three at a time (each its own server and Chromium; the link
# crawl's visits, each its own tab, share the same three places): most of
# their time is waiting for a run to play or a page to draw, and they wait
# for states, not for times, so a busy machine only slows them. The rate
# test measures wall time: it runs alone, after them, not beside them.
# The tests that skip under -race (each says why in its skip message),
# which the last line of test runs without it.
NORACE_TESTS = TestModelErlangC|TestEventsDoNotAllocate|TestTierEventsDoNotAllocate|TestParallelEventsDoNotAllocate|TestAdviceLanding|TestAdviceNeedsFactor|TestAdviceCurve|TestAdviceSameSeedSameAdvice|TestEstimateCost|TestWriteText|TestAdviseReproducedByRun|TestAdviseCurve|TestAdviseText|TestOracleAWSStandard|TestOracleAWSLegacy|TestOracleCenkalti|TestOracleClientGo|TestRoundTrip|TestLaneRoundTrip

# go test runs the packages two at a time in the order it is given them:
# the longest under -race first, so that none of them is left to run alone
# at the end while the other core waits.
RACE_FIRST = ./web/playground ./realexp ./simengine . ./web

test:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo 'gofmt: the files above need formatting'; exit 1; }
	$(GO) vet ./...
	$(GO) tool templ generate -check
	BACKOFFLAB_NO_BROWSER=1 $(GO) test -race -count=1 -timeout 20m $(RACE_FIRST) ./...
	$(GO) test -count=1 -timeout 10m -parallel 3 -run 'TestBrowser' ./web/...
	$(GO) test -count=1 -run '^TestManySessions$$' ./web/playground
	$(GO) test -count=1 -run '^($(NORACE_TESTS))$$' ./simengine ./advise ./strategies ./libconfig .

generate:
	$(GO) tool templ generate

# The last two lines measure two-lane runs with their lanes in parallel on
# one core and on two: the events/s of the second over the first's is the
# lanes' gain. GOMAXPROCS is set in the environment: go test's -cpu flag
# leaves it as it was.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	GOMAXPROCS=1 $(GO) test -run '^$$' -bench ParallelLanes ./simengine
	GOMAXPROCS=2 $(GO) test -run '^$$' -bench ParallelLanes ./simengine

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./scenario
