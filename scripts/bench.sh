#!/usr/bin/env bash
# make bench: every performance goal measured in one run on this machine,
# printed as one table and kept in docs/BENCHMARKS.md, between the page's
# markers (the prose around them is kept by hand). Missed goals are
# reported as missed, not tuned away.
set -euo pipefail
cd "$(dirname "$0")/.."
WATCHDOG=${WATCHDOG:-./bin/watchdog}
IDLE=${BENCH_IDLE:-60s}
# Idle is measured once the daemon has run this long: its backoffs (liveness
# of servers that do not answer, the re-scans behind file events) have
# reached their slow pace by then, as on a machine that has run for hours.
SETTLE=${BENCH_SETTLE:-100s}
# BENCH_PROXY=keep leaves the proxy's section of the page as its own run
# (make bench-proxy, which can run 100 rounds a row) wrote it, and skips
# that half hour.
PROXY=${BENCH_PROXY:-run}
[[ $PROXY == run || $PROXY == keep ]] || { echo "bench: BENCH_PROXY is run or keep, not $PROXY" >&2; exit 2; }
DOC=docs/BENCHMARKS.md
# shellcheck source=scripts/docsection.sh
. scripts/docsection.sh
# shellcheck source=scripts/restgate.sh
. scripts/restgate.sh
# Fail before an hour of measuring, not after: the page must have the
# markers its sections are written between.
for name in bench growth proxy-bench stdio-bench first-minute-bench; do
  doc_markers "$DOC" "$name" || exit 2
done
export WATCHDOG
# The commit measured, read before anything is written: the table below is
# written into the tree, which would make a later look say -dirty.
measured=$(bench_commit)
export BENCH_COMMIT=$measured # the sections the run writes are the same measure
rows=$(mktemp)
proxysec=$(mktemp)
head=$(mktemp)
growthsec=$(mktemp)
trap 'rm -f "$rows" "$proxysec" "$head" "$growthsec"' EXIT

bench() { go run ./internal/testbed/bench/daemonbench -watchdog "$WATCHDOG" "$@" >>"$rows"; }

# The rows of the daemon at rest come first, on a machine at rest
# (rest_gate): after the heavy rows below, an idle daemon costs this VM 2-3
# times as much for minutes, whichever build it is.
rest_gate
echo "bench: idle, 20 files and 2 servers, $IDLE" >&2
bench -mode idle -files 20 -servers 2 -duration "$IDLE" -settle "$SETTLE"
echo "bench: idle, 200 files and 50 servers, $IDLE" >&2
bench -mode idle -files 200 -servers 50 -duration "$IDLE" -settle "$SETTLE"

# The first minute of the larger idle row's daemon: its own section of
# the page (make bench-first-minute alone). Its own gate finds the machine
# as the idle rows left it: at rest.
bash scripts/bench-first-minute.sh >/dev/null

# scan_row SHAPE TITLE: scan vs grep on one generated log shape; a count
# that differs from grep's fails the row whatever the speed.
scan_row() {
  local scan
  scan=$(BENCH_SHAPE=$1 bash scripts/bench-scan.sh)
  val() { awk -v k="$1" '$1 == k { print $2; exit }' <<<"$scan"; }
  local ratio verdict
  ratio=$(val scan_vs_grep_ratio)
  verdict=$(awk -v r="$ratio" -v m="$(val counts_match)" 'BEGIN { print (r >= 2.0 && m == "yes") ? "met" : "**missed**" }')
  echo "| \`watchdog scan\` vs \`grep -F -c\`, same literals, same file: $2, median of $(awk '$1 == "file" { for (i = 1; i < NF; i++) if ($i == "runs") print $(i+1) }' <<<"$scan") paired runs | ratio ${ratio} (grep $(val grep_seconds)s, scan $(val scan_seconds)s; cpu ratio $(val scan_vs_grep_cpu_ratio)); counted $(val scan_count) lines, grep $(val grep_count) | ≥ 2×, same count as grep | $verdict |" >>"$rows"
}
echo "bench: scan vs grep, the generated 1 GiB log" >&2
scan_row long "the generated 1 GiB log (one hit in 40,000 lines)"
echo "bench: scan vs grep, 256 MiB of short lines" >&2
scan_row short "256 MiB of ~80-byte lines from a dozen templates (one hit in 2,000)"

