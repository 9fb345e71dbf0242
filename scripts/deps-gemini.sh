#!/usr/bin/env bash
# Installs the REAL Gemini CLI (@google/gemini-cli 0.61.0, Apache-2.0; one bundled
# JavaScript file, run on the system's Node 20+) that internal/testbed/hosts runs, into
# testdata/hosts/gemini/node_modules (git-ignored: never committed), as
# testdata/hosts/gemini/package-lock.json pins it. Safe to run again: a stamp records the
# lockfile's digest and the install is skipped while it matches (FORCE=1 installs anyway).
# Linux x86_64 only, as the rig's other hosts.
set -euo pipefail
cd "$(dirname "$0")/../testdata/hosts/gemini"

fail() {
  echo "deps-gemini: $*" >&2
  exit 1
}

if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
  echo "deps-gemini: the real Gemini CLI is installed on Linux x86_64 only; skipping on $(uname -s)-$(uname -m)"
  exit 0
fi
command -v npm >/dev/null 2>&1 ||
  fail "npm not found; install Node.js 20+ and npm (Debian/Ubuntu: apt-get install -y nodejs npm), then run: make deps"

stamp=node_modules/.deps-gemini-stamp
want=$(sha256sum package-lock.json | cut -d' ' -f1)
bin=node_modules/@google/gemini-cli/bundle/gemini.js
if [ "${FORCE:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$bin" ]; then
  echo "deps-gemini: testdata/hosts/gemini/node_modules is up to date (@google/gemini-cli 0.61.0)"
  exit 0
fi
rm -f "$stamp"
log=$(mktemp)
if ! npm ci --no-audit --no-fund --ignore-scripts >"$log" 2>&1; then
  tail -20 "$log" >&2
  rm -f "$log"
  fail "npm ci in testdata/hosts/gemini failed; check the npm registry is reachable (npm config get registry), then run: make deps"
fi
rm -f "$log"
[ -f "$bin" ] || fail "$bin is missing after npm ci"
got=$(node "$bin" --version)
[ "$got" = "0.61.0" ] || fail "node $bin --version says $got, want 0.61.0"
echo "$want" >"$stamp"
echo "deps-gemini: installed Gemini CLI $got into testdata/hosts/gemini/node_modules"
