# toolbus — build, test, benchmark, lint.
GO       ?= go
BIN      ?= bin
FUZZTIME ?= 10s
# Signatures are verified with go-nostr's vendored libsecp256k1 (cgo; needs
# only gcc): 2.6x faster than pure Go here, and signature work dominates
# every tool call. `make TAGS=` builds pure Go.
TAGS     ?= libsecp256k1
GOTAGS    = $(if $(TAGS),-tags $(TAGS))

.PHONY: all build test test-short race fuzz-smoke fuzz fuzz-targets bench bench-quick lint

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

# fuzz-smoke budgets executions, not seconds: with a duration, Go 1.26's
# fuzz coordinator can report a spurious "context deadline exceeded" when
# the deadline races a busy worker (go.dev/issue/75804, fixed in Go 1.27),
# which a loaded CI machine hits. Crypto-heavy targets get fewer runs.
FUZZN     ?= 20000x
FUZZN_ECC ?= 5000x
fuzz-smoke:
	$(MAKE) fuzz-targets FUZZ_FAST=$(FUZZN) FUZZ_ECC=$(FUZZN_ECC)

# make fuzz: every target for FUZZTIME each (default 10s; e.g. FUZZTIME=5m).
fuzz:
	$(MAKE) fuzz-targets FUZZ_FAST=$(FUZZTIME) FUZZ_ECC=$(FUZZTIME)

fuzz-targets:
	$(GO) test $(GOTAGS) -run='^$$' -fuzz='^FuzzParseAuthorization$$' -fuzztime=$(FUZZ_FAST) ./nip98/
	$(GO) test $(GOTAGS) -run='^$$' -fuzz='^FuzzSubIndex$$' -fuzztime=$(FUZZ_FAST) ./relay/
	$(GO) test $(GOTAGS) -run='^$$' -fuzz='^FuzzReqFilter$$' -fuzztime=$(FUZZ_ECC) ./relay/
	$(GO) test $(GOTAGS) -run='^$$' -fuzz='^FuzzUnwrap$$' -fuzztime=$(FUZZ_ECC) ./bus/
	$(GO) test $(GOTAGS) -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZ_FAST) ./bus/
	$(GO) test $(GOTAGS) -run='^$$' -fuzz='^FuzzDecodeMatchesSDK$$' -fuzztime=$(FUZZ_FAST) ./bus/
	$(GO) test $(GOTAGS) -run='^$$' -fuzz='^FuzzVerify$$' -fuzztime=$(FUZZ_ECC) ./signer/gitsig/
	$(GO) test $(GOTAGS) -run='^$$' -fuzz='^FuzzText$$' -fuzztime=$(FUZZ_FAST) ./mcpadapter/sanitize/
	$(GO) test $(GOTAGS) -run='^$$' -fuzz='^FuzzWrap$$' -fuzztime=$(FUZZ_FAST) ./mcpadapter/sanitize/

# Benchmarks against a bare khatru relay measured in the same run.
bench:
	$(GO) run $(GOTAGS) ./cmd/toolbus bench

# The short run CI makes: every suite end to end in about a minute. It fails
# only when something misbehaved while measuring, never on a number.
bench-quick:
	$(GO) run $(GOTAGS) ./cmd/toolbus bench --quick

lint:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(GOTAGS) ./...
