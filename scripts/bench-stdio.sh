#!/usr/bin/env bash
# `watchdog stdio` beside a bare pipe (make bench-stdio alone; make bench
# runs it too): the same responder (it answers each 1 KiB request at once
# with 1 KiB) reached straight through a pipe and through the supervisor,
# in rounds of 500 round trips that alternate which goes first; each
# message carries its send time, so each way's latency is one message's
# (the goal's unit). Then the supervisor's CPU (every thread's, from
# schedstat) and wakeups over an idle window, and its resident memory.
# It writes the stdio section of docs/BENCHMARKS.md (between its
# stdio-bench markers). STDIO_ROUNDTRIPS and BENCH_IDLE set the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
WATCHDOG=${WATCHDOG:-./bin/watchdog}
ROUNDTRIPS=${STDIO_ROUNDTRIPS:-40000}
IDLE=${BENCH_IDLE:-60s}
DOC=docs/BENCHMARKS.md
# shellcheck source=scripts/docsection.sh
. scripts/docsection.sh
doc_markers "$DOC" stdio-bench || exit 2
measured=$(bench_commit)
load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench: watchdog stdio beside a bare pipe, $ROUNDTRIPS round trips each, then idle $IDLE" >&2
rows=$(go run ./internal/testbed/bench/daemonbench -watchdog "$WATCHDOG" -mode stdio -samples "$ROUNDTRIPS" -duration "$IDLE" -settle 10s)
bench_table "$DOC" stdio-bench bench-stdio "$measured" "$load0" "$rows"