echo "bench: a 50 MB session store and one at the 8 MiB cap" >&2
store=$(go test -run '^$' -bench BenchmarkReadLargeStore -benchtime=3x ./monitor/store)
metric() { awk -v b="BenchmarkReadLargeStore/$1" -v u="$2" 'index($1, b) == 1 { for (i = 3; i < NF; i++) if ($(i+1) == u) { print $i; exit } }' <<<"$store"; }
peak=$(metric at_cap peak-heap-MB)
verdict=$(awk -v p="$peak" 'BEGIN { print (p != "" && p + 0 <= 64) ? "met" : "**missed**" }')
echo "| session store read: 50 MB (refused by size) / at the 8 MiB cap (streamed, 10,000 sessions kept) | 50 MB: $(metric 50MB B/op) B, $(metric 50MB allocs/op) allocs; at cap: peak heap ${peak} MB, $(metric at_cap B/op) B allocated, $(metric at_cap ns/op) ns | peak heap ≤ 64 MB (a 50 MB store once cost 800 MB RSS) | $verdict |" >>"$rows"

echo "bench: the timeline page of a 7-day journal of 10,000 events" >&2
tl=$(go test -run '^$' -bench BenchmarkTimelineWeek -benchtime=5x ./internal/timeline)
tlns=$(awk '$1 ~ /^BenchmarkTimelineWeek/ { print $3; exit }' <<<"$tl")
verdict=$(awk -v n="$tlns" 'BEGIN { print (n != "" && n + 0 < 2e9) ? "met" : "**missed**" }')
echo "| \`watchdog timeline\`: build and render 7 days, 10,000 events (in process) | $(awk -v n="$tlns" 'BEGIN { printf "%.0f ms", n / 1e6 }') per page | < 2 s | $verdict |" >>"$rows"

