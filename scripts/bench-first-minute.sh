#!/usr/bin/env bash
# The first minute (make bench-first-minute alone, a few minutes; make bench
# runs it too): the daemon of the larger idle row (200 followed files, 50
# servers that do not answer), headless, measured over the minute after a
# short settle, when its start-up re-checks, first liveness checks and first
# trims fall, rather than after 1 min 40 s as the idle rows are. CPU counts
# the processes the daemon starts (and waits for) beside its own threads.
# Each run is a new daemon; the verdict is the median run's. It writes the
# first-minute section of docs/BENCHMARKS.md (between its
# first-minute-bench markers). FIRST_MINUTE_RUNS, FIRST_MINUTE_SETTLE set
# the sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
WATCHDOG=${WATCHDOG:-./bin/watchdog}
RUNS=${FIRST_MINUTE_RUNS:-3}
SETTLE=${FIRST_MINUTE_SETTLE:-5s}
DOC=docs/BENCHMARKS.md
# shellcheck source=scripts/docsection.sh
. scripts/docsection.sh
# shellcheck source=scripts/restgate.sh
. scripts/restgate.sh
doc_markers "$DOC" first-minute-bench || exit 2
measured=$(bench_commit)
rest_gate # a daemon at rest is measured on a machine at rest
load0=$rest_load
echo "bench: the first minute after $SETTLE, 200 files and 50 servers, $RUNS runs" >&2
row=$(go run ./internal/testbed/bench/daemonbench -watchdog "$WATCHDOG" -mode firstminute -files 200 -servers 50 -samples "$RUNS" -duration 60s -settle "$SETTLE")
bench_table "$DOC" first-minute-bench bench-first-minute "$measured" "$load0" "$row"
