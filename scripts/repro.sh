#!/usr/bin/env bash
# make repro: the offline reproduction of dsh-mcp-client's session-loss bug. For each
# real stateful server (Go SDK, TypeScript SDK) and each client (the stand-in in
# testdata/dshclient and the real npm dsh-mcp-client 0.1.0-rc.8), unpatched and patched,
# the server loses the session mid-run and the line says STUCK or RECOVERED. Exits 0 only
# when every unpatched client is STUCK and every patched one RECOVERED.
# Extra arguments go to the runner (internal/testbed/repro/cmd/repro), e.g. -runs 10 -markdown
# for the benchmark rows `make bench` prints; with them only the runner runs.
# Without them, the real DSH host (0.1.0-rc.8, internal/testbed/hosts) follows: on the Go
# SDK server, after an idle expiry and a restart, unpatched (STUCK), patched and proxied,
# a verdict line each.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps-node.sh >&2
bash scripts/deps-dshclient.sh >&2
if [ $# -gt 0 ]; then
  exec go run ./internal/testbed/repro/cmd/repro "$@"
fi
go run ./internal/testbed/repro/cmd/repro
bash scripts/deps-dsh.sh >&2
echo "The real DSH host:"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if ! go test -count=1 -v -run '^TestDSHRow$' ./internal/testbed/hosts >"$out" 2>&1; then
  cat "$out" >&2
  exit 1
fi
grep -o 'verdict: .*' "$out" | sed 's/^verdict: /  /' | sort
