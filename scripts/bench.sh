#!/usr/bin/env bash
# make bench: every performance goal measured in one run on this machine,
# printed as one table and kept in docs/BENCHMARKS.md. Missed goals are
# reported as missed, not tuned away.
set -euo pipefail
cd "$(dirname "$0")/.."
WATCHDOG=${WATCHDOG:-./bin/watchdog}
IDLE=${BENCH_IDLE:-60s}
# Idle is measured once the daemon has run this long: its backoffs (liveness
# of servers that do not answer, the re-scans behind file events) have
# reached their slow pace by then, as on a machine that has run for hours.
SETTLE=${BENCH_SETTLE:-100s}
export WATCHDOG
# The commit measured, read before anything is written: the table below is
# written into the tree, which would make a later look say -dirty.
measured=$(git describe --always --dirty 2>/dev/null || echo unknown)
rows=$(mktemp)
proxysec=$(mktemp)
trap 'rm -f "$rows" "$proxysec"' EXIT

bench() { go run ./internal/testbed/bench/daemonbench -watchdog "$WATCHDOG" "$@" >>"$rows"; }

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
echo "bench: idle, 20 files and 2 servers, $IDLE" >&2
bench -mode idle -files 20 -servers 2 -duration "$IDLE" -settle "$SETTLE"
echo "bench: idle, 200 files and 50 servers, $IDLE" >&2
bench -mode idle -files 200 -servers 50 -duration "$IDLE" -settle "$SETTLE"

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

PROXY_SECTION_OUT=$proxysec bash scripts/bench-proxy.sh

echo "bench: keep-warm over 200 idle timeouts of a 3 s server, with and without" >&2
bench -mode keepwarm -samples 200 -servers 20

echo "bench: loss → recovered with the patched client (10 runs per server)" >&2
bash scripts/repro.sh -runs 10 -markdown >>"$rows"
echo "bench: retried call after a session loss, the current patch (10 runs per server)" >&2
bash scripts/repro.sh -retry-bench -runs 10 -markdown -clients real >>"$rows"

cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
{
  echo "# Benchmarks"
  echo
  echo "Latest \`make bench\`, every row measured in the same run on the same machine."
  echo
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); commit $measured"
  echo "- machine: $(nproc) vCPU ($cpu), $(free -g | awk '/Mem:/ { print $2 }') GiB RAM, $(uname -sr)"
  echo "- $(go version)"
  echo
  echo "| measure | result | goal | verdict |"
  echo "|---|---|---|---|"
  cat "$rows"
  echo
  cat <<'PROXYHEAD'
## The proxy beside nginx and HAProxy

Every call of an adopted host goes through the watchdog's proxy, so it is measured against the
proxies people already trust, in front of the same servers in the same run: the official Go SDK's
server (`internal/testbed/demoserver`) and mark3labs/mcp-go's, each its own process; nginx-light
(1 worker, upstream `keepalive`, `proxy_http_version 1.1`, `proxy_buffering off`) and HAProxy (1
thread, `http-reuse always`), each a child process with its config, pid and logs in a temp
directory, configured as a user fronting an MCP server would (`internal/testbed/bench/daemonbench/frontends.go`).
A Go load generator keeps 1, 8 or 64 sessions calling the `echo` tool in a loop, each on its own
kept connection. Each proxy's window runs right after a straight window of its own, round after
round (the order turns each round), so what else the shared machine does touches both; *ratio* is
the median over the rounds of calls/s through the proxy over the straight window's. CPU per call
is each proxy's own processes' run time over its windows (every thread's, from
`/proc/PID/task/*/schedstat`: nginx's master and worker, HAProxy's process, the watchdog's),
divided by the calls it carried; *added* p50/p99 are its latency quantiles less the straight
windows' beside it; connections are those the server accepted during the proxy's windows. Goals,
per row: the watchdog's ratio at least nginx's and HAProxy's, its CPU per call and added p99 at
most nginx's.

PROXYHEAD
  echo '<!-- proxy-bench:begin (make bench-proxy writes this section) -->'
  cat "$proxysec"
  echo '<!-- proxy-bench:end -->'
  echo
  echo "## How idle cost grows"
  echo
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
  echo
  cat <<'MISSED'
## What the proxy goals this machine misses would take

- **Ratio ≥ 0.8 against mcp-go** (0.47–0.52 at 42f2864). mcp-go answers an echo in ~35 µs round trip;
  through the proxy a call crosses two more loopback TCP hops, each a write whose receive path the
  kernel runs in the writer's context plus a wakeup of the reader, and net/http's server and client
  on the watchdog's side: 26–35 µs of CPU a call, most of it syscalls and scheduling, not the proxy's
  own code (its functions' own time is under 1% of an in-process profile's samples). On 2 cores
  shared by load generator, server and watchdog, the ratio is (client + server) / (client + server
  + proxy): 0.8 needs the proxy at ≤ ~12 µs a call. That takes leaving net/http on the hot path (a
  small HTTP/1.1 reader and writer forwarding on kept connections with no goroutine handoff: the
  transport alone hands each call between three goroutines, the server starts a background reader
  per request), and at one session even that cannot add under ~9 µs of latency to a 35 µs round
  trip. Against the Go SDK server, which spends more per call, the ratio was met at 8 and 64
  sessions (1.02, 0.91) and 0.69 at one at 42f2864, and 0.76 / 0.73 / 0.86 at 74c8a5e: it swings
  with the machine around 0.8, and lifting it is the Go SDK CPU item below.
- **CPU ≤ 50 µs a call against the Go SDK server** (64–68 µs at 1 and 8 sessions, 40 at 64 at 42f2864;
  met against mcp-go at 26–35). The Go SDK answers each call as an SSE stream and writes the event and
  the stream's end apart, so the proxy wakes, reads and writes twice per call. It would take
  holding an event until the end arrives (a latency cost on real streams, and a hazard for a
  server's request to the host, which must not wait) or the net/http-free path above.
- **Added p99 at 8 sessions** is met in this run (0.48 ms mcp-go; the Go SDK's p99 is lower through
  the proxy) but swings with the machine's load from run to run; at 64 sessions the added p99 is
  queueing on 2 busy cores, not a goal.
- 1,000 held sessions are met at 7.2 KiB each, but most of it is the ~5 MB the burst of 32
  concurrent opens leaves in the Go heap (each further session costs 2.2 KiB); a run on a busier
  machine can land above 8 KiB. 10,000 sessions opened 32 at a time take ~36 s: each new session
  waits for a state file write that holds it (3 MiB at that count), shared with those opened
  meanwhile, on one processor.
MISSED
} >docs/BENCHMARKS.md
cat docs/BENCHMARKS.md
