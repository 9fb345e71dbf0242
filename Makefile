# The one test command (README, .ci/run): make test
GO        ?= go
PKGS      ?= ./...
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
FUZZTIME  ?= 5m
# FUZZPARALLEL: fuzzing workers per target; empty means all cores (CI or a
# busy machine: make fuzz FUZZPARALLEL=1).
FUZZPARALLEL ?=
BIN       := bin/watchdog
# DEBUGTAGS builds the drills in (a journal write fault, a skew of the
# daemon's clock: see internal/daemon/clockskew.go); the tests and the
# chaos soak use them, the shipped binary (build, deb, app) never does.
DEBUGTAGS := -tags watchdogdebug
# Linux builds are static, as the .deb is (scripts/deb.sh): nothing there
# needs cgo (the tray is D-Bus in pure Go), and a binary without libc maps
# about 1.5 MB less. The macOS tray needs cgo; tests keep it too (-race).
BUILD_CGO ?= $(if $(filter Darwin,$(shell uname -s)),1,0)

.PHONY: all build deps test check vet fuzz bench bench-proxy bench-stdio bench-first-minute repro clean soak soak-short pictures test-long-stream hosts

all: build

build:
	CGO_ENABLED=$(BUILD_CGO) $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/watchdog

# deps installs everything the tests need: the missing Debian packages
# (scripts/deps-debian.sh), Go modules, the pinned TypeScript SDK
# servers and the pinned Python MCP peers under testdata, and the real hosts
# (scripts/deps-dsh.sh, deps-codex.sh, deps-gemini.sh, deps-claude.sh,
# deps-opencode.sh, deps-copilot.sh, deps-qwen.sh, deps-cline.sh; Crush's npm
# package fetches its binary from GitHub and the Go module proxy refuses it,
# so it is not installed).
deps:
	bash scripts/deps-debian.sh
	$(GO) mod download
	bash scripts/deps-node.sh
	bash scripts/deps-python.sh
	bash scripts/deps-dshclient.sh
	bash scripts/deps-dsh.sh
	bash scripts/deps-codex.sh
	bash scripts/deps-gemini.sh
	bash scripts/deps-claude.sh
	bash scripts/deps-opencode.sh
	bash scripts/deps-copilot.sh
	bash scripts/deps-qwen.sh
	bash scripts/deps-cline.sh

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo 'gofmt: files above need formatting'; exit 1; }
	$(GO) vet $(PKGS)
	$(GO) vet $(DEBUGTAGS) $(PKGS)
	GOOS=darwin CGO_ENABLED=0 $(GO) vet $(PKGS)
	$(GO) tool staticcheck $(PKGS)
	$(GO) tool staticcheck $(DEBUGTAGS) $(PKGS)

# Tests (fuzz seed corpora included) with the race detector, then the short
# chaos soak on its own, so its one-second detection bound is not measured
# on a machine busy with every other package's tests.
test: deps vet
	$(GO) test $(DEBUGTAGS) -race -count=1 -timeout 15m $$($(GO) list $(PKGS) | grep -v '/internal/testbed/soak$$')
	$(MAKE) --no-print-directory soak-short

# A change's check, on what make deps installed (it installs nothing):
# gofmt, vet and staticcheck, then the tests without the race detector and
# without the real hosts' rig and the soak. PKGS=./some/pkg/... narrows it.
check: vet
	$(GO) test $(DEBUGTAGS) -count=1 -timeout 15m $$($(GO) list $(PKGS) | grep -v -e '/internal/testbed/soak$$' -e '/internal/testbed/hosts$$')

# The chaos soak (internal/testbed/soak): real servers, clients and daemon under
# seeded faults, judged against the servers' own ground truth. SOAK_SEED
# replays a run; soak writes its figures to docs/SOAK-LATEST.md.
# soak-short replays one fixed schedule so a CI failure can be replayed
# as is; make soak draws a new one each run (both print theirs).
SOAK_SHORT ?= 2m30s
SOAK_LONG  ?= 30m
SOAK_SHORT_SEED ?= 1796033718940005853
soak-short:
	$(GO) test $(DEBUGTAGS) -race -count=1 -timeout 10m ./internal/testbed/soak -soak.duration=$(SOAK_SHORT) -soak.seed=$(or $(SOAK_SEED),$(SOAK_SHORT_SEED))

