#!/usr/bin/env bash
# Times `watchdog scan` against `grep -F -c` with the same literals on the
# same large log, both from the page cache; the goal is scan_vs_grep_ratio
# (grep seconds / scan seconds, best of BENCH_RUNS each) >= 1.0.
#
#   scripts/bench-scan.sh
#
# Environment:
#   BENCH_DIR      where the log lives (default /tmp/watchdog-bench); reused
#                  while its .stamp matches size and generator
#   BENCH_SIZE_MB  log size in MiB (default 1024)
#   BENCH_RUNS     timed runs of each command, best kept (default 3)
#   WATCHDOG       the watchdog binary (default ./bin/watchdog); used when it
#                  exists and its `scan` command works. Otherwise the script
#                  builds internal/testbed/scan/scanbench, which calls the
#                  same classify.Scan that `watchdog scan` prints.
#   BENCH_BUILD=1  run `go build -o $WATCHDOG ./cmd/watchdog` first
#   BENCH_STRICT=1 exit 1 when the goal is missed (default: report only)
#
# The literals come from internal/testbed/scan/literals (classify.Literals),
# one per line, so grep searches exactly what the scan's prefilter searches.
# grep runs with LC_ALL=C, its fastest mode and byte semantics like the scan's.
# Runs alternate between the two. Output rows are "name value ..."; times
# are wall-clock seconds, cpu = user+sys of the same run.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH_DIR=${BENCH_DIR:-/tmp/watchdog-bench}
SIZE_MB=${BENCH_SIZE_MB:-1024}
RUNS=${BENCH_RUNS:-3}
WATCHDOG=${WATCHDOG:-./bin/watchdog}
LOG=$BENCH_DIR/big.log
mkdir -p "$BENCH_DIR"

die() { echo "bench-scan: $*" >&2; exit 1; }
[[ $SIZE_MB =~ ^[1-9][0-9]*$ ]] || die "BENCH_SIZE_MB must be a positive integer"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer"

# 1. The log: generated once, reused while the stamp matches.
stamp="size_mb=$SIZE_MB seed=1 hit_every=40000 gen=$(cat internal/testbed/scan/loggen/*.go | cksum | cut -d' ' -f1)"
if [[ ! -f $LOG || ! -f $LOG.stamp || $(cat "$LOG.stamp") != "$stamp" ]]; then
  echo "bench-scan: generating $LOG ($SIZE_MB MiB)" >&2
  rm -f "$LOG.stamp"
  go run ./internal/testbed/scan/genlog -size-mb "$SIZE_MB" -seed 1 -hit-every 40000 -out "$LOG.tmp" >&2
  mv "$LOG.tmp" "$LOG"
  echo "$stamp" > "$LOG.stamp"
fi

# 2. The literals, for grep.
go build -o "$BENCH_DIR/literals" ./internal/testbed/scan/literals
mapfile -t LITERALS < <("$BENCH_DIR/literals")
(( ${#LITERALS[@]} > 0 )) || die "no literals"
GREP_ARGS=()
for l in "${LITERALS[@]}"; do GREP_ARGS+=(-e "$l"); done

# 3. Our scanner: the CLI when it works, else the stand-in.
if [[ ${BENCH_BUILD:-0} == 1 ]]; then
  go build -o "$WATCHDOG" ./cmd/watchdog || echo "bench-scan: building $WATCHDOG failed" >&2
fi
probe=$BENCH_DIR/probe.log
printf 'Session not found\n' > "$probe"
if [[ -x $WATCHDOG ]] && "$WATCHDOG" scan "$probe" >/dev/null 2>&1; then
  SCAN=("$WATCHDOG" scan)
  scanner="$WATCHDOG scan"
else
  go build -o "$BENCH_DIR/scanbench" ./internal/testbed/scan/scanbench
  SCAN=("$BENCH_DIR/scanbench")
  scanner="internal/testbed/scan/scanbench (no working $WATCHDOG)"
fi

grep_count() { LC_ALL=C grep -F -c "${GREP_ARGS[@]}" "$LOG" || [[ $? == 1 ]]; }
our_scan() { "${SCAN[@]}" "$LOG"; }

# 4. Warm the page cache, and say when it cannot hold the file.
cat "$LOG" > /dev/null
cat "$LOG" > /dev/null
size_kb=$(( $(wc -c < "$LOG") / 1024 ))
if [[ -r /proc/meminfo ]]; then
  avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
  (( avail_kb > size_kb * 2 )) || echo "bench-scan: warning: ${avail_kb} kB available for a ${size_kb} kB file; times may include disk reads" >&2
fi

# time_run NAME FUNC: runs FUNC once, keeping its stdout in $BENCH_DIR/NAME.out;
# sets wall and cpu.
time_run() {
  local name=$1 fn=$2 t u s
  t=$( { TIMEFORMAT='%R %U %S'; time "$fn" > "$BENCH_DIR/$name.out" 2> "$BENCH_DIR/$name.err"; } 2>&1 ) \
    || die "$name failed: $(cat "$BENCH_DIR/$name.err")"
  read -r wall u s <<< "$t"
  cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
}

# less A B: A < B as numbers.
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# Alternate the two, so that a burst of load on a shared machine hits both;
# keep the best wall time of each (and that run's cpu).
grep_wall="" scan_wall=""
for (( i = 0; i < RUNS; i++ )); do
  time_run grep grep_count
  if [[ -z $grep_wall ]] || less "$wall" "$grep_wall"; then grep_wall=$wall grep_cpu=$cpu; fi
  time_run scan our_scan
  if [[ -z $scan_wall ]] || less "$wall" "$scan_wall"; then scan_wall=$wall scan_cpu=$cpu; fi
done

ratio=$(awk -v g="$grep_wall" -v s="$scan_wall" 'BEGIN { if (s <= 0) s = 0.001; printf "%.2f", g / s }')
cpu_ratio=$(awk -v g="$grep_cpu" -v s="$scan_cpu" 'BEGIN { if (s <= 0) s = 0.001; printf "%.2f", g / s }')
goal=$(awk -v r="$ratio" 'BEGIN { print (r >= 1.0) ? "yes" : "no" }')

echo "file $LOG ${SIZE_MB}MiB literals ${#LITERALS[@]} runs $RUNS"
echo "scanner $scanner"
echo "grep_seconds $grep_wall cpu $grep_cpu"
echo "scan_seconds $scan_wall cpu $scan_cpu"
echo "grep_count $(head -n1 "$BENCH_DIR/grep.out")"
if cand=$(awk '$1 == "candidate_lines" {print $2}' "$BENCH_DIR/scan.out") && [[ -n $cand ]]; then
  echo "scan_candidate_lines $cand"
  [[ $cand == "$(head -n1 "$BENCH_DIR/grep.out")" ]] || echo "bench-scan: warning: grep and scan selected different line counts" >&2
fi
echo "scan_vs_grep_ratio $ratio"
echo "scan_vs_grep_cpu_ratio $cpu_ratio"
echo "goal_ratio_ge_1 $goal"
if [[ ${BENCH_STRICT:-0} == 1 && $goal != yes ]]; then
  exit 1
fi
