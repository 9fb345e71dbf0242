#!/usr/bin/env bash
# Fetches the REAL @deepseek-ai/dsh-mcp-client (MIT) that the client-patch tests
# run against, into testdata/dshclient/real/ (git-ignored: never committed).
# Safe to run again: a stamp records the version and the digest of lib/index.js,
# and the fetch is skipped while both match (FORCE=1 fetches anyway).
set -euo pipefail
cd "$(dirname "$0")/.."

version=0.1.0-rc.8
want=b126dcec8a0425a33199c5ddcd8638269a560c0b7328cd6306858c1969887d56
dest=testdata/dshclient/real
stamp=$dest/.deps-dshclient-stamp

digest() { sha256sum "$1" | cut -d' ' -f1; }

if [ "${FORCE:-0}" != 1 ] && [ -f "$stamp" ] && [ -f "$dest/lib/index.js" ] &&
  [ "$(cat "$stamp")" = "$version $want" ] && [ "$(digest "$dest/lib/index.js")" = "$want" ]; then
  echo "deps-dshclient: $dest is up to date (dsh-mcp-client $version)"
  exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
  echo "deps-dshclient: npm not found; install Node.js 20+ and npm (Debian/Ubuntu: apt-get install -y nodejs npm), then run: make deps" >&2
  exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && npm pack --silent --no-audit --no-fund "@deepseek-ai/dsh-mcp-client@$version" >/dev/null); then
  echo "deps-dshclient: npm pack @deepseek-ai/dsh-mcp-client@$version failed; check the npm registry is reachable (npm config get registry), then run: make deps" >&2
  exit 1
fi
tar -xzf "$tmp"/deepseek-ai-dsh-mcp-client-"$version".tgz -C "$tmp"
got=$(digest "$tmp/package/lib/index.js")
if [ "$got" != "$want" ]; then
  echo "deps-dshclient: lib/index.js of dsh-mcp-client $version has sha256 $got, want $want; refusing to use it" >&2
  exit 1
fi

# Swap the whole folder in at once, so a failed run never leaves half a package.
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.new"
mv "$tmp/package" "$dest.new"
echo "$version $want" >"$dest.new/.deps-dshclient-stamp"
rm -rf "$dest"
mv "$dest.new" "$dest"
echo "deps-dshclient: fetched dsh-mcp-client $version into $dest"
