#!/usr/bin/env bash
# The proxy under load (make bench-proxy alone; make bench includes it):
# C sessions calling echo in a loop against the Go SDK server and a fast
# one (mark3labs/mcp-go), straight and through the real binary's proxy,
# alternated; then the memory of held idle sessions. Prints table rows.
# A perf profile of the watchdog under load (an unstripped build of the same
# code: the shipped one has no symbols) lands in $BENCH_OUT, not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
WATCHDOG=${WATCHDOG:-./bin/watchdog}
OUT=${BENCH_OUT:-bench-out}
WINDOW=${PROXY_WINDOW:-2s}
mkdir -p "$OUT"
db() { go run ./internal/testbed/bench/daemonbench -watchdog "$1" "${@:2}"; }
echo "bench: the proxy under load, 1/8/64 sessions, go-sdk and mcp-go servers" >&2
db "$WATCHDOG" -mode proxyload -window "$WINDOW" -rounds 2
echo "bench: idle host sessions held through the proxy (1,000 and 10,000)" >&2
db "$WATCHDOG" -mode proxyheld -held 1000,10000
if command -v perf >/dev/null; then
  echo "bench: a CPU profile of the watchdog's proxy, 8 sessions, mcp-go server -> $OUT/proxy-cpu.txt" >&2
  CGO_ENABLED=0 go build -trimpath -o "$OUT/watchdog-symbols" ./cmd/watchdog
  db "$OUT/watchdog-symbols" -mode proxyload -upstreams mcp-go -conc 8 -window 3s -rounds 1 \
    -perf "$OUT/proxy-cpu.txt" >/dev/null
else
  echo "bench: perf is not installed; no CPU profile of the proxy" >&2
fi
