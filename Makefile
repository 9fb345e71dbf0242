# The one test command (README, .ci/run): make test
GO        ?= go
PKGS      ?= ./...
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
FUZZTIME  ?= 60s
BIN       := bin/watchdog

.PHONY: all build deps test vet fuzz bench repro clean

all: build

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/watchdog

# deps installs everything the tests need: Go modules and the pinned
# TypeScript SDK servers under testdata (Debian packages: see .ci/run).
deps:
	$(GO) mod download
	bash scripts/deps-node.sh
	bash scripts/deps-dshclient.sh

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet $(PKGS)
	GOOS=darwin CGO_ENABLED=0 $(GO) vet $(PKGS)

# Tests (fuzz seed corpora included) with the race detector.
test: deps vet
	$(GO) test -race -count=1 -timeout 15m $(PKGS)

# Each fuzz target for FUZZTIME; crashers land in the package's testdata/fuzz.
fuzz:
	FUZZTIME=$(FUZZTIME) bash scripts/fuzz.sh

# Benchmarks; the table lands in docs/BENCHMARKS.md.
bench: build
	bash scripts/bench.sh

# The client bug and its fix on real servers: STUCK unpatched, RECOVERED patched.
repro: deps
	bash scripts/repro.sh

# dist/mcp-watchdog_<version>_amd64.deb (nfpm via go run; see scripts/deb.sh).
.PHONY: deb app
deb:
	VERSION=$(VERSION) COMMIT=$(COMMIT) bash scripts/deb.sh

# build/MCP Session Watchdog.app from a darwin/arm64 build (no tray without cgo).
app:
	VERSION=$(VERSION) COMMIT=$(COMMIT) bash scripts/macos-app.sh

clean:
	rm -rf bin
