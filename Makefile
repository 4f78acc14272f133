# The README's commands: `make run` serves the playground, `make test` runs the
# whole suite as CI does, `make check` is the quick loop while editing (no
# race detector, no browser, no long statistical or rate runs), `make bench`
# measures speed and memory, `make test-one PKG=./simengine` one package as
# make test runs it.
GO ?= go

.PHONY: run check test test-one generate bench fuzz

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
#
# What runs where, on the 2-core machine CI uses:
#
# 1. Every package under -race, without the browser tests. go test runs
#    the packages two at a time in the order it is given them, so the
#    longest under the detector go first (RACE_FIRST): a long package
#    left for the end ran alone there while the other core waited.
# 2. The browser tests, without -race: what they check is the pages, in
#    Chromium, which the detector does not watch, and the handlers they
#    drive run under -race in the web package's other tests. With CI=true
#    a missing Chromium fails them. They run three at a time, in one
#    Chromium (each its own server and browser context; the link crawl's
#    visits, each its own tab, share the same three places), and they wait
#    for states, not for times. The
#    phase is bound by the CPU, not by waiting: a page whose run plays
#    draws on a core of its own (more than three at a time is no faster),
#    so a test plays its run at full speed wherever what it checks does
#    not depend on the pace.
# 3. The rate test of 200 sessions measures wall time: it runs alone,
#    after them, not beside them; under -race it would measure the
#    detector.
# 4. The tests that skip under -race, without it: each calls
#    testrace.SkipUnder(t, why) in its own body, and NORACE_TESTS and
#    NORACE_PKGS are found from those calls, so no list is kept by hand
#    (TestRaceSkipsRunElsewhere checks that every test that skips runs
#    here or in a line of its own). They are the long statistical runs of
#    the queue, the long known-answer searches of the advice (the
#    package's and the command's), which would wait ten times as long for
#    the same answers (the advice's goroutines still run under the
#    detector in its shorter tests); the checks that an event allocates
#    nothing, which would count the detector's own allocations; and the
#    retry libraries' oracles and the configurations' round trips, long
#    samples drawn on the test's one goroutine, where the detector has
#    nothing to watch. Every test that starts goroutines of its own runs
#    under -race.
NORACE_FILES = $(shell grep -rlE --include='*_test.go' --exclude-dir=testdata '^\s+testrace\.SkipUnder' .)
NORACE_TESTS = $(shell awk '/^func /{n=""} /^func Test/{n=$$2; sub(/[^A-Za-z0-9_].*/,"",n)} /^[ \t]+testrace\.SkipUnder/{print n}' $(NORACE_FILES) | sort -u | paste -sd'|' -)
NORACE_PKGS = $(sort $(dir $(NORACE_FILES)))
RACE_FIRST = ./realexp ./simengine ./internal/cli ./web/playground ./sweep

test:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo 'gofmt: the files above need formatting'; exit 1; }
	$(GO) vet ./...
	$(GO) tool templ generate -check
	BACKOFFLAB_NO_BROWSER=1 $(GO) test -race -count=1 -timeout 20m $(RACE_FIRST) ./...
	$(GO) test -count=1 -timeout 10m -parallel 3 -run 'TestBrowser' ./web/...
	$(GO) test -count=1 -run '^TestManySessions$$' ./web/playground
	$(GO) test -count=1 -run '^($(NORACE_TESTS))$$' $(NORACE_PKGS)

# make test's lines for one package, PKG (make test-one PKG=./simengine):
# the lines whose tests the package does not hold run none.
test-one:
	@test -n "$(PKG)" || { echo 'usage: make test-one PKG=./simengine'; exit 2; }
	BACKOFFLAB_NO_BROWSER=1 $(GO) test -race -count=1 -timeout 20m $(PKG)
	$(GO) test -count=1 -timeout 10m -parallel 3 -run 'TestBrowser' $(PKG)
	$(GO) test -count=1 -run '^TestManySessions$$' $(PKG)
	$(GO) test -count=1 -run '^($(NORACE_TESTS))$$' $(PKG)

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

# One fuzz target a run (go test -fuzz takes one): the scenario's query and
# changes, each syntax libconfig reads (its seeds hold a recursive alias,
# alias bombs, control bytes) and every library's round trip, then the
# server's query and the playground's decoding.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 60s ./scenario
	$(GO) test -run '^$$' -fuzz '^FuzzChanges$$' -fuzztime 60s ./scenario
	$(GO) test -run '^$$' -fuzz '^FuzzYAML$$' -fuzztime 60s ./libconfig
	$(GO) test -run '^$$' -fuzz '^FuzzJSON$$' -fuzztime 60s ./libconfig
	$(GO) test -run '^$$' -fuzz '^FuzzINI$$' -fuzztime 60s ./libconfig
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 60s ./libconfig
	$(GO) test -run '^$$' -fuzz '^FuzzParseQuery$$' -fuzztime 60s ./web/kit
	$(GO) test -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime 60s ./web/playground
