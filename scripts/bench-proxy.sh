#!/usr/bin/env bash
# The proxy under load (make bench-proxy alone; make bench includes it):
# the same servers (the Go SDK's and mark3labs/mcp-go's) behind the
# watchdog's proxy, nginx and HAProxy in one run, each proxy's windows
# interleaved with straight ones (daemonbench -mode proxycompare); then
# the memory of held idle sessions; then a CPU profile of the proxy at 64
# concurrent calls (perf, an unstripped build of the same code: the
# shipped one has no symbols), kept in docs/proxy-profile.txt.
#
# It writes the proxy section of docs/BENCHMARKS.md (between its
# proxy-bench markers), or, with PROXY_SECTION_OUT set, that file
# (make bench writes it between the same markers).
# PROXY_WINDOW and PROXY_ROUNDS set each window's length and the rounds:
# 24 of 2s, because one round on this 2-core machine moves from 0.66 to
# 1.20 (a proxied window faster than its straight one), so the median of
# 5 rounds of 3s moved by up to 0.13 between two runs, more than the
# gaps between the proxies it is to tell apart; more, shorter rounds
# narrow the median. A round is a straight window and one through each
# proxy (about 8.5 s), so 24 rounds take about 3.5 minutes a row. Two
# proxies' windows in one round differ by about 0.1 (as a ratio) with no
# difference between them at all (two processes of the same build), so
# a median of n rounds moves by about 0.12/sqrt(n) (one standard error):
# PROXY_ROUNDS=100 (about 1.5 hours) takes that to about 0.012.
# A part of it alone (a subset prints its section and writes no file):
# PROXY_SERVERS (go-sdk,mcp-go), PROXY_CONC (1,8,64), and PROXY_PARTS
# (compare,held,profile), e.g. PROXY_SERVERS=mcp-go PROXY_PARTS=compare.
set -euo pipefail
cd "$(dirname "$0")/.."
WATCHDOG=${WATCHDOG:-./bin/watchdog}
OUT=${BENCH_OUT:-bench-out}
WINDOW=${PROXY_WINDOW:-2s}
ROUNDS=${PROXY_ROUNDS:-24}
SERVERS=${PROXY_SERVERS:-go-sdk,mcp-go}
CONC=${PROXY_CONC:-1,8,64}
PARTS=${PROXY_PARTS:-compare,held,profile}
subset=
[[ $SERVERS == go-sdk,mcp-go && $CONC == 1,8,64 && $PARTS == compare,held,profile ]] || subset=1
part() { [[ ,$PARTS, == *,$1,* ]]; }
DOC=docs/BENCHMARKS.md
PROFILE=docs/proxy-profile.txt
mkdir -p "$OUT"
# shellcheck source=scripts/docsection.sh
. scripts/docsection.sh
# The commit measured, read before anything is written into the tree.
measured=$(bench_commit)
section=$(mktemp)
trap 'rm -f "$section"' EXIT
db() { go run ./internal/testbed/bench/daemonbench -watchdog "$1" "${@:2}"; }

cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
{
  echo "Measured by \`make bench-proxy\` on $(date -u +%Y-%m-%dT%H:%MZ) at commit $measured, $(nproc) vCPU ($cpu), $(uname -sr), $(go version | cut -d' ' -f3)."
  echo
  if part compare; then
    echo "bench: the watchdog's proxy, nginx and HAProxy in front of the $SERVERS servers, $CONC concurrent calls" >&2
    db "$WATCHDOG" -mode proxycompare -upstreams "$SERVERS" -conc "$CONC" -window "$WINDOW" -rounds "$ROUNDS"
    echo
  fi
  if part held; then
    echo "bench: idle host sessions held through the proxy (1,000 and 10,000)" >&2
    echo "| held idle sessions | result | goal | verdict |"
    echo "|---|---|---|---|"
    db "$WATCHDOG" -mode proxyheld -held 1000,10000
  fi
} >"$section"

if [[ -n $subset ]]; then
  if part profile && command -v perf >/dev/null; then
    CGO_ENABLED=0 go build -trimpath -o "$OUT/watchdog-symbols" ./cmd/watchdog
    db "$OUT/watchdog-symbols" -mode proxyprofile -upstreams "${SERVERS##*,}" -conc "${CONC##*,}" -window 5s -perf "$OUT/proxy-profile.txt"
    echo "bench-proxy: the profile is in $OUT/proxy-profile.txt" >&2
  fi
  cat "$section"
  [[ -z ${PROXY_SECTION_OUT:-} ]] || cp "$section" "$PROXY_SECTION_OUT"
  echo "bench-proxy: a part of the bench (PROXY_SERVERS, PROXY_CONC or PROXY_PARTS set): $DOC and $PROFILE left as they are" >&2
  exit 0
fi

if command -v perf >/dev/null; then
  echo "bench: a CPU profile of the watchdog's proxy, 64 concurrent calls, mcp-go server -> $PROFILE" >&2
  CGO_ENABLED=0 go build -trimpath -o "$OUT/watchdog-symbols" ./cmd/watchdog
  db "$OUT/watchdog-symbols" -mode proxyprofile -upstreams mcp-go -conc 64 -window 5s -perf "$OUT/proxy-profile.txt"
  { echo "Measured by \`make bench-proxy\` at commit $measured."; cat "$OUT/proxy-profile.txt"; } >"$PROFILE"
  echo >>"$section"
  echo "Where the proxy's CPU goes at 64 concurrent calls: [proxy-profile.txt](proxy-profile.txt) (perf, this run)." >>"$section"
else
  echo "bench: perf is not installed (Debian: linux-perf); $PROFILE is not measured again" >&2
  echo >>"$section"
  echo "perf was not installed for this run: [proxy-profile.txt](proxy-profile.txt) is from an earlier one." >>"$section"
fi

if [[ -n ${PROXY_SECTION_OUT:-} ]]; then
  cp "$section" "$PROXY_SECTION_OUT"
  exit 0
fi
if ! doc_section "$DOC" proxy-bench "$section"; then
  cat "$section"
  exit 1
fi
echo "bench-proxy: wrote the proxy section of $DOC and $PROFILE" >&2
