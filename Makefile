# toolbus — build, test, benchmark, lint.
GO       ?= go
BIN      ?= bin
FUZZTIME ?= 10s

.PHONY: all build test test-short fuzz-smoke fuzz bench lint

all: lint build test

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# The full suite: unit, in-process and end-to-end tests, then a short run of
# every fuzz target (longer runs: make fuzz FUZZTIME=5m).
test: lint
	$(GO) test -count=1 ./...
	$(MAKE) fuzz-smoke

test-short:
	$(GO) test -count=1 -short ./...

fuzz-smoke:
	$(GO) test -run='^$$' -fuzz='^FuzzParseAuthorization$$' -fuzztime=$(FUZZTIME) ./nip98/

fuzz: fuzz-smoke

# Benchmarks against a bare khatru relay measured in the same run.
bench:
	$(GO) run ./cmd/toolbus bench

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
