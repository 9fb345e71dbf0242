#!/usr/bin/env bash
# Runs every fuzz target of the module for $FUZZTIME each (default 60s).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-60s}
for pkg in $(go list ./...); do
  for fn in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "== $fn ($pkg) for $FUZZTIME"
    go test -run '^$' -fuzz "^${fn}\$" -fuzztime "$FUZZTIME" "$pkg"
  done
done