echo "bench: line → journal latency" >&2
bench -mode latency -samples 1000
echo "bench: line → journal latency, following 200 files and 50 servers" >&2
bench -mode latency -samples 1000 -files 200 -servers 50
echo "bench: store → session_expired latency" >&2
bench -mode store -samples 1000
# The floor under the idle rows: the binary itself, doing nothing. Its
# pages are mapped as the program touches them, and on this kernel most
# of a 17 MB Go binary is touched before main runs.
floor=$(python3 -c 'import resource, subprocess, sys
subprocess.run([sys.argv[1], "version"], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$WATCHDOG")
echo "| \`watchdog version\`: the binary's own pages, nothing running (peak RSS) | $(awk -v k="$floor" 'BEGIN { printf "%.1f MB", k / 1024 }') ($(du -m "$WATCHDOG" | cut -f1) MB binary) | none: the floor under the idle rows | — |" >>"$rows"

echo "bench: a flood of 1M log lines, half loss lines, notifications on" >&2
bench -mode flood -lines 1000000

echo "bench: how idle cost grows: 2 to 200 servers, 20 to 2,000 files, ${GROWTH:-30s} each" >&2
growth=$(go run ./internal/testbed/bench/daemonbench -watchdog "$WATCHDOG" -mode growth -duration "${GROWTH:-30s}" -settle "$SETTLE")

echo "bench: a call through the proxy against the same call straight to the server" >&2
px=$(go test -run '^$' -bench BenchmarkProxyAddedLatency -benchtime=1x ./healer/proxy)
pm() { awk -v u="$1" '$1 ~ /^BenchmarkProxyAddedLatency/ { for (i = 3; i < NF; i++) if ($(i+1) == u) { print $i; exit } }' <<<"$px"; }
added=$(pm added-p50-ms)
verdict=$(awk -v a="$added" 'BEGIN { print (a != "" && a + 0 <= 1) ? "met" : "**missed**" }')
echo "| a tool call through the proxy vs straight to the Go SDK server, loopback, 1,000 calls each way, alternated | added p50 ${added} ms, p99 $(pm added-p99-ms) ms (straight: p50 $(pm direct-p50-ms), p99 $(pm direct-p99-ms) ms; through the proxy: p50 $(pm proxy-p50-ms), p99 $(pm proxy-p99-ms) ms); $(pm proxy-calls/s) calls/s one at a time | added p50 ≤ 1 ms | $verdict |" >>"$rows"

# watchdog stdio beside a bare pipe: its own section of the page.
bash scripts/bench-stdio.sh >/dev/null

if [[ $PROXY == run ]]; then
  PROXY_SECTION_OUT=$proxysec bash scripts/bench-proxy.sh
fi

echo "bench: keep-warm over 200 idle timeouts of a 3 s server, with and without" >&2
bench -mode keepwarm -samples 200 -servers 20

echo "bench: loss → recovered with the patched client (10 runs per server)" >&2
bash scripts/repro.sh -runs 10 -markdown >>"$rows"
echo "bench: retried call after a session loss, the current patch (10 runs per server)" >&2
bash scripts/repro.sh -retry-bench -runs 10 -markdown -clients real >>"$rows"

cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
{
  if [[ $PROXY == run ]]; then
    echo "Latest \`make bench\`, every row measured in the same run on the same machine."
  else
    echo "Latest \`make bench\` (BENCH_PROXY=keep), every row of this table and of [how idle cost grows](#how-idle-cost-grows)"
    echo "measured in the same run on the same machine; the proxy's section is from the run it names."
  fi
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); commit $measured"
  echo "- machine: $(nproc) vCPU ($cpu), $(free -g | awk '/Mem:/ { print $2 }') GiB RAM, $(uname -sr); load before the idle rows $rest_load (they run first, at rest)"
  echo "- $(go version)"
  echo
  echo "| measure | result | goal | verdict |"
  echo "|---|---|---|---|"
  cat "$rows"
} >"$head"
{
  echo "Headless idle, ${GROWTH:-30s} each after $SETTLE running: CPU (share of one core), RSS, wakeups a"
  echo "minute (context switches of all threads). Servers do not answer, as ones down for hours would not."
  echo
  echo "$growth"
  echo
  echo "How each is measured: \`scripts/bench-scan.sh\` (scan, the median of 7 paired runs from the page"
  echo "cache, grep first in each pair; the counts must match grep's) and \`internal/testbed/bench/daemonbench\` (the real binary as a subprocess: latency is the journal"
  echo "event's own time minus the moment the line or store was written; CPU is every thread's run time"
  echo "from /proc/PID/task/*/schedstat over the window, once the daemon has run $SETTLE; RSS is VmRSS at its"
  echo "end, split into anon (heap and stacks: what the daemon allocates) and file (the binary's own pages"
  echo "as the kernel mapped them; \`watchdog version\` shows that floor); wakeups are the threads' context"
  echo "switches). The session store row is"
  echo "\`BenchmarkReadLargeStore\` (monitor/store): store.Load in process; peak heap is the live heap sampled"
  echo "every 100 µs during one read, above what it was before."
} >"$growthsec"
# The page's prose (what the figures mean, what was found) is kept by
# hand around the sections measured here.
doc_section "$DOC" bench "$head"
doc_section "$DOC" growth "$growthsec"
if [[ $PROXY == run ]]; then
  doc_section "$DOC" proxy-bench "$proxysec"
fi
cat "$head"
echo "bench: wrote $DOC" >&2
