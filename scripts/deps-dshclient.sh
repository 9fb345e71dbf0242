#!/usr/bin/env bash
# Fetches the REAL @deepseek-ai/dsh-mcp-client (MIT) releases that the client-patch tests
# run against (git-ignored: never committed):
#   0.1.0-rc.8 into testdata/dshclient/real/ (the build the patch is fitted to);
#   0.1.0-rc.7 into testdata/dshclient/real-0.1.0-rc.7/ (the same lib/index.js: told apart
#   by its package.json);
#   0.0.1-rc.1 into testdata/dshclient/real-0.0.1-rc.1/ (no reconnect supervisor: the patch
#   cannot help it, and says so).
# Safe to run again: a stamp records the version and the digest of lib/index.js, and a
# fetch is skipped while both match (FORCE=1 fetches anyway).
set -euo pipefail
cd "$(dirname "$0")/.."

releases=(
  "0.1.0-rc.8 b126dcec8a0425a33199c5ddcd8638269a560c0b7328cd6306858c1969887d56 testdata/dshclient/real"
  "0.1.0-rc.7 b126dcec8a0425a33199c5ddcd8638269a560c0b7328cd6306858c1969887d56 testdata/dshclient/real-0.1.0-rc.7"
  "0.0.1-rc.1 88f6cfe9ca486d171108b85ca115ab6887e17ab064f2deb7eec7086ca2882690 testdata/dshclient/real-0.0.1-rc.1"
)

digest() { sha256sum "$1" | cut -d' ' -f1; }

fetch() {
  local version=$1 want=$2 dest=$3
  local stamp=$dest/.deps-dshclient-stamp
  if [ "${FORCE:-0}" != 1 ] && [ -f "$stamp" ] && [ -f "$dest/lib/index.js" ] &&
    [ "$(cat "$stamp")" = "$version $want" ] && [ "$(digest "$dest/lib/index.js")" = "$want" ]; then
    echo "deps-dshclient: $dest is up to date (dsh-mcp-client $version)"
    return 0
  fi
  local tmp
  tmp=$(mktemp -d)
  if ! (cd "$tmp" && npm pack --silent --no-audit --no-fund "@deepseek-ai/dsh-mcp-client@$version" >/dev/null); then
    echo "deps-dshclient: npm pack @deepseek-ai/dsh-mcp-client@$version failed; check the npm registry is reachable (npm config get registry), then run: make deps" >&2
    rm -rf "$tmp"
    return 1
  fi
  tar -xzf "$tmp"/deepseek-ai-dsh-mcp-client-"$version".tgz -C "$tmp"
  local got
  got=$(digest "$tmp/package/lib/index.js")
  if [ "$got" != "$want" ]; then
    echo "deps-dshclient: lib/index.js of dsh-mcp-client $version has sha256 $got, want $want; refusing to use it" >&2
    rm -rf "$tmp"
    return 1
  fi
  # Swap the whole folder in at once, so a failed run never leaves half a package.
  mkdir -p "$(dirname "$dest")"
  rm -rf "$dest.new"
  mv "$tmp/package" "$dest.new"
  echo "$version $want" >"$dest.new/.deps-dshclient-stamp"
  rm -rf "$dest"
  mv "$dest.new" "$dest"
  rm -rf "$tmp"
  echo "deps-dshclient: fetched dsh-mcp-client $version into $dest"
}

if ! command -v npm >/dev/null 2>&1; then
  echo "deps-dshclient: npm not found; install Node.js 20+ and npm (Debian/Ubuntu: apt-get install -y nodejs npm), then run: make deps" >&2
  exit 1
fi
for r in "${releases[@]}"; do
  # shellcheck disable=SC2086 # the fields are split on purpose
  fetch $r
done
