#!/usr/bin/env bash
# Runs every fuzz target of the module, one after another, for $FUZZTIME
# each (default 5m), then prints one line per target: name, package, time,
# result, executions and new interesting inputs. Exits 1 when any target
# failed; a crasher is written to the package's testdata/fuzz/<Target>/ and
# stays there as a seed corpus entry. A run that ends in nothing but Go's
# "context deadline exceeded" (see deadline_race) is reported, not failed.
#
#   FUZZTIME=5m       time per target (go test -fuzztime syntax: 30s, 1000x)
#   FUZZPARALLEL=1    fuzzing workers per target; empty: all cores
#   FUZZMATCH=Parse   only targets whose name matches this regexp
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-5m}
FUZZPARALLEL=${FUZZPARALLEL:-}
FUZZMATCH=${FUZZMATCH:-.}
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT

# deadline_race: the run failed only with the bare "context deadline
# exceeded" that Go's fuzz coordinator (before Go 1.27) can report when a
# worker is mid-input as -fuzztime ends on a loaded machine; a real finding
# writes a crasher or prints more than that.
deadline_race() {
  local body
  body=$(sed -n "/^--- FAIL: $1 /,/^FAIL\$/p" "$2" | sed '1d;$d' | grep -v '^[[:space:]]*$')
  [ "$body" = "    context deadline exceeded" ]
}

par=()
if [ -n "$FUZZPARALLEL" ]; then
  par=(-parallel "$FUZZPARALLEL")
fi

summary=()
failed=0
n=0
for pkg in $(go list ./...); do
  if ! listed=$(go test -list '^Fuzz' "$pkg" 2>&1); then
    echo "$listed"
    summary+=("$(printf '%-26s %-48s %6s  FAIL: the tests do not build' '-' "${pkg#github.com/mcpwatchdog/watchdog/}" '')")
    failed=1
    continue
  fi
  for fn in $(grep '^Fuzz' <<<"$listed" | grep -E -- "$FUZZMATCH" || true); do
    n=$((n + 1))
    log="$logdir/$n.log"
    echo "== $fn ($pkg) for $FUZZTIME ${par[*]}"
    start=$SECONDS
    if go test -run '^$' -fuzz "^${fn}\$" -fuzztime "$FUZZTIME" "${par[@]}" "$pkg" 2>&1 | tee "$log"; then
      result=ok
    else
      result=FAIL
      crasher=$(grep -o 'testdata/fuzz/[^ ]*' "$log" | tail -n 1 || true)
      if [ -n "$crasher" ]; then
        result="FAIL crasher ${pkg#github.com/mcpwatchdog/watchdog/}/$crasher"
      elif deadline_race "$fn" "$log" && go test -count=1 -run "^${fn}\$" "$pkg" >/dev/null 2>&1; then
        result="ok (stopped by Go's fuzztime deadline race, go.dev/issue/75804: no crasher, seed corpus passes)"
      fi
      [ "${result%% *}" = FAIL ] && failed=1
    fi
    # The last progress line holds the run's totals.
    last=$(grep '^fuzz: elapsed:' "$log" | tail -n 1 || true)
    execs=$(sed -n 's/.*execs: \([0-9]*\).*/\1/p' <<<"$last")
    interesting=$(sed -n 's/.*new interesting: \([0-9]*\).*/\1/p' <<<"$last")
    summary+=("$(printf '%-26s %-48s %5ss  execs=%-10s new=%-5s %s' "$fn" "${pkg#github.com/mcpwatchdog/watchdog/}" \
      $((SECONDS - start)) "${execs:-?}" "${interesting:-?}" "$result")")
  done
done

echo
echo "== fuzz summary ($n targets, $FUZZTIME each${FUZZPARALLEL:+, parallel $FUZZPARALLEL})"
for line in "${summary[@]}"; do
  echo "$line"
done
if [ "$n" -eq 0 ]; then
  echo "no fuzz target matched $FUZZMATCH"
  exit 1
fi
exit "$failed"
