#!/usr/bin/env bash
# Installs the REAL Codex CLI (@openai/codex 0.169.0, Apache-2.0; its native binary comes
# as the npm package of the platform) that internal/testbed/hosts runs, into
# testdata/hosts/codex/node_modules (git-ignored: never committed), as
# testdata/hosts/codex/package-lock.json pins it. Safe to run again: a stamp records the
# lockfile's digest and the install is skipped while it matches (FORCE=1 installs anyway).
# Linux x86_64 only, as the rig's other hosts.
set -euo pipefail
cd "$(dirname "$0")/../testdata/hosts/codex"

fail() {
  echo "deps-codex: $*" >&2
  exit 1
}

if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
  echo "deps-codex: the real Codex CLI is installed on Linux x86_64 only; skipping on $(uname -s)-$(uname -m)"
  exit 0
fi
command -v npm >/dev/null 2>&1 ||
  fail "npm not found; install Node.js 20+ and npm (Debian/Ubuntu: apt-get install -y nodejs npm), then run: make deps"

stamp=node_modules/.deps-codex-stamp
want=$(sha256sum package-lock.json | cut -d' ' -f1)
bin=node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
if [ "${FORCE:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$bin" ]; then
  echo "deps-codex: testdata/hosts/codex/node_modules is up to date (@openai/codex 0.169.0)"
  exit 0
fi
rm -f "$stamp"
log=$(mktemp)
if ! npm ci --no-audit --no-fund --ignore-scripts >"$log" 2>&1; then
  tail -20 "$log" >&2
  rm -f "$log"
  fail "npm ci in testdata/hosts/codex failed; check the npm registry is reachable (npm config get registry), then run: make deps"
fi
rm -f "$log"
[ -x "$bin" ] || fail "$bin is missing after npm ci; the platform package @openai/codex-linux-x64 did not install"
got=$("$bin" --version)
[ "$got" = "codex-cli 0.169.0" ] || fail "$bin --version says $got, want codex-cli 0.169.0"
echo "$want" >"$stamp"
echo "deps-codex: installed $got into testdata/hosts/codex/node_modules"
