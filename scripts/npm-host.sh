# Sourced by scripts/deps-codex.sh, deps-gemini.sh and deps-claude.sh: installs a real host
# from the npm lockfile of testdata/hosts/$HOST_DIR into its node_modules
# (git-ignored), skipped while a stamp of the lockfile's digest matches
# (FORCE=1 installs anyway), then checks what it installed. The caller sets
#   HOST_DIR   the folder under testdata/hosts (codex, gemini, claude)
#   HOST_LABEL what messages call it ("@openai/codex 0.169.0")
#   HOST_BIN   the file the install must leave, relative to the folder
#   host_version  a function printing the installed host's version
#   HOST_WANT  what host_version must print
#   host_postinstall  optional: a function doing, after npm ci, what the
#                     host's own install scripts would (--ignore-scripts)
# Linux x86_64 only, as the rig's other hosts.
set -euo pipefail
# shellcheck source=scripts/isolate.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/isolate.sh"
cd "$(dirname "$0")/../testdata/hosts/$HOST_DIR"

fail() {
  echo "deps-$HOST_DIR: $*" >&2
  exit 1
}

if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
  echo "deps-$HOST_DIR: $HOST_LABEL is installed on Linux x86_64 only; skipping on $(uname -s)-$(uname -m)"
  exit 0
fi
command -v npm >/dev/null 2>&1 ||
  fail "npm not found; install Node.js 20+ and npm (Debian/Ubuntu: apt-get install -y nodejs npm), then run: make deps"

stamp=node_modules/.deps-$HOST_DIR-stamp
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ "${FORCE:-0}" != 1 ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -e "$HOST_BIN" ]; then
  echo "deps-$HOST_DIR: testdata/hosts/$HOST_DIR/node_modules is up to date ($HOST_LABEL)"
  exit 0
fi
rm -f "$stamp"
log=$(mktemp)
if ! npm ci --no-audit --no-fund --ignore-scripts >"$log" 2>&1; then
  tail -20 "$log" >&2
  rm -f "$log"
  fail "npm ci in testdata/hosts/$HOST_DIR failed; check the npm registry is reachable (npm config get registry), then run: make deps"
fi
rm -f "$log"
if declare -F host_postinstall >/dev/null; then host_postinstall; fi
[ -e "$HOST_BIN" ] || fail "$HOST_BIN is missing after npm ci"
got=$(isolated host_version)
[ "$got" = "$HOST_WANT" ] || fail "$HOST_BIN --version says $got, want $HOST_WANT"
echo "$want" >"$stamp"
echo "deps-$HOST_DIR: installed $HOST_LABEL into testdata/hosts/$HOST_DIR/node_modules"
