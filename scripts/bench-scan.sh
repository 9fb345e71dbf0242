#!/usr/bin/env bash
# Times `watchdog scan` against `grep -F -c` with the same literals on the
# same large log, both from the page cache, in paired runs (grep, then scan,
# BENCH_RUNS times); the figure is scan_vs_grep_ratio, the median of the
# pairs' grep seconds / scan seconds, and the goal is >= 2. The two must
# count the same lines (scan's candidates, grep's count): counts_match says.
#
#   scripts/bench-scan.sh
#
# Environment:
#   BENCH_DIR      where the log lives (default /tmp/watchdog-bench); reused
#                  while its .stamp matches size and generator
#   BENCH_SHAPE    long (default: the realistic mix, one hit in 40,000 lines)
#                  or short (~80-byte lines from a dozen templates, one hit
#                  in BENCH_HIT_EVERY, default 2,000)
#   BENCH_SIZE_MB  log size in MiB (default 1024 long, 256 short)
#   BENCH_RUNS     paired runs (default 7)
#   WATCHDOG       the watchdog binary (default ./bin/watchdog); used when it
#                  exists and its `scan` command works. Otherwise the script
#                  builds internal/testbed/scan/scanbench, which calls the
#                  same classify.Scan that `watchdog scan` prints.
#   BENCH_BUILD=1  run `go build -o $WATCHDOG ./cmd/watchdog` first
#   BENCH_STRICT=1 exit 1 when the goal is missed or the counts differ
#
# The literals come from internal/testbed/scan/literals (classify.Literals),
# one per line, so grep searches exactly what the scan's prefilter searches.
# grep runs with LC_ALL=C, its fastest mode and byte semantics like the scan's.
# Runs alternate between the two. Output rows are "name value ..."; times
# are wall-clock seconds, cpu = user+sys of the same run.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH_DIR=${BENCH_DIR:-/tmp/watchdog-bench}
SHAPE=${BENCH_SHAPE:-long}
case $SHAPE in
  long) SIZE_MB=${BENCH_SIZE_MB:-1024} HIT_EVERY=${BENCH_HIT_EVERY:-40000} ;;
  short) SIZE_MB=${BENCH_SIZE_MB:-256} HIT_EVERY=${BENCH_HIT_EVERY:-2000} ;;
  *) echo "bench-scan: BENCH_SHAPE must be long or short" >&2; exit 1 ;;
esac
RUNS=${BENCH_RUNS:-7}
WATCHDOG=${WATCHDOG:-./bin/watchdog}
LOG=$BENCH_DIR/$SHAPE.log
mkdir -p "$BENCH_DIR"

die() { echo "bench-scan: $*" >&2; exit 1; }
[[ $SIZE_MB =~ ^[1-9][0-9]*$ ]] || die "BENCH_SIZE_MB must be a positive integer"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer"

# 1. The log: generated once, reused while the stamp matches.
stamp="shape=$SHAPE size_mb=$SIZE_MB seed=1 hit_every=$HIT_EVERY gen=$(cat internal/testbed/scan/loggen/*.go internal/testbed/scan/genlog/*.go | cksum | cut -d' ' -f1)"
if [[ ! -f $LOG || ! -f $LOG.stamp || $(cat "$LOG.stamp") != "$stamp" ]]; then
  echo "bench-scan: generating $LOG ($SIZE_MB MiB)" >&2
  rm -f "$LOG.stamp"
  go run ./internal/testbed/scan/genlog -shape "$SHAPE" -size-mb "$SIZE_MB" -seed 1 -hit-every "$HIT_EVERY" -out "$LOG.tmp" >&2
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

# Paired runs: grep then scan, BENCH_RUNS times, so that a burst of load on
# a shared machine hits both of a pair; the figure is the median pair.
ratios=() grep_walls=() scan_walls=() grep_cpus=() scan_cpus=()
for (( i = 0; i < RUNS; i++ )); do
  time_run grep grep_count
  grep_walls+=("$wall") grep_cpus+=("$cpu")
  time_run scan our_scan
  scan_walls+=("$wall") scan_cpus+=("$cpu")
  ratios+=("$(awk -v g="${grep_walls[-1]}" -v s="$wall" 'BEGIN { if (s <= 0) s = 0.001; printf "%.3f", g / s }')")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio=$(median "${ratios[@]}")
cpu_ratio=$(awk -v g="$(median "${grep_cpus[@]}")" -v s="$(median "${scan_cpus[@]}")" 'BEGIN { if (s <= 0) s = 0.001; printf "%.2f", g / s }')
goal=$(awk -v r="$ratio" 'BEGIN { print (r >= 2.0) ? "yes" : "no" }')

grep_n=$(head -n1 "$BENCH_DIR/grep.out")
# `watchdog scan` ends with "FILE: N lines, C candidates, F findings"; scanbench prints candidate_lines.
scan_n=$(awk '$1 == "candidate_lines" { print $2 } / candidates, / { for (i = 1; i < NF; i++) if ($(i+1) == "candidates,") print $i }' "$BENCH_DIR/scan.out" | head -n1)
match=$([[ -n $scan_n && $scan_n == "$grep_n" ]] && echo yes || echo no)

echo "file $LOG shape $SHAPE ${SIZE_MB}MiB hit_every $HIT_EVERY literals ${#LITERALS[@]} runs $RUNS"
echo "scanner $scanner"
echo "grep_seconds $(median "${grep_walls[@]}") cpu $(median "${grep_cpus[@]}")"
echo "scan_seconds $(median "${scan_walls[@]}") cpu $(median "${scan_cpus[@]}")"
echo "grep_count $grep_n"
echo "scan_count ${scan_n:-none}"
echo "counts_match $match"
echo "scan_vs_grep_ratio $ratio"
echo "scan_vs_grep_cpu_ratio $cpu_ratio"
echo "goal_ratio_ge_2 $goal"
if [[ ${BENCH_STRICT:-0} == 1 && ( $goal != yes || $match != yes ) ]]; then
  exit 1
fi