soak: deps
	$(GO) test $(DEBUGTAGS) -race -count=1 -timeout 60m -v ./internal/testbed/soak -soak.duration=$(SOAK_LONG) -soak.report=$(CURDIR)/docs/SOAK-LATEST.md $(if $(SOAK_SEED),-soak.seed=$(SOAK_SEED))

# A host's GET stream through the proxy held 30 minutes in real time (make
# test runs the same test with the proxy's clock moved 30 minutes instead).
test-long-stream:
	$(GO) test -race -count=1 -timeout 40m -run '^TestLongHeldStream$$' ./healer/proxy -args -stream-hold=30m

# Each fuzz target for FUZZTIME, one after another, then a summary line per
# target; fails when any target failed. Crashers land in the package's
# testdata/fuzz/<Target>/ and stay there as seed corpus entries.
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZPARALLEL=$(FUZZPARALLEL) bash scripts/fuzz.sh

# The host table on the real hosts (internal/testbed/hosts): each installed
# host x each real server (Go SDK, TS SDK, the 400 quirk) x (idle expiry,
# server restart) x (unpatched, patched, proxied), driven by a stand-in of
# the host's model API; no model, no network. It writes docs/HOSTS-LATEST.md
# (every cell) and the host table of docs/HOSTS.md (a line per host). About half
# an hour on 2 cores: 102 cells, three at a time.
# make test runs each older host's row on the Go SDK server only, and each
# newer host's adopted cell of the idle expiry.
# The stdio crash cells (TestStdioCrash: a stdio server killed -9 twice
# under each host, straight and through `watchdog hosts adopt`) add 16
# cells and a table of their own to docs/HOSTS-LATEST.md; make test runs
# the 8 straight ones (about 2 minutes more). Measured 2026-12-07 on 2
# cores: the whole target, 118 cells, in 15 minutes.
hosts: deps
	$(GO) test $(DEBUGTAGS) -race -count=1 -timeout 60m -parallel 3 -v -run '^Test(DSH|Codex|Gemini|Claude|Opencode|Copilot|Qwen|Cline|StdioCrash)' ./internal/testbed/hosts -args -hosts.matrix -hosts.report=$(CURDIR)/docs/HOSTS-LATEST.md -hosts.readme=$(CURDIR)/docs/HOSTS.md

# Benchmarks; the table lands in docs/BENCHMARKS.md.
bench: build
	bash scripts/bench.sh

# watchdog stdio's part of make bench alone (a few minutes): one message's
# added latency each way beside a bare pipe, its idle CPU and memory; it
# rewrites the stdio section of docs/BENCHMARKS.md.
bench-stdio: build
	bash scripts/bench-stdio.sh

# The first minute of make bench's larger idle row alone (about 4
# minutes): the daemon with 200 followed files and 50 servers that do not
# answer, over the minute after a 5 s settle, 3 runs; it rewrites the
# first-minute section of docs/BENCHMARKS.md.
bench-first-minute: build
	bash scripts/bench-first-minute.sh

# The proxy's part of make bench alone (about 25 minutes, not the hour of
# the whole): the watchdog's proxy beside nginx and HAProxy in front of
# the same servers, held sessions, and a CPU profile of the proxy; it
# rewrites the proxy section of docs/BENCHMARKS.md and docs/proxy-profile.txt.
bench-proxy: build
	bash scripts/bench-proxy.sh

# The client bug and its fix on real servers: STUCK unpatched, RECOVERED patched.
# The docs' pictures, from the tests' own runs: the timeline page as
# headless Chromium draws it, and the desktop (tray menu, a bubble on dunst).
pictures: deps
	$(GO) test -count=1 -run TestTimelineFitsAShortRun ./internal/timeline -timeline.png=$(CURDIR)/docs/timeline.png
	WATCHDOG_SCREENSHOT=$(CURDIR)/docs/screenshot-linux.png $(GO) test -count=1 -run TestDunstOneBubblePerIncident ./tray/e2e

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
