# toolbus — build, test, benchmark, lint.
GO       ?= go
BIN      ?= bin
FUZZTIME ?= 10s
# Signatures are verified with go-nostr's vendored libsecp256k1 (cgo; needs
# only gcc): 2.6x faster than pure Go here, and signature work dominates
# every tool call. `make TAGS=` builds pure Go.
TAGS     ?= libsecp256k1
GOTAGS    = $(if $(TAGS),-tags $(TAGS))

.PHONY: all build test test-short race fuzz-smoke fuzz bench lint

all: lint build test

build:
	$(GO) build $(GOTAGS) -o $(BIN)/ ./cmd/...

# The full suite: unit, in-process and end-to-end tests, then a short run of
# every fuzz target (longer runs: make fuzz FUZZTIME=5m).
test: lint
	$(GO) test $(GOTAGS) -count=1 ./...
	$(MAKE) race
	$(MAKE) fuzz-smoke

# The concurrency-heavy tests again under the race detector (raw websocket
# clients, so what it reports is toolbus's).
race:
	$(GO) test $(GOTAGS) -race -count=1 -run 'TestSubscriptionChurn|TestStuckSubscriber|TestPlaintextBus|TestGiftWrap|TestMailbox' ./relay/
	$(GO) test $(GOTAGS) -race -count=1 ./bus/

test-short:
	$(GO) test $(GOTAGS) -count=1 -short ./...

fuzz-smoke:
	$(GO) test -run='^$$' -fuzz='^FuzzParseAuthorization$$' -fuzztime=$(FUZZTIME) ./nip98/
	$(GO) test -run='^$$' -fuzz='^FuzzSubIndex$$' -fuzztime=$(FUZZTIME) ./relay/
	$(GO) test -run='^$$' -fuzz='^FuzzUnwrap$$' -fuzztime=$(FUZZTIME) ./bus/
	$(GO) test -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZTIME) ./bus/
	$(GO) test -run='^$$' -fuzz='^FuzzVerify$$' -fuzztime=$(FUZZTIME) ./signer/gitsig/
	$(GO) test -run='^$$' -fuzz='^FuzzText$$' -fuzztime=$(FUZZTIME) ./mcpadapter/sanitize/
	$(GO) test -run='^$$' -fuzz='^FuzzWrap$$' -fuzztime=$(FUZZTIME) ./mcpadapter/sanitize/

fuzz: fuzz-smoke

# Benchmarks against a bare khatru relay measured in the same run.
bench:
	$(GO) run $(GOTAGS) ./cmd/toolbus bench

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(GOTAGS) ./...
