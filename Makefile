# The README's commands: `make run` serves the playground, `make test` runs the
# whole suite as CI does, `make bench` measures speed and memory.
GO ?= go

.PHONY: run test bench fuzz

run:
	$(GO) run .

test:
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./simengine
